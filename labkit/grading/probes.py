"""Answers that must not score: probes an instructor (and the test suite) runs against an exercise.

``always_equal(v)`` is an object of ``v``'s type whose ``==`` is always True (and ``!=`` always
False); ``wrong(v)`` is a different answer of the same form. An exercise whose hidden tests
give either of them points has a hole.

>>> a = always_equal(19)
>>> isinstance(a, int), a == 20, a != 20
(True, True, False)
>>> wrong(19), wrong("_12:_1"), wrong(((1, 1), 2)), sorted(wrong({(2, 2), (2, 3)}))
(20, '_12:_2', ((2, 1), 2), [(2, 3), (3, 2)])
"""

from __future__ import annotations

import re


class _Yes:
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __hash__(self):
        return 0


class _YesInt(_Yes, int):
    pass


class _YesStr(_Yes, str):
    pass


class _YesTuple(_Yes, tuple):
    pass


class _YesList(_Yes, list):
    pass


class _YesSet(_Yes, frozenset):
    pass


class _YesObject(_Yes):
    def __repr__(self):
        return "<always equal>"


def always_equal(value):
    """An object like ``value`` (same base type where possible) that equals everything."""
    if callable(value) and not isinstance(value, type):
        return lambda *args, **kwargs: _YesObject()
    for base, cls in ((bool, None), (int, _YesInt), (str, _YesStr), (tuple, _YesTuple),
                      (list, _YesList), ((set, frozenset), _YesSet)):
        if isinstance(value, base):
            return cls(value) if cls is not None else _YesObject()
    try:
        import numpy as np
        if isinstance(value, np.integer):
            return _YesInt(int(value))
    except ImportError:  # pragma: no cover
        pass
    return _YesObject()


def wrong(value):
    """A different answer of the same form (an int one more, a string with its last digit
    changed, a container with its first item changed)."""
    if isinstance(value, bool):
        return not value
    try:
        import numpy as np
        if isinstance(value, np.integer):
            return type(value)(value + 1)
    except ImportError:  # pragma: no cover
        pass
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        digits = list(re.finditer(r"\d", value))
        if not digits:
            return value + "?"
        m = digits[-1]
        return value[:m.start()] + str((int(m.group()) + 1) % 10) + value[m.end():]
    if isinstance(value, (tuple, list)) and value:
        return type(value)([wrong(value[0]), *value[1:]])
    if isinstance(value, (set, frozenset)) and value:
        items = sorted(value)
        return type(value)([wrong(items[0]), *items[1:]])
    if callable(value):
        return lambda *args, **kwargs: None
    return None
