OK_FORMAT = True

test = {   'name': 'q9',
    'points': [0],
    'suites': [   {   'cases': [{'code': ">>> from labkit.grading import checks\n>>> checks.form(tall_degree, checks.INT, 'tall_degree')\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
