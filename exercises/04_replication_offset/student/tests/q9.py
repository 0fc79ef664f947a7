OK_FORMAT = True

test = {   'name': 'q9',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(sf_shapes, checks.Tuple(checks.Tuple(checks.INT, checks.INT), checks.Tuple(checks.INT, checks.INT)), 'sf_shapes', hint='one row per m "
                                               "(or n), one column per block of K')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
