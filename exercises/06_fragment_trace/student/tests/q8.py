OK_FORMAT = True

test = {   'name': 'q8',
    'points': [0, 0],
    'suites': [   {   'cases': [   {'code': ">>> from labkit.grading import checks\n>>> checks.form(t4_shape, checks.Str('m16n8k8'), 't4_shape')\n", 'hidden': False, 'locked': False},
                                   {   'code': ">>> from labkit.grading import checks\n>>> checks.form(t4_loads, checks.Tuple(checks.Str('x1'), checks.Str('x1')), 't4_loads')\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
