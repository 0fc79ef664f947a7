OK_FORMAT = True

test = {   'name': 'q3',
    'points': [0, 0, 0, 0, 0],
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(devices_replica, checks.SetOf(checks.Tuple(checks.INT, checks.INT, name='(gpuid_x, gpuid_y) pair')), 'devices_replica')\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(devices_offset, checks.SetOf(checks.Tuple(checks.INT, checks.INT, name='(gpuid_x, gpuid_y) pair')), 'devices_offset')\n",
                                       'hidden': False,
                                       'locked': False},
                                   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(devices_sharded, checks.SetOf(checks.Tuple(checks.INT, checks.INT, name='(gpuid_x, gpuid_y) pair')), 'devices_sharded')\n",
                                       'hidden': False,
                                       'locked': False},
                                   {'code': ">>> from labkit.grading import checks\n>>> checks.form(offset_replica, checks.INT, 'offset_replica')\n", 'hidden': False, 'locked': False},
                                   {'code': ">>> from labkit.grading import checks\n>>> checks.form(offset_sharded, checks.INT, 'offset_sharded')\n", 'hidden': False, 'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
