OK_FORMAT = True

test = {   'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(atom_shape, checks.Tuple(checks.INT, checks.INT, checks.SWIZZLE), 'atom_shape', hint='an atom is 8 rows of 16, 32, 64 or 128 bytes "
                                               "along the contiguous mode; its swizzle acts on byte addresses')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
