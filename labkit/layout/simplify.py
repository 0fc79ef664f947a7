"""Simplifying a layout: ``coalesce`` merges modes whose strides chain, ``filter`` also drops
broadcast (static stride-0) modes, ``filter_zeros`` marks those modes as size ``_1``.

As in CuTe (``include/cute/layout.hpp``), two modes merge only when the merge is known at
compile time: static ``_1`` modes vanish, a run-time ``1`` stays.

>>> import labkit as lk
>>> from labkit.layout.simplify import coalesce, filter
>>> print(coalesce(lk.parse_layout("(_2,_4):(_1,_2)")), coalesce(lk.parse_layout("(2,4):(1,2)")))
_8:_1 (2,4):(1,2)
>>> print(filter(lk.parse_layout("(_2,_3,_4):(_1,_0,_2)")))
_8:_1
"""

from __future__ import annotations

from ..errors import LayoutError
from .int_tuple import _S0, _S1, S, is_constant, flatten_tuple, fmt
from .basis import has_basis
from .layout import Layout, make_layout, _as_layout, _mk, _via_ints, _bw_coalesce

__all__ = ["coalesce", "filter", "filter_zeros"]


def coalesce(layout, profile=None):
    """Merge modes whose strides chain; drop static size-1 modes. ``profile`` coalesces by mode.

    Like CuTe, two modes merge only when ``s0 * d0 == d1`` is known at compile time (all
    static); static ``_1`` modes vanish, a dynamic ``1`` stays.

    >>> from labkit.layout.int_tuple import S
    >>> print(coalesce(Layout((S(2), S(4)), (S(1), S(2)))))
    _8:_1
    >>> print(coalesce(Layout((2, 4), (1, 2))))
    (2,4):(1,2)
    >>> print(coalesce(Layout((S(2), (S(2), S(4))), (S(1), (S(2), S(16)))), (S(1), S(1))))
    (_2,(_2,_4)):(_1,(_2,_16))
    """
    if type(layout) is not Layout:
        layout = _as_layout(layout, "coalesce")
    if has_basis(layout.stride):
        return _via_ints(coalesce, layout, profile)
    if profile is None:
        shp = layout.shape
        if type(shp) is not tuple:
            if type(shp) is S and shp == 1:
                return _mk(_S1, _S0)
            return layout
        return _bw_coalesce(flatten_tuple(shp), flatten_tuple(layout.stride))
    if isinstance(profile, tuple):
        if len(layout) < len(profile):
            raise LayoutError(f"coalesce: profile {fmt(profile)} has more modes than "
                              f"layout {layout}")
        modes = [coalesce(layout[i], profile[i]) if isinstance(profile[i], tuple)
                 else coalesce(layout[i]) for i in range(len(profile))]
        modes += [layout[i] for i in range(len(profile), len(layout))]
        return make_layout(*modes)
    return _bw_coalesce(flatten_tuple(layout.shape), flatten_tuple(layout.stride))


def filter_zeros(a, b=None):
    """``filter_zeros(stride, shape)``: shape with ``_1`` wherever the stride is a *static* 0.

    A dynamic zero stride is kept as it is: only compile-time broadcast is recognised.
    ``filter_zeros(layout)`` returns the layout with those modes made size ``_1``.

    >>> from labkit.layout.int_tuple import S
    >>> filter_zeros((S(1), S(0), S(8)), (S(2), S(2), S(2)))
    (_2, _1, _2)
    >>> filter_zeros((S(1), 0, S(8)), (S(2), S(2), S(2)))
    (_2, _2, _2)
    """
    if isinstance(a, Layout) and b is None:
        return Layout(filter_zeros(a.stride, a.shape), a.stride)
    if isinstance(a, tuple):
        if not isinstance(b, tuple) or len(a) != len(b):
            raise LayoutError(f"filter_zeros: stride {fmt(a)} and shape {fmt(b)} must be "
                              "congruent")
        return tuple(filter_zeros(x, y) for x, y in zip(a, b))
    if isinstance(b, tuple):
        raise LayoutError(f"filter_zeros: stride {fmt(a)} and shape {fmt(b)} must be congruent")
    return S(1) if is_constant(0, a) else b


def filter(layout):
    """Remove broadcast (static stride-0) and size-1 modes, then coalesce (CuTe ``filter``).

    >>> from labkit.layout.int_tuple import S
    >>> print(filter(Layout((S(2), S(3), S(4)), (S(1), S(0), S(2)))))
    _8:_1
    """
    if type(layout) is not Layout:
        layout = _as_layout(layout, "filter")
    if has_basis(layout.stride):
        return _via_ints(_filter, layout)
    return _filter(layout)


def _filter(layout):
    shp, std = layout.shape, layout.stride
    if type(shp) is not tuple:
        if (type(std) is S and std == 0) or (type(shp) is S and shp == 1):
            return _mk(_S1, _S0)
        return layout
    shp, std = flatten_tuple(shp), flatten_tuple(std)
    for d in std:
        if d == 0 and type(d) is S:
            shp = tuple(_S1 if type(d) is S and d == 0 else s for s, d in zip(shp, std))
            break
    return _bw_coalesce(shp, std)
