"""CuTe's ``Swizzle<B,M,S>`` and ``ComposedLayout`` (swizzle o offset o layout).

``Swizzle(B, M, S)`` XORs the ``B`` bits found ``S`` places above bit ``M + max(0,S)`` into
the ``B`` bits starting at bit ``M`` (for S > 0):

    yyy_mask = ((1 << B) - 1) << (M + max(0, S));   f(x) = x ^ ((x & yyy_mask) >> S)

>>> import labkit as lk
>>> sw = lk.Swizzle(3, 3, 3)
>>> print(sw)
Sw<3,3,3>
>>> sw(64), sw(128), sw(256), sw(8)
(72, 144, 288, 8)

Mirrors ``include/cute/swizzle.hpp`` and ``swizzle_layout.hpp``.
"""

from __future__ import annotations

from ._np import np

from ..errors import LayoutError
from .int_tuple import S, is_int, fmt, is_static, flatten_tuple
from .coordinates import _check_coord, _cfmt
from .layout import Layout, size

__all__ = ["Swizzle", "ComposedLayout", "make_composed_layout"]


class Swizzle:
    """The XOR swizzle functor ``Sw<B,M,S>`` on integer offsets.

    >>> Swizzle(2, 0, 3)(0b01000)
    9
    """

    __slots__ = ("bits", "base", "shift")

    def __init__(self, B, M, S_):
        for v, nm in ((B, "B"), (M, "M"), (S_, "S")):
            if not is_int(v):
                raise LayoutError(f"Swizzle(B, M, S): {nm} must be an int, got {v!r}")
        if B < 0 or M < 0:
            raise LayoutError(f"Swizzle(B={B}, M={M}, S={S_}): B and M must be >= 0")
        if B + M + abs(S_) > 64:
            raise LayoutError(f"Swizzle(B={B}, M={M}, S={S_}): B + M + |S| must be at most 64 "
                              "(the swizzle acts on 64-bit offsets here)")
        if abs(S_) < B:
            raise LayoutError(f"Swizzle(B={B}, M={M}, S={S_}): |S| must be >= B, else the "
                              "source bits overlap the bits they are XORed into")
        self.bits, self.base, self.shift = int(B), int(M), int(S_)

    @property
    def yyy_mask(self) -> int:
        return ((1 << self.bits) - 1) << (self.base + max(0, self.shift))

    @property
    def zzz_mask(self) -> int:
        return ((1 << self.bits) - 1) << (self.base - min(0, self.shift))

    def __call__(self, x):
        if isinstance(x, np.ndarray):
            x = x.astype(np.int64)
            if self.shift >= 0:
                return x ^ ((x & self.yyy_mask) >> self.shift)
            return x ^ ((x & self.yyy_mask) << -self.shift)
        if not is_int(x):
            raise LayoutError(f"{self}: offsets must be ints, got {x!r}")
        x = int(x)
        if self.shift >= 0:
            return x ^ ((x & self.yyy_mask) >> self.shift)
        return x ^ ((x & self.yyy_mask) << -self.shift)

    def __eq__(self, other):
        return isinstance(other, Swizzle) and (self.bits, self.base, self.shift) == (
            other.bits, other.base, other.shift)

    def __hash__(self):
        return hash(("Sw", self.bits, self.base, self.shift))

    def __str__(self):
        return f"Sw<{self.bits},{self.base},{self.shift}>"

    def __repr__(self):
        return f"Swizzle({self.bits},{self.base},{self.shift})"

    def size(self):
        """The period of the swizzle: ``1 << (M + B + max(0,S))``-wide blocks repeat."""
        return 1 << (self.base + self.bits + abs(self.shift))


class ComposedLayout:
    """``layout_a o offset o layout_b``: ``x -> layout_a(offset + layout_b(x))``.

    >>> import labkit as lk
    >>> atom = lk.composition(lk.Swizzle(3, 3, 3), lk.parse_layout("(_8,_64):(_64,_1)"))
    >>> print(atom)
    Sw<3,3,3> o _0 o (_8,_64):(_64,_1)
    >>> atom(1, 0), atom(1, 8)
    (72, 64)
    """

    __slots__ = ("layout_a", "offset", "layout_b")

    def __init__(self, layout_a, offset, layout_b):
        if not (isinstance(layout_a, (Swizzle, Layout, ComposedLayout))):
            raise LayoutError(f"ComposedLayout: layout_a must be a Swizzle or Layout, got "
                              f"{layout_a!r}")
        if not isinstance(layout_b, (Layout, ComposedLayout)):
            raise LayoutError(f"ComposedLayout: layout_b must be a Layout, got {layout_b!r}")
        if not is_int(offset):
            raise LayoutError(f"ComposedLayout: offset must be an int, got {offset!r}")
        self.layout_a, self.offset, self.layout_b = layout_a, offset, layout_b

    @property
    def shape(self):
        return self.layout_b.shape

    @property
    def stride(self):
        return self.layout_b.stride

    def __len__(self):
        return len(self.layout_b)

    def __getitem__(self, i):
        return ComposedLayout(self.layout_a, self.offset, self.layout_b[i])

    def __call__(self, *args):
        inner = self.layout_b(*args)
        return int(self.layout_a(self.offset + inner))

    def offsets(self) -> np.ndarray:
        """All values in colexicographic order, as a numpy array.

        >>> import labkit as lk
        >>> lk.composition(lk.Swizzle(1, 0, 1), lk.parse_layout("_4:_1")).offsets().tolist()
        [0, 1, 3, 2]
        """
        inner = self.layout_b.offsets() + int(self.offset)
        if isinstance(self.layout_a, Swizzle):
            return self.layout_a(inner)
        return self.layout_a.offsets()[inner]

    def __eq__(self, other):
        return (isinstance(other, ComposedLayout) and self.layout_a == other.layout_a
                and int(self.offset) == int(other.offset) and self.layout_b == other.layout_b)

    def __hash__(self):
        return hash((str(self),))

    def __str__(self):
        return f"{self.layout_a} o {self.offset} o {self.layout_b}"

    def __repr__(self):
        return f"ComposedLayout({self})"


def make_composed_layout(layout_a, offset, layout_b):
    return ComposedLayout(layout_a, offset, layout_b)


def swizzle_strides(sw: Swizzle, offset: int, layout: Layout):
    """A plain layout equal to ``sw(offset + layout(x))`` when the XOR stays linear.

    This is how CuTe C++ prints a partition of a swizzled tensor at a run-time offset:
    each stride that touches the swizzle's source (``yyy``) or target (``zzz``) bits becomes a
    *run-time* stride ``sw(offset + d) - sw(offset)``, the others stay as they are. A mode
    spanning several such bits is split into one mode per bit, since each bit's sign depends
    on the offset; with a static offset (CuTe DSL) it stays whole when all its bits move alike. It is exact
    when every stride is a power of two, the strides and the offset use disjoint bits. Returns
    ``(layout, base)`` where ``base = sw(offset)``; raises :class:`LayoutError` otherwise.

    >>> import labkit as lk
    >>> L = lk.parse_layout("((_2,_2,_2),_4,(_2,_2)):((_1,_512,_64),_2048,(_128,_256))")
    >>> lay, base = swizzle_strides(Swizzle(3, 3, 3), 0, L)
    >>> print(lay)
    ((_2,_2,_2),_4,(_2,_2)):((_1,_512,72),_2048,(144,288))
    """
    if not isinstance(sw, Swizzle) or not is_int(offset) or not isinstance(layout, Layout):
        raise LayoutError("swizzle_strides(sw, offset, layout): expected a Swizzle, an int "
                          f"offset and a Layout, got {sw!r}, {offset!r}, {layout!r}")
    mask = sw.yyy_mask | sw.zzz_mask
    used = int(offset)
    shp = flatten_tuple(layout.shape)
    std = flatten_tuple(layout.stride)
    for s, d in zip(shp, std):
        span = (int(s) - 1) * int(d)
        if int(d) < 0 or (int(d) & (int(d) - 1)) != 0 and int(d) != 0:
            raise LayoutError(f"swizzle_strides: stride {d} is not a power of two")
        if int(d) == 0:
            continue
        if used & span:
            raise LayoutError("swizzle_strides: strides or offset share bits; the swizzled "
                              "layout is not a plain shape:stride")
        used |= span
    base = sw(int(offset))
    base = S(base) if isinstance(offset, S) else base

    def moved(d):
        new = sw(int(offset) + int(d)) - base
        return S(new) if isinstance(offset, S) else new

    def rec(s, d):
        if isinstance(s, tuple):
            pairs = [rec(x, y) for x, y in zip(s, d)]
            return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
        if int(d) == 0 or int(s) == 1 or not (abs(int(d)) * (int(s) - 1)) & mask:
            return s, d
        if int(s) == 2:
            return s, moved(d)
        # Each bit of a wider mode flips its own swizzle bit, with a sign that depends on the
        # offset: split the mode into single-bit modes, each with its own stride.
        if int(s) & (int(s) - 1):
            raise LayoutError(f"swizzle_strides: extent {s} of a swizzled mode is not a power "
                              "of two")
        bits = int(s).bit_length() - 1
        per_bit = [moved(int(d) << i) for i in range(bits)]
        if isinstance(offset, S) and all(int(p) == int(per_bit[0]) << i
                                         for i, p in enumerate(per_bit)):
            return s, per_bit[0]     # a known offset whose bits all move alike: one mode
        two = S(2) if isinstance(s, S) else 2
        return tuple(two for _ in range(bits)), tuple(per_bit)

    new_shape, new_stride = rec(layout.shape, layout.stride)
    out = Layout(new_shape, new_stride)
    n = int(size(layout))
    if n <= 1 << 16:
        want = sw(layout.offsets() + int(offset))
        if not np.array_equal(out.offsets() + base, want):
            raise LayoutError("swizzle_strides: the swizzled offsets are not a plain "
                              "shape:stride function of the coordinate")
    return out, base
