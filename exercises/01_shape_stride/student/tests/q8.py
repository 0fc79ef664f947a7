OK_FORMAT = True

test = {   'name': 'q8',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(coord_g, checks.Tuple(checks.Tuple(checks.INT, checks.INT), checks.INT), 'coord_g', hint='unflatten colexicographically over the "
                                               "top-level modes first, then inside mode 0')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
