OK_FORMAT = True

test = {   'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(a_l1, checks.Tuple(checks.INT, checks.INT, name='(m, k) pair'), 'a_l1', hint='split the lane into (t0, t1) and the value into (v0, v1, "
                                               "v2), then apply the strides')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
