OK_FORMAT = True

test = {   'name': 'q13',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(trans_lane13, checks.ListOf(checks.pair, 2), 'trans_lane13', hint='without .trans a lane gets two neighbours in a row; with it, in a "
                                               "column')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
