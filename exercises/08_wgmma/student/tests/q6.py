OK_FORMAT = True

test = {   'name': 'q6',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(d_owner, checks.Tuple(checks.INT, checks.INT), 'd_owner', hint='warp m // 16 holds the row; inside it, the m16n8 fragment of mma.sync "
                                               "repeats once per 8 columns')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
