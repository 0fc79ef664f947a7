OK_FORMAT = True

test = {   'name': 'q2',
    'points': [0, 0],
    'suites': [   {   'cases': [   {'code': ">>> from labkit.grading import checks\n>>> checks.form(stored_col, checks.INT, 'stored_col')\n", 'hidden': False, 'locked': False},
                                   {   'code': ">>> from labkit.grading import checks\n>>> checks.form(column_cycles, checks.Tuple(checks.INT, checks.INT), 'column_cycles')\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
