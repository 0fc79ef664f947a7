OK_FORMAT = True

test = {   'name': 'q6',
    'points': 2,
    'suites': [   {   'cases': [{'code': ">>> from labkit.grading import checks\n>>> checks.form(coalesced, checks.LAYOUT, 'coalesced')\n", 'hidden': False, 'locked': False, 'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
