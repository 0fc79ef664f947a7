OK_FORMAT = True

test = {   'name': 'q4',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(sw128_element, checks.Tuple(checks.INT, checks.INT, checks.INT), \'sw128_element\', hint="a chunk is 8 halves; XOR the chunk with the '
                                               'row\'s three low bits, then count 1024 bytes a group, 128 a row, 16 a chunk")\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
