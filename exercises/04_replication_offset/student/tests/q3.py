OK_FORMAT = True

test = {   'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(devices_e3, checks.Tuple(checks.SetOf(checks.Tuple(checks.INT, checks.INT, name='(gpuid_x, gpuid_y) pair')), "
                                               "checks.SetOf(checks.Tuple(checks.INT, checks.INT, name='(gpuid_x, gpuid_y) pair')), checks.SetOf(checks.Tuple(checks.INT, checks.INT, name='(gpuid_x, "
                                               "gpuid_y) pair'))), 'devices_e3', hint='the row half picks gpuid_y; then ask what each mode does along gpuid_x')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
