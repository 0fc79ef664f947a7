OK_FORMAT = True

test = {   'name': 'q12',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(idle_threads, checks.INT, 'idle_threads', hint='a thread copies something when one of its vectors has its row and column inside A')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
