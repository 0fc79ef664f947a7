OK_FORMAT = True

test = {   'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert isinstance(cute_stride, tuple) and all((isinstance(m, tuple) for m in cute_stride)), 'cute_stride should be a tuple of two tuples'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': ">>> assert tuple((tuple((int(d) for d in m)) for m in cute_stride)) == ((4, 16), (1, 8)), 'a row inside a tile is 4 elements, a tile row 16; a column "
                                               "is 1 element, the next tile 8'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
