OK_FORMAT = True

test = {   'name': 'q5',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': ">>> assert r5 == 32, 'B(5): index 5 of shape (4, 3) is (1, 1), so B(5) = 3 + 1 = 4; A(4): index 4 of (6, 2) is (4, 0), so 4 * 8 = 32'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
