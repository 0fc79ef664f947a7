OK_FORMAT = True

test = {   'name': 'q10',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(sectors, checks.Tuple(checks.INT, checks.INT), 'sectors', hint='a warp is 32 consecutive threads of the thread layout; add up the "
                                               "contiguous bytes they ask for')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
