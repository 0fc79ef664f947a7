OK_FORMAT = True

test = {   'name': 'q4',
    'points': [0, 0],
    'suites': [   {   'cases': [   {'code': ">>> from labkit.grading import checks\n>>> checks.form(sw64_fp32, checks.Str('Sw<1,2,3>'), 'sw64_fp32')\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> from labkit.grading import checks\n>>> checks.form(mode_48_bf16, checks.Str('INTERLEAVE'), 'mode_48_bf16')\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
