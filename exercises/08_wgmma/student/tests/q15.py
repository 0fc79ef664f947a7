OK_FORMAT = True

test = {   'name': 'q15',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(fp8_step, checks.Tuple(checks.STR, checks.INT, checks.INT, checks.INT), \'fp8_step\', hint="8-bit wgmma atoms exist only K-major '
                                               '(_TN); a consumer\'s m64nN tile is spread over its 128 threads")\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
