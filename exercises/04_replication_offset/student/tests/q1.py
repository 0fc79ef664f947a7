OK_FORMAT = True

test = {   'name': 'q1',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(copies_f1, checks.SetOf(checks.Tuple(checks.INT, checks.INT, checks.INT, name='(TLane, TCol, byte) triple')), 'copies_f1', hint='one "
                                               "copy per 32-lane partition, each at the same local lane, column and byte')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
