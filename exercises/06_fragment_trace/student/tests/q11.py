OK_FORMAT = True

test = {   'name': 'q11',
    'points': [0],
    'suites': [   {   'cases': [{'code': ">>> from labkit.grading import kernels\n>>> kernels.form(ldsm_a_offset, 'A', 'ldsm_a_offset')\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
