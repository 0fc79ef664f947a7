OK_FORMAT = True

test = {   'name': 'q5',
    'points': 2,
    'suites': [   {   'cases': [   {'code': ">>> assert slot_cpp == 51, '3 + 16 + 32'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert slot_static == 75, '3 + 64 + 8'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
