OK_FORMAT = True

test = {   'name': 'q1',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(tma_stage, checks.Tuple(checks.INT, checks.INT, checks.INT), \'tma_stage\', hint="a stage holds one k-tile of the block\'s rows of A '
                                               'and of B; one box per operand")\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
