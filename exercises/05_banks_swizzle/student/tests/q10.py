OK_FORMAT = True

test = {   'name': 'q10',
    'points': [0],
    'suites': [   {   'cases': [{'code': ">>> from labkit.grading import checks\n>>> checks.form(row3_banks, checks.ListOf(checks.INT, 8), 'row3_banks')\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
