OK_FORMAT = True

test = {   'name': 'q7',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(stores_per_tile, checks.Tuple(checks.INT, checks.INT), 'stores_per_tile', hint='count the registers a lane holds for the warp tile; "
                                               "one matrix of stmatrix is one register')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
