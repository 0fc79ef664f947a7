OK_FORMAT = True

test = {   'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {'code': ">>> assert tuple(coord_13) == (1, 3), 'with 4 rows, index 13 is row 13 % 4 and column 13 // 4'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert offset_13 == 11, 'the offset of (1, 3) is 1 * 8 + 3 * 1'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
