OK_FORMAT = True

test = {   'name': 'q4',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(row_swizzles, checks.Tuple(checks.SWIZZLE, checks.SWIZZLE), 'row_swizzles', hint='2**M elements make 16 bytes and 2**(M+S) elements "
                                               "make a row')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
