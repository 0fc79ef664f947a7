OK_FORMAT = True

test = {   'name': 'q11',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> from labkit.grading import checks\n>>> checks.form(a_element, checks.Tuple(checks.INT, checks.INT), 'a_element')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
