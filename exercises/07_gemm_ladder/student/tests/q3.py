OK_FORMAT = True

test = {   'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(phase_wavefronts, checks.Tuple(checks.INT, checks.INT, checks.INT), \'phase_wavefronts\', hint="find the 16-byte slot (of the 8 in 128 '
                                               'bytes of banks) each row\'s chunk lands in; rows that share a slot take a wavefront each")\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
