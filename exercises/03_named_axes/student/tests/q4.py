OK_FORMAT = True

test = {   'name': 'q4',
    'points': 2,
    'suites': [   {   'cases': [   {'code': ">>> assert lane_a == 5, 'lane = 4*(9 % 8) + (10 % 8)//2 = 4 + 1'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert slot_a == 6, 'slot = 10 % 2 + 2*(9 // 8) + 4*(10 // 8) = 0 + 2 + 4'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
