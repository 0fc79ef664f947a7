OK_FORMAT = True

test = {   'name': 'q12',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(tcrb_x12, checks.Tuple(checks.INT, checks.INT, checks.INT), 'tcrb_x12', hint='apply the regrouping formula')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
