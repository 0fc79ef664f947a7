OK_FORMAT = True

test = {   'name': 'q10',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(reg_a9, checks.Tuple(checks.STR, checks.STR, name="(register, half) pair such as (\'a0\', \'high\')"), \'reg_a9\', hint="the owner\'s '
                                               'value, then value // 2 and value % 2")\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
