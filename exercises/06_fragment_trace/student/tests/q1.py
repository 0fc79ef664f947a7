OK_FORMAT = True

test = {   'name': 'q1',
    'points': [0, 0],
    'suites': [   {   'cases': [   {'code': ">>> from labkit.grading import checks\n>>> checks.form(a_6_5, checks.Tuple(checks.INT, checks.INT), 'a_6_5')\n", 'hidden': False, 'locked': False},
                                   {   'code': ">>> from labkit.grading import checks\n>>> checks.form(owner_9_4, checks.Tuple(checks.INT, checks.INT), 'owner_9_4')\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
