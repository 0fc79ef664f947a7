OK_FORMAT = True

test = {   'name': 'q16',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(pp_first, checks.Tuple(checks.INT, checks.INT, checks.INT, checks.INT), \'pp_first\', hint="count the k-tiles before this tile\'s '
                                               'first one; each full round of the stages flips the parity")\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
