OK_FORMAT = True

test = {   'name': 'q15',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> from labkit.grading import kernels\n'
                                               ">>> checks.form(ldsm_b_offset, kernels.RowAddress('B'), 'ldsm_b_offset', hint='which matrix goes to which fragment and register decides the row and "
                                               "the K half')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
