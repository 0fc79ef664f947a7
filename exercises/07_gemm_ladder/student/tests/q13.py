OK_FORMAT = True

test = {   'name': 'q13',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> from labkit.grading import kernels\n'
                                               ">>> checks.form(transposed, kernels.TransposeRun(), 'transposed', hint='sT is a rank-2 labkit layout of the tile; the kernel stores row by row and "
                                               "loads column by column through sT_offset')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
