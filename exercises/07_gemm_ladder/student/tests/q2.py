OK_FORMAT = True

test = {   'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(per_k_tile, checks.Tuple(checks.INT, checks.INT), 'per_k_tile', hint='count the atoms along M and N, the k-blocks of 16 in a k-tile, "
                                               "and the loads per k-block for A and for B')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
