OK_FORMAT = True

test = {   'name': 'q12',
    'points': [0],
    'suites': [   {   'cases': [{'code': ">>> from labkit.grading import kernels\n>>> kernels.form(ldsm_b_offset, 'B', 'ldsm_b_offset')\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
