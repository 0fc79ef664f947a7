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
    S, is_int, is_constant, is_static, product, flatten_tuple, fmt, shape_div, shape_min,
    ceil_div, signum, unwrap, coalesce_shape, check_int_tuple,
)
from .layout import (
    Layout, make_layout, size, cosize, coalesce, coalesce_x, filter as filter_layout,
    filter_zeros, compact_major, make_ordered_layout, append, _bw_coalesce, _as_layout,
)

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
    from .swizzle import ComposedLayout
    return ComposedLayout(layout.layout_a, layout.offset, fn(layout.layout_b, *args))


# --------------------------------------------------------------------------- composition

def _composition_impl(lshape, lstride, rshape, rstride):
    if isinstance(rshape, tuple):
        modes = [_composition_impl(lshape, lstride, s, d) for s, d in zip(rshape, rstride)]
        return make_layout(*modes)
    if is_constant(0, rstride):
        return Layout(rshape, rstride)
    if not isinstance(lshape, tuple):
        return Layout(rshape, rstride * lstride)
    R = len(lshape)
    if is_constant(1, rstride):
        res_shape = []
        rest_shape = rshape
        for si in lshape[:-1]:
            res_shape.append(shape_min(abs(si), rest_shape))
            rest_shape = _div_checked(rest_shape, abs(si), lshape, rshape, rstride)
        return _bw_append(res_shape, list(lstride[:-1]), rest_shape, lstride[-1])
    # general case: divide out the stride, then mod out the shape
    res_shape1 = []
    rest_stride = rstride
    for si in lshape[:-1]:
        res_shape1.append(_div_checked(si, rest_stride, lshape, rshape, rstride))
        rest_stride = _div_checked(rest_stride, si, lshape, rshape, rstride)
    res_stride1 = [d * shape_div(s0, s1) for d, s0, s1 in zip(lstride[:-1], lshape[:-1],
                                                                res_shape1)]
    res_shape2 = []
    rest_shape = rshape
    for si in res_shape1:
        res_shape2.append(shape_min(abs(si), rest_shape))
        rest_shape = _div_checked(rest_shape, abs(si), lshape, rshape, rstride)
    return _bw_append(res_shape2, res_stride1, rest_shape, rest_stride * lstride[R - 1])


def _div_checked(a, b, lshape, rshape, rstride):
    try:
        return shape_div(a, b)
    except LayoutError:
        raise LayoutError(
            f"composition: the right-hand mode {fmt(rshape)}:{fmt(rstride)} does not divide "
            f"the left-hand shape {fmt(lshape)} (stride and shape divisibility rule)") from None


def _bw_append(shp, std, last_s, last_d):
    return _bw_coalesce(tuple(shp) + (last_s,), tuple(std) + (last_d,))


def composition(a, b):
    """``composition(A, B)``: the layout ``R`` with ``R(i) == A(B(i))``; ``B`` may be a tiler.

    ``B`` may be a Layout, an int (``n:_1``), or a tuple of those applied mode by mode
    (``_`` keeps a mode). ``A`` may be a Swizzle or ComposedLayout.

    >>> import labkit as lk
    >>> print(composition(lk.parse_layout("(_6,_2):(_8,_2)"), lk.parse_layout("(_4,_3):(_3,_1)")))
    ((_2,_2),_3):((_24,_2),_8)
    """
    from .swizzle import ComposedLayout, Swizzle
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
    if isinstance(b, tuple):
        return _compose_by_mode(a, b)
    if is_int(b):
        b = Layout(b, S(1))
    if isinstance(b, Underscore):
        return a
    if not isinstance(b, Layout):
        raise LayoutError(f"composition: B must be a Layout, an int or a tuple tiler, got {b!r}")
    # CuTe coalesces A with coalesce_x, which keeps a trailing _1 mode as _2 (the function
    # past A's domain stays the same)
    flat = coalesce_x(a)
    return _composition_impl(flat.shape, flat.stride, b.shape, b.stride)


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
    if hasattr(layout, "layout_b"):
        layout = layout.layout_b
    layout = _as_layout(layout, "complement")
    f = filter_layout(layout)
    if cotarget is None:
        cotarget = cosize(f)
    if not (is_int(cotarget) or isinstance(cotarget, tuple)):
        raise LayoutError(f"complement: cotarget must be a positive int or a shape, got "
                          f"{cotarget!r}")
    check_int_tuple(cotarget, "complement: cotarget")
    if any(c < 1 for c in flatten_tuple(cotarget)):
        raise LayoutError(f"complement: cotarget {fmt(cotarget)} must be positive")
    shp, std = f.shape, f.stride
    if not isinstance(shp, tuple):
        shp, std = (shp,), (std,)
    if len(shp) == 1 and is_constant(0, std[0]):
        return Layout(coalesce_shape(cotarget))
    if any(d == 0 for d in std):
        raise LayoutError(f"complement: layout {layout} has a dynamic zero stride; the complement "
                          "needs an injective layout")
    if any(d < 0 for d in std):
        raise LayoutError(f"complement: layout {layout} has a negative stride; unsupported")
    shp, std = list(shp), list(std)
    res_shape, res_stride = [], [S(1)]
    while len(shp) > 1:
        i = min(range(len(std)), key=lambda k: int(std[k]))
        d = std[i]
        if d % res_stride[-1] != 0 or d // res_stride[-1] == 0:
            raise LayoutError(f"complement: layout {layout} is not injective or its strides do "
                              f"not divide one another (stride {d} after {res_stride[-1]})")
        res_shape.append(d // res_stride[-1])
        res_stride.append(d * shp[i])
        del shp[i], std[i]
    d = std[0]
    if d % res_stride[-1] != 0 or d // res_stride[-1] == 0:
        raise LayoutError(f"complement: layout {layout} is not injective or its strides do "
                          f"not divide one another (stride {d} after {res_stride[-1]})")
    res_shape.append(d // res_stride[-1])
    new_stride = d * shp[0]
    # CuTe: rest_shape = coalesce(ceil_div(cotarget, new_stride)), compact from new_stride
    rest_shape = coalesce_shape(ceil_div(cotarget, new_stride))
    rest_stride = compact_major(rest_shape, "left", new_stride)
    return coalesce(Layout((tuple(res_shape), rest_shape), (tuple(res_stride), rest_stride)))


# --------------------------------------------------------------------------- inverses

def right_inverse(layout):
    """``R`` with ``L(R(i)) == i`` for ``i < size(R)``.

    As in CuTe, ``R`` follows a chain of *static* strides of ``coalesce(L)``: it starts at a
    ``_1`` stride and continues while the next stride ``shape * stride`` is static. For a static
    injective layout that is the longest prefix ``0, 1, ...`` that ``L`` reaches; a layout with
    run-time strides has a short (or trivial ``_1:_0``) right inverse.

    >>> import labkit as lk
    >>> print(right_inverse(lk.parse_layout("(_4,_8):(_8,_1)")))
    (_8,_4):(_4,_1)
    >>> print(right_inverse(lk.make_layout((4, 8))))
    4:_1
    """
    if hasattr(layout, "layout_b") and not isinstance(layout, Layout):
        raise LayoutError("right_inverse: a ComposedLayout has no plain-layout inverse here; "
                          "invert its layout_b")
    layout = _as_layout(layout, "right_inverse")
    flat = coalesce(layout)
    shp, std = flat.shape, flat.stride
    if not isinstance(shp, tuple):
        shp, std = (shp,), (std,)
    astd = [abs(d) for d in std]
    seq = []
    nxt = 1
    while True:
        # CuTe inverse_seq: the first mode whose stride is the static constant `nxt`
        i = next((k for k, d in enumerate(astd) if isinstance(d, S) and int(d) == nxt), None)
        if i is None:
            break
        seq.append(i)
        nstride = shp[i] * astd[i]
        if isinstance(nstride, S) and int(nstride) != nxt:
            nxt = int(nstride)
        else:
            break
    if not seq:
        return Layout(S(1), S(0))
    rstride = compact_major(shp, "left")
    out_s = tuple(shp[i] for i in seq)
    out_d = tuple(signum(std[i]) * rstride[i] for i in seq)
    return Layout(unwrap(out_s), unwrap(out_d))


def left_inverse(layout):
    """``R`` with ``R(L(i)) == i`` for every ``i`` of an injective, static ``L``.

    CuTe's precondition is a static layout (``is_static<Layout>``); with run-time shapes or
    strides the inverse cannot be followed, so labkit refuses them.

    >>> import labkit as lk
    >>> print(left_inverse(lk.parse_layout("(_4,_2):(_2,_1)")))
    (_2,_4):(_4,_1)
    """
    layout = _as_layout(layout, "left_inverse")
    if not (is_static(layout.shape) and is_static(layout.stride)):
        raise LayoutError(f"left_inverse: layout {layout} has run-time (dynamic) shapes or "
                          "strides; the inverse needs a static layout (CuTe's precondition "
                          "is_static<Layout>)")
    _check_injective(layout, "left_inverse")
    return right_inverse(make_layout(layout, complement(layout)))


def _check_injective(layout, what):
    import numpy as np
    f = filter_layout(layout)
    n = int(size(f))
    if n > 1 << 22:
        return
    offs = f.offsets()
    if len(np.unique(offs)) != n:
        raise LayoutError(f"{what}: layout {layout} is not injective (two coordinates share an "
                          "offset), so it has no inverse")


# --------------------------------------------------------------------------- divides

def _tiler_mode(t):
    if isinstance(t, Layout):
        return t
    if is_int(t):
        return Layout(t, S(1))
    if isinstance(t, tuple):
        return Layout(t, compact_major(t, "left"))
    raise LayoutError(f"tiler: expected a Layout, an int or a shape, got {t!r}")


def _check_divides(layout, tiler, what):
    n, m = size(layout), size(tiler)
    if n % m != 0:
        raise LayoutError(f"{what}: tile size {int(m)} does not divide the layout's size {int(n)} "
                          f"(layout {layout}, tiler {tiler})")


def logical_divide(layout, tiler):
    """``composition(L, (T, complement(T, shape(L))))``: ((tile), (rest)); by mode for tuples.

    >>> import labkit as lk
    >>> print(logical_divide(lk.parse_layout("(_4,_2,_3):(_2,_1,_8)"), lk.parse_layout("_4:_2")))
    ((_2,_2),(_2,_3)):((_4,_1),(_2,_8))
    """
    if isinstance(layout, Layout) is False and not hasattr(layout, "layout_b"):
        raise LayoutError(f"logical_divide: layout must be a Layout, got {layout!r}")
    if isinstance(tiler, tuple):
        base = layout.layout_b if hasattr(layout, "layout_b") else layout
        if len(tiler) > len(base):
            raise LayoutError(f"logical_divide: tiler of rank {len(tiler)} is longer than the "
                              f"layout {base}")
        if hasattr(layout, "layout_b"):
            from .swizzle import ComposedLayout
            return ComposedLayout(layout.layout_a, layout.offset,
                                  logical_divide(layout.layout_b, tiler))
        modes = []
        for i in range(len(layout)):
            if i < len(tiler) and not isinstance(tiler[i], Underscore):
                modes.append(logical_divide(layout[i], tiler[i]))
            else:
                modes.append(layout[i])
        return make_layout(*modes)
    if hasattr(layout, "layout_b"):
        from .swizzle import ComposedLayout
        return ComposedLayout(layout.layout_a, layout.offset,
                              logical_divide(layout.layout_b, tiler))
    if isinstance(tiler, Underscore):
        return layout
    tiler = _tiler_mode(tiler)
    _check_divides(layout, tiler, "logical_divide")
    # CuTe passes shape(layout) (not its size) as the complement's cotarget
    rest = complement(tiler, layout.shape)
    if int(size(tiler)) * int(size(rest)) != int(size(layout)):
        # e.g. 3:1 over (2,6): ceil_div((2,6), 3) = (1,3) keeps 9 of 12 elements
        raise LayoutError(f"logical_divide: tiler {tiler} does not tile the shape "
                          f"{fmt(layout.shape)} of layout {layout} mode by mode (tile and rest "
                          f"cover {int(size(tiler)) * int(size(rest))} of {int(size(layout))} "
                          "elements)")
    return composition(layout, make_layout(tiler, rest))


def _zip2_by(layout, guide):
    """CuTe's ``zip2_by``: split each guided mode (tile, rest) and gather tiles, then rests.

    ``((A,a),((B,b),(C,c)),d)`` guided by ``(X,(X,X))`` becomes ``((A,(B,C)),(a,(b,c),d))``;
    a mode whose guide is not a tuple (a Layout, an int or ``_``) must be a (tile, rest) pair.
    """
    if isinstance(guide, tuple):
        if len(guide) > len(layout):
            raise LayoutError(f"zipped tiler of rank {len(guide)} is longer than layout {layout}")
        firsts, seconds = [], []
        for i, g in enumerate(guide):
            a, b = _zip2_by(layout[i], g)
            firsts.append(a)
            seconds.append(b)
        seconds += [layout[i] for i in range(len(guide), len(layout))]
        return make_layout(*firsts), make_layout(*seconds)
    if len(layout) != 2:
        raise LayoutError(f"zipped divide/product: mode {layout} is not a (tile, rest) pair")
    return layout[0], layout[1]


def _tile_unzip(divided, tiler):
    """((t0,t1,..),(r0,r1,..)) from a by-mode divided/product layout (CuTe ``tile_unzip``)."""
    base = divided.layout_b if hasattr(divided, "layout_b") else divided
    res = make_layout(*_zip2_by(base, tiler))
    if hasattr(divided, "layout_b"):
        from .swizzle import ComposedLayout
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
        from .swizzle import ComposedLayout
        return ComposedLayout(res.layout_a, res.offset, out)
    return out


def _flat_unpack(res):
    base = res.layout_b if hasattr(res, "layout_b") else res
    modes = []
    for part in base:
        modes += _unpack_mode(part)
    out = make_layout(*modes)
    if hasattr(res, "layout_b"):
        from .swizzle import ComposedLayout
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
    if hasattr(block, "layout_b"):
        return _on_layout_b(block, logical_product, tiler)
    block = _as_layout(block, "logical_product: block")
    if isinstance(tiler, tuple):
        if len(tiler) > len(block):
            raise LayoutError(f"logical_product: tiler of rank {len(tiler)} is longer than the "
                              f"block {block}")
        modes = []
        for i in range(len(block)):
            if i < len(tiler) and not isinstance(tiler[i], Underscore):
                modes.append(logical_product(block[i], tiler[i]))
            else:
                modes.append(block[i])
        return make_layout(*modes)
    tiler = _tiler_mode(tiler)
    _check_injective(block, "logical_product: block")
    return make_layout(block, composition(complement(block, size(block) * cosize(tiler)), tiler))


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


def zip_layouts(a, b):
    """Mode-wise pairs: ``((a0,b0),(a1,b1),...)`` for layouts of equal rank."""
    a, b = _as_layout(a, "zip: a"), _as_layout(b, "zip: b")
    if len(a) != len(b):
        raise LayoutError(f"zip: layouts {a} and {b} differ in rank")
    return make_layout(*[make_layout(x, y) for x, y in zip(a, b)])


def _rank_pair(block, tiler):
    block = _as_layout(block, "block")
    tiler = _tiler_mode(tiler)
    R = max(len(block), len(tiler))
    b = append(block, n=R) if len(block) < R else block
    t = append(tiler, n=R) if len(tiler) < R else tiler
    return b, t, R


def blocked_product(block, tiler):
    """Each mode is (block mode, tiler mode): the tiler repeats whole blocks.

    >>> import labkit as lk
    >>> print(blocked_product(lk.parse_layout("(_2,_2):(_1,_2)"), lk.parse_layout("(_2,_3):(_1,_2)")))
    ((_2,_2),(_2,_3)):((_1,_4),(_2,_8))
    """
    if hasattr(block, "layout_b"):
        return _on_layout_b(block, blocked_product, tiler)
    b, t, R = _rank_pair(block, tiler)
    res = logical_product(b, t)
    return coalesce(zip_layouts(res[0], res[1]), tuple(S(1) for _ in range(R)))


def raked_product(block, tiler):
    """Each mode is (tiler mode, block mode): blocks are interleaved (raked).

    >>> import labkit as lk
    >>> print(raked_product(lk.parse_layout("(_2,_2):(_1,_2)"), lk.parse_layout("(_2,_3):(_1,_2)")))
    ((_2,_2),(_3,_2)):((_4,_1),(_8,_2))
    """
    if hasattr(block, "layout_b"):
        return _on_layout_b(block, raked_product, tiler)
    b, t, R = _rank_pair(block, tiler)
    res = logical_product(b, t)
    return coalesce(zip_layouts(res[1], res[0]), tuple(S(1) for _ in range(R)))


def tile_to_shape(block, trg_shape, order=None):
    """Repeat ``block`` (blocked) until it covers ``trg_shape``; ``order`` orders the repeats.

    >>> import labkit as lk
    >>> atom = lk.parse_layout("(_8,(_8,_8)):(_8,(_1,_64))")
    >>> print(tile_to_shape(atom, (lk.S(128), lk.S(64), lk.S(3))))
    ((_8,_16),(_8,_8),_3):((_8,_512),(_1,_64),_8192)
    """
    if hasattr(block, "layout_b"):
        return _on_layout_b(block, tile_to_shape, trg_shape, order)
    block = _as_layout(block, "tile_to_shape: block")
    check_int_tuple(trg_shape, "tile_to_shape: target shape")
    if not isinstance(trg_shape, tuple):
        trg_shape = (trg_shape,)
    R = len(trg_shape)
    if len(block) > R:
        raise LayoutError(f"tile_to_shape: block {block} has more modes than the target "
                          f"shape {fmt(trg_shape)}")
    padded = append(block, n=R)
    block_shape = tuple(product(m.shape) for m in padded)
    target = tuple(product(s) for s in trg_shape)
    for t, b in zip(target, block_shape):
        if t % b != 0:
            raise LayoutError(f"tile_to_shape: block shape {fmt(block_shape)} does not evenly "
                              f"divide the target shape {fmt(target)}")
    product_shape = tuple(t // b for t, b in zip(target, block_shape))
    rep = make_ordered_layout(product_shape, order) if order is not None else Layout(product_shape)
    return coalesce(blocked_product(padded, rep), product_shape)


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
