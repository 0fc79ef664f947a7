"""Layouts for moving data: common vectors, other element widths, and register fragments.

``max_common_vector(a, b)`` counts the elements two layouts keep contiguous together (how wide
a copy can be); ``upcast``, ``downcast`` and ``recast_layout`` view a layout with wider or
narrower elements; ``make_fragment_like`` and ``make_layout_like`` build the compact layout of
registers that holds a partition (CuTe's ``include/cute/layout.hpp``).

>>> import labkit as lk
>>> from labkit.layout.vectors import max_common_vector, recast_layout
>>> max_common_vector(lk.parse_layout("(_8,_8):(_1,_8)"), lk.parse_layout("(_8,_8):(_1,_8)"))
_64
>>> print(recast_layout(lk.parse_layout("(_32,(_32,_4)):(_32,(_1,_1024))"), 1, 16))
(_32,(_2,_4)):(_2,(_1,_64))
"""

from __future__ import annotations

from ..errors import LayoutError
from .int_tuple import S, is_int, is_constant, is_static, flatten_tuple, shape_div
from .layout import Layout, make_ordered_layout, _as_layout, _no_basis
from .coordinates import compact_major
from .simplify import coalesce, filter_zeros
from .compose import composition
from .inverses import right_inverse
from .products import tiled_product

__all__ = ["max_common_vector", "upcast", "downcast", "recast_layout", "make_fragment_like",
           "make_layout_like"]


def max_common_vector(a, b):
    """How many contiguous elements ``a`` and ``b`` share (CuTe ``max_common_vector``).

    Only a static stride-1 leading mode of ``coalesce(a o right_inverse(b))`` counts, so
    run-time strides usually give ``_1``.

    >>> import labkit as lk
    >>> max_common_vector(lk.parse_layout("(_8,_8):(_1,_8)"), lk.parse_layout("(_8,_8):(_1,_8)"))
    _64
    >>> max_common_vector(lk.parse_layout("(_8,_8):(_8,_1)"), lk.parse_layout("(_8,_8):(_1,_8)"))
    _1
    """
    a = _as_layout(a, "max_common_vector: a")
    b = _as_layout(b, "max_common_vector: b")
    r = coalesce(composition(a, right_inverse(b)))
    d0 = r.stride[0] if isinstance(r.stride, tuple) else r.stride
    s0 = r.shape[0] if isinstance(r.shape, tuple) else r.shape
    return s0 if isinstance(s0, S) and is_constant(1, d0) else S(1)


def upcast(layout, n):
    """View ``n`` consecutive elements as one (strides and extents divide by ``n``)."""
    layout = _as_layout(layout, "upcast")
    _no_basis(layout, "upcast")
    if not is_int(n) or n < 1:
        raise LayoutError(f"upcast: n must be a positive int, got {n!r}")

    def rec(s, d):
        if isinstance(s, tuple):
            return tuple(zip(*[rec(x, y) for x, y in zip(s, d)])) if s else ((), ())
        if is_constant(0, d):
            return s, d
        if isinstance(d, S):
            return shape_div(s, shape_div(S(n), abs(d))), shape_div(d, S(n))
        if d % n != 0:
            raise LayoutError(f"recast: dynamic stride {d} is not divisible by {n}")
        return s, d // n

    s, d = rec(layout.shape, layout.stride)
    return Layout(s, d)


def downcast(layout, n):
    """View each element as ``n`` consecutive smaller ones."""
    layout = _as_layout(layout, "downcast")
    _no_basis(layout, "downcast")
    if not is_int(n) or n < 1:
        raise LayoutError(f"downcast: n must be a positive int, got {n!r}")
    if not any(is_constant(1, d) for d in flatten_tuple(layout.stride)):
        raise LayoutError(f"downcast: layout {layout} has no static stride-1 mode; splitting "
                          "elements needs adjacent elements (CuTe's has_int1<Stride>)")

    def rec(s, d):
        if isinstance(s, tuple):
            return tuple(zip(*[rec(x, y) for x, y in zip(s, d)]))
        if is_constant(1, d) or is_constant(-1, d):
            return s * S(n), d
        return s, d * S(n)

    s, d = rec(layout.shape, layout.stride)
    return Layout(s, d)


def recast_layout(layout, old_bits, new_bits):
    """Reinterpret a layout of ``old_bits``-wide elements as ``new_bits``-wide ones.

    >>> import labkit as lk
    >>> print(recast_layout(lk.parse_layout("(_32,(_32,_4)):(_32,(_1,_1024))"), 1, 16))
    (_32,(_2,_4)):(_2,(_1,_64))
    """
    for v, nm in ((old_bits, "old_bits"), (new_bits, "new_bits")):
        if not is_int(v) or v <= 0:
            raise LayoutError(f"recast_layout: {nm} must be a positive int, got {v!r}")
    from math import gcd
    g = gcd(old_bits, new_bits)
    num, den = new_bits // g, old_bits // g
    if num == 1 and den == 1:
        return layout
    if num == 1:
        return downcast(layout, den)
    if den == 1:
        return upcast(layout, num)
    raise LayoutError(f"recast_layout: {old_bits}-bit to {new_bits}-bit is not supported: one "
                      "width must divide the other (CuTe: 'Recast not supported')")


def make_fragment_like(layout):
    """A compact register layout for a partition (CuTe ``make_fragment_like``).

    Mode 0 (the atom's values) is packed LayoutLeft, keeping static-zero broadcast; the
    remaining modes are ordered by the partition's strides (``make_ordered_layout``), and the
    two are joined by ``tiled_product``.

    >>> import labkit as lk
    >>> print(make_fragment_like(lk.parse_layout("((_2,_2,_2),_4,(_2,_2)):((_1,_512,72),_2048,(144,288))")))
    ((_2,_2,_2),_4,(_2,_2)):((_1,_2,_4),_8,(_32,_64))
    """
    if hasattr(layout, "layout_b"):
        layout = layout.layout_b
    layout = _as_layout(layout, "make_fragment_like")
    R = len(layout) if isinstance(layout.shape, tuple) else 1
    if R > 1 and is_static(layout.shape):
        s0, d0 = layout.shape[0], layout.stride[0]
        block = Layout(s0, compact_major(filter_zeros(d0, s0), "left"))
        rest = make_ordered_layout(layout.shape[1:], layout.stride[1:])
        return tiled_product(block, rest)
    return Layout(layout.shape)


def make_layout_like(layout):
    """A compact layout with the same shape whose modes follow the input's stride order.

    Unlike :func:`make_fragment_like`, every leaf (mode 0's included) is ordered together,
    and static-zero strides stay zero (CuTe ``make_layout_like``).

    >>> import labkit as lk
    >>> print(make_layout_like(lk.parse_layout("((_2,_2,_2),_4,(_2,_2)):((_1,_512,72),_2048,(144,288))")))
    ((_2,_2,_2),_4,(_2,_2)):((_1,_2,_16),_4,(_32,_64))
    """
    if hasattr(layout, "layout_b"):
        layout = layout.layout_b
    layout = _as_layout(layout, "make_layout_like")
    ordered = make_ordered_layout(filter_zeros(layout.stride, layout.shape), layout.stride)
    return Layout(layout.shape, ordered.stride)
