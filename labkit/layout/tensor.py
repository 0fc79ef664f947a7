"""CuTe's ``Tensor``: storage (a numpy array, or none) + a layout + an offset.

``t(coord)`` reads ``storage[offset + layout(coord)]``; a coordinate holding ``_`` slices and
returns a view on the same storage. Without storage, ``t(coord)`` returns the offset itself,
which is how labkit shows where a partition points.

>>> import numpy as np, labkit as lk
>>> t = lk.make_tensor(np.arange(32), lk.make_layout((4, 8), (8, 1)))
>>> int(t(1, 2)), int(t[1, 2])
(10, 10)
>>> row = t(1, lk._)
>>> print(row.layout, row.offset, row(3))
(8):(1) 8 11
>>> w = lk.recast(lk.make_tensor(np.arange(8, dtype=np.float16), lk.make_layout(lk.S(8))), np.uint32)
>>> print(w.layout, [hex(int(w(i))) for i in range(2)])
_4:_1 ['0x3c000000', '0x42004000']

Mirrors ``include/cute/tensor_impl.hpp`` and ``recast`` in ``tensor.hpp``.
"""

from __future__ import annotations

from ._np import np

from ..errors import LayoutError
from .int_tuple import S, is_int, fmt, is_static, check_int_tuple
from .coordinates import _crd2idx, _check_coord, _cfmt
from .layout import Layout, size, cosize, make_identity_layout
from .simplify import coalesce
from .swizzle import ComposedLayout, Swizzle, swizzle_strides
from .compose import Underscore
from .vectors import recast_layout
from .basis import ArithTuple, ScaledBasis, make_basis_like, as_arithmetic_tuple
from .pointer import Iterator, SmemPtr, SmemPtrFlag, SwizzlePtr

__all__ = ["Tensor", "make_tensor", "make_fragment", "recast", "slice_layout",
           "make_identity_tensor"]


def _is_slice(c):
    return c is None or isinstance(c, Underscore)


def _has_fixed(c):
    if isinstance(c, tuple):
        return any(_has_fixed(e) for e in c)
    return not _is_slice(c)


def _has_slice(c):
    if isinstance(c, tuple):
        return any(_has_slice(e) for e in c)
    return _is_slice(c)


def _slice(crd, shp, std):
    """(kept shapes, kept strides, offset) for a coordinate containing ``_``."""
    if _is_slice(crd):
        return [shp], [std], S(0)
    if isinstance(crd, tuple):
        if not isinstance(shp, tuple) or len(crd) != len(shp):
            raise LayoutError(f"slice: coordinate {_cfmt(crd)} does not match shape {fmt(shp)}")
        # CuTe's slice concatenates the kept modes of every level (filter_tuple/lift_slice):
        # (t, (_, (_, _))) on ((T),(V,(M,K))) keeps (V, M, K), a rank-3 result.
        ks, kd, off = [], [], S(0)
        for c, s, d in zip(crd, shp, std):
            s2, d2, o = _slice(c, s, d)
            off = off + o
            ks += s2
            kd += d2
        return ks, kd, off
    _check_coord(crd, shp, f"slice coordinate {crd}")
    return [], [], _crd2idx(crd, shp, std)


def slice_layout(layout, crd):
    """``(sublayout, offset)``: the modes marked ``_`` in ``crd`` and the offset of the rest.

    >>> import labkit as lk
    >>> sub, off = slice_layout(lk.parse_layout("(_4,_8):(_8,_1)"), (lk._, 2))
    >>> print(sub, off)
    (_4):(_8) 2
    """
    if not isinstance(layout, (Layout, ComposedLayout)):
        raise LayoutError(f"slice: expected a Layout, got {layout!r} ({type(layout).__name__})")
    if isinstance(layout, ComposedLayout):
        sub, off = slice_layout(layout.layout_b, crd)
        total = layout.offset + off
        if isinstance(layout.layout_a, Swizzle) and _has_fixed(crd):
            # Slicing at a fixed coordinate moves the swizzle into the strides (CuTe's
            # swizzle_layout.hpp): strides touching the swizzle bits become sw(o+d) - sw(o),
            # run-time values when the offset is a run-time value, static ones otherwise.
            try:
                plain, base = swizzle_strides(layout.layout_a, total, sub)
            except LayoutError:
                return ComposedLayout(layout.layout_a, total, sub), 0
            return plain, base
        return ComposedLayout(layout.layout_a, total, sub), 0
    if _is_slice(crd):
        return layout, S(0)     # CuTe: slice(_, L) is L itself
    if not isinstance(crd, tuple):
        crd = (crd,) if isinstance(layout.shape, tuple) and len(layout.shape) == 1 else crd
    ks, kd, off = _slice(crd, layout.shape, layout.stride)
    if not ks:
        raise LayoutError(f"slice: coordinate {_cfmt(crd)} has no _ ; call the layout instead")
    return Layout(tuple(ks), tuple(kd)), off


class Tensor:
    """A layout over storage. See the module docstring for an example."""

    __slots__ = ("storage", "layout", "offset")

    def __init__(self, storage, layout, offset=S(0)):
        if not isinstance(layout, (Layout, ComposedLayout)):
            raise LayoutError(f"make_tensor: layout must be a Layout, got {layout!r}")
        if not (is_int(offset) or isinstance(offset, (ArithTuple, ScaledBasis))):
            raise LayoutError(f"make_tensor: offset must be an int or an ArithTuple, got "
                              f"{offset!r}")
        if storage is not None and not is_int(offset):
            raise LayoutError("make_tensor: a tensor with storage needs an int offset, got "
                              f"{offset}")
        if storage is not None and not isinstance(storage, Iterator):
            if not isinstance(storage, np.ndarray):
                raise LayoutError(f"make_tensor: storage must be a numpy array, a pointer "
                                  f"(make_smem_ptr) or None, got {type(storage).__name__}")
            if storage.ndim != 1:
                storage = storage.reshape(-1)
        self.storage, self.layout, self.offset = storage, layout, offset

    @property
    def shape(self):
        return self.layout.shape

    @property
    def stride(self):
        return self.layout.stride

    def _index(self, crd):
        return self.offset + self.layout(crd)

    def _norm(self, args):
        return args[0] if len(args) == 1 else tuple(args)

    def __call__(self, *args):
        crd = self._norm(args)
        if _has_slice(crd):
            sub, off = slice_layout(self.layout, crd)
            return Tensor(self.storage, sub, self.offset + off)
        idx = self._index(crd)
        if self.storage is None:
            if isinstance(idx, ScaledBasis) and not idx.index:
                return idx.value        # a rank-1 counting tensor counts in plain integers
            return idx
        if isinstance(self.storage, Iterator):
            return self.storage.deref(idx)
        self._check_bounds(idx)
        return self.storage[idx]

    def __getitem__(self, crd):
        return self(crd) if not isinstance(crd, tuple) else self(*crd)

    def __setitem__(self, crd, value):
        if self.storage is None or isinstance(self.storage, Iterator):
            raise LayoutError("Tensor: a tensor without numpy storage (coordinates, a pointer or "
                              "descriptors) cannot be written")
        idx = self._index(crd)
        self._check_bounds(idx)
        self.storage[idx] = value

    def _check_bounds(self, idx):
        if not 0 <= idx < self.storage.size:
            raise LayoutError(f"Tensor: offset {idx} falls outside the storage of "
                              f"{self.storage.size} elements")

    def offsets(self) -> np.ndarray:
        """Storage offsets of every coordinate, colexicographic order."""
        return self.layout.offsets() + self.offset

    def values(self) -> np.ndarray:
        """All elements in colexicographic coordinate order (a copy)."""
        if self.storage is None:
            return self.offsets()
        if isinstance(self.storage, Iterator):
            return np.array([self.storage.deref(int(i)) for i in self.offsets()])
        return self.storage[self.offsets()]

    def data_ptr_equal(self, other) -> bool:
        """True when both tensors view the same storage buffer."""
        if isinstance(self.storage, Iterator) or isinstance(other.storage, Iterator):
            return False
        return (self.storage is not None and other.storage is not None
                and np.shares_memory(self.storage, other.storage))

    def __len__(self):
        return len(self.layout)

    def __str__(self):
        if isinstance(self.offset, (ArithTuple, ScaledBasis)):
            return f"ArithTuple{self.offset} o {self.layout}"
        if isinstance(self.storage, Iterator):
            return f"{self.storage + self.offset} o {self.layout}"
        head = f"{self.storage.dtype}" if self.storage is not None else "coord"
        return f"{head}[{self.offset}] o {self.layout}"

    def __repr__(self):
        return f"Tensor({self})"


def make_tensor(storage, layout, offset=S(0)):
    """A tensor viewing ``storage`` (a numpy array, a pointer such as :func:`make_smem_ptr`, or
    None) through ``layout``. A shared-memory pointer with a swizzled layout that waits for it
    (``Sw<B,M,S> o smem_ptr[b](unset) o L``, e.g. a GMMA layout atom tiled) gives CuTe's tensor:
    the swizzle moves into the pointer, the layout is ``L``.

    >>> import labkit as lk
    >>> make_tensor(None, lk.parse_layout("(_16,_16):(_16,_1)"))(0, 9)
    9
    >>> atom = lk.gmma_layout_atom("K", "SW128", "half_t")
    >>> print(make_tensor(lk.make_smem_ptr(0x3000, "half_t"), lk.tile_to_shape(atom, (lk.S(64), lk.S(64)))))
    Sw<3,4,3>_smem_ptr[16b](0x3000) o ((_8,_8),(_64,_1)):((_64,_512),(_1,_0))
    """
    if isinstance(layout, str):
        from .text import parse_layout
        layout = parse_layout(layout)
    if isinstance(storage, SmemPtr) or isinstance(storage, Iterator):
        return _smem_tensor(storage, layout, offset)
    t = Tensor(storage, layout, offset)
    if isinstance(storage, np.ndarray) and isinstance(layout, Layout):
        need = int(cosize(layout)) + int(offset)
        if t.storage.size < need:
            raise LayoutError(f"make_tensor: layout {layout} needs {need} elements of storage, "
                              f"got {t.storage.size}")
    return t


def _smem_tensor(ptr, layout, offset):
    if not isinstance(ptr, SmemPtr):
        return Tensor(ptr, layout, offset)
    if isinstance(layout, ComposedLayout) and isinstance(layout.offset, SmemPtrFlag):
        if layout.offset.bits != ptr.bits:
            raise LayoutError(f"make_tensor: the layout waits for a {layout.offset.bits}-bit pointer, "
                              f"got {ptr} (CuTe: static_assert 'Expected a B-bit pointer type.')")
        if not isinstance(layout.layout_a, Swizzle) or not isinstance(layout.layout_b, Layout):
            raise LayoutError(f"make_tensor: {layout} is not Swizzle o smem_ptr_flag o Layout")
        if layout.layout_a.bits == 0:          # CuTe's make_swizzle_ptr: Swizzle<0,M,S> is no swizzle
            return Tensor(ptr, layout.layout_b, offset)
        return Tensor(SwizzlePtr(layout.layout_a, ptr), layout.layout_b, offset)
    if isinstance(layout, ComposedLayout):
        raise LayoutError(f"make_tensor: a shared-memory pointer takes a Layout or a swizzled layout "
                          f"that waits for it (Sw<B,M,S> o smem_ptr[{ptr.bits}b](unset) o L), got {layout}")
    return Tensor(ptr, layout, offset)


def make_fragment(layout, dtype=None):
    """A tensor that owns zeroed storage of ``cosize(layout)`` elements (a register fragment);
    ``dtype`` defaults to float16.

    >>> import labkit as lk
    >>> f = make_fragment(lk.parse_layout("((_2,_2,_2),_1,_1):((_1,_2,_4),_0,_0)"))
    >>> f.storage.size, f.storage.dtype
    (8, dtype('float16'))
    """
    n = int(cosize(layout))
    try:
        dt = np.dtype(np.float16 if dtype is None else dtype)
    except (TypeError, ValueError, SyntaxError):
        raise LayoutError(f"make_fragment: dtype {dtype!r} is not a numpy element type") from None
    return Tensor(np.zeros(n, dtype=dt), layout, 0)


def recast(tensor, dtype):
    """Reinterpret a tensor's bits as another element type (CuTe ``recast<T>``).

    Eight halves become four ``uint32`` words; element ``2i`` lands in the low 16 bits of word
    ``i`` (little-endian), as ``mma_unpack`` passes fragment pairs to ``mma.sync``.
    """
    if not isinstance(tensor, Tensor) or tensor.storage is None:
        raise LayoutError("recast: needs a Tensor with numpy storage")
    try:
        new = np.dtype(dtype)
    except (TypeError, ValueError, SyntaxError):    # numpy parses strings: '0:' or '01'
        raise LayoutError(f"recast: {dtype!r} is not a numpy element type") from None
    if new.itemsize == 0 or new.hasobject or new.fields is not None:
        raise LayoutError(f"recast: {new} is not a fixed-width scalar element type")
    old = tensor.storage.dtype
    ob, nb = old.itemsize * 8, new.itemsize * 8
    if not tensor.storage.flags.c_contiguous:
        raise LayoutError("recast: storage must be contiguous")
    if (tensor.storage.size * ob) % nb != 0:
        raise LayoutError(f"recast: {tensor.storage.size} x {ob}-bit storage does not split into "
                          f"{nb}-bit elements")
    if (tensor.offset * ob) % nb != 0:
        raise LayoutError(f"recast: offset {tensor.offset} is not aligned to {nb}-bit elements")
    layout = recast_layout(tensor.layout, ob, nb)
    return Tensor(tensor.storage.view(new), layout, tensor.offset * ob // nb)


def make_identity_tensor(shape):
    """A tensor without storage whose element at a coordinate is that coordinate (CuTe's
    ``make_identity_tensor``): a counting ``ArithTuple`` over ``make_identity_layout(shape)``.

    It partitions like any tensor, so the coordinates a thread holds tell it which elements of
    a ragged tile are in bounds (with :func:`labkit.elem_less`).

    >>> import labkit as lk
    >>> cI = make_identity_tensor((lk.S(4), lk.S(8)))
    >>> print(cI)
    ArithTuple(_0,_0) o (_4,_8):(_1@0,_1@1)
    >>> print(cI(5), cI(2, 3), lk.elem_less(cI(2, 3), (3, 3)))
    (1,1) (2,3) False
    """
    check_int_tuple(shape, "make_identity_tensor: shape")
    layout = make_identity_layout(shape)
    # CuTe: the iterator starts at the coprofile of the layout, a _0 for every coordinate
    # (a rank-1 shape counts from a plain _0, kept as E<> * _0 so it still prints as one)
    if not isinstance(shape, tuple):
        return Tensor(None, layout, ScaledBasis(S(0), ()))
    zero = _zero_like(as_arithmetic_tuple(_sum_basis(make_basis_like(shape))))
    return Tensor(None, layout, zero)


def _sum_basis(b):
    if isinstance(b, tuple):
        r = S(0)
        for e in b:
            r = r + _sum_basis(e)
        return r
    return b


def _zero_like(x):
    if isinstance(x, tuple):
        return ArithTuple(tuple(_zero_like(e) for e in x))
    return S(0)
