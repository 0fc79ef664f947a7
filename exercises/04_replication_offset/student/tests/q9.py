OK_FORMAT = True

test = {   'name': 'q9',
    'points': [0],
    'suites': [   {   'cases': [   {   'code': ">>> from labkit.grading import checks\n>>> checks.form(held_by_00, checks.Tuple(checks.INT, checks.INT, checks.INT), 'held_by_00')\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
