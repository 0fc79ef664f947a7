"""Coordinates and compact strides: CuTe's ``include/cute/stride.hpp``, on integer tuples.

``crd2idx(crd, shape, stride)`` is the offset of a coordinate, ``idx2crd(i, shape)`` the
colexicographic coordinate of a flat index (the leftmost mode moves fastest), and
``compact_major(shape)`` the compact strides of that order. Nothing here needs a ``Layout``:
:mod:`labkit.layout.layout` builds the class on these.

>>> from labkit.layout.int_tuple import S
>>> from labkit.layout.coordinates import crd2idx, idx2crd, compact_major
>>> crd2idx((1, 2), (4, 8), (8, 1)), idx2crd(5, ((2, 2), 4))
(10, ((1, 0), 1))
>>> compact_major((S(2), S(3), S(4)), "right")
(_12, _4, _1)
"""

from __future__ import annotations

from ..errors import LayoutError
from .int_tuple import _S0, _S1, S, is_int, is_constant, product, flatten_tuple, fmt, congruent, check_int_tuple
from .basis import check_stride_tuple

__all__ = ["crd2idx", "idx2crd", "compact_major", "check_in_domain"]


def _has_slice(c):
    if isinstance(c, tuple):
        return any(_has_slice(e) for e in c)
    return c is None or type(c).__name__ == "Underscore"


def _cfmt(c):
    return fmt(c) if isinstance(c, tuple) else str(c)


def _check_coord(crd, shp, what, layout=None):
    """Coordinates must match the shape's nesting and be non-negative. Like CuTe, there is no
    upper bound: the last (outermost) mode runs on past the domain, ``(3:1)(3) == 3``."""
    if isinstance(crd, tuple):
        if not isinstance(shp, tuple) or len(crd) != len(shp):
            _bad_coord(crd, shp, what, layout, "its rank does not match the shape's")
        for c, s in zip(crd, shp):
            _check_coord(c, s, what, layout)
        return
    if type(crd) is not int and type(crd) is not S and not is_int(crd):
        _bad_coord(crd, shp, what, layout, f"coordinates must be ints or tuples, got {crd!r}")
    if crd < 0:
        _bad_coord(crd, shp, what, layout, "coordinates must be non-negative")


def check_in_domain(crd, shp, what="coordinate"):
    """Raise :class:`LayoutError` unless ``crd`` is a coordinate *inside* ``shp``: matching
    nesting and every entry in range. CuTe itself does not bound coordinates (``L(i)``
    runs on past the domain); callers that index storage use this.

    >>> check_in_domain((1, 2), (4, 8))
    >>> check_in_domain((1, 9), (4, 8))
    Traceback (most recent call last):
    ...
    labkit.errors.LayoutError: coordinate (1,9): index 9 out of range [0, 8) of shape 8
    """
    _check_coord(crd, shp, what)
    _check_bounds(crd, shp, f"{what} {_cfmt(crd)}")


def _check_bounds(crd, shp, what):
    if isinstance(crd, tuple):
        for c, s in zip(crd, shp):
            _check_bounds(c, s, what)
        return
    n = product(shp)
    if crd >= n:
        raise LayoutError(f"{what}: index {crd} out of range [0, {int(n)}) of shape {fmt(shp)}")


def _bad_coord(crd, shp, what, layout, why):
    where = f" of layout {layout}" if layout is not None else f" (shape {fmt(shp)})"
    raise LayoutError(f"{what}{where}: {why}")

def crd2idx(crd, shp, std):
    """Offset of coordinate ``crd`` (an int is unpacked colexicographically).

    >>> crd2idx((1, 2), (4, 8), (8, 1)), crd2idx(6, (4, 8), (8, 1))
    (10, 17)
    """
    check_int_tuple(shp, "crd2idx shape")
    check_stride_tuple(std, "crd2idx stride")
    if not congruent(shp, std):
        raise LayoutError(f"crd2idx: shape {fmt(shp)} and stride {fmt(std)} must have the same "
                          "nesting (rank mismatch)")
    if any(e < 1 for e in flatten_tuple(shp)):
        raise LayoutError(f"crd2idx: shape {fmt(shp)} must have positive extents")
    _check_coord(crd, shp, f"crd2idx: coordinate {_cfmt(crd)}")
    return _crd2idx(crd, shp, std)


def _crd2idx(crd, shp, std):
    if isinstance(crd, tuple):
        if not isinstance(shp, tuple) or len(crd) != len(shp):
            raise LayoutError(f"crd2idx: coordinate {_cfmt(crd)} does not match shape {fmt(shp)}")
        r = S(0)
        for c, s, d in zip(crd, shp, std):
            r = r + _crd2idx(c, s, d)
        return r
    if isinstance(shp, tuple):
        r = S(0)
        for i, (s, d) in enumerate(zip(shp, std)):
            if i == len(shp) - 1:
                r = r + _crd2idx(crd, s, d)
            else:
                n = product(s)
                r = r + _crd2idx(crd % n, s, d)
                crd = crd // n
        return r
    return crd * std


def idx2crd(idx, shp):
    """The colexicographic coordinate of flat index ``idx`` in ``shp``.

    >>> idx2crd(5, ((2, 2), 4))
    ((1, 0), 1)
    """
    if not is_int(idx):
        raise LayoutError(f"idx2crd: index must be an int, got {idx!r}")
    check_int_tuple(shp, "idx2crd shape")
    if any(e < 1 for e in flatten_tuple(shp)):
        raise LayoutError(f"idx2crd: shape {fmt(shp)} must have positive extents")
    if isinstance(shp, tuple):
        return _idx2crd_strided(idx, shp, compact_major(shp, "left"))
    return idx


def _idx2crd_strided(idx, shp, std):
    # CuTe: each leaf is (idx / d) % s, the last mode included; a static _1 extent gives _0
    if isinstance(shp, tuple):
        return tuple(_idx2crd_strided(idx, s, d) for s, d in zip(shp, std))
    if is_constant(1, shp):
        return S(0)
    return (idx // std) % shp
def compact_major(shp, major="left", current=None):
    """Compact strides for ``shp``: ``"left"`` (LayoutLeft, column-major) or ``"right"``.

    A *static* size-1 mode gets stride ``_0`` and does not advance the running stride,
    as in CuTe; a dynamic 1 is an ordinary extent.

    >>> from labkit.layout.int_tuple import S
    >>> compact_major((S(2), S(1), S(2)), "left")
    (_1, _0, _2)
    >>> compact_major((S(2), 1, S(2)), "left")
    (_1, _2, 2)
    >>> compact_major((S(2), S(3), S(4)), "right")
    (_12, _4, _1)
    """
    if major not in ("left", "right"):
        raise LayoutError(f"compact_major: major must be 'left' or 'right', got {major!r}")
    cur = _S1 if current is None else current
    if major == "left" and type(shp) is not tuple:
        if type(shp) is S:
            return _S0 if shp == 1 else cur
        if type(shp) is int:
            return cur
    check_int_tuple(shp, "compact_major shape")

    def rec(s, cur):
        if isinstance(s, tuple):
            items = list(s) if major == "left" else list(reversed(s))
            out = []
            for e in items:
                d, cur = rec(e, cur)
                out.append(d)
            if major == "right":
                out.reverse()
            return tuple(out), cur
        if is_constant(1, s):
            return S(0), cur
        return cur, cur * s

    return rec(shp, cur)[0]


def _compact_order(shp, order):
    """CuTe's ``compact_order``: compact strides for ``shp`` whose modes are ordered by ``order``
    (both already checked; :func:`labkit.layout.layout.make_ordered_layout` makes the layout).

    >>> from labkit.layout.int_tuple import S
    >>> _compact_order((S(4), S(4)), (S(2048), S(144)))
    (_4, _1)
    """
    ref_shape = flatten_tuple(_product_like(shp, order))
    flat_order = flatten_tuple(order)
    max_order = 0
    for o in flat_order:
        if isinstance(o, S) and o > max_order:
            max_order = int(o)
    ref_order = tuple(o if isinstance(o, S) else S(max_order + 1 + i)
                      for i, o in enumerate(flat_order))
    new_order = _unflatten(ref_order, order)

    def rec(s, o):
        if isinstance(o, tuple):
            if not isinstance(s, tuple) or len(s) != len(o):
                raise LayoutError(f"make_ordered_layout: shape {fmt(shp)} and order {fmt(order)} "
                                  "must be congruent")
            return tuple(rec(x, y) for x, y in zip(s, o))
        start = S(1)
        for rs, ro in zip(ref_shape, ref_order):
            if int(ro) < int(o):
                start = start * rs
        return compact_major(s, "left", start)

    return rec(shp, new_order)


def _product_like(shp, prof):
    if isinstance(prof, tuple):
        if not isinstance(shp, tuple) or len(shp) != len(prof):
            raise LayoutError(f"make_ordered_layout: shape {fmt(shp)} and order {fmt(prof)} "
                              "must be congruent")
        return tuple(_product_like(s, p) for s, p in zip(shp, prof))
    return product(shp)


def _unflatten(flat, prof):
    it = iter(flat)

    def rec(p):
        if isinstance(p, tuple):
            return tuple(rec(e) for e in p)
        return next(it)

    return rec(prof)
