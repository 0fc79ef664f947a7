OK_FORMAT = True

test = {   'name': 'q9',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(ctas_per_sm, checks.Tuple(checks.INT, checks.INT), 'ctas_per_sm', hint='a block is limited by registers and by shared memory "
                                               "separately; the smaller count wins')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
