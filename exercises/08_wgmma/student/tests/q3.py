OK_FORMAT = True

test = {   'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(k_major_desc, checks.Tuple(checks.INT, checks.INT, checks.OneOf('INTERLEAVE', 'B32', 'B64', 'B128')), 'k_major_desc', hint='SBO is the "
                                               "distance between 8-row groups; with a swizzle the chunks along K sit side by side in a row and CuTe writes LBO as one unit')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
