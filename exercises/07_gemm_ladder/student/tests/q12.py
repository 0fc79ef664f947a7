OK_FORMAT = True

test = {   'name': 'q12',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> from labkit.grading import kernels\n'
                                               ">>> checks.form(ldsm_tile, kernels.LdmatrixTile(), 'ldsm_tile', hint='a rank-2 labkit layout (rows, cols) whose 8-half row chunks stay contiguous; pad "
                                               "the rows or swizzle the 16-byte chunks')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
