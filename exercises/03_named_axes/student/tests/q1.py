OK_FORMAT = True

test = {   'name': 'q1',
    'points': 2,
    'suites': [   {   'cases': [   {'code': ">>> assert tuple(pos_1000) == (3, 232), '1000 = 3 * 256 + 232: row 3 goes to TLane, column 232 to TCol'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert tuple(elem_64_255) == (64, 255), 'row r is in lane r and column c in column c'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
