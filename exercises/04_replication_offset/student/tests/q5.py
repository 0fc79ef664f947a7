OK_FORMAT = True

test = {   'name': 'q5',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(mxfp8_d, checks.Tuple(checks.INT, checks.INT), \'mxfp8_d\', hint="sum block by block: block size times the product of the block\'s two '
                                               'scales")\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
