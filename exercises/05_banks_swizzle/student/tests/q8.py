OK_FORMAT = True

test = {   'name': 'q8',
    'points': [0],
    'suites': [   {   'cases': [{'code': ">>> from labkit.grading import checks\n>>> checks.form(row2_64b, checks.ListOf(checks.INT, 4), 'row2_64b')\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
