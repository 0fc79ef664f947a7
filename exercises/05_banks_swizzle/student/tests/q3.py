OK_FORMAT = True

test = {   'name': 'q3',
    'points': [0, 0],
    'suites': [   {   'cases': [   {'code': ">>> from labkit.grading import checks\n>>> checks.form(swizzled_3_10, checks.INT, 'swizzled_3_10')\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> from labkit.grading import checks\n>>> checks.form(chunk_3_10, checks.INT, 'chunk_3_10')\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
