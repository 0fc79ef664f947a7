OK_FORMAT = True

test = {   'name': 'q8',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(valid_37_40, checks.Tuple(checks.INT, checks.INT), \'valid_37_40\', hint="count the rows below the last tile\'s row extent and the '
                                               'columns below its column extent")\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
