OK_FORMAT = True

test = {   'name': 'q6',
    'points': [0],
    'suites': [   {   'cases': [{'code': ">>> from labkit.grading import checks\n>>> checks.form(lane5_v2, checks.INT, 'lane5_v2')\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
