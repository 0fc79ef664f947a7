OK_FORMAT = True

test = {   'name': 'q5',
    'points': 2,
    'suites': [   {   'cases': [   {'code': ">>> assert warp_c == 3, 'row 20 is in warp row 20 // 16 = 1, column 12 in warp column 12 // 8 = 1: warp 1 + 2*1'\n", 'hidden': False, 'locked': False},
                                   {   'code': ">>> assert (lane_c, slot_c) == (18, 0), 'inside the atom C(20, 12) is (4, 4): lane 4*4 + 4//2 = 18, slot 4 % 2 + 2*(4 // 8) = 0'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
