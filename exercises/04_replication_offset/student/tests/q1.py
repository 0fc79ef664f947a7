OK_FORMAT = True

test = {   'name': 'q1',
    'points': 2,
    'suites': [   {   'cases': [   {'code': ">>> assert isinstance(copies_70_1, list) and len(copies_70_1) == 4, 'there is one copy per partition, four in all'\n", 'hidden': False, 'locked': False},
                                   {   'code': ">>> assert [tuple(c) for c in copies_70_1] == [(6, 2, 1), (38, 2, 1), (70, 2, 1), (102, 2, 1)], 'local lane 70 % 32 = 6, column 70 // 32 = 2, byte 1, "
                                               "in lanes 6 + 32p'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
