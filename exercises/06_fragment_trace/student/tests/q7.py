OK_FORMAT = True

test = {   'name': 'q7',
    'points': [0, 0, 0],
    'suites': [   {   'cases': [   {'code': ">>> from labkit.grading import checks\n>>> checks.form(src_lane_9_12, checks.INT, 'src_lane_9_12')\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> from labkit.grading import checks\n>>> checks.form(row_bytes_9_12, checks.INT, 'row_bytes_9_12')\n", 'hidden': False, 'locked': False},
                                   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(reg_A_9_12, checks.Tuple(checks.STR, checks.STR, name="(register, half) pair such as (\'a3\', \'low\')"), \'reg_A_9_12\')\n',
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
