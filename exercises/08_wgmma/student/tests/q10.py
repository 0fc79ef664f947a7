OK_FORMAT = True

test = {   'name': 'q10',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(b_desc, checks.INT, 'b_desc', hint='the start address moves 32 bytes per k16 step; the fields are bytes divided by 16, the type in the "
                                               "two top bits')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
