OK_FORMAT = True

test = {   'name': 'q6',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(intensity, checks.Tuple(checks.INT, checks.INT, checks.OneOf('memory', 'arithmetic')), 'intensity', hint='divide the flops by the "
                                               "bytes, and the arithmetic rate by the bandwidth; compare the two')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
