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

Mirrors ``include/cute/layout.hpp``.
"""

from __future__ import annotations

import re

from ._np import np

from ..errors import LayoutError
from .int_tuple import (
    _S0, _S1, _S2, _int_new, S, is_int, is_constant, is_static, product, flatten_tuple, fmt, congruent, depth_of,
    check_int_tuple, unwrap,
)
from .basis import (
    ScaledBasis, has_basis, check_stride_tuple, encode_stride, decode_stride, make_basis_like,
)

__all__ = [
    "Layout", "make_layout", "size", "cosize", "rank", "depth", "shape", "stride",
    "crd2idx", "idx2crd", "flatten", "coalesce", "filter", "filter_zeros", "compact_major",
    "make_ordered_layout", "is_layout", "append", "prepend", "take", "make_identity_layout",
    "group_modes", "select",
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

    return Layout(shp, rec(shp, new_order))


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


def append(layout, x=None, n=None):
    """Append mode ``x`` (default ``_1:_0``), or pad to rank ``n`` with ``_1:_0``."""
    layout = _as_layout(layout, "append")
    modes = list(layout) if isinstance(layout.shape, tuple) else [layout]
    if n is not None:
        while len(modes) < n:
            modes.append(Layout(S(1), S(0)))
    else:
        modes.append(x if x is not None else Layout(S(1), S(0)))
    return make_layout(*modes)


def prepend(layout, x):
    layout = _as_layout(layout, "prepend")
    modes = list(layout) if isinstance(layout.shape, tuple) else [layout]
    return make_layout(x, *modes)


def _on_tensor(fn, x, *args):
    """``fn`` on a tensor's layout, keeping its storage and offset (C++'s Tensor overloads)."""
    if isinstance(x, Layout):
        return fn(x, *args)
    if hasattr(x, "storage") and isinstance(getattr(x, "layout", None), Layout):
        return type(x)(x.storage, fn(x.layout, *args), x.offset)
    return fn(x, *args)


def _bounds(layout, b, e, what):
    layout = _as_layout(layout, what)
    if not (is_int(b) and is_int(e)):
        raise LayoutError(f"{what}: mode bounds b and e must be ints, got {b!r} and {e!r}")
    R = len(layout)
    return layout, list(layout), (R if e == -1 else e), R


def take(layout, b, e=-1):
    """Modes ``[b, e)`` of a layout or tensor (CuTe ``take<B,E>``; ``e=-1`` is the rank).

    >>> print(take(Layout((2, 4, 8), (1, 2, 8)), 1, 3))
    (4,8):(2,8)
    """
    return _on_tensor(_take, layout, b, e)


def _take(layout, b, e):
    layout, modes, e2, R = _bounds(layout, b, e, "take")
    if not b < e2:
        raise LayoutError(f"take: modes [b={b}, e={e}) of layout {layout}: an empty range "
                          "(CuTe: take: empty range error)")
    if not (0 <= b and e2 <= R):
        raise LayoutError(f"take: modes [b={b}, e={e}) of layout {layout} of rank {R} (CuTe: "
                          "take: range out of bounds)")
    return make_layout(*modes[b:e2])


def group_modes(layout, b, e=-1):
    """Modes ``[b, e)`` gathered into one mode, the others kept (CuTe ``group<B,E>`` on a
    layout, ``group_modes<B,E>`` on a tensor; ``e=-1`` is the rank).

    >>> print(group_modes(Layout((2, 4, 8), (1, 2, 8)), 0, 2))
    ((2,4),8):((1,2),8)
    """
    return _on_tensor(_group, layout, b, e)


def _group(layout, b, e):
    layout, modes, e2, R = _bounds(layout, b, e, "group_modes")
    if e2 > R or b > R:
        raise LayoutError(f"group_modes: modes [b={b}, e={e}) of layout {layout} of rank {R} "
                          "run past its modes (CuTe: Index out of range)")
    if not 0 <= b <= e2:
        raise LayoutError(f"group_modes: modes [b={b}, e={e}) of layout {layout} need "
                          "0 <= b <= e (CuTe: static_assert(B <= E))")
    if b == e2:
        return layout
    out = modes[:b] + [make_layout(*modes[b:e2])] + modes[e2:]
    return make_layout(*out)


def select(layout, *modes):
    """The listed modes, in the listed order (CuTe ``select<I...>``).

    >>> print(select(Layout((2, 4, 8), (1, 2, 8)), 2, 0))
    (8,2):(8,1)
    """
    return _on_tensor(_select, layout, *modes)


def _select(layout, *modes):
    layout = _as_layout(layout, "select")
    if not modes:
        raise LayoutError("select(layout, *modes): name at least one mode")
    R = len(layout)
    for m in modes:
        if not is_int(m) or not 0 <= m < R:
            raise LayoutError(f"select: mode {m!r} is out of range for layout {layout} of rank "
                              f"{R} (CuTe: get<I> needs I < rank)")
    return make_layout(*[layout[m] for m in modes])


def unwrap_layout(layout):
    return Layout(unwrap(layout.shape), unwrap(layout.stride))
