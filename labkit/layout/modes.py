"""Mode operations: the modes of a layout (or a tensor's layout) taken, grouped, picked or added.

``append``/``prepend`` add a mode, ``take(L, b, e)`` keeps modes ``[b, e)``,
``group_modes(L, b, e)`` gathers them into one, and ``select(L, i, j, ...)`` picks modes in a
new order (CuTe's ``append``, ``prepend``, ``take``, ``group``/``group_modes`` and ``select``).
On a Tensor they act on its layout and keep its storage and offset.

>>> import labkit as lk
>>> from labkit.layout.modes import take, group_modes, select
>>> L = lk.make_layout((2, 4, 8), (1, 2, 8))
>>> print(take(L, 1, 3), group_modes(L, 0, 2), select(L, 2, 0))
(4,8):(2,8) ((2,4),8):((1,2),8) (8,2):(8,1)
"""

from __future__ import annotations

from ..errors import LayoutError
from .int_tuple import S, is_int
from .layout import Layout, make_layout, _as_layout

__all__ = ["append", "prepend", "take", "group_modes", "select"]


def append(layout, x=None, n=None):
    """Append mode ``x`` (default ``_1:_0``), or pad to rank ``n`` with ``_1:_0``."""
    layout = _as_layout(layout, "append")
    modes = list(layout) if isinstance(layout.shape, tuple) else [layout]
    if n is not None:
        while len(modes) < n:
            modes.append(Layout(S(1), S(0)))
    else:
        modes.append(x if x is not None else Layout(S(1), S(0)))
    return make_layout(*modes)


def prepend(layout, x):
    layout = _as_layout(layout, "prepend")
    modes = list(layout) if isinstance(layout.shape, tuple) else [layout]
    return make_layout(x, *modes)


def _on_tensor(fn, x, *args):
    """``fn`` on a tensor's layout, keeping its storage and offset (C++'s Tensor overloads)."""
    if isinstance(x, Layout):
        return fn(x, *args)
    if hasattr(x, "storage") and isinstance(getattr(x, "layout", None), Layout):
        return type(x)(x.storage, fn(x.layout, *args), x.offset)
    return fn(x, *args)


def _bounds(layout, b, e, what):
    layout = _as_layout(layout, what)
    if not (is_int(b) and is_int(e)):
        raise LayoutError(f"{what}: mode bounds b and e must be ints, got {b!r} and {e!r}")
    R = len(layout)
    return layout, list(layout), (R if e == -1 else e), R


def take(layout, b, e=-1):
    """Modes ``[b, e)`` of a layout or tensor (CuTe ``take<B,E>``; ``e=-1`` is the rank).

    >>> print(take(Layout((2, 4, 8), (1, 2, 8)), 1, 3))
    (4,8):(2,8)
    """
    return _on_tensor(_take, layout, b, e)


def _take(layout, b, e):
    layout, modes, e2, R = _bounds(layout, b, e, "take")
    if not b < e2:
        raise LayoutError(f"take: modes [b={b}, e={e}) of layout {layout}: an empty range "
                          "(CuTe: take: empty range error)")
    if not (0 <= b and e2 <= R):
        raise LayoutError(f"take: modes [b={b}, e={e}) of layout {layout} of rank {R} (CuTe: "
                          "take: range out of bounds)")
    return make_layout(*modes[b:e2])


def group_modes(layout, b, e=-1):
    """Modes ``[b, e)`` gathered into one mode, the others kept (CuTe ``group<B,E>`` on a
    layout, ``group_modes<B,E>`` on a tensor; ``e=-1`` is the rank).

    >>> print(group_modes(Layout((2, 4, 8), (1, 2, 8)), 0, 2))
    ((2,4),8):((1,2),8)
    """
    return _on_tensor(_group, layout, b, e)


def _group(layout, b, e):
    layout, modes, e2, R = _bounds(layout, b, e, "group_modes")
    if e2 > R or b > R:
        raise LayoutError(f"group_modes: modes [b={b}, e={e}) of layout {layout} of rank {R} "
                          "run past its modes (CuTe: Index out of range)")
    if not 0 <= b <= e2:
        raise LayoutError(f"group_modes: modes [b={b}, e={e}) of layout {layout} need "
                          "0 <= b <= e (CuTe: static_assert(B <= E))")
    if b == e2:
        return layout
    out = modes[:b] + [make_layout(*modes[b:e2])] + modes[e2:]
    return make_layout(*out)


def select(layout, *modes):
    """The listed modes, in the listed order (CuTe ``select<I...>``).

    >>> print(select(Layout((2, 4, 8), (1, 2, 8)), 2, 0))
    (8,2):(8,1)
    """
    return _on_tensor(_select, layout, *modes)


def _select(layout, *modes):
    layout = _as_layout(layout, "select")
    if not modes:
        raise LayoutError("select(layout, *modes): name at least one mode")
    R = len(layout)
    for m in modes:
        if not is_int(m) or not 0 <= m < R:
            raise LayoutError(f"select: mode {m!r} is out of range for layout {layout} of rank "
                              f"{R} (CuTe: get<I> needs I < rank)")
    return make_layout(*[layout[m] for m in modes])
