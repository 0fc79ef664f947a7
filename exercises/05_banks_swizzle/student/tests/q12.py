OK_FORMAT = True

test = {   'name': 'q12',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> from labkit.grading import checks\n>>> checks.form(tall_degree, checks.INT, 'tall_degree', hint='rows that are 8 apart get the same XOR')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
