OK_FORMAT = True

test = {   'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {'code': ">>> assert (lane_65, slot_65) == (26, 1), 'lane 4*6 + 5//2 = 26, slot 5 % 2 = 1'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert [tuple(e) for e in lane9_elements] == [(2, 2), (2, 3)], 'lane 9 = 4*2 + 1: row 2, columns 2 and 3'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
