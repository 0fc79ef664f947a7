"""The layout algebra: composition, complement, inverses, divides and products.

Each function follows CuTe's definition (``include/cute/layout.hpp``), keeping static
integers static exactly when the C++ template arithmetic would.

>>> import labkit as lk
>>> A = lk.parse_layout("(_4,_8):(_8,_1)")
>>> print(lk.composition(A, lk.parse_layout("(_4,_2):(_8,_1)")))
(_4,_2):(_2,_8)
>>> print(lk.logical_divide(lk.parse_layout("_16:_1"), lk.parse_layout("_4:_1")))
(_4,_4):(_1,_4)
"""

from __future__ import annotations

from ..errors import LayoutError
from .int_tuple import (
    _S0, _S1, _int_new, cdiv, S, is_int, is_constant, is_static, product, flatten_tuple, fmt, shape_div, shape_min,
    ceil_div, signum, unwrap, coalesce_shape, check_int_tuple,
)
from .layout import (
    Layout, make_layout, size, cosize, coalesce, coalesce_x, filter as filter_layout,
    filter_zeros, compact_major, make_ordered_layout, append, _bw_coalesce, _as_layout, _mk,
    _filter, _bw_lists, _via_ints, _no_basis,
)
from .basis import has_basis
from .swizzle import ComposedLayout, Swizzle

__all__ = [
    "composition", "complement", "right_inverse", "left_inverse", "logical_divide",
    "zipped_divide", "tiled_divide", "flat_divide", "logical_product", "zipped_product",
    "tiled_product", "flat_product", "blocked_product", "raked_product", "tile_to_shape",
    "max_common_vector", "recast_layout", "upcast", "downcast", "make_fragment_like",
    "make_layout_like", "zip_layouts", "Underscore", "_",
]


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


def _is_layout_like(x):
    return isinstance(x, Layout) or hasattr(x, "layout_b")


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


# --------------------------------------------------------------------------- inverses

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


# --------------------------------------------------------------------------- divides

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


# --------------------------------------------------------------------------- products

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


# --------------------------------------------------------------------------- vectors, recast

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


# --------------------------------------------------------------------------- fragments

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


def _compose(self, *others):
    """``L.compose(B)`` is ``composition(L, B)`` (CuTe's ``Layout::compose``); several layouts
    compose mode by mode. The algebra gives the class this method: the class does not import it."""
    return composition(self, others[0] if len(others) == 1 else others)


Layout.compose = _compose
