OK_FORMAT = True

test = {   'name': 'q14',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(fp8_code, checks.Tuple(checks.INT, checks.INT, checks.INT), 'fp8_code', hint='write |value| as 1.m x 2^e, add the bias to e; a value "
                                               "past the largest finite one keeps the largest finite code')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
