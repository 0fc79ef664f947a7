OK_FORMAT = True

test = {   'name': 'q1',
    'points': [0, 0],
    'suites': [   {   'cases': [   {'code': ">>> from labkit.grading import checks\n>>> checks.form(bank_200, checks.INT, 'bank_200')\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> from labkit.grading import checks\n>>> checks.form(third_phase, checks.SetOf(checks.INT), 'third_phase')\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
