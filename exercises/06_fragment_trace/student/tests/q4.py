OK_FORMAT = True

test = {   'name': 'q4',
    'points': [0],
    'suites': [   {   'cases': [   {   'code': ">>> from labkit.grading import checks\n>>> checks.form(per_k_block, checks.Tuple(checks.INT, checks.INT, checks.INT), 'per_k_block')\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
