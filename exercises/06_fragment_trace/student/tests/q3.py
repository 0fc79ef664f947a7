OK_FORMAT = True

test = {   'name': 'q3',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(reg_a3, checks.Tuple(checks.STR, checks.STR, name="(register, half) pair such as (\'a0\', \'high\')"), \'reg_a3\', hint=\'find the '
                                               "value first; the register is value // 2')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
