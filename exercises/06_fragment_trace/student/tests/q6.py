OK_FORMAT = True

test = {   'name': 'q6',
    'points': 1,
    'suites': [   {   'cases': [   {'code': ">>> assert isinstance(lane5_v2, int), 'lane5_v2 should be an int'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert lane5_v2 == 146, 'lane 5, value 2 holds A(5 // 4 + 8, 2 * (5 % 4)) = A(9, 2): 16 * 9 + 2'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
