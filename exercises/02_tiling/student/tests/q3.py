OK_FORMAT = True

test = {   'name': 'q3',
    'points': 1,
    'suites': [   {   'cases': [{'code': ">>> assert start_31 == 52, 'tile (3, 1) starts at row 3*2 = 6, column 1*4 = 4, offset 6*8 + 4'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
