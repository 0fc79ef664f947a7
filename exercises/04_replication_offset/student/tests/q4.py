OK_FORMAT = True

test = {   'name': 'q4',
    'points': 2,
    'suites': [   {   'cases': [   {'code': ">>> assert n_scales == 2, '64 elements along K, 32 per scale factor'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert d_value == 80.0, 'block 0: 32 * 0.5 * 4 = 64; block 1: 32 * 2 * 0.25 = 16'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
