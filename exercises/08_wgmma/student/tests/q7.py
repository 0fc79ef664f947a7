OK_FORMAT = True

test = {   'name': 'q7',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(wg_counts, checks.Tuple(checks.INT, checks.INT, checks.INT), \'wg_counts\', hint="each wgmma covers K = 16; the tile\'s elements are '
                                               'spread evenly over the warpgroup\'s threads")\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
