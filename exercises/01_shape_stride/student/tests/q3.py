OK_FORMAT = True

test = {   'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {'code': '>>> assert isinstance(coalesced, str), "coalesced should be a string such as \'_4:_2\'"\n', 'hidden': False, 'locked': False},
                                   {'code': ">>> assert coalesced.replace(' ', '') == '_12:_1', '2:1 followed by 6:2 is one run of 12 with stride 1'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
