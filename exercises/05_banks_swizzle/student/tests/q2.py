OK_FORMAT = True

test = {   'name': 'q2',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(third_phase, checks.SetOf(checks.INT), 'third_phase', hint='one phase moves at most 128 bytes')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
