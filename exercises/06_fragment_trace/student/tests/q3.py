OK_FORMAT = True

test = {   'name': 'q3',
    'points': [0],
    'suites': [   {   'cases': [{'code': ">>> from labkit.grading import checks\n>>> checks.form(b_matrices, checks.INT, 'b_matrices')\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
