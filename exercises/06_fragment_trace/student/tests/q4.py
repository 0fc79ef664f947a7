OK_FORMAT = True

test = {   'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(reg_B08, checks.Tuple(checks.STR, checks.STR, name="(register, half) pair such as (\'a0\', \'high\')"), \'reg_B08\', hint=\'solve the '
                                               "formula for t and v')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
