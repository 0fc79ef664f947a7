OK_FORMAT = True

test = {   'name': 'q13',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(k_tile13, checks.Tuple(checks.INT, checks.INT, checks.INT, checks.INT), 'k_tile13', hint='32 bytes of K a wgmma: count the elements "
                                               "that fit; descriptors count bytes, not elements')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
