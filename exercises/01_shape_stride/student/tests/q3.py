OK_FORMAT = True

test = {   'name': 'q3',
    'points': 1,
    'suites': [   {   'cases': [{'code': ">>> from labkit.grading import checks\n>>> checks.form(offset_13, checks.INT, 'offset_13')\n", 'hidden': False, 'locked': False, 'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
