"""Inverses of a layout: ``right_inverse`` (``L(R(i)) == i``) and ``left_inverse`` (``R(L(i)) == i``).

Both read the static strides of ``coalesce(L)`` in CuTe's sorted order (its ``SortByKey`` is an
exchange sort, kept here as :func:`_exchange_sort` so that ties fall as they do in C++), as in
``include/cute/layout.hpp``.

>>> import labkit as lk
>>> from labkit.layout.inverses import right_inverse, left_inverse
>>> print(right_inverse(lk.parse_layout("(_4,_8):(_8,_1)")))
(_8,_4):(_4,_1)
>>> print(left_inverse(lk.parse_layout("(_4,_2):(_2,_1)")))
(_2,_4):(_4,_1)
"""

from __future__ import annotations

from ..errors import LayoutError
from .int_tuple import _S0, _S1, _int_new, cdiv, S, flatten_tuple
from .layout import Layout, _as_layout, _mk, _no_basis, _bw_coalesce, _bw_lists
from .simplify import coalesce

__all__ = ["right_inverse", "left_inverse"]


def _exchange_sort(keys):
    """The order CuTe's ``SortByKey`` (an exchange sort, not stable) puts indices in."""
    a = list(enumerate(keys))
    n = len(a)
    for i in range(n):
        for j in range(i + 1, n):
            if a[j][1] < a[i][1]:
                a[i], a[j] = a[j], a[i]
    return [i for i, _k in a]


def _prefix_products(shp):
    out, acc, st = [], 1, True
    for s in shp:
        out.append(_int_new(S, acc) if st else acc)
        acc *= int(s)
        st = st and type(s) is S
    out.append(_int_new(S, acc) if st else acc)
    return out


def right_inverse(layout):
    """``R`` with ``L(R(i)) == i`` for ``i < size(R)`` (CuTe ``right_inverse``).

    As in CuTe, ``R`` follows the *static* strides of ``coalesce(L)`` in sorted order,
    starting at ``_1`` and continuing while ``shape * stride`` is the next stride; run-time
    strides are skipped, so a layout with them has a short (or trivial ``_1:_0``) inverse.

    >>> import labkit as lk
    >>> print(right_inverse(lk.parse_layout("(_4,_8):(_8,_1)")))
    (_8,_4):(_4,_1)
    >>> print(right_inverse(lk.make_layout((4, 8))))
    4:_1
    """
    if type(layout) is not Layout:
        if hasattr(layout, "layout_b") and not isinstance(layout, Layout):
            raise LayoutError("right_inverse: a ComposedLayout has no plain-layout inverse "
                              "here; invert its layout_b")
        layout = _as_layout(layout, "right_inverse")
    _no_basis(layout, "right_inverse")
    shp, std = _bw_lists(flatten_tuple(layout.shape), flatten_tuple(layout.stride))
    items = [(int(d), i) for i, d in enumerate(std) if type(d) is S]
    if len(items) > 1:
        keys = [k for k, _i in items]
        if len(set(keys)) == len(keys):      # distinct keys: any sort gives CuTe's order
            items.sort()
        else:                                # ties: CuTe's exchange sort decides
            items = [items[k] for k in _exchange_sort(keys)]
    out_s, out_d = [_S1], [_S0]
    cur, cur_st = 1, True
    for d, i in items:
        if cur_st and d == cur:
            s = shp[i]
            acc, st = 1, True                # prefix product of the extents before i
            for x in shp[:i]:
                acc *= int(x)
                st = st and type(x) is S
            out_s.append(s)
            out_d.append(_int_new(S, acc) if st else acc)
            cur = int(s) * d
            cur_st = type(s) is S or d == 0
    if len(out_s) == 1:
        return _mk(_S1, _S0)
    return _bw_coalesce(tuple(out_s), tuple(out_d))


def left_inverse(layout):
    """``R`` with ``R(L(i)) == i`` for every ``i`` of an injective ``L`` with static strides.

    CuTe sorts the static strides of ``coalesce(L)`` and needs each to be divisible by the
    size gathered so far; run-time strides are refused ("Left inverse requires static
    strides."), run-time extents are fine.

    >>> import labkit as lk
    >>> print(left_inverse(lk.parse_layout("(_4,_2):(_2,_1)")))
    (_2,_4):(_4,_1)
    >>> print(left_inverse(lk.parse_layout("8:_1")))
    8:_1
    """
    layout = _as_layout(layout, "left_inverse")
    _no_basis(layout, "left_inverse")
    c = coalesce(layout)
    shp, std = c.shape, c.stride
    if type(shp) is not tuple:
        shp, std = (shp,), (std,)
    for d in std:
        if type(d) is not S:
            raise LayoutError(f"left_inverse: layout {layout} has a run-time stride (CuTe: "
                              "Left inverse requires static strides.)")
    pre = _prefix_products(shp)
    seq = _exchange_sort([int(d) for d in std])
    out_s, out_d = [], [_S0]
    size_so_far = _S1
    for i in seq:
        d = std[i]
        if d == 0:
            continue
        if d % size_so_far != 0:
            raise LayoutError(f"left_inverse: stride {d} of layout {layout} is not divisible "
                              f"by the size {size_so_far} below it (CuTe: Left inverse "
                              "divisibility condition)")
        q = cdiv(d, size_so_far)
        out_s.append(q)
        out_d.append(pre[i])
        size_so_far = size_so_far * q
    out_s.append(shp[seq[-1]])
    return _bw_coalesce(tuple(out_s), tuple(out_d))


