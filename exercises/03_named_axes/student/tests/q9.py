OK_FORMAT = True

test = {   'name': 'q9',
    'points': 1,
    'suites': [   {   'cases': [{'code': ">>> from labkit.grading import checks\n>>> checks.form(warp_c, checks.INT, 'warp_c')\n", 'hidden': False, 'locked': False, 'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
