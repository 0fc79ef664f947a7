OK_FORMAT = True

test = {   'name': 'q7',
    'points': 1,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(sf_vec, checks.Tuple(checks.INT, checks.INT), 'sf_vec', hint='the first section of chapter 4 prints both formats')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
