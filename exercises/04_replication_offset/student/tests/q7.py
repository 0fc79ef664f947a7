OK_FORMAT = True

test = {   'name': 'q7',
    'points': [0, 0, 0],
    'suites': [   {   'cases': [   {'code': ">>> from labkit.grading import checks\n>>> checks.form(part_mgroups, checks.Str('S'), 'part_mgroups')\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> from labkit.grading import checks\n>>> checks.form(part_partitions, checks.Str('S'), 'part_partitions')\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> from labkit.grading import checks\n>>> checks.form(part_one_gpu, checks.Str('S'), 'part_one_gpu')\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
