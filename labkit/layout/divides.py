"""Divides: a layout cut into tiles by a tiler, as ``((tile), (rest))`` and its rearrangements.

``logical_divide(L, T)`` is ``composition(L, (T, complement(T, shape(L))))``; ``zipped_divide``
gathers the tile modes and the rest modes, ``tiled_divide`` unpacks the rest and ``flat_divide``
both (CuTe's ``include/cute/layout.hpp``). A tuple tiler divides mode by mode, ``_`` keeps a
mode. The by-mode and unzip helpers here are shared with :mod:`labkit.layout.products`.

>>> import labkit as lk
>>> from labkit.layout.divides import logical_divide, zipped_divide
>>> print(logical_divide(lk.parse_layout("_16:_1"), lk.parse_layout("_4:_1")))
(_4,_4):(_1,_4)
>>> print(zipped_divide(lk.parse_layout("(_8,_8):(_1,_8)"), (lk.S(2), lk.S(4))))
((_2,_4),(_4,_2)):((_1,_8),(_2,_32))
"""

from __future__ import annotations

from ..errors import LayoutError
from .int_tuple import _S0, _S1, S, is_int
from .layout import Layout, make_layout, coalesce_x, _via_ints
from .simplify import coalesce, _filter
from .basis import has_basis
from .swizzle import ComposedLayout
from .compose import Underscore, _composition_impl, _complement

__all__ = ["logical_divide", "zipped_divide", "tiled_divide", "flat_divide"]


def _tiler_mode(t, what="tiler"):
    """A non-tuple tiler as a Layout: a Layout, or an int ``n`` read as ``make_layout(n)``."""
    if type(t) is Layout or isinstance(t, Layout):
        return t
    if is_int(t):  # the checked constructor: an extent must be positive, as in make_layout
        return Layout(t, _S0 if type(t) is S and t == 1 else _S1)
    raise LayoutError(f"{what}: expected a Layout, an int, _ or a tuple of those, got {t!r}")


def _by_mode(layout, tiler, fn, name):
    """CuTe's ``transform_layout(layout, tiler, fn)``: ``fn`` on the modes the tiler names,
    the other modes kept."""
    n = len(layout)
    if len(tiler) > n:
        raise LayoutError(f"{name}: tiler {tiler!r} has {len(tiler)} modes, layout {layout} "
                          f"has {n} (CuTe: {name}: Too many modes in tiler.)")
    modes = [fn(layout[i], tiler[i]) for i in range(len(tiler))]
    modes += [layout[i] for i in range(len(tiler), n)]
    return make_layout(*modes)


def logical_divide(layout, tiler):
    """``composition(L, (T, complement(T, shape(coalesce(L)))))``: ((tile), (rest)).

    A tuple tiler divides mode by mode (``_`` keeps a mode). As in CuTe, nothing else is
    checked: a tiler that does not divide the layout gives a rest that runs past it.

    >>> import labkit as lk
    >>> print(logical_divide(lk.parse_layout("(_4,_2,_3):(_2,_1,_8)"), lk.parse_layout("_4:_2")))
    ((_2,_2),(_2,_3)):((_4,_1),(_2,_8))
    >>> print(logical_divide(lk.parse_layout("_8:_4"), lk.parse_layout("_3:_1")))
    (_3,_3):(_4,_12)
    """
    if type(layout) is not Layout:
        if hasattr(layout, "layout_b"):
            return ComposedLayout(layout.layout_a, layout.offset,
                                  logical_divide(layout.layout_b, tiler))
        raise LayoutError(f"logical_divide: layout must be a Layout, got {layout!r}")
    if has_basis(layout.stride):
        return _via_ints(logical_divide, layout, tiler)
    if type(tiler) is tuple:
        return _by_mode(layout, tiler, logical_divide, "logical_divide")
    if isinstance(tiler, Underscore):
        return layout
    if type(tiler) is not Layout:
        tiler = _tiler_mode(tiler, "logical_divide")
    c = coalesce(layout)
    f = _filter(tiler)
    rest = _complement(f.shape, f.stride, c.shape, tiler)
    flat = coalesce_x(layout)
    return _composition_impl(flat.shape, flat.stride, (tiler.shape, rest.shape),
                             (tiler.stride, rest.stride))


def _zip2_by(layout, guide):
    """CuTe's ``zip2_by``: split each guided mode (tile, rest) and gather tiles, then rests.

    ``((A,a),((B,b),(C,c)),d)`` guided by ``(X,(X,X))`` becomes ``((A,(B,C)),(a,(b,c),d))``;
    a mode whose guide is not a tuple (a Layout, an int or ``_``) must be a (tile, rest) pair.
    """
    if isinstance(guide, tuple):
        if len(guide) > len(layout):
            raise LayoutError(f"zipped tiler of rank {len(guide)} is longer than layout {layout} "
                              "(CuTe: Mismatched ranks)")
        firsts, seconds = [], []
        for i, g in enumerate(guide):
            a, b = _zip2_by(layout[i], g)
            firsts.append(a)
            seconds.append(b)
        seconds += [layout[i] for i in range(len(guide), len(layout))]
        return make_layout(*firsts), make_layout(*seconds)
    if len(layout) != 2:
        raise LayoutError(f"zipped divide/product: mode {layout} is not a (tile, rest) pair "
                          "(CuTe: Mismatched ranks)")
    return layout[0], layout[1]


def _tile_unzip(divided, tiler):
    """((t0,t1,..),(r0,r1,..)) from a by-mode divided/product layout (CuTe ``tile_unzip``)."""
    base = divided.layout_b if hasattr(divided, "layout_b") else divided
    res = make_layout(*_zip2_by(base, tiler))
    if hasattr(divided, "layout_b"):
        return ComposedLayout(divided.layout_a, divided.offset, res)
    return res


def _unpack_mode(m):
    # CuTe slices with repeat<rank(m)>(_): a mode of rank >= 2 is spliced in one level
    # down; a rank-1 mode (an int, or a 1-tuple) stays as it is
    return list(m) if isinstance(m.shape, tuple) and len(m.shape) > 1 else [m]


def _rest_unpack(res):
    base = res.layout_b if hasattr(res, "layout_b") else res
    modes = [base[0]]
    if len(base) > 1:
        modes += _unpack_mode(base[1])
    out = make_layout(*modes)
    if hasattr(res, "layout_b"):
        return ComposedLayout(res.layout_a, res.offset, out)
    return out


def _flat_unpack(res):
    base = res.layout_b if hasattr(res, "layout_b") else res
    modes = []
    for part in base:
        modes += _unpack_mode(part)
    out = make_layout(*modes)
    if hasattr(res, "layout_b"):
        return ComposedLayout(res.layout_a, res.offset, out)
    return out


def zipped_divide(layout, tiler):
    """``((tile modes), (rest modes))``.

    >>> import labkit as lk
    >>> print(zipped_divide(lk.parse_layout("(_8,_8):(_1,_8)"), (lk.S(2), lk.S(4))))
    ((_2,_4),(_4,_2)):((_1,_8),(_2,_32))
    """
    return _tile_unzip(logical_divide(layout, tiler), tiler)


def tiled_divide(layout, tiler):
    """``((tile modes), rest0, rest1, ...)``."""
    return _rest_unpack(zipped_divide(layout, tiler))


def flat_divide(layout, tiler):
    """``(tile0, tile1, ..., rest0, rest1, ...)``."""
    return _flat_unpack(zipped_divide(layout, tiler))
