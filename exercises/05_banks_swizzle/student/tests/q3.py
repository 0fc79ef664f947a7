OK_FORMAT = True

test = {   'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {'code': ">>> assert swizzled_3_10 == 210, '202 is line 3, chunk 1, half 2; chunk 1 XOR 3 = 2, so 3*64 + 2*8 + 2'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert chunk_3_10 == 2, 'logical chunk 1 of row 3 moves to chunk 1 ^ 3'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
