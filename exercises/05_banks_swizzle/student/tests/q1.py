OK_FORMAT = True

test = {   'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {'code': ">>> assert isinstance(bank_200, int) and isinstance(third_phase, list), 'bank_200 is an int, third_phase a list'\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> assert bank_200 == 18, 'byte 200 is word 50, and 50 mod 32 is 18'\n", 'hidden': False, 'locked': False},
                                   {   'code': ">>> assert third_phase == [16, 17, 18, 19, 20, 21, 22, 23], '16-byte accesses: 8 lanes per phase, so phase 2 is lanes 16 to 23'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
