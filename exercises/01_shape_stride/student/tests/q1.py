OK_FORMAT = True

test = {   'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {'code': ">>> assert isinstance(offset_23, int), 'offset_23 should be an int'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert offset_23 == 19, 'the offset is the dot product of the coordinate and the stride'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
