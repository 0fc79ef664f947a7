OK_FORMAT = True

test = {   'name': 'q11',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(a_owner, checks.Tuple(checks.INT, checks.INT, checks.INT), 'a_owner', hint='warp m // 16 holds the row; inside it, the A fragment of "
                                               "mma.sync m16n8k16: rows +8 in the odd registers, columns +8 in a2 and a3')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
