OK_FORMAT = True

test = {   'name': 'q8',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(valid_t8, checks.Tuple(checks.INT, checks.INT), \'valid_t8\', hint="count the thread\'s rows inside the last tile\'s rows, and its '
                                               'columns inside the last tile\'s columns")\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
