OK_FORMAT = True

test = {   'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(owner_a2, checks.Tuple(checks.INT, checks.INT, name='(lane, value) pair'), 'owner_a2', hint='invert m = t1 + 8 v1 and k = 2 t0 + v0 + "
                                               "8 v2')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
