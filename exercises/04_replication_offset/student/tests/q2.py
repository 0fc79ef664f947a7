OK_FORMAT = True

test = {   'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert [tuple(e) for e in at_33_3] == [(97, 0), (97, 1), (97, 2), (97, 3)], 'lane 33 is local lane 1 of partition 1; column 3 holds the rows 96 + "
                                               "local lane, all four bytes'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
