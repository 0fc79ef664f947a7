OK_FORMAT = True

test = {   'name': 'q10',
    'points': [0, 0],
    'suites': [   {   'cases': [   {'code': ">>> from labkit.grading import checks\n>>> checks.form(x2_replicas, checks.INT, 'x2_replicas')\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> from labkit.grading import checks\n>>> checks.form(same_row_as_5, checks.SetOf(checks.INT), 'same_row_as_5')\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
