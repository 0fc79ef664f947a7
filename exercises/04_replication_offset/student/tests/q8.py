OK_FORMAT = True

test = {   'name': 'q8',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(parts, checks.Tuple(checks.OneOf('S', 'R', 'O'), checks.OneOf('S', 'R', 'O'), checks.OneOf('S', 'R', 'O')), 'parts', hint='a copy of "
                                               "data is not the same as a packing of distinct data')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
