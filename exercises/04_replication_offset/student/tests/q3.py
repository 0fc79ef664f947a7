OK_FORMAT = True

test = {   'name': 'q3',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': ">>> assert devices_replica == {(0, 1), (1, 1)}, 'row 6 is in the second half (gpuid_y = 1), replicated over both gpuid_x'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {'code': ">>> assert devices_offset == {(1, 1)}, 'the offset moves the only copy to gpuid_x = 1'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert devices_sharded == {(0, 1)}, 'column 3 is in the first column half: gpuid_x = 0'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert offset_replica == 19, 'local offset (6 % 4)*8 + 3'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert offset_sharded == 11, 'each device holds a 4x4 block: (6 % 4)*4 + 3 % 4'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
