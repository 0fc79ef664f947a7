OK_FORMAT = True

test = {   'name': 'q2',
    'points': [0, 0],
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(reg_A09, checks.Tuple(checks.STR, checks.STR, name="(register, half) pair such as (\'a3\', \'low\')"), \'reg_A09\')\n',
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(reg_B08, checks.Tuple(checks.STR, checks.STR, name="(register, half) pair such as (\'a3\', \'low\')"), \'reg_B08\')\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
