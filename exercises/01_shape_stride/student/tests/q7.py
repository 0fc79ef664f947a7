OK_FORMAT = True

test = {   'name': 'q7',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(coalesced_pair, checks.Tuple(checks.LAYOUT, checks.LAYOUT), 'coalesced_pair', hint='a merge needs every value in its equation to be "
                                               "known at compile time')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
