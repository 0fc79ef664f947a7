"""Answers as data: what leaves a submission's process, and how the grader reads it back.

A submission's answer variables are *encoded* in the submission's process (after each answer
cell) into plain JSON: ints, strings, floats, bools, ``None``, ``...``, tuples, lists and sets of
them. Only exact built-in types (and numpy integers) are encoded as values; a subclass of
``int``, ``str`` or ``tuple`` (an object whose ``==`` is rigged) is encoded as just its type
name, so it reaches no comparison. labkit objects are encoded as what CuTe prints (``str``) and,
when they are integers (``S``), as their ``int``; a function is encoded as its name (the grader
calls it later through :class:`RemoteFunction`).

The grader *decodes* that data in its own process into plain values, :class:`LabkitValue`
(read by each answer kind as text or int, with a note saying so), :class:`Opaque` (a value that
could not be read as data) and :class:`RemoteFunction`. The public checks run every answer
through :func:`as_data` (encode, then decode) so that a student's check reads exactly what the
grader will read.

>>> decode(encode((1, "_4:_1", {2, 3})))
(1, '_4:_1', {2, 3})
>>> class Yes(int):
...     def __eq__(self, other): return True
>>> decode(encode(Yes(3)))
<a labkit.grading.answers.Yes>
>>> import labkit as lk
>>> v = decode(encode(lk.S(4)))
>>> v.text, v.int
('_4', 4)
"""

from __future__ import annotations

import json
import operator
import types

__all__ = ["encode", "decode", "as_data", "LabkitValue", "Opaque", "RemoteFunction", "Raised",
           "dumps", "loads"]

MAX_DEPTH = 8
MAX_ITEMS = 100_000
MAX_TEXT = 100_000


def _numpy_int_types() -> tuple:
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is a labkit dependency
        return ()
    return tuple(getattr(np, n) for n in (
        "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "intc", "uintc",
        "intp", "uintp", "longlong", "ulonglong") if hasattr(np, n))


_NP_INTS = _numpy_int_types()
_LABKIT_MODULES = ("labkit.layout.", "labkit.axe.")   # the types read as what CuTe prints
_CONTAINERS = {tuple: "tuple", list: "list", set: "set", frozenset: "set"}


def type_name(value) -> str:
    """``int``, ``numpy.float64``, ``mymodule.Yes``: the name a message gives a value's type."""
    t = type(value)
    module = getattr(t, "__module__", "?")
    if module == "builtins":
        return t.__qualname__
    if module == "numpy":
        return t.__name__
    return f"{module}.{t.__qualname__}"


class _Budget:
    def __init__(self):
        self.items = 0


def encode(value, _depth: int = 0, _budget: _Budget | None = None):
    """``value`` as JSON-able data (see the module docstring). Never calls ``value.__eq__``."""
    budget = _budget or _Budget()
    budget.items += 1
    if budget.items > MAX_ITEMS:
        return ["other", "a value too large to grade"]
    t = type(value)
    if t is bool:
        return ["bool", bool(value)]
    if t is int or any(t is n for n in _NP_INTS):
        return ["int", int(value)]
    if t is float:
        return ["float", float(value)]
    if t is str:
        if len(value) > MAX_TEXT:
            return ["other", "a string too long to grade"]
        return ["str", str(value)]
    if value is None:
        return ["none"]
    if value is ...:
        return ["ellipsis"]
    if t in _CONTAINERS:
        if _depth >= MAX_DEPTH:
            return ["other", "a value nested too deeply to grade"]
        items = list(tuple.__iter__(value)) if t is tuple else list(value)
        return [_CONTAINERS[t], [encode(v, _depth + 1, budget) for v in items]]
    if t is types.FunctionType or t is types.BuiltinFunctionType:
        return ["function", str(getattr(value, "__name__", "function"))[:200]]
    if t is LabkitValue:
        return ["labkit", value.name, value.text, value.int]
    if t is Opaque:
        return ["other", value.name]
    if str(getattr(t, "__module__", "")).startswith(_LABKIT_MODULES):
        return _encode_labkit(value)
    return ["other", type_name(value)[:200]]


def _encode_labkit(value):
    """A labkit object: its CuTe print and, for an integer (``S``), its ``int``."""
    try:
        text = str(value)
    except Exception:  # noqa: BLE001 - an object that cannot print is read as its type only
        text = None
    number = None
    if isinstance(value, int):
        try:
            number = int(operator.index(value))
        except Exception:  # noqa: BLE001
            number = None
    if text is not None and len(text) > MAX_TEXT:
        text = None
    return ["labkit", type(value).__qualname__[:200], text, number]


class Opaque:
    """An answer that could not be read as data; only its type name came back."""

    def __init__(self, name: str):
        self.name = str(name)

    def __repr__(self):
        return f"<{_article(self.name)}>"


class LabkitValue:
    """A labkit object's answer: ``text`` (what CuTe prints) and ``int`` (for an integer)."""

    def __init__(self, name: str, text: str | None, number: int | None):
        self.name, self.text, self.int = str(name), text, number

    def __repr__(self):
        return f"<labkit {self.name} {self.text}>"


class Raised(Exception):
    """A call of a submission's function raised; ``str`` is ``'TypeError: ...'``."""


class RemoteFunction:
    """A submission's function, called in the submission's process on the inputs the grader
    chose; calling it here looks the output up (or raises :class:`Raised`)."""

    def __init__(self, name: str, outputs: dict | None = None):
        self.__name__ = str(name)
        self.outputs = dict(outputs or {})

    def __call__(self, *args):
        key = tuple(args)
        if key not in self.outputs:
            raise Raised(f"the grader did not call {self.__name__}{key} (not one of its inputs)")
        kind, out = self.outputs[key]
        if kind == "error":
            raise Raised(out)
        return out

    def __repr__(self):
        return f"<function {self.__name__} (called by the grader)>"


def _article(name: str) -> str:
    if name in ("None", "...") or name.startswith(("a ", "an ")):
        return name
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


def decode(data, _depth: int = 0):
    """The grader's reading of :func:`encode`'s data (never raises: bad data is Opaque)."""
    try:
        return _decode(data, _depth)
    except Exception:  # noqa: BLE001 - data from a submission is untrusted
        return Opaque("value that could not be read")


def _decode(data, depth):
    if not isinstance(data, list) or not data or not isinstance(data[0], str) or depth > MAX_DEPTH + 1:
        return Opaque("value that could not be read")
    tag = data[0]
    if tag == "int" and type(data[1]) is int:
        return data[1]
    if tag == "bool" and type(data[1]) is bool:
        return data[1]
    if tag == "float" and type(data[1]) in (int, float):
        return float(data[1])
    if tag == "str" and type(data[1]) is str:
        return data[1]
    if tag == "none":
        return None
    if tag == "ellipsis":
        return ...
    if tag in ("tuple", "list", "set") and type(data[1]) is list:
        items = [_decode(v, depth + 1) for v in data[1]]
        if tag == "tuple":
            return tuple(items)
        if tag == "list":
            return items
        try:
            return set(items)
        except TypeError:
            return Opaque("set that could not be read")
    if tag == "labkit" and len(data) == 4:
        text = data[2] if type(data[2]) is str else None
        number = data[3] if type(data[3]) is int else None
        return LabkitValue(str(data[1]), text, number)
    if tag == "function":
        return RemoteFunction(str(data[1]))
    if tag == "other":
        return Opaque(str(data[1])[:200])
    return Opaque("value that could not be read")


def as_data(value):
    """What the grader will read of ``value``: ``decode(encode(value))``; a function stays itself
    (a public check calls it in the student's process)."""
    if type(value) in (types.FunctionType, types.BuiltinFunctionType, RemoteFunction):
        return value
    return decode(encode(value))


def dumps(obj) -> str:
    return json.dumps(obj, separators=(",", ":"))


def loads(text: str):
    return json.loads(text)
