OK_FORMAT = True

test = {   'name': 'q5',
    'points': 2,
    'suites': [   {   'cases': [   {'code': ">>> assert ldsm_plain == 32, 'each phase puts 8 rows, 128 bytes apart, into banks 0-3: 8 wavefronts, 4 phases'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert ldsm_swizzled == 4, 'swizzled, the 8 rows of a phase cover all 32 banks: 1 wavefront per phase'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
