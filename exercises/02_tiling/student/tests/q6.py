OK_FORMAT = True

test = {   'name': 'q6',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> from labkit.grading import checks\n>>> checks.form(stride_mixed, checks.Tuple(checks.INT, checks.Tuple(checks.INT, checks.INT)), 'stride_mixed')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
