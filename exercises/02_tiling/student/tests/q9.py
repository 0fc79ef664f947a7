OK_FORMAT = True

test = {   'name': 'q9',
    'points': 2,
    'suites': [   {   'cases': [{'code': ">>> from labkit.grading import checks\n>>> checks.form(composed, checks.LAYOUT, 'composed')\n", 'hidden': False, 'locked': False, 'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
