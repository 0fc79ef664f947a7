OK_FORMAT = True

test = {   'name': 'q10',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(held_by_d10, checks.Tuple(checks.INT, checks.INT, checks.INT), 'held_by_d10', hint='count the positions whose (gpuid_x, gpuid_y) is "
                                               "that GPU')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
