OK_FORMAT = True

test = {   'name': 'q12',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               ">>> checks.form(base12, checks.Tuple(checks.INT, checks.INT, checks.INT), 'base12', hint='the tensor core XORs the chunk bits with ((address >> 7) - "
                                               "base offset) mod 8')\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
