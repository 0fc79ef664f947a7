OK_FORMAT = True

test = {   'name': 'q10',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(sw_m10, checks.Tuple(checks.INT, checks.INT, checks.INT), 'sw_m10', hint='yyy starts at bit M + S, zzz at bit M; both are B bits "
                                               "wide')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
