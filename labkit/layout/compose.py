"""Composition and complement: ``A o B`` and the offsets a layout does not reach.

``composition(A, B)`` is the layout ``R`` with ``R(i) == A(B(i))`` (``B`` may be a tiler: an
int, ``_`` or a tuple applied mode by mode); ``complement(L, n)`` lays out the offsets below
``n`` that ``L`` misses. Every divide and product is built from these two. Both follow CuTe's
``include/cute/layout.hpp``, keeping integers static exactly when the C++ types would. This
module also holds CuTe's ``_`` (:class:`Underscore`) and gives ``Layout`` its ``compose`` method.

>>> import labkit as lk
>>> from labkit.layout.compose import composition, complement
>>> print(composition(lk.parse_layout("(_4,_8):(_8,_1)"), lk.parse_layout("(_4,_2):(_8,_1)")))
(_4,_2):(_2,_8)
>>> print(complement(lk.parse_layout("_4:_2"), lk.S(16)))
(_2,_2):(_1,_8)
"""

from __future__ import annotations

from ..errors import LayoutError
from .int_tuple import (
    _S0, _S1, _int_new, S, is_int, flatten_tuple, fmt, ceil_div, coalesce_shape, check_int_tuple,
)
from .layout import (
    Layout, make_layout, cosize, coalesce_x, _as_layout, _mk, _via_ints, _no_basis, _bw_coalesce,
)
from .coordinates import compact_major
from .simplify import _filter
from .basis import has_basis
from .swizzle import ComposedLayout, Swizzle

__all__ = ["composition", "complement", "Underscore", "_"]


class Underscore:
    """CuTe's ``_``: "keep this mode" in tilers and "all of this mode" in slices."""

    _inst = None

    def __new__(cls):
        if cls._inst is None:
            cls._inst = super().__new__(cls)
        return cls._inst

    def __repr__(self):
        return "_"


_ = Underscore()


def _on_layout_b(layout, fn, *args):
    """CuTe's ComposedLayout overloads: apply ``fn`` to ``layout_b``, keep ``A o offset``."""
    return ComposedLayout(layout.layout_a, layout.offset, fn(layout.layout_b, *args))


# --------------------------------------------------------------------------- composition

def _smul(v, st, d):
    """``v * d`` as C++ types it: ``v`` (static when ``st``) times ``d`` (an S or an int)."""
    dst = type(d) is S
    r = v * int(d)
    if (st and (dst or v == 0)) or (dst and d == 0):
        return _int_new(S, r)
    return r


def _composition_impl(lshape, lstride, rshape, rstride):
    """CuTe's ``detail::composition_impl`` (A already passed through ``coalesce_x``).

    Values are carried as plain ints with a static flag each, as the C++ types would be.
    """
    if type(rshape) is tuple:
        shapes, strides = [], []
        for s, d in zip(rshape, rstride):
            m = _composition_impl(lshape, lstride, s, d)
            shapes.append(m.shape)
            strides.append(m.stride)
        return _mk(tuple(shapes), tuple(strides))
    d_st = type(rstride) is S
    if d_st and rstride == 0:
        return _mk(rshape, rstride)
    if type(lshape) is not tuple:
        return _mk(rshape, _smul(int(rstride), d_st, lstride))
    res_shape, res_stride = [], []
    rest_shape, s_st = int(rshape), type(rshape) is S
    rest_stride = int(rstride)
    for i in range(len(lshape) - 1):
        cur = lshape[i]
        c_st = type(cur) is S
        cur = int(cur)
        if c_st and d_st and rest_stride % cur != 0 and not rest_stride < cur:
            _comp_error("Stride Divisibility Condition", lshape, lstride, rshape, rstride)
        a = rest_stride if rest_stride >= 0 else -rest_stride
        if a == 0:
            _comp_error("division by a run-time zero stride (C++ aborts at run time: SIGFPE)",
                        lshape, lstride, rshape, rstride)
        next_shape = (cur + a - 1) // a
        next_stride = (a + cur - 1) // cur
        if rest_stride < 0:
            next_stride = -next_stride
        n_st = c_st and d_st                 # static next_shape and next_stride
        if (n_st and next_shape == 1) or (s_st and rest_shape == 1):
            rest_stride, d_st = next_stride, n_st
            continue
        new_shape = next_shape if next_shape < rest_shape else rest_shape
        if n_st and s_st:
            if rest_shape % new_shape != 0:
                _comp_error("Shape Divisibility Condition", lshape, lstride, rshape, rstride)
            res_shape.append(_int_new(S, new_shape))
        else:
            res_shape.append(new_shape)
            s_st = False
        res_stride.append(_smul(rest_stride, d_st, lstride[i]))
        rest_shape //= new_shape
        rest_stride, d_st = next_stride, n_st
    if not res_shape:
        return _mk(_int_new(S, rest_shape) if s_st else rest_shape,
                   _smul(rest_stride, d_st, lstride[-1]))
    if s_st and rest_shape == 1:
        if len(res_shape) == 1:
            return _mk(res_shape[0], res_stride[0])
        return _mk(tuple(res_shape), tuple(res_stride))
    res_shape.append(_int_new(S, rest_shape) if s_st else rest_shape)
    res_stride.append(_smul(rest_stride, d_st, lstride[-1]))
    return _mk(tuple(res_shape), tuple(res_stride))


def _comp_error(rule, lshape, lstride, rshape, rstride):
    raise LayoutError(
        f"composition: the right-hand mode {fmt(rshape)}:{fmt(rstride)} and the left-hand "
        f"layout {fmt(lshape)}:{fmt(lstride)} (coalesced) break CuTe's rule: {rule}")


def composition(a, b):
    """``composition(A, B)``: the layout ``R`` with ``R(i) == A(B(i))``; ``B`` may be a tiler.

    ``B`` may be a Layout, an int (``n:_1``), or a tuple of those applied mode by mode
    (``_`` keeps a mode). ``A`` may be a Swizzle or ComposedLayout.

    >>> import labkit as lk
    >>> print(composition(lk.parse_layout("(_6,_2):(_8,_2)"), lk.parse_layout("(_4,_3):(_3,_1)")))
    ((_2,_2),_3):((_24,_2),_8)
    """
    if type(a) is Layout:
        if has_basis(a.stride):
            return _via_ints(composition, a, b)
        if type(b) is Layout:
            if has_basis(b.stride):
                _no_basis(b, "composition: B")
            flat = coalesce_x(a)
            return _composition_impl(flat.shape, flat.stride, b.shape, b.stride)
        return _compose_layout(a, b)
    return _composition_other(a, b)


def _composition_other(a, b):
    if isinstance(a, Swizzle):
        if isinstance(b, Layout):
            if a.bits == 0:     # CuTe: composition(Swizzle<0,M,S>, _0, L) is L itself
                return b
            return ComposedLayout(a, S(0), b)
        if isinstance(b, ComposedLayout):
            return ComposedLayout(a, S(0), b)
        raise LayoutError(f"composition(Swizzle, B): B must be a Layout, got {b!r}")
    if isinstance(a, ComposedLayout):
        return ComposedLayout(a.layout_a, a.offset, composition(a.layout_b, b))
    a = _as_layout(a, "composition: A")
    return _compose_layout(a, b)


def _compose_layout(a, b):
    """``a o b`` for a Layout ``a`` and any B: a Layout, an int, ``_`` or a tuple tiler."""
    if isinstance(b, tuple):
        return _compose_by_mode(a, b)
    if is_int(b):
        rs, rd = Layout(b, _S1).shape, _S1  # an extent must be positive, as in make_layout
    elif isinstance(b, Underscore):
        return a
    elif isinstance(b, Layout):
        _no_basis(b, "composition: B")
        rs, rd = b.shape, b.stride
    else:
        raise LayoutError(f"composition: B must be a Layout, an int or a tuple tiler, got {b!r}")
    # CuTe coalesces A with coalesce_x, which keeps a trailing _1 mode as _2 (the function
    # past A's domain stays the same)
    flat = coalesce_x(a)
    return _composition_impl(flat.shape, flat.stride, rs, rd)


def _compose_by_mode(a, tiler):
    if len(tiler) > len(a):
        raise LayoutError(f"composition: tiler of rank {len(tiler)} is longer than layout {a} "
                          f"of rank {len(a)}")
    # CuTe drops the modes of A that the tiler does not name (``_`` keeps one)
    modes = [a[i] if isinstance(t, Underscore) else composition(a[i], t)
             for i, t in enumerate(tiler)]
    return make_layout(*modes)


# --------------------------------------------------------------------------- complement

def complement(layout, cotarget=None):
    """The layout of the offsets ``layout`` does not reach, up to ``cotarget``.

    ``cotarget`` is an int or a shape (``logical_divide`` passes the divided layout's shape);
    as in CuTe, the rest mode is ``coalesce(ceil_div(cotarget, stride))``, so static and
    dynamic parts of a shape stay apart.

    >>> import labkit as lk
    >>> print(complement(lk.parse_layout("(_2,_2):(_1,_6)"), 24))
    (_3,2):(_2,_12)
    >>> print(complement(lk.parse_layout("_4:_2"), lk.S(16)))
    (_2,_2):(_1,_8)
    """
    if type(layout) is not Layout:
        if hasattr(layout, "layout_b"):
            layout = layout.layout_b
        layout = _as_layout(layout, "complement")
    _no_basis(layout, "complement")
    f = _filter(layout)
    if cotarget is None:
        cotarget = cosize(f)
    elif isinstance(cotarget, Layout):
        cotarget = cotarget.shape
    elif type(cotarget) is not S and type(cotarget) is not int:
        if not (is_int(cotarget) or isinstance(cotarget, tuple)):
            raise LayoutError(f"complement: cotarget must be a positive int, a shape or a "
                              f"layout, got {cotarget!r}")
        check_int_tuple(cotarget, "complement: cotarget")
    return _complement(f.shape, f.stride, cotarget, layout)


def _complement(shp, std, cotarget, layout):
    """CuTe's ``detail::complement`` of a filtered layout ``shp:std``."""
    if type(std) is S and std == 0:
        rest = coalesce_shape(cotarget)
        return _mk(rest, compact_major(rest, "left"))
    if type(shp) is not tuple:
        # rank 1: new_shape = stride / _1, new_stride = stride * shape
        if std == 0 and type(std) is S:
            _noninjective(layout)
        rs, rd = _complement_rest(cotarget, _smul(int(std), type(std) is S, shp))
        return _bw_coalesce((std,) + rs, (_S1,) + rd)
    for d in std:
        if type(d) is not S:
            raise LayoutError(f"complement: layout {layout} has run-time strides and rank "
                              f"{len(shp)} after filtering (CuTe: Dynamic-stride complement "
                              "only for rank-1 layouts)")
    # strides are static from here on; extents may be run-time, and what they touch with them
    shp, std = list(shp), [int(d) for d in std]
    res_shape, res_stride = [], [_S1]
    last, last_st = 1, True                      # the last result stride
    for _ in range(len(shp) - 1):
        m = min(std)
        i = std.index(m)
        q = m // last if m >= 0 and last > 0 else _tdiv(m, last)
        if last_st and q == 0:
            _noninjective(layout)
        res_shape.append(_int_new(S, q) if last_st else q)
        e = shp[i]
        last, last_st = m * int(e), type(e) is S or m == 0
        res_stride.append(_int_new(S, last) if last_st else last)
        del shp[i], std[i]
    d = std[0]
    q = _tdiv(d, last)
    if last_st and q == 0:
        _noninjective(layout)
    res_shape.append(_int_new(S, q) if last_st else q)
    rs, rd = _complement_rest(cotarget, _smul(d, True, shp[0]))
    return _bw_coalesce(tuple(res_shape) + rs, tuple(res_stride) + rd)


def _complement_rest(cotarget, new_stride):
    """The rest mode of a complement: coalesce(ceil_div(cotarget, new_stride)), compact from
    ``new_stride``; flat (shape, stride) tuples."""
    tc = type(cotarget)
    if (tc is S or tc is int) and new_stride > 0 and cotarget >= 0:
        q = (cotarget + new_stride - 1) // new_stride
        if tc is S and type(new_stride) is S:
            return (_int_new(S, q),), ((_S0 if q == 1 else new_stride),)
        return (int(q),), (new_stride,)
    rest_shape = coalesce_shape(ceil_div(cotarget, new_stride))
    rest_stride = compact_major(rest_shape, "left", new_stride)
    return flatten_tuple(rest_shape), flatten_tuple(rest_stride)


def _tdiv(a, b):
    """C++ ``a / b`` on ints (truncating); a zero divisor raises (C++ aborts)."""
    if b == 0:
        raise LayoutError(f"complement: division of {a} by a run-time zero (C++ aborts at run "
                          "time: SIGFPE)")
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _noninjective(layout):
    raise LayoutError(f"complement: layout {layout} maps two coordinates to one offset "
                      "(CuTe: Non-injective Layout detected in complement.)")


def _compose(self, *others):
    """``L.compose(B)`` is ``composition(L, B)`` (CuTe's ``Layout::compose``); several layouts
    compose mode by mode. The algebra gives the class this method: the class does not import it."""
    return composition(self, others[0] if len(others) == 1 else others)


Layout.compose = _compose
