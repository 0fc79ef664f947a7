OK_FORMAT = True

test = {   'name': 'q9',
    'points': [0],
    'suites': [   {   'cases': [   {   'code': ">>> from labkit.grading import checks\n>>> checks.form(tcrb_5_2_1, checks.Tuple(checks.INT, checks.INT, checks.INT), 'tcrb_5_2_1')\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
