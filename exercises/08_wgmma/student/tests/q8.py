OK_FORMAT = True

test = {   'name': 'q8',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(decoded, checks.Tuple(checks.INT, checks.INT, checks.INT, checks.OneOf('INTERLEAVE', 'B32', 'B64', 'B128')), 'decoded', hint='bits "
                                               "0-13, 16-29 and 32-45 hold the address and the two offsets divided by 16; bits 62-63 the type')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
