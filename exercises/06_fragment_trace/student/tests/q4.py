OK_FORMAT = True

test = {   'name': 'q4',
    'points': 2,
    'suites': [   {   'cases': [{'code': ">>> assert tuple(per_k_block) == (4, 4, 32), '4 A fragments (x4 each), 8 B fragments (two per x4), 4 x 8 MMAs'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
