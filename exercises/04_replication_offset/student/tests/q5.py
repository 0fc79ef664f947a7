OK_FORMAT = True

test = {   'name': 'q5',
    'points': [0, 0],
    'suites': [   {   'cases': [   {'code': ">>> from labkit.grading import checks\n>>> checks.form(bytes_warpx4, checks.INT, 'bytes_warpx4')\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> from labkit.grading import checks\n>>> checks.form(bytes_base, checks.INT, 'bytes_base')\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
