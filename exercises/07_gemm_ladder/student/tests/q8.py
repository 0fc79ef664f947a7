OK_FORMAT = True

test = {   'name': 'q8',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(sectors, checks.Tuple(checks.INT, checks.INT, checks.INT), \'sectors\', hint="a lane\'s pair is 4 bytes and four lanes share a row of '
                                               'the atom; a staged request covers whole rows of the tile")\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
