OK_FORMAT = True

test = {   'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {'code': ">>> assert stored_col == 6, '3 XOR 5 = 0b011 ^ 0b101 = 0b110'\n", 'hidden': False, 'locked': False},
                                   {   'code': ">>> assert tuple(column_cycles) == (8, 1), 'row-major, all 8 elements of a column are in one bank; XOR spreads them over 8'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
