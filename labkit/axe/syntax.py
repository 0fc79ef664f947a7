"""The text form of Axe layouts: ``S[(shape):(strides)] + R[(shape):(strides)] + O[offsets]``.

Pure syntax: :func:`read_axe` turns text into iters and offsets, :func:`format_axe` writes a
layout's parts back. :mod:`labkit.axe.axe_layout` builds on it (``AxeLayout(text)``, ``str``,
:func:`~labkit.axe.parse_axe`); this module knows nothing of the layout class.
"""

import re

from ..errors import LayoutError
from .axes import MEMORY_AXIS
from .iters import AxeIter

__all__ = ["read_axe", "format_axe"]

_TOKEN = re.compile(
    r"\s*(?:(?P<int>-?\d+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<punct>[()\[\]:,@+]))"
)


def _group(texts):
    return texts[0] if len(texts) == 1 else "(" + ",".join(texts) + ")"


def _spec(iters):
    extents = _group([str(it.extent) for it in iters])
    return extents + ":" + _group([it.stride_text() for it in iters])


def format_axe(layout):
    """The text form of an AxeLayout (what ``str`` prints).

    One iter prints without parentheses; a bare stride is on axis ``m``.

    >>> import labkit as lk
    >>> from labkit.axe.syntax import format_axe
    >>> format_axe(lk.AxeLayout([(2, 1, "gpuid_y"), (4, 8), (8, 1)], R=[(2, 1, "gpuid_x")]))
    'S[(2,4,8):(1@gpuid_y,8,1)] + R[2:1@gpuid_x]'
    """
    text = f"S[{_spec(layout.D)}]"
    if layout.R:
        text += f" + R[{_spec(layout.R)}]"
    if layout._O:
        terms = [f"{v}@{a}" if tagged else str(v) for a, v, tagged in layout._O]
        text += f" + O[{_group(terms)}]"
    return text


class _Reader:
    def __init__(self, text):
        self.text = text
        self.tokens = []
        pos = 0
        stripped_end = len(text.rstrip())
        while pos < stripped_end:
            match = _TOKEN.match(text, pos)
            if not match:
                self.fail(f"unexpected character {text[pos:].lstrip()[:1]!r}", pos)
            kind = match.lastgroup
            self.tokens.append((kind, match.group(kind), match.start(kind)))
            pos = match.end()
        self.k = 0

    def fail(self, message, pos=None):
        if pos is None:
            pos = self.tokens[self.k][2] if self.k < len(self.tokens) else len(self.text)
        raise LayoutError(f"text: {message} at column {pos} of {self.text!r}")

    def peek(self):
        return self.tokens[self.k][1] if self.k < len(self.tokens) else None

    def take(self, kind=None, value=None, what=None):
        if self.k >= len(self.tokens):
            self.fail(f"expected {what or value or kind} but the text ended")
        tk, tv, _ = self.tokens[self.k]
        if (kind and tk != kind) or (value and tv != value):
            self.fail(f"expected {what or value or kind}, found {tv!r}")
        self.k += 1
        return tv

    def group(self, item):
        if self.peek() == "(":
            self.take(value="(")
            items = [item()]
            while self.peek() == ",":
                self.take(value=",")
                items.append(item())
            self.take(value=")", what="',' or ')'")
            return items
        return [item()]

    def extent(self):
        return int(self.take("int", what="an extent (integer)"))

    def stride(self):
        value = int(self.take("int", what="a stride (integer, optionally @axis)"))
        if self.peek() == "@":
            self.take(value="@")
            return value, self.take("name", what="an axis name after '@'"), True
        return value, MEMORY_AXIS, False

    def spec(self, label):
        extents = self.group(self.extent)
        self.take(value=":", what="':' between shape and strides")
        strides = self.group(self.stride)
        if len(extents) != len(strides):
            self.fail(f"{label}[...] has {len(extents)} extents but {len(strides)} strides")
        return [
            AxeIter(e, s, a, tagged=t, argument=f"text {label}[...] iter {k}")
            for k, (e, (s, a, t)) in enumerate(zip(extents, strides))
        ]


def read_axe(text):
    """The parts of an Axe layout's text: ``(shard iters, replica iters, offset triples)``.

    :func:`labkit.axe.parse_axe` builds the layout from them.

    >>> shard, replica, offset = read_axe("S[(4,2):(2,1)] + O[3@gpuid]")
    >>> [it.extent for it in shard], replica, offset
    ([4, 2], (), (('gpuid', 3, True),))
    """
    if not isinstance(text, str):
        raise LayoutError(
            f"text: must be a str such as 'S[(4,4):(4,1)]', got {type(text).__name__}"
        )
    reader = _Reader(text)
    reader.take(value="S", what="'S[' to open the shard part")
    reader.take(value="[", what="'['")
    shard = reader.spec("S")
    reader.take(value="]", what="']' to close S[...]")
    replica, offset = None, None
    while reader.peek() is not None:
        reader.take(value="+", what="'+' before R[...] or O[...]")
        part = reader.take("name", what="'R' or 'O'")
        if part not in ("R", "O"):
            reader.k -= 1
            reader.fail(f"expected 'R' or 'O', found {part!r}")
        if (part == "R" and replica is not None) or (part == "O" and offset is not None):
            reader.k -= 1
            reader.fail(f"{part}[...] appears twice")
        reader.take(value="[", what="'['")
        if part == "R":
            replica = reader.spec("R")
        else:
            offset = []
            for value, axis, tagged in reader.group(reader.stride):
                if any(axis == a for a, _, _ in offset):
                    reader.fail(f"O[...] names axis {axis!r} twice")
                offset.append((axis, value, tagged))
        reader.take(value="]", what=f"']' to close {part}[...]")
    return shard, tuple(replica or ()), tuple(offset or ())
