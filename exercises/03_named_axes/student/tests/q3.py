OK_FORMAT = True

test = {   'name': 'q3',
    'points': 1,
    'suites': [   {   'cases': [   {'code': ">>> assert isinstance(axe_text, str), 'axe_text should be a string'\n", 'hidden': False, 'locked': False},
                                   {   'code': ">>> assert axe_text.replace(' ', '') == 'S[(8,4):(1,8)]', 'CuTe reads the flat index leftmost mode fastest, Axe rightmost fastest: reverse the "
                                               "modes'\n",
                                       'hidden': False,
                                       'locked': False}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
