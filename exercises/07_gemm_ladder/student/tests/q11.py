OK_FORMAT = True

test = {   'name': 'q11',
    'points': 6,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> from labkit.grading import kernels\n'
                                               ">>> checks.form(pair_offset, kernels.PairAddress(), 'pair_offset', hint='find the element from the lane and the register first, then its offset in sC; "
                                               "sC counts halves')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
