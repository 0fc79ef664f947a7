OK_FORMAT = True

test = {   'name': 'q4',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> assert sw64_fp32.replace(' ', '') == 'Sw<2,2,3>', '64-byte rows: B = log2(64/16) = 2; 4-byte elements: M = 4 - 2 = 2; S = 3'\n",
                                       'hidden': False,
                                       'locked': False},
                                   {'code': ">>> assert mode_48_bf16 == 'SWIZZLE_32B', '96 bytes is 3 x 32 B but not a whole number of 64 B rows'\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
