OK_FORMAT = True

test = {   'name': 'q7',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(mode_m7, checks.OneOf(\'INTERLEAVE\', \'SWIZZLE_32B\', \'SWIZZLE_64B\', \'SWIZZLE_128B\'), \'mode_m7\', hint="the row must be a whole '
                                               'number of the atom\'s rows")\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
