OK_FORMAT = True

test = {   'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {'code': ">>> assert tuple(reg_A09) == ('a2', 'high'), 'A(0,9) is lane 0, value 5 = 2*2 + 1: register a2, high half'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert tuple(reg_B08) == ('b1', 'low'), 'B(0,8) is lane 0, value 2 = 2*1 + 0: register b1, low half'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
