"""Products: a block repeated by a tiler, ``(block, rest)`` and its rearrangements.

``logical_product(A, B)`` is ``(A, composition(complement(A, size(A)*cosize(B)), B))``;
``zipped_``, ``tiled_`` and ``flat_product`` rearrange it as the divides do; ``blocked_product``
repeats whole blocks, ``raked_product`` interleaves them, and ``tile_to_shape`` repeats a block
until it covers a shape (CuTe's ``include/cute/layout.hpp``; as there, results are not coalesced).

>>> import labkit as lk
>>> from labkit.layout.products import logical_product, raked_product
>>> print(logical_product(lk.parse_layout("(_2,_2):(_1,_2)"), lk.parse_layout("_3:_1")))
((_2,_2),_3):((_1,_2),_4)
>>> print(raked_product(lk.parse_layout("(_2,_2):(_1,_2)"), lk.parse_layout("(_2,_3):(_1,_2)")))
((_2,_2),(_3,_2)):((_4,_1),(_8,_2))
"""

from __future__ import annotations

from ..errors import LayoutError
from .int_tuple import _S0, _S1, product, fmt, is_static, ceil_div, check_int_tuple
from .layout import Layout, cosize, coalesce_x, make_ordered_layout, _as_layout, _mk, _no_basis
from .simplify import _filter
from .compose import Underscore, _on_layout_b, _composition_impl, _complement
from .divides import _by_mode, _tiler_mode, _tile_unzip, _rest_unpack, _flat_unpack

__all__ = ["logical_product", "zipped_product", "tiled_product", "flat_product", "zip_layouts",
           "blocked_product", "raked_product", "tile_to_shape"]


def logical_product(block, tiler):
    """``(block, composition(complement(block, size(block)*cosize(tiler)), tiler))``.

    >>> import labkit as lk
    >>> print(logical_product(lk.parse_layout("(_2,_2):(_1,_2)"), lk.parse_layout("_3:_1")))
    ((_2,_2),_3):((_1,_2),_4)
    """
    if type(block) is not Layout:
        if hasattr(block, "layout_b"):
            return _on_layout_b(block, logical_product, tiler)
        block = _as_layout(block, "logical_product: block")
    _no_basis(block, "logical_product")
    if type(tiler) is tuple:
        return _by_mode(block, tiler, logical_product, "logical_product")
    if isinstance(tiler, Underscore):
        return block
    if type(tiler) is not Layout:
        tiler = _tiler_mode(tiler, "logical_product")
    f = _filter(block)
    comp = _complement(f.shape, f.stride, product(block.shape) * cosize(tiler), block)
    flat = coalesce_x(comp)
    r = _composition_impl(flat.shape, flat.stride, tiler.shape, tiler.stride)
    return _mk((block.shape, r.shape), (block.stride, r.stride))


def zipped_product(block, tiler):
    return _tile_unzip(logical_product(block, tiler), tiler)


def tiled_product(block, tiler):
    """``((block), rest0, rest1, ...)``: the seed's fragment construction.

    >>> import labkit as lk
    >>> block = lk.parse_layout("(_2,_2,_2):(_1,_2,_4)")
    >>> rest = lk.parse_layout("(_4,(_2,_2)):(_1,(_4,_8))")
    >>> print(tiled_product(block, rest))
    ((_2,_2,_2),_4,(_2,_2)):((_1,_2,_4),_8,(_32,_64))
    """
    return _rest_unpack(zipped_product(block, tiler))


def flat_product(block, tiler):
    return _flat_unpack(zipped_product(block, tiler))


def _zip_tuple(a, b):
    # CuTe's zip(a, b): ((a0,b0),(a1,b1),...) when a is a tuple (b must have a's rank),
    # else ((a,b)) -- a non-tuple a is wrapped
    if type(a) is not tuple:
        return ((a, b),)
    if type(b) is not tuple or len(b) != len(a):
        return None
    return tuple((x, y) for x, y in zip(a, b))


def zip_layouts(a, b):
    """CuTe's ``zip(a, b)`` of two layouts: ``((a0,b0),(a1,b1),...)``; a non-tuple ``a``
    gives ``((a,b))``.

    >>> import labkit as lk
    >>> print(zip_layouts(lk.parse_layout("(_2,_3):(_1,_2)"), lk.parse_layout("(_4,_5):(_6,_24)")))
    ((_2,_4),(_3,_5)):((_1,_6),(_2,_24))
    """
    a, b = _as_layout(a, "zip: a"), _as_layout(b, "zip: b")
    s = _zip_tuple(a.shape, b.shape)
    if s is None:
        raise LayoutError(f"zip: layouts {a} and {b} differ in rank (CuTe: Mismatched Ranks)")
    return _mk(s, _zip_tuple(a.stride, b.stride))


def _append_to_rank(layout, R):
    # CuTe's append<R>(layout): pad with _1:_0 modes up to rank R
    n = len(layout)
    if n >= R:
        return layout
    shp = layout.shape if type(layout.shape) is tuple else (layout.shape,)
    std = layout.stride if type(layout.stride) is tuple else (layout.stride,)
    return _mk(shp + (_S1,) * (R - n), std + (_S0,) * (R - n))


def _rank_product(block, tiler, what):
    if type(block) is not Layout:
        block = _as_layout(block, f"{what}: block")
    if type(tiler) is not Layout:
        tiler = _as_layout(tiler, f"{what}: tiler")
    R = max(len(block), len(tiler))
    res = logical_product(_append_to_rank(block, R), _append_to_rank(tiler, R))
    return _mk(res.shape[0], res.stride[0]), _mk(res.shape[1], res.stride[1])


def blocked_product(block, tiler):
    """``zip(block, product)``: each mode is (block mode, tiler mode), so the tiler repeats
    whole blocks. Both operands are padded to the same rank; as in CuTe the result is not
    coalesced.

    >>> import labkit as lk
    >>> print(blocked_product(lk.parse_layout("(_2,_2):(_1,_2)"), lk.parse_layout("(_2,_3):(_1,_2)")))
    ((_2,_2),(_2,_3)):((_1,_4),(_2,_8))
    >>> print(blocked_product(lk.parse_layout("_4:_1"), lk.parse_layout("_2:_1")))
    ((_4,_2)):((_1,_4))
    """
    if hasattr(block, "layout_b"):
        return _on_layout_b(block, blocked_product, tiler)
    b, p = _rank_product(block, tiler, "blocked_product")
    try:
        return zip_layouts(b, p)
    except LayoutError:
        raise LayoutError(f"blocked_product: the block {b} and the product {p} of tiler "
                          f"{tiler} differ in rank (CuTe: Mismatched Ranks)") from None


def raked_product(block, tiler):
    """``zip(product, block)``: each mode is (tiler mode, block mode), so blocks interleave.

    >>> import labkit as lk
    >>> print(raked_product(lk.parse_layout("(_2,_2):(_1,_2)"), lk.parse_layout("(_2,_3):(_1,_2)")))
    ((_2,_2),(_3,_2)):((_4,_1),(_8,_2))
    """
    if hasattr(block, "layout_b"):
        return _on_layout_b(block, raked_product, tiler)
    b, p = _rank_product(block, tiler, "raked_product")
    try:
        return zip_layouts(p, b)
    except LayoutError:
        raise LayoutError(f"raked_product: the product {p} of tiler {tiler} and the block {b} "
                          "differ in rank (CuTe: Mismatched Ranks)") from None


def tile_to_shape(block, trg_shape, order=None):
    """Repeat ``block`` (blocked) until it covers ``trg_shape``; ``order`` orders the repeats.

    As in CuTe the result is ``blocked_product(block, repeats)``, not coalesced: a mode
    the block already fills keeps a ``_1`` repeat.

    >>> import labkit as lk
    >>> atom = lk.parse_layout("(_8,(_8,_8)):(_8,(_1,_64))")
    >>> print(tile_to_shape(atom, (lk.S(128), lk.S(64), lk.S(3))))
    ((_8,_16),((_8,_8),_1),(_1,_3)):((_8,_512),((_1,_64),_0),(_0,_8192))
    """
    if hasattr(block, "layout_b"):
        return _on_layout_b(block, tile_to_shape, trg_shape, order)
    block = _as_layout(block, "tile_to_shape: block")
    check_int_tuple(trg_shape, "tile_to_shape: target shape")
    R = len(trg_shape) if type(trg_shape) is tuple else 1
    if len(block) > R:
        raise LayoutError(f"tile_to_shape: block {block} has more modes than the target "
                          f"shape {fmt(trg_shape)} (CuTe: Rank of layout must be <= rank of "
                          "target shape.)")
    padded = _append_to_rank(block, R)
    block_shape = tuple(product(m.shape) for m in padded) if R > 1 or type(
        padded.shape) is tuple else (product(padded.shape),)
    target = tuple(product(s) for s in trg_shape) if type(trg_shape) is tuple else (trg_shape,)
    if is_static(target):
        if not is_static(block_shape):
            raise LayoutError(f"tile_to_shape: the target shape {fmt(target)} is static but the "
                              f"block shape {fmt(block_shape)} is not, so CuTe cannot check at "
                              "compile time that the block divides it (its static assert does "
                              "not compile)")
        for t, b in zip(target, block_shape):
            if t % b != 0:
                raise LayoutError(f"tile_to_shape: block shape {fmt(block_shape)} does not "
                                  f"divide the target shape {fmt(target)} (CuTe: tile_to_shape: "
                                  "block shape does not divide the target shape.)")
    product_shape = tuple(ceil_div(t, b) for t, b in zip(target, block_shape))
    if type(trg_shape) is not tuple:
        product_shape = product_shape[0]
    rep = make_ordered_layout(product_shape, order) if order is not None else Layout(product_shape)
    return blocked_product(padded, rep)
