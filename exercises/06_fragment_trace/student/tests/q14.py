OK_FORMAT = True

test = {   'name': 'q14',
    'points': 6,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> from labkit.grading import kernels\n'
                                               '>>> checks.form(ldsm_a_offset, kernels.RowAddress(\'A\'), \'ldsm_a_offset\', hint="look up which 8x8 block of the fragment each register a_j holds '
                                               '(lane 0\'s table in chapter 6)")\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
