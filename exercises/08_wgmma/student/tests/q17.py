OK_FORMAT = True

test = {   'name': 'q17',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> from labkit.grading import checks\n'
                                               '>>> checks.form(cluster_pair, checks.Tuple(checks.INT, checks.INT, checks.Tuple(checks.INT, checks.INT)), \'cluster_pair\', hint="every consumer of '
                                               'both CTAs frees the stage; B\'s rows follow A\'s; pairs of tile rows, 4 pairs a group")\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
