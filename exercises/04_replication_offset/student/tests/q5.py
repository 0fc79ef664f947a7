OK_FORMAT = True

test = {   'name': 'q5',
    'points': 1,
    'suites': [   {   'cases': [   {'code': ">>> assert bytes_base == 512, '32 lanes x 4 columns x 4 bytes: exactly the 128 x 4 one-byte factors'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert bytes_warpx4 == 2048, 'four partitions, each a copy of the 512-byte base tile'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
