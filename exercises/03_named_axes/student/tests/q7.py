OK_FORMAT = True

test = {   'name': 'q7',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> from labkit.grading import checks\n>>> checks.form(lane_slot_a, checks.Tuple(checks.INT, checks.INT), 'lane_slot_a')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
