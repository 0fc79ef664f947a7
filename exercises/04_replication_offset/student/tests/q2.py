OK_FORMAT = True

test = {   'name': 'q2',
    'points': [0],
    'suites': [   {   'cases': [   {   'code': ">>> from labkit.grading import checks\n>>> checks.form(at_33_3, checks.SetOf(checks.Tuple(checks.INT, checks.INT, name='(m, sfk) pair')), 'at_33_3')\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
