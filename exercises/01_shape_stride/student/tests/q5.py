OK_FORMAT = True

test = {   'name': 'q5',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(default_layout, checks.LAYOUT, 'default_layout', hint='which of the two strides is known at compile time?')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
