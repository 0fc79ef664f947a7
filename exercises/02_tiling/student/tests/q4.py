OK_FORMAT = True

test = {   'name': 'q4',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(stride_mixed, tuple) and isinstance(stride_static, tuple), 'the strides should be nested tuples'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert stride_mixed == (1, (4, 8)), 'the static _2048 ranks before both dynamic orders: the 4 goes first, then the two K modes in order'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {'code': ">>> assert stride_static == (4, (1, 2)), 'all static: 144 < 288 < 2048, so the K modes go first'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
