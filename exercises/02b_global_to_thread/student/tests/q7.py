OK_FORMAT = True

test = {   'name': 'q7',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(thr_t7_coords, checks.Tuple(checks.pair, checks.pair), 'thr_t7_coords', hint='thread t sits at (t % 32, t // 32) of the thread layout; "
                                               "value k is colexicographic over (4, 16)')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
