"""CuTe's ``Layout``: a shape and a stride, a function from coordinates to offsets.

Coordinates are colexicographic, as in CuTe: the leftmost mode moves fastest.

>>> import labkit as lk
>>> L = lk.make_layout((4, 8), (8, 1))
>>> print(L)
(4,8):(8,1)
>>> L(1), L(1, 2), L((1, 2)), lk.size(L), lk.cosize(L)
(8, 10, 10, 32, 32)
>>> print(lk.make_layout((lk.S(2), lk.S(4))))
(_2,_4):(_1,_2)

Mirrors ``include/cute/layout.hpp``: the class, its constructors (``make_layout``,
``make_identity_layout``, ``make_ordered_layout``), its queries (``size``, ``cosize``, ``rank``,
...) and ``coalesce_x``, the normal form the algebra builds its results in. Coordinates and
compact strides are :mod:`labkit.layout.coordinates`; ``coalesce`` and ``filter`` are
:mod:`labkit.layout.simplify`; ``append``, ``take``, ``select``, ... are :mod:`labkit.layout.modes`.
"""

from __future__ import annotations

import re

from ._np import np

from ..errors import LayoutError
from .int_tuple import (
    _S0, _S1, _S2, _int_new, S, is_int, product, flatten_tuple, fmt, congruent, depth_of, check_int_tuple,
    unwrap,
)
from .basis import (
    ScaledBasis, has_basis, check_stride_tuple, encode_stride, decode_stride, make_basis_like,
)
from .coordinates import (  # noqa: F401 - crd2idx, idx2crd, compact_major, check_in_domain: re-exported
    crd2idx, idx2crd, compact_major, check_in_domain, _crd2idx, _check_coord, _cfmt, _has_slice,
    _compact_order,
)


__all__ = [
    "Layout", "make_layout", "size", "cosize", "rank", "depth", "shape", "stride",
    "crd2idx", "idx2crd", "flatten", "compact_major", "make_ordered_layout", "is_layout",
    "make_identity_layout",
]


class Layout:
    """A CuTe layout ``shape:stride``.

    ``L(i)`` takes a flat (colexicographic) index, ``L(i, j)`` or ``L((i, j))`` a coordinate
    (each mode may itself take a flat index into its sub-shape). ``L[i]`` is mode ``i``.

    >>> L = Layout(((2, 2), 4), ((1, 8), 2))
    >>> print(L, L[0])
    ((2,2),4):((1,8),2) (2,2):(1,8)
    >>> L(5), L((1, 1), 2)
    (3, 13)
    """

    __slots__ = ("shape", "stride", "_flat")

    def __init__(self, shape, stride=None):
        if isinstance(shape, Layout):
            raise LayoutError("Layout(shape, stride): shape is a Layout; use make_layout(L1, L2) "
                              "to concatenate layouts")
        check_int_tuple(shape, "Layout shape")
        for e in flatten_tuple(shape):
            if e < 0:
                raise LayoutError(f"Layout shape {fmt(shape)}: extents must be positive, got {e}")
            if e == 0:
                raise LayoutError(f"Layout shape {fmt(shape)}: extents must be positive, got 0")
        if stride is None:
            stride = compact_major(shape, "left")
        check_stride_tuple(stride, "Layout stride")
        if not congruent(shape, stride):
            raise LayoutError(f"Layout: shape {fmt(shape)} and stride {fmt(stride)} must have "
                              "the same nesting (rank mismatch)")
        self.shape = shape
        self.stride = stride

    # -- queries -------------------------------------------------------------------------
    def __len__(self):
        return len(self.shape) if isinstance(self.shape, tuple) else 1

    def __getitem__(self, i):
        if not isinstance(self.shape, tuple):
            if i in (0, -1):
                return self
            raise LayoutError(f"layout {self}: mode index {i} out of range for rank 1")
        if not is_int(i) or not -len(self.shape) <= i < len(self.shape):
            raise LayoutError(f"layout {self}: mode index {i!r} out of range for rank "
                              f"{len(self.shape)}")
        return Layout(self.shape[i], self.stride[i])

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __eq__(self, other):
        return (isinstance(other, Layout) and _same(self.shape, other.shape)
                and _same(self.stride, other.stride))

    def __hash__(self):
        return hash((str(self.shape), str(self.stride)))

    def __str__(self):
        return f"{fmt(self.shape)}:{fmt(self.stride)}"

    def __repr__(self):
        return f"Layout({self})"

    def _repr_pretty_(self, p, cycle):
        p.text(str(self))

    # -- evaluation ------------------------------------------------------------------------
    def __call__(self, *args):
        if len(args) == 1:
            crd = args[0]
            t = type(crd)
            if (t is int or t is S) and crd >= 0:
                # the flat index: every leaf but the last takes its digit, the last runs on
                try:
                    leaves, last = self._flat
                except AttributeError:
                    leaves, last = self._flat = _flat_eval(self.shape, self.stride)
                if leaves is None:
                    return _crd2idx(crd, self.shape, self.stride)
                r = 0
                for s, d in leaves:
                    r += (crd % s) * d
                    crd //= s
                return r + crd * last
        elif not args:
            raise LayoutError(f"layout {self}: call with an index or a coordinate")
        else:
            crd = args
        if _has_slice(crd):
            raise LayoutError(f"layout {self}: slicing with _ is done by labkit.slice_layout "
                              "or by a Tensor")
        _check_coord(crd, self.shape, "coordinate", self)
        r = _crd2idx(crd, self.shape, self.stride)
        return r if isinstance(r, (tuple, ScaledBasis)) else int(r)

    def offsets(self) -> np.ndarray:
        """All values ``L(i)`` for ``i`` in ``range(size(L))``, as a numpy array (fast).

        >>> Layout((2, 3), (3, 1)).offsets().tolist()
        [0, 3, 1, 4, 2, 5]
        """
        shp = flatten_tuple(self.shape)
        std = flatten_tuple(self.stride)
        _no_basis(self, "offsets")
        n = int(product(self.shape))
        idx = np.arange(n, dtype=np.int64)
        out = np.zeros(n, dtype=np.int64)
        div = 1
        for s, d in zip(shp, std):
            out += ((idx // div) % int(s)) * int(d)
            div *= int(s)
        return out


def _same(a, b):
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
                and all(_same(x, y) for x, y in zip(a, b)))
    if isinstance(a, ScaledBasis) or isinstance(b, ScaledBasis):
        return a == b
    return int(a) == int(b) and isinstance(a, S) == isinstance(b, S)


def _flat_eval(shape, stride):
    """((extent, stride), ...) of every leaf but the last, and the last stride (plain ints)."""
    if has_basis(stride):
        return None, None
    if type(shape) is not tuple:
        return (), int(stride)
    fs, fd = flatten_tuple(shape), flatten_tuple(stride)
    return tuple((int(s), int(d)) for s, d in zip(fs[:-1], fd[:-1])), int(fd[-1])


_obj_new = object.__new__
_imul = int.__mul__


def _mk(shape, stride):
    """A Layout from a shape and stride known to be valid (no checks)."""
    L = _obj_new(Layout)
    L.shape = shape
    L.stride = stride
    return L


def is_layout(x) -> bool:
    return isinstance(x, Layout)


def make_layout(*args):
    """``make_layout(shape, stride=None)``; or ``make_layout(L0, L1, ...)`` concatenates modes.

    The default stride is CuTe's LayoutLeft (column-major) compact stride.

    >>> print(make_layout((4, 8)))
    (4,8):(_1,4)
    >>> print(make_layout(Layout(4, 2), Layout(3, 8)))
    (4,3):(2,8)
    """
    if args and all(type(a) is Layout or isinstance(a, Layout) for a in args):
        return _mk(tuple([a.shape for a in args]), tuple([a.stride for a in args]))
    if len(args) == 1:
        return Layout(args[0])
    if len(args) == 2:
        return Layout(args[0], args[1])
    raise LayoutError("make_layout(shape, stride=None) or make_layout(layout, layout, ...): "
                      f"got {len(args)} arguments")


def make_identity_layout(shp):
    """CuTe's ``make_identity_layout``: ``shp`` with a unit basis stride per mode, so each
    coordinate maps to itself (``make_layout(shape, make_basis_like(shape))``).

    >>> from labkit.layout.int_tuple import S
    >>> I = make_identity_layout((S(4), S(8)))
    >>> print(I, I(5), I(2, 3))
    (_4,_8):(_1@0,_1@1) (1,1) (2,3)
    >>> print(make_identity_layout(((2, 4), 8)))
    ((2,4),8):((_1@0@0,_1@1@0),_1@1)
    """
    check_int_tuple(shp, "make_identity_layout: shape")
    return Layout(shp, make_basis_like(shp))


def _no_basis(layout, what):
    if has_basis(layout.stride):
        raise LayoutError(f"{what}: layout {layout} has basis strides (it maps to coordinates, "
                          "not offsets); this operation needs integer strides")


_ENCODED = re.compile(r"_?-?\d{16,}")     # an encoded basis stride inside an error message


def _via_ints(fn, layout, *args):
    """Run ``fn`` on ``layout`` with its basis strides encoded as integers, decode the result."""
    enc, slots = encode_stride(layout.stride)
    try:
        r = fn(_mk(layout.shape, enc), *args)
    except LayoutError as e:        # name the basis strides, not their integer encoding
        def back(m):
            t = m.group(0)
            v = S(int(t[1:])) if t.startswith("_") else int(t)
            return str(decode_stride(v, slots))
        raise LayoutError(_ENCODED.sub(back, str(e))) from None
    return _decode_layout(r, slots)


def _decode_layout(r, slots):
    if isinstance(r, Layout):
        return _mk(r.shape, decode_stride(r.stride, slots))
    if hasattr(r, "layout_b"):          # a ComposedLayout: decode its inner layout
        return type(r)(r.layout_a, r.offset, _decode_layout(r.layout_b, slots))
    return r


def _as_layout(x, what="layout"):
    if isinstance(x, Layout):
        return x
    raise LayoutError(f"{what}: expected a Layout, got {x!r} ({type(x).__name__})")


def size(x, mode=None):
    """Number of coordinates (product of the shape); ``size(L, i)`` of mode ``i``."""
    if mode is not None:
        if not isinstance(x, Layout) and isinstance(getattr(x, "layout", None), Layout):
            x = x.layout                        # a Tensor: size<I>(tensor)
        return size(_as_layout(x, "size")[mode])
    if isinstance(x, Layout):
        return product(x.shape)
    if hasattr(x, "layout") and not callable(getattr(x, "layout")):
        return size(x.layout)
    if hasattr(x, "shape") and not isinstance(x, tuple) and hasattr(x, "layout_b"):
        return size(x.layout_b)
    check_int_tuple(x, "size")
    return product(x)


def cosize(layout):
    """One past the largest offset: ``L(size(L) - 1) + 1`` for non-negative strides."""
    if hasattr(layout, "layout_b"):
        return cosize(layout.layout_b)
    layout = _as_layout(layout, "cosize")
    _no_basis(layout, "cosize")
    shp = flatten_tuple(layout.shape)
    std = flatten_tuple(layout.stride)
    r = S(1)
    for s, d in zip(shp, std):
        r = r + (s - S(1)) * abs(d)
    return r


def rank(layout, mode=None):
    if mode is not None:
        return rank(_as_layout(layout)[mode])
    if isinstance(layout, Layout):
        return len(layout)
    return len(layout) if isinstance(layout, tuple) else 1


def depth(layout):
    if isinstance(layout, Layout):
        return depth_of(layout.shape)
    check_int_tuple(layout, "depth")
    return depth_of(layout)


def shape(layout, mode=None):
    layout = _as_layout(layout, "shape")
    return layout.shape if mode is None else layout[mode].shape


def stride(layout, mode=None):
    layout = _as_layout(layout, "stride")
    return layout.stride if mode is None else layout[mode].stride


def flatten(x):
    """Flatten a layout's modes (or an int tuple) to depth 1.

    >>> print(flatten(Layout(((2, 2), 4), ((1, 8), 2))))
    (2,2,4):(1,8,2)
    """
    if isinstance(x, Layout):
        fs, fd = flatten_tuple(x.shape), flatten_tuple(x.stride)
        if len(fs) == 1:
            return Layout(fs[0], fd[0])
        return Layout(fs, fd)
    return flatten_tuple(x) if isinstance(x, tuple) else x


def _bw_coalesce(shp, std):
    """CuTe's ``bw_coalesce`` on flat tuples; merges only statically provable modes.

    Walking back from the last leaf, a static ``_1`` extent is dropped, and a leaf ``s:d``
    merges into the front ``s0:d0`` when ``s0`` is static and ``s * d == d0`` is known at
    compile time (``s * d`` static: both static, or ``d`` a static zero).
    """
    out_s, out_d = _bw_lists(shp, std)
    if len(out_s) == 1:
        return _mk(out_s[0], out_d[0])
    return _mk(tuple(out_s), tuple(out_d))


def _bw_lists(shp, std):
    """:func:`_bw_coalesce` of flat tuples, as two lists in order (``[_1], [_0]`` if empty)."""
    s0, d0 = shp[-1], std[-1]
    out_s, out_d = [], []
    for s, d in zip(shp[-2::-1], std[-2::-1]):
        ts = type(s) is S
        if ts and s == 1:
            continue
        if not out_s and type(s0) is S and s0 == 1:
            s0, d0 = s, d
            continue
        if type(d) is S and type(s0) is S and type(d0) is S and (ts or d == 0) \
                and _imul(s, d) == d0:
            s0 = _int_new(S, _imul(s, s0)) if ts else _imul(s, s0)
            d0 = d
            continue
        out_s.append(s0)
        out_d.append(d0)
        s0, d0 = s, d
    if not out_s and type(s0) is S and s0 == 1:
        return [_S1], [_S0]
    out_s.append(s0)
    out_d.append(d0)
    out_s.reverse()
    out_d.reverse()
    return out_s, out_d


def coalesce_x(layout):
    """CuTe's ``detail::coalesce_x``: like :func:`coalesce`, but a trailing static ``_1``
    mode is kept as ``_2`` so the function is also preserved past the end of the domain
    (``(_4,_1):(_1,_0)`` becomes ``(_4,_2):(_1,_0)``, not ``_4:_1``). ``composition`` uses it.
    """
    shp = layout.shape
    if type(shp) is not tuple:
        if type(shp) is S and shp == 1:
            return _mk(_S2, layout.stride)
        return layout
    shp, std = flatten_tuple(shp), flatten_tuple(layout.stride)
    last = shp[-1]
    if type(last) is S and last == 1:
        shp = shp[:-1] + (_S2,)
    return _bw_coalesce(shp, std)



def make_ordered_layout(shp, order=None):
    """A compact layout whose modes are ordered by ``order`` (CuTe ``make_ordered_layout``).

    Static orders compare by value; dynamic ones count as larger than every static one and
    keep their order of appearance. This decides where run-time strides go.

    >>> from labkit.layout.int_tuple import S
    >>> print(make_ordered_layout((S(4), (S(2), S(2))), (S(2048), (144, 288))))
    (_4,(_2,_2)):(_1,(_4,_8))
    >>> print(make_ordered_layout((S(4), S(4)), (S(2048), S(144))))
    (_4,_4):(_4,_1)
    """
    check_int_tuple(shp, "make_ordered_layout shape")
    if order is None:
        return Layout(shp)
    check_int_tuple(order, "make_ordered_layout order")
    return Layout(shp, _compact_order(shp, order))


def unwrap_layout(layout):
    return Layout(unwrap(layout.shape), unwrap(layout.stride))
