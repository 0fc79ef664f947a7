OK_FORMAT = True

test = {   'name': 'q10',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(staged_pair, checks.Tuple(checks.INT, checks.INT, checks.INT), \'staged_pair\', hint="LayoutC_TV gives the element; Swizzle<3,3,4> '
                                               'XORs the row\'s low three bits into the 16-byte chunk")\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
