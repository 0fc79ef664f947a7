OK_FORMAT = True

test = {   'name': 'q3',
    'points': 1,
    'suites': [   {   'cases': [{'code': ">>> assert b_matrices == 2, 'each 8x8 matrix gives every lane 2 values: 4 values need ldmatrix.x2'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
