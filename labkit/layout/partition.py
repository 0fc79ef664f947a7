"""From the global tensor to a block's tile and a thread's elements: CuTe's partitioning.

``local_tile`` is the *inner* partition: ``zipped_divide`` the tensor by a tiler, then pick a
tile with the block's coordinate. ``local_partition`` is the *outer* partition: divide by the
thread layout's shape, then pick the thread's element in every tile. A projection such as
``(1, X, 1)`` (C++ ``Step<_1, X, _1>``) drops the modes marked ``X`` from the tiler and the
coordinate first.

>>> import labkit as lk
>>> gC = lk.make_tensor(None, lk.make_layout((1000, 776), (776, lk.S(1))))
>>> blk = lk.local_tile(gC, (lk.S(128), lk.S(128)), (7, 6))
>>> print(blk)
coord[696064] o (_128,_128):(776,_1)
>>> thr = lk.local_partition(blk, lk.make_layout((lk.S(32), lk.S(8)), (lk.S(8), lk.S(1))), 37)
>>> print(thr.layout)
(_4,_16):(24832,_8)

Mirrors ``inner_partition``, ``outer_partition``, ``local_tile`` and ``local_partition`` of
``include/cute/tensor_impl.hpp``.
"""

from __future__ import annotations

from ..errors import LayoutError
from .int_tuple import S, is_int, product, fmt, check_int_tuple
from .coordinates import compact_major, _crd2idx
from .layout import Layout, make_layout
from .compose import Underscore, _
from .divides import zipped_divide
from .tensor import Tensor

__all__ = ["X", "dice", "inner_partition", "outer_partition", "local_tile", "local_partition",
           "get_flat_coord"]

#: CuTe's ``X`` (an alias of ``_``): in a projection ``(1, X, 1)`` it drops a mode.
X = _


def _check_tensor(t, what):
    if not isinstance(t, Tensor):
        raise LayoutError(f"{what}: tensor must be a labkit Tensor (lk.make_tensor or "
                          f"lk.make_identity_tensor), got {t!r} ({type(t).__name__})")


def dice(proj, x):
    """Keep the parts of ``x`` whose projection entry is not ``X`` (CuTe ``dice``).

    ``x`` is a tuple (a tiler or a coordinate) or a Layout (its modes).

    >>> dice((1, X, 1), (128, 64, 32)), dice((X, 1, 1), (2, 3, _))
    ((128, 32), (3, _))
    """
    if isinstance(x, Layout):
        if not isinstance(proj, tuple):
            return x if not isinstance(proj, Underscore) else None
        modes = _dice_seq(proj, list(x), "dice: layout")
        if not modes:
            raise LayoutError(f"dice: projection {_pf(proj)} drops every mode of {x}")
        return make_layout(*modes)
    if isinstance(proj, tuple):
        if not isinstance(x, tuple):
            raise LayoutError(f"dice: projection {_pf(proj)} is a tuple but {x!r} is not")
        return tuple(_dice_seq(proj, list(x), "dice"))
    return x


def _dice_seq(proj, items, what):
    if len(proj) != len(items):
        raise LayoutError(f"{what}: projection {_pf(proj)} has {len(proj)} entries for "
                          f"{len(items)} modes (CuTe: Mismatched Ranks)")
    out = []
    for p, e in zip(proj, items):
        if isinstance(p, Underscore):
            continue
        out.append(dice(p, e) if isinstance(p, tuple) else e)
    return out


def _pf(p):
    if isinstance(p, tuple):
        return "(" + ",".join(_pf(e) for e in p) + ")"
    return "X" if isinstance(p, Underscore) else str(p)


def _divide(tensor, tiler, what):
    _check_tensor(tensor, what)
    if isinstance(tiler, Layout) or is_int(tiler) or isinstance(tiler, Underscore):
        pass
    elif isinstance(tiler, tuple):
        for t in tiler:
            if not (isinstance(t, (Layout, Underscore, tuple)) or is_int(t)):
                raise LayoutError(f"{what}: tiler entries must be ints, Layouts or _, got {t!r}")
    else:
        raise LayoutError(f"{what}: tiler must be an int, a Layout or a tuple of those, got "
                          f"{tiler!r}")
    if isinstance(tiler, tuple) and len(tiler) > len(tensor.layout):
        raise LayoutError(f"{what}: tiler {_pf(tiler)} has {len(tiler)} modes, the tensor "
                          f"{tensor.layout} has {len(tensor.layout)} (CuTe: logical_divide: Too "
                          "many modes in tiler.)")
    return Tensor(tensor.storage, zipped_divide(tensor.layout, tiler), tensor.offset)


def _rank(layout_mode):
    return len(layout_mode.shape) if isinstance(layout_mode.shape, tuple) else 1


def _all(n):
    return _ if n == 1 else (_,) * n


def _append(coord, n):
    if len(coord) > n:
        raise LayoutError(f"coordinate {fmt(coord) if all(is_int(c) for c in coord) else coord}"
                          f" has {len(coord)} entries for {n} modes")
    return coord + (_,) * (n - len(coord))


def inner_partition(tensor, tiler, coord):
    """The tile ``coord`` of ``tensor`` divided by ``tiler``: (tile modes..., leftover rests).

    A tuple ``coord`` may be shorter than the number of tiles' modes (the rest are kept, as
    with ``_``); an int ``coord`` is a flat tile index.

    >>> import labkit as lk
    >>> t = lk.make_tensor(None, lk.make_layout((lk.S(8), lk.S(8))))
    >>> print(inner_partition(t, (lk.S(4), lk.S(2)), (1, 3)))
    coord[52] o (_4,_2):(_1,_8)
    """
    tiled, r0, r1 = _divided(tensor, tiler, "inner_partition")
    if isinstance(coord, tuple):
        return tiled(_all(r0), _append(coord, r1) if r1 > 1 else _one(coord))
    _check_index(coord, "inner_partition: coord")
    return tiled(_all(r0), coord)


def _divided(tensor, tiler, name):
    """``zipped_divide`` of ``tensor`` by ``tiler`` and the ranks of its (tile, rest) modes."""
    tiled = _divide(tensor, tiler, name)
    lay = tiled.layout.layout_b if hasattr(tiled.layout, "layout_b") else tiled.layout
    return tiled, _rank(lay[0]), _rank(lay[1])


def outer_partition(tensor, tiler, coord):
    """Element ``coord`` of every tile of ``tensor`` divided by ``tiler``: (rests...).

    >>> import labkit as lk
    >>> t = lk.make_tensor(None, lk.make_layout((lk.S(8), lk.S(8))))
    >>> print(outer_partition(t, (lk.S(4), lk.S(2)), (1, 1)))
    coord[9] o (_2,_4):(_4,_16)
    """
    tiled, r0, r1 = _divided(tensor, tiler, "outer_partition")
    if isinstance(coord, tuple):
        return tiled(_append(coord, r0) if r0 > 1 else _one(coord), _all(r1))
    _check_index(coord, "outer_partition: coord")
    return tiled(coord, _all(r1))


def _one(coord):
    return coord[0] if len(coord) == 1 else coord


def _check_index(i, what):
    if not (is_int(i) or isinstance(i, Underscore)):
        raise LayoutError(f"{what} must be an int, a tuple or _, got {i!r}")
    if is_int(i) and i < 0:
        raise LayoutError(f"{what} must be non-negative, got {i}")


def local_tile(tensor, tiler, coord, proj=None):
    """The block's tile: ``inner_partition`` of ``tensor`` (CuTe ``local_tile``).

    ``proj`` (e.g. ``(1, lk.X, 1)``, C++ ``Step<_1, X, _1>{}``) first drops the ``X`` modes
    of ``tiler`` and ``coord``, so one (M, N, K) tiler serves A, B and C.

    >>> import labkit as lk
    >>> A = lk.make_tensor(None, lk.make_layout((512, 256), (256, lk.S(1))))   # (M, K)
    >>> gA = lk.local_tile(A, (lk.S(128), lk.S(64), lk.S(32)), (2, 3, lk._), (1, lk.X, 1))
    >>> print(gA)       # (BLK_M, BLK_K, k)
    coord[65536] o (_128,_32,8):(256,_1,_32)
    """
    if proj is not None:
        if not isinstance(proj, tuple):
            raise LayoutError(f"local_tile: proj must be a tuple such as (1, lk.X, 1), got "
                              f"{proj!r}")
        if not isinstance(tiler, tuple) or not isinstance(coord, tuple):
            raise LayoutError("local_tile: with proj, tiler and coord must be tuples of the "
                              "projection's rank")
        tiler, coord = dice(proj, tiler), dice(proj, coord)
    return inner_partition(tensor, tiler, coord)


def get_flat_coord(layout, idx):
    """The coordinate of index ``idx`` in ``layout``, one int per mode (CuTe
    ``Layout::get_flat_coord``): each leaf is ``(idx / stride) % shape``.

    >>> import labkit as lk
    >>> get_flat_coord(lk.make_layout((lk.S(32), lk.S(8)), (lk.S(8), lk.S(1))), 37)
    (4, 5)
    """
    if not isinstance(layout, Layout):
        raise LayoutError(f"get_flat_coord: layout must be a Layout, got {layout!r}")
    if not is_int(idx) or idx < 0:
        raise LayoutError(f"get_flat_coord: index must be a non-negative int, got {idx!r}")

    def hier(s, d):
        if isinstance(s, tuple):
            return tuple(hier(x, y) for x, y in zip(s, d))
        if type(s) is S and s == 1:
            return S(0)
        if not is_int(d):
            raise LayoutError(f"get_flat_coord: layout {layout} has a non-integer stride {d}")
        if d == 0:
            raise LayoutError(f"get_flat_coord: layout {layout} has a zero stride on a mode of "
                              f"extent {s} (C++ divides by it: SIGFPE)")
        return (idx // d) % s

    h = hier(layout.shape, layout.stride)
    if not isinstance(layout.shape, tuple):
        return h
    return tuple(_crd2idx(c, s, compact_major(s, "left")) if isinstance(s, tuple) else c
                 for c, s in zip(h, layout.shape))


def local_partition(tensor, thr_layout, thr_idx, proj=None):
    """Thread ``thr_idx``'s elements: ``outer_partition`` by ``thr_layout``'s shape at the
    thread's coordinate in ``thr_layout`` (CuTe ``local_partition``).

    >>> import labkit as lk
    >>> t = lk.make_tensor(None, lk.make_layout((lk.S(16), lk.S(64))))
    >>> print(lk.local_partition(t, lk.make_layout((lk.S(2), lk.S(16))), 3).layout)
    (_8,_4):(_2,_256)
    """
    if not isinstance(thr_layout, Layout):
        raise LayoutError(f"local_partition: thr_layout must be a Layout, got {thr_layout!r}")
    if not is_int(thr_idx):
        raise LayoutError(f"local_partition: thr_idx must be an int (CuTe: "
                          f"static_assert(is_integral<Index>::value)), got {thr_idx!r}")
    if proj is not None:
        if not isinstance(proj, tuple):
            raise LayoutError(f"local_partition: proj must be a tuple such as (1, lk.X, 1), got "
                              f"{proj!r}")
        thr_layout = dice(proj, thr_layout)
    shp = thr_layout.shape
    # CuTe's product_each wraps a rank-1 shape: a 1-D thread layout tiles mode 0 only
    tiler = tuple(product(s) for s in shp) if isinstance(shp, tuple) else (shp,)
    return outer_partition(tensor, tiler, get_flat_coord(thr_layout, thr_idx))
