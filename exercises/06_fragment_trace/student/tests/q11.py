OK_FORMAT = True

test = {   'name': 'q11',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(t4, checks.Tuple(checks.Str('m16n8k16'), checks.Str('x4'), checks.Str('x4')), 't4', hint='Turing lacks one MMA shape; the loads follow "
                                               "from the registers per operand')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
