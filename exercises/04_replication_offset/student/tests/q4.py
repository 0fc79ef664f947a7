OK_FORMAT = True

test = {   'name': 'q4',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(offsets_e3, checks.Tuple(checks.INT, checks.INT), 'offsets_e3', hint='a replica device holds 4 whole rows of 8; a sharded one a 4x4 "
                                               "block')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
