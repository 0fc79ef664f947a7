OK_FORMAT = True

test = {   'name': 'q5',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(mn_major_offsets, checks.Tuple(checks.INT, checks.INT), 'mn_major_offsets', hint='for MN-major, LBO steps to the next atom along N and "
                                               "SBO from K rows 0-7 to K rows 8-15')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
