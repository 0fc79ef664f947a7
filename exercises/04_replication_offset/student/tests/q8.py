OK_FORMAT = True

test = {   'name': 'q8',
    'points': [0, 0],
    'suites': [   {   'cases': [   {'code': ">>> from labkit.grading import checks\n>>> checks.form(shape_sfa, checks.Tuple(checks.INT, checks.INT), 'shape_sfa')\n", 'hidden': False, 'locked': False},
                                   {   'code': ">>> from labkit.grading import checks\n>>> checks.form(shape_sfb, checks.Tuple(checks.INT, checks.INT), 'shape_sfb')\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
