OK_FORMAT = True

test = {   'name': 'q1',
    'points': 2,
    'suites': [   {   'cases': [   {'code': ">>> assert tuple(a_6_5) == (1, 13), 'm = 6 // 4 + 8 * v1 = 1, k = 2 * (6 % 4) + v0 + 8 * v2 = 4 + 1 + 8'\n", 'hidden': False, 'locked': False},
                                   {   'code': ">>> assert tuple(owner_9_4) == (6, 2), 'lane = 4 * (9 % 8) + (4 % 8) // 2 = 6, value = 4 % 2 + 2 * (9 // 8) + 4 * (4 // 8) = 2'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
