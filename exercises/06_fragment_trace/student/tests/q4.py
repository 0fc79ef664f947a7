OK_FORMAT = True

test = {   'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(reg_b4, checks.Tuple(checks.STR, checks.STR, name="(register, half) pair such as (\'a0\', \'high\')"), \'reg_b4\', hint=\'solve the '
                                               "formula for t and v')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
