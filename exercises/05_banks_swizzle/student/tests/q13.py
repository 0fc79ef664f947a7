OK_FORMAT = True

test = {   'name': 'q13',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(row_r13_banks, checks.ListOf(checks.INT, 8), 'row_r13_banks', hint='in this atom the chunk index sits in bits 6-8 of the offset and "
                                               "the row in bits 3-5')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
