OK_FORMAT = True

test = {   'name': 'q10',
    'points': [0],
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(trans_lane5, checks.ListOf(checks.Tuple(checks.INT, checks.INT, name='(row, col) pair'), 2), 'trans_lane5')\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
