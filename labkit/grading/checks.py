"""Answer checks shared by an exercise's public and hidden tests.

A *kind* says what form an answer takes (``INT``, ``LAYOUT``, ``pair``, ``SetOf(pair)`` ...).
:func:`form` is what a public test calls: it checks the form only and raises :class:`Hint` with
one line that never contains the answer. :func:`exact` is what a hidden test calls: it checks
the form strictly, then the value.

Both read an answer the same way: first as the data the grader receives
(:func:`labkit.grading.answers.as_data`: exact built-in types only, labkit objects as what CuTe
prints or as ``int``), then through its kind, which rebuilds it as plain ``int``/``str``/
``tuple``/``frozenset`` values, canonicalised by one rule per kind (a layout, Axe or swizzle
string loses its spaces). An object whose ``__eq__`` always says True never reaches a
comparison. numpy integers count as ints; ``bool`` does not. How a labkit object was read is
kept as a note (:func:`take_notes`).

>>> form(19, INT, "offset_23")
>>> form(..., INT, "offset_23")
Traceback (most recent call last):
...
labkit.grading.checks.NotAnswered: offset_23: not answered yet
>>> form([(0, 1), (2, 3)], SetOf(pair), "cells")
Traceback (most recent call last):
...
labkit.grading.checks.Hint: cells: expected a set of (row, col) pairs, got a list
>>> exact("12:1", LAYOUT, "_12:_1", "coalesced")
Traceback (most recent call last):
...
labkit.grading.checks.Wrong: coalesced: static vs dynamic differs: '12:1' is not '_12:_1' (CuTe prints a static integer with a leading _)
"""

from __future__ import annotations

import re

from . import answers

__all__ = [
    "Hint", "NotAnswered", "Wrong", "Kind", "Int", "Str", "Layout", "Tuple", "TupleOf", "SetOf",
    "ListOf", "Function", "Outputs", "Axe", "SwizzleName", "OneOf", "INT", "STR", "LAYOUT", "AXE",
    "SWIZZLE", "pair", "FUNCTION", "form", "exact", "read", "take_notes", "canonical",
]


class Hint(Exception):
    """A public check failed: one line saying what is wrong with the answer's form."""


class NotAnswered(Hint):
    """The answer is still ``...`` (or a part of it is)."""


class Wrong(Exception):
    """A hidden check failed: the answer has the right form but not the right value."""


def _type_name(value) -> str:
    if value is None:
        return "None"
    if value is ...:
        return "..."
    if isinstance(value, answers.Opaque):
        return value.name
    if isinstance(value, answers.LabkitValue):
        return f"labkit {value.name}"
    return answers.type_name(value)


_NOTES: list[str] = []


def _note(text: str) -> None:
    if text not in _NOTES:
        _NOTES.append(text)


def take_notes() -> list[str]:
    """The notes (how labkit objects were read) since the last call, and forget them."""
    out = list(_NOTES)
    _NOTES.clear()
    return out


def canonical(text: str) -> str:
    """The one comparison rule of layout, Axe and swizzle strings: spaces do not count.

    >>> canonical(" (_4, _8) : (_1, _4) ")
    '(_4,_8):(_1,_4)'
    """
    return "".join(text.split())


class Kind:
    """The form of an answer. ``read`` rebuilds a value as plain Python or raises :class:`Hint`."""

    article = "a value"

    def describe(self) -> str:
        return self.article

    def read(self, value, where: str):
        raise NotImplementedError

    def read_expected(self, expected, where: str):
        """The expected answer of a hidden test, read like an answer (a kind whose answers are
        functions reads its expected value differently)."""
        return read(expected, self, where)

    def mismatch(self, value, where: str) -> Hint:
        return Hint(f"{where}: expected {self.describe()}, got {_article(_type_name(value))}")

    def __repr__(self):
        return f"<{self.describe()}>"


def _article(name: str) -> str:
    if name in ("None", "..."):
        return name
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


class Int(Kind):
    """An ``int`` (a numpy integer is read as one; ``bool`` and floats are not ints)."""

    def describe(self):
        return "an int"

    def read(self, value, where):
        if type(value) is int:
            return int(value)
        if isinstance(value, answers.LabkitValue) and value.int is not None:
            _note(f"{where}: read the labkit {value.name} {value.text} as the int {value.int}")
            return value.int
        if type(value) is float and value.is_integer():
            raise Hint(f"{where}: expected an int, got the float {value!r}: use int(...)")
        raise self.mismatch(value, where)


class Str(Kind):
    """A ``str``."""

    def __init__(self, example: str | None = None):
        self.example = example

    def describe(self):
        return "a string" + (f" such as {self.example!r}" if self.example else "")

    def read(self, value, where):
        if isinstance(value, answers.LabkitValue) and value.text is not None:
            _note(f"{where}: read the labkit {value.name} as what CuTe prints, {value.text!r}")
            value = value.text
        if type(value) is not str:
            raise self.mismatch(value, where)
        return str(value)


_LAYOUT_CHARS = re.compile(r"^[0-9_(),:@]+$")


class Layout(Str):
    """A CuTe layout written as CuTe prints it, ``shape:stride`` (spaces are ignored; a labkit
    ``Layout`` is read as what it prints)."""

    def describe(self):
        return "a CuTe layout string such as '(4,8):(8,1)'"

    def read(self, value, where):
        text = canonical(super().read(value, where))
        if not _LAYOUT_CHARS.match(text) or text.count(":") != 1:
            raise Hint(f"{where}: {text!r} is not a CuTe layout string; write shape:stride, "
                       "e.g. '(4,8):(8,1)' or '_4:_2'")
        from ..layout import parse_layout
        from ..errors import LabkitError
        try:
            parse_layout(text)
        except LabkitError as e:
            raise Hint(f"{where}: {text!r} is not a CuTe layout string ({e})") from None
        return text


class Axe(Str):
    """An Axe layout string such as ``S[(2,3):(3,1)]`` (spaces are ignored; a labkit
    ``AxeLayout`` is read as what it prints)."""

    def describe(self):
        return "an Axe layout string such as 'S[(2,3):(3,1)]'"

    def read(self, value, where):
        text = canonical(super().read(value, where))
        from ..axe import parse_axe
        try:
            parse_axe(text)
        except Exception as e:  # noqa: BLE001 - any parse failure is a form hint
            raise Hint(f"{where}: {text!r} is not an Axe layout string ({e})") from None
        return text


_SWIZZLE = re.compile(r"^Sw<\d+,\d+,\d+>$")


class SwizzleName(Str):
    """A swizzle as CuTe prints it, ``Sw<B,M,S>`` (spaces are ignored; a labkit ``Swizzle`` is
    read as what it prints)."""

    def describe(self):
        return "a swizzle as CuTe prints it, such as 'Sw<1,2,3>'"

    def read(self, value, where):
        text = canonical(super().read(value, where))
        if not _SWIZZLE.match(text):
            raise Hint(f"{where}: {text!r} is not a swizzle as CuTe prints it; write 'Sw<B,M,S>', "
                       "e.g. 'Sw<1,2,3>'")
        return text


class OneOf(Str):
    """One of a few names the question lists (``OneOf("S", "R", "O")``); spaces around it do not
    count. The public check refuses any other name."""

    def __init__(self, *names: str):
        super().__init__(names[0] if names else None)
        self.names = tuple(names)

    def describe(self):
        return "one of " + ", ".join(repr(n) for n in self.names)

    def read(self, value, where):
        text = super().read(value, where).strip()
        if text not in self.names:
            raise Hint(f"{where}: {text!r} is not {self.describe()}")
        return text


class Tuple(Kind):
    """A ``tuple`` with one kind per position, e.g. ``Tuple(INT, INT, name="(row, col) pair")``."""

    def __init__(self, *kinds: Kind, name: str | None = None):
        self.kinds = kinds
        self.name = name

    def describe(self):
        if self.name:
            return _article(self.name)
        return f"a tuple {self.pattern()}"

    def pattern(self) -> str:
        return "(" + ", ".join(_pattern(k) for k in self.kinds) + ")"

    def read(self, value, where):
        if type(value) is not tuple:
            raise self.mismatch(value, where)
        if len(value) != len(self.kinds):
            raise Hint(f"{where}: expected {self.describe()}, got a tuple of {len(value)} "
                       f"item{'s' if len(value) != 1 else ''} instead of {len(self.kinds)}")
        return tuple(k.read(v, f"{where}[{i}]") for i, (k, v) in enumerate(zip(self.kinds, value)))


class _Collection(Kind):
    container: type = tuple
    noun = "tuple"

    def __init__(self, item: Kind, length: int | None = None, name: str | None = None):
        self.item = item
        self.length = length
        self.name = name

    def describe(self):
        item = self.name or self.item.describe().removeprefix("an ").removeprefix("a ")
        if not self.name and not item.endswith("s"):
            item += "s"
        count = f"{self.length} " if self.length is not None else ""
        return f"a {self.noun} of {count}{item}"

    def _items(self, value, where):
        if type(value) is not self.container and not (
                self.container is frozenset and type(value) is set):  # identity, not ==
            raise self.mismatch(value, where)
        if self.length is not None and len(value) != self.length:
            raise Hint(f"{where}: expected {self.describe()}, got {len(value)} item"
                       f"{'s' if len(value) != 1 else ''}")
        return [self.item.read(v, f"an item of {where}") for v in value]


class TupleOf(_Collection):
    """A ``tuple`` of items of one kind (``length`` fixes how many)."""

    def read(self, value, where):
        return tuple(self._items(value, where))


class ListOf(_Collection):
    """A ``list`` whose order matters."""

    container = list
    noun = "list"

    def read(self, value, where):
        return tuple(self._items(value, where))


class SetOf(_Collection):
    """A ``set`` (or ``frozenset``): order does not matter, and the answer is compared as a set."""

    container = frozenset
    noun = "set"

    def read(self, value, where):
        if (type(value) is set or type(value) is frozenset) and any(v is ... for v in value):
            raise NotAnswered(f"{where}: not answered yet")
        return frozenset(self._items(value, where))


class Function(Kind):
    """A function (the hidden test calls it)."""

    def describe(self):
        return "a function"

    def read(self, value, where):
        import types
        if not isinstance(value, (types.FunctionType, types.BuiltinFunctionType,
                                  answers.RemoteFunction)):
            raise self.mismatch(value, where)
        return value


class Outputs(Function):
    """A function answer graded by its outputs: the grader calls it on ``inputs`` (in the
    submission's process) and reads each output with ``kind``. Its expected answer is the tuple
    of expected outputs.

    >>> double = Outputs([(1,), (5,)], INT)
    >>> exact(lambda x: 2 * x, double, (2, 10), "double")
    >>> exact(lambda x: x + 1, double, (2, 10), "double")
    Traceback (most recent call last):
    ...
    labkit.grading.checks.Wrong: double: not the right answer
    """

    def __init__(self, inputs, kind: Kind):
        self._inputs = [tuple(a) for a in inputs]
        self.kind = kind

    def describe(self):
        return f"a function returning {self.kind.describe()}"

    def inputs(self) -> list:
        return list(self._inputs)

    def read_expected(self, expected, where):
        return tuple(read(v, self.kind, where) for v in expected)

    def read(self, value, where):
        super().read(value, where)
        out = []
        for args in self._inputs:
            call = f"{where}{args if len(args) != 1 else f'({args[0]!r})'}"
            try:
                got = value(*args)
            except Exception as e:  # noqa: BLE001 - the submission's function raised
                raise Hint(f"{call} raised {e if isinstance(e, answers.Raised) else repr(e)}") from None
            got = answers.as_data(got)
            if _contains_ellipsis(got):
                raise NotAnswered(f"{where}: not answered yet")
            out.append(self.kind.read(got, call))
        return tuple(out)


def _pattern(kind: Kind) -> str:
    if isinstance(kind, Tuple):
        return kind.pattern()
    return {Int: "int", Str: "str", Layout: "layout", Axe: "Axe layout",
            SwizzleName: "swizzle"}.get(type(kind), kind.describe())


INT = Int()
STR = Str()
LAYOUT = Layout()
AXE = Axe()
SWIZZLE = SwizzleName()
FUNCTION = Function()
pair = Tuple(INT, INT, name="(row, col) pair")


def _contains_ellipsis(value, depth=0) -> bool:
    if value is ...:
        return True
    if depth < 8 and any(type(value) is t for t in (tuple, list, set, frozenset)):
        return any(_contains_ellipsis(v, depth + 1) for v in value)
    return False


def read(value, kind: Kind, name: str):
    """The answer ``value`` rebuilt as plain Python, or :class:`Hint` naming what is wrong.
    ``value`` is first read as the data the grader receives (:func:`answers.as_data`).

    >>> read((1, 2), pair, "p")
    (1, 2)
    >>> import numpy as np
    >>> read(np.int64(7), INT, "n")
    7
    >>> import labkit as lk
    >>> _ = take_notes()                  # start from no notes
    >>> read(lk.make_layout((4, 8)), LAYOUT, "L"), take_notes()
    ('(4,8):(_1,4)', ["L: read the labkit Layout as what CuTe prints, '(4,8):(_1,4)'"])
    """
    value = answers.as_data(value)
    if _contains_ellipsis(value):
        raise NotAnswered(f"{name}: not answered yet")
    return kind.read(value, name)


def form(value, kind: Kind, name: str, hint: str | None = None) -> None:
    """Public check: ``value`` has the form ``kind`` asks for. Says nothing about its value.

    ``hint`` (how to work the answer out, never the answer) is added to a wrong-form message.

    >>> form("19", INT, "offset_23", hint="dot the coordinate with the stride")
    Traceback (most recent call last):
    ...
    labkit.grading.checks.Hint: offset_23: expected an int, got a str (hint: dot the coordinate with the stride)
    """
    try:
        read(value, kind, name)
    except NotAnswered:
        raise
    except Hint as e:
        if hint:
            raise Hint(f"{e} (hint: {hint})") from None
        raise


def _layout_difference(got: str, want: str) -> str | None:
    if got.replace("_", "") == want.replace("_", ""):
        return (f"static vs dynamic differs: {got!r} is not {want!r} "
                "(CuTe prints a static integer with a leading _)")
    return None


def exact(value, kind: Kind, expected, name: str) -> None:
    """Hidden check: ``value`` has the form ``kind`` and equals ``expected`` (read the same way).

    >>> exact(np_int := __import__("numpy").int32(19), INT, 19, "offset_23")
    >>> class Yes(int):
    ...     def __eq__(self, other): return True
    >>> exact(Yes(3), INT, 19, "offset_23")
    Traceback (most recent call last):
    ...
    labkit.grading.checks.Hint: offset_23: expected an int, got a labkit.grading.checks.Yes
    """
    got = read(value, kind, name)
    kept = take_notes()
    want = kind.read_expected(expected, "the expected answer")   # labkit objects too
    take_notes()                                          # never show the expected answer
    _NOTES.extend(kept)
    if got != want:  # both are plain int/str/tuple/frozenset values here
        note = None
        if isinstance(kind, Layout):
            note = _layout_difference(got, want)
        raise Wrong(f"{name}: {note or 'not the right answer'}")
