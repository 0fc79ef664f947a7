OK_FORMAT = True

test = {   'name': 'q1',
    'points': [0],
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(copies_70_1, checks.SetOf(checks.Tuple(checks.INT, checks.INT, checks.INT, name='(TLane, TCol, byte) triple')), 'copies_70_1')\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
