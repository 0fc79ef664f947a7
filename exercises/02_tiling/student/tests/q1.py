OK_FORMAT = True

test = {   'name': 'q1',
    'points': 2,
    'suites': [   {   'cases': [   {'code': ">>> assert isinstance(x_45, int) and isinstance(addr_45, int), 'x_45 and addr_45 should be ints'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert x_45 == 37, 'the row-major index of (4, 5) is 8 * 4 + 5'\n", 'hidden': False, 'locked': False},
                                   {   'code': ">>> assert tuple(digits_45) == (2, 0, 1, 1), '37 = 2*16 + 0*8 + 1*4 + 1: tile row 2, row 0 of the tile, tile column 1, column 1 of the tile'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {'code': ">>> assert addr_45 == 41, 'the address is 2*16 + 0*4 + 1*8 + 1*1'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
