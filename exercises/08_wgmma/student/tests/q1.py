OK_FORMAT = True

test = {   'name': 'q1',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(warpgroup, checks.Tuple(checks.INT, checks.INT, checks.INT), 'warpgroup', hint='a warpgroup is the warps that reach all four tensor "
                                               "cores of the SM together')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
