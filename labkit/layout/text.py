"""Reading and printing layouts in CuTe's syntax.

``parse_layout`` reads what ``print(layout)`` writes: ``_n`` is static, ``n`` dynamic, and a
swizzled layout reads as ``Sw<B,M,S> o offset o shape:stride``.

>>> import labkit as lk
>>> L = lk.parse_layout("((_2,_2,_2),_1,_1):((_1,_2,_4),_0,_0)")
>>> print(L)
((_2,_2,_2),_1,_1):((_1,_2,_4),_0,_0)
>>> lk.layout_table(lk.parse_layout("(4,2):(2,1)"))
[[0, 1], [2, 3], [4, 5], [6, 7]]
"""

from __future__ import annotations

import re

from ..errors import LayoutError
from .int_tuple import S
from .basis import ScaledBasis, has_basis
from .layout import Layout, size, cosize
from .modes import append
from .swizzle import Swizzle, ComposedLayout

__all__ = ["parse_layout", "parse_int_tuple", "print_layout", "layout_table"]

_TOKEN = re.compile(r"\s*(?:(\()|(\))|(,)|(_?-?\d+)((?:@\d+)*))")


def parse_int_tuple(text: str, _where: str = "", _basis: bool = False):
    """Read ``(_2,(4,_8))`` into nested tuples of static/dynamic ints.

    >>> parse_int_tuple("(_2,(4,_8))")
    (_2, (4, _8))
    """
    if not isinstance(text, str):
        raise LayoutError(f"parse_int_tuple: text must be a str, got {type(text).__name__}")
    whole = _where or repr(text)
    try:
        value, pos = _parse_item(text, 0, whole, _basis)
    except RecursionError:
        raise LayoutError(f"cannot parse {whole[:60]}: nested too deeply") from None
    if text[pos:].strip():
        raise LayoutError(f"cannot parse {whole}: unexpected {text[pos:].strip()!r} at "
                          f"column {pos}")
    return value


def _parse_item(text, pos, whole, basis=False):
    m = _TOKEN.match(text, pos)
    if not m:
        raise LayoutError(f"cannot parse {whole}: expected an integer or '(' at column {pos}")
    if m.group(1):
        items = []
        pos = m.end()
        while True:
            item, pos = _parse_item(text, pos, whole, basis)
            items.append(item)
            m2 = _TOKEN.match(text, pos)
            if m2 and m2.group(3):
                pos = m2.end()
                continue
            if m2 and m2.group(2):
                return tuple(items), m2.end()
            raise LayoutError(f"cannot parse {whole}: expected ',' or ')' at column {pos}")
    if m.group(4):
        tok = m.group(4)
        v = S(int(tok[1:])) if tok.startswith("_") else int(tok)
        if m.group(5):
            if not basis:
                raise LayoutError(f"cannot parse {whole}: a basis element ({tok}{m.group(5)}) "
                                  f"is a stride, not an extent (column {pos})")
            # C++ prints the innermost index first: _1@0@1 is E<1,0>
            idx = tuple(int(i) for i in reversed(m.group(5)[1:].split("@")))
            return ScaledBasis(v, idx), m.end()
        return v, m.end()
    raise LayoutError(f"cannot parse {whole}: unexpected {m.group(0).strip()!r} at column {pos}")


_SW = re.compile(r"\s*Sw<\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*>\s*o\s*(_?-?\d+)\s*o\s*(.*)$",
                 re.S)


def parse_layout(text: str):
    """Read a layout printed by CuTe (or by labkit) back into a Layout or ComposedLayout.

    >>> print(parse_layout("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"))
    Sw<3,3,3> o _0 o (_8,_64):(_64,_1)
    >>> print(parse_layout("((_2,4),8):((_1@0@0,_2@0@0),_1@1)"))
    ((_2,4),8):((_1@0@0,_2@0@0),_1@1)
    >>> parse_layout("(4,8):(8,1")
    Traceback (most recent call last):
    ...
    labkit.errors.LayoutError: cannot parse '(4,8):(8,1' (stride '(8,1'): expected ',' or ')' at column 4
    """
    if not isinstance(text, str):
        raise LayoutError(f"parse_layout: text must be a str, got {type(text).__name__}")
    m = _SW.match(text)
    if m:
        b, mm, s, off, rest = m.groups()
        sw = Swizzle(int(b), int(mm), int(s))
        offset = S(int(off[1:])) if off.startswith("_") else int(off)
        return ComposedLayout(sw, offset, parse_layout(rest))
    if ":" not in text:
        raise LayoutError(f"cannot parse {text!r}: a layout is written shape:stride")
    if text.count(":") != 1:
        raise LayoutError(f"cannot parse {text!r}: exactly one ':' separates shape and stride")
    a, b = text.split(":")
    shp = parse_int_tuple(a, f"{text!r} (shape {a.strip()!r})")
    std = parse_int_tuple(b, f"{text!r} (stride {b.strip()!r})", _basis=True)
    return Layout(shp, std)


def layout_table(layout):
    """The 2-D table of ``print_layout`` as a list of rows of offsets (mode 0 = rows).

    >>> layout_table(parse_layout("(2,3):(3,1)"))
    [[0, 1, 2], [3, 4, 5]]
    """
    lay = _as_2d(layout)
    m, n = int(size(lay[0])), int(size(lay[1]))
    return [[int(lay(i, j)) for j in range(n)] for i in range(m)]


def _as_2d(layout):
    if not isinstance(layout, (Layout, ComposedLayout)):
        raise LayoutError(f"print_layout: expected a layout, got {layout!r}")
    if isinstance(layout, Layout) and has_basis(layout.stride):
        raise LayoutError(f"print_layout: layout {layout} has basis strides: its values are "
                          "coordinates, not offsets (CuTe's print_layout prints integers)")
    if len(layout) == 1 and isinstance(layout, Layout):
        return append(layout if isinstance(layout.shape, tuple) else Layout((layout.shape,),
                                                                           (layout.stride,)),
                      n=2)
    if len(layout) != 2:
        raise LayoutError(f"print_layout: layout {layout} has rank {len(layout)}; a table needs "
                          "rank 2 (slice or group modes first)")
    return layout


def print_layout(layout, file=None):
    """Print a rank-2 layout as CuTe's ``print_layout`` does: header, then the offset grid."""
    print(format_layout(layout), end="", file=file)


def _num_digits(x: int) -> int:
    """CuTe's ``num_digits``: decimal digits of ``x``, 1 below 10, at most 10."""
    d = 1
    while d < 10 and x >= 10 ** d:
        d += 1
    return d


def format_layout(layout) -> str:
    lay = _as_2d(layout)
    rows = layout_table(lay)
    m, n = len(rows), len(rows[0])
    cs = cosize(lay.layout_b) if isinstance(lay, ComposedLayout) else cosize(lay)
    # CuTe: idx_width = num_digits(cosize(layout)) + 2, whatever the printed values are
    width = _num_digits(int(cs)) + 2
    delim = "+" + "-" * width
    out = [str(layout), "\n", "    "]
    out += [f"  {j:>{width - 2}} " for j in range(n)]
    out.append("\n")
    for i in range(m):
        out.append("    " + delim * n + "+\n")
        out.append(f"{i:>2}  " + "".join(f"| {v:>{width - 2}} " for v in rows[i]) + "|\n")
    out.append("    " + delim * n + "+\n")
    return "".join(out)
