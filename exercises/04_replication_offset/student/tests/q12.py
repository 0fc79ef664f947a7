OK_FORMAT = True

test = {   'name': 'q12',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(same_row_as_lane12, checks.SetOf(checks.INT), 'same_row_as_lane12', hint='split each lane into (t0, t1) and keep t0')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
