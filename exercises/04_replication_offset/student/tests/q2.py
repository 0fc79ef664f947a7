OK_FORMAT = True

test = {   'name': 'q2',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(at_p2, checks.SetOf(checks.Tuple(checks.INT, checks.INT, name='(m, sfk) pair')), 'at_p2', hint='find the partition and the local lane "
                                               "first; the column is the Mgroup')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
