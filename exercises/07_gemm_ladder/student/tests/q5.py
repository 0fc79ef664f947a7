OK_FORMAT = True

test = {   'name': 'q5',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(ldsm_row, checks.Tuple(checks.INT, checks.INT, checks.INT), \'ldsm_row\', hint="XOR the chunk with the row\'s low three bits, then '
                                               'count 128 bytes a row and 16 a chunk")\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
