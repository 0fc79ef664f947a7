OK_FORMAT = True

test = {   'name': 'q5',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(thr_t5_layout, checks.LAYOUT, \'thr_t5_layout\', hint="shape: how many 16x16 pieces along each mode; strides: the tile\'s strides '
                                               'times the thread layout\'s shape")\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
