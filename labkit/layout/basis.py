"""CuTe's basis strides: ``ScaledBasis`` (``E<i>``) and ``ArithmeticTuple``.

A stride may be a *basis element* instead of an integer: ``E(1)`` is the unit vector of
coordinate 1, printed ``_1@1``; ``E(1) * 2`` is ``2@1``. A layout whose strides are basis
elements maps an index to a coordinate tuple (an :class:`ArithTuple`) rather than to an
offset. ``E(1, 0)`` is the nested unit vector ``(_0,(_1))``, printed ``_1@0@1`` as C++ does
(the innermost index first).

>>> import labkit as lk
>>> print(lk.E(0), lk.E(1) * 2, lk.E(1) * lk.S(2), lk.E(1, 0))
_1@0 2@1 _2@1 _1@0@1
>>> print(lk.E(0) + lk.E(1), lk.E(0) * 3 + lk.E(1) * lk.S(2))
(_1,_1) (3,_2)
>>> L = lk.make_layout((lk.S(4), lk.S(8)), (lk.E(0), lk.E(1)))
>>> print(L, L(5), L(13) == (1, 3))
(_4,_8):(_1@0,_1@1) (1,1) True

Mirrors ``include/cute/numeric/arithmetic_tuple.hpp``.
"""

from __future__ import annotations

from ..errors import LayoutError
from .int_tuple import S, _S0, is_int, fmt

__all__ = ["ScaledBasis", "E", "ArithTuple", "make_arithmetic_tuple", "as_arithmetic_tuple",
           "elem_less", "make_basis_like", "has_basis"]


def _is_zero_static(x):
    return type(x) is S and x == 0


class ArithTuple(tuple):
    """CuTe's ``ArithmeticTuple``: a tuple that adds element by element.

    Shorter operands are padded with ``_0`` (C++ pads to the longer rank); adding a static
    ``_0`` is the identity, any other integer is refused (C++: "Arithmetic tuple op+ error!").

    >>> a = ArithTuple((1, S(2)))
    >>> print(a + ArithTuple((S(3),)), a == (1, 2))
    (4,_2) True
    """

    __slots__ = ()

    def __new__(cls, items=()):
        return super().__new__(cls, tuple(_as_at_leaf(e) for e in items))

    def __add__(self, other):
        if isinstance(other, ScaledBasis):
            other = as_arithmetic_tuple(other)
        if isinstance(other, tuple):
            n = max(len(self), len(other))
            a = tuple(self) + (_S0,) * (n - len(self))
            b = tuple(other) + (_S0,) * (n - len(other))
            return ArithTuple(tuple(_add(x, y) for x, y in zip(a, b)))
        if is_int(other):
            if _is_zero_static(other):
                return self
            raise LayoutError(f"ArithTuple {self} + {other}: only a static _0 may be added to an "
                              "arithmetic tuple (CuTe: Arithmetic tuple op+ error!)")
        return NotImplemented

    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, ScaledBasis):
            other = as_arithmetic_tuple(other)
        if isinstance(other, tuple):
            return self + ArithTuple(tuple(_neg(e) for e in other))
        if _is_zero_static(other):
            return self
        return NotImplemented

    def __mul__(self, k):
        raise LayoutError(f"ArithTuple {self} * {k!r}: CuTe has no product of an arithmetic "
                          "tuple; scale the basis elements (E(i) * k) instead")

    __rmul__ = __mul__

    def __neg__(self):
        return ArithTuple(tuple(_neg(e) for e in self))

    def __str__(self):
        return fmt(tuple(self))

    def __repr__(self):
        return f"ArithTuple{self}"


def _as_at_leaf(e):
    if isinstance(e, ScaledBasis):
        return as_arithmetic_tuple(e)
    if type(e) is tuple:
        return ArithTuple(e)
    return e


def _add(x, y):
    if isinstance(x, tuple) and not isinstance(x, ArithTuple):
        x = ArithTuple(x)
    if isinstance(y, tuple) and not isinstance(y, ArithTuple):
        y = ArithTuple(y)
    return x + y


def _neg(e):
    if isinstance(e, tuple):
        return ArithTuple(tuple(_neg(x) for x in e))
    return -e


class ScaledBasis:
    """``value`` times the unit vector at ``index`` (outermost position first): CuTe's
    ``ScaledBasis<T, I...>``. Build unit vectors with :func:`E`.

    >>> print(ScaledBasis(S(4), (1,)), ScaledBasis(3, (0,)) * S(2))
    _4@1 6@0
    """

    __slots__ = ("value", "index")

    def __init__(self, value, index=()):
        if not is_int(value):
            raise LayoutError(f"ScaledBasis(value, index): value must be an int, got {value!r}")
        if isinstance(index, int):
            index = (index,)
        if not isinstance(index, tuple) or not all(is_int(i) and i >= 0 for i in index):
            raise LayoutError(f"ScaledBasis(value, index): index must be a tuple of "
                              f"non-negative ints, got {index!r}")
        self.value = value
        self.index = tuple(int(i) for i in index)

    def __mul__(self, k):
        if not is_int(k):
            return NotImplemented
        return ScaledBasis(self.value * k, self.index)

    def __rmul__(self, k):
        if not is_int(k):
            return NotImplemented
        return ScaledBasis(k * self.value, self.index)

    def __neg__(self):
        return ScaledBasis(-self.value, self.index)

    def __add__(self, other):
        if isinstance(other, (ScaledBasis, tuple)):
            return as_arithmetic_tuple(self) + other
        if is_int(other):
            if not self.index:      # E<>: a plain (counting) integer
                return ScaledBasis(self.value + other, ())
            if _is_zero_static(other):
                return self
            raise LayoutError(f"ScaledBasis {self} + {other}: only a static _0 may be added to a "
                              "basis element (CuTe: ScaledBasis op+ error!)")
        return NotImplemented

    __radd__ = __add__

    def __eq__(self, other):
        if isinstance(other, ScaledBasis):
            return (self.index == other.index and self.value == other.value
                    and (type(self.value) is S) == (type(other.value) is S))
        return NotImplemented

    def __hash__(self):
        return hash((int(self.value), self.index))

    def __str__(self):
        return str(self.value) + "".join(f"@{i}" for i in reversed(self.index))

    __repr__ = __str__


def E(*index):
    """The unit basis element ``E<index...>`` (value ``_1``).

    >>> print(E(0), E(2), E(1, 0))
    _1@0 _1@2 _1@0@1
    """
    if not index:
        raise LayoutError("E(*index): give at least one index, e.g. E(0)")
    return ScaledBasis(S(1), tuple(index))


def make_arithmetic_tuple(*items):
    """``ArithTuple(items)``.

    >>> print(make_arithmetic_tuple(1, S(2)))
    (1,_2)
    """
    return ArithTuple(items)


def as_arithmetic_tuple(x):
    """A basis element as the arithmetic tuple it stands for (``E(1, 0)`` is ``(_0,(_1))``).

    >>> print(as_arithmetic_tuple(E(1, 0) * 3))
    (_0,(3))
    """
    if isinstance(x, ScaledBasis):
        r = x.value
        for n in reversed(x.index):
            r = ArithTuple((_S0,) * n + (r,))
        return r
    if isinstance(x, tuple):
        return ArithTuple(x)
    return x


def make_basis_like(shape):
    """CuTe's ``make_basis_like``: a unit basis element for every leaf of ``shape``.

    >>> print(fmt(make_basis_like((4, (2, 8)))))
    (_1@0,(_1@0@1,_1@1@1))
    """
    def rec(s, pre):
        if isinstance(s, tuple):
            return tuple(rec(e, pre + (i,)) for i, e in enumerate(s))
        return ScaledBasis(S(1), pre) if pre else S(1)
    return rec(shape, ())


def elem_less(a, b) -> bool:
    """CuTe's ``elem_less``: every element of ``a`` is less than the matching one of ``b``.

    Tuples compare element by element (nested ones recursively); extra elements of ``b`` are
    ignored, extra elements of ``a`` make the answer False. Use it to predicate a ragged tile:
    ``elem_less(cI(i), shape)``.

    >>> elem_less((1, 2), (4, 8)), elem_less((4, 2), (4, 8)), elem_less(ArithTuple((3, 7)), (4, 8))
    (True, False, True)
    """
    if isinstance(a, ScaledBasis):
        a = as_arithmetic_tuple(a)
    if isinstance(b, ScaledBasis):
        b = as_arithmetic_tuple(b)
    if isinstance(a, tuple) and isinstance(b, tuple):
        if len(a) > len(b):
            return False
        return all(elem_less(x, y) for x, y in zip(a, b))
    if isinstance(a, tuple) or isinstance(b, tuple):
        raise LayoutError(f"elem_less: cannot compare {_f(a)} with {_f(b)}: one is a tuple, the "
                          "other an integer (CuTe compares tuples with tuples)")
    if not (is_int(a) and is_int(b)):
        raise LayoutError(f"elem_less: expected ints or tuples, got {a!r} and {b!r}")
    return bool(a < b)


def _f(x):
    return fmt(x) if isinstance(x, tuple) else str(x)


def has_basis(stride) -> bool:
    """True when a stride (an int or nested tuple) holds a basis element."""
    if type(stride) is tuple:
        for e in stride:
            if type(e) is tuple:
                if has_basis(e):
                    return True
            elif type(e) is ScaledBasis:
                return True
        return False
    return type(stride) is ScaledBasis


def check_stride_tuple(x, what):
    """Raise unless ``x`` is an int, a basis element or a nested tuple of those."""
    if isinstance(x, tuple):
        if len(x) == 0:
            raise LayoutError(f"{what}: empty tuples are not allowed")
        for e in x:
            check_stride_tuple(e, what)
    elif not (is_int(x) or isinstance(x, ScaledBasis)):
        raise LayoutError(f"{what}: expected an int, a basis element (lk.E(i)) or a tuple of "
                          f"those, got {x!r} ({type(x).__name__})")


# ----------------------------------------------------------------------- integer encoding
# The layout algebra (coalesce, composition, divides) treats a basis stride exactly as an
# integer stride that no other stride can reach: value v in slot k is encoded as v * M**k with
# M far beyond any extent, the algebra runs on integers, and the result is decoded.

_M = 1 << 64


def encode_stride(stride):
    """(integer stride, slots) for a stride holding basis elements."""
    for e in _leaves(stride):
        if isinstance(e, ScaledBasis) and e.value == 0:
            raise LayoutError(f"stride {fmt(stride) if isinstance(stride, tuple) else stride}: "
                              f"the basis element {e} is scaled by zero; labkit's layout algebra "
                              "does not model zero-scaled basis strides (use the integer 0)")
    idx = sorted({e.index for e in _leaves(stride) if isinstance(e, ScaledBasis)})
    slots = {ix: k + 1 for k, ix in enumerate(idx)}

    def enc(d):
        if isinstance(d, tuple):
            return tuple(enc(e) for e in d)
        if isinstance(d, ScaledBasis):
            v = int(d.value) * _M ** slots[d.index]
            return S(v) if type(d.value) is S else v
        if abs(int(d)) >= _M // 2:
            raise LayoutError(f"stride {d} is too large to mix with basis strides")
        return d
    return enc(stride), {k: ix for ix, k in slots.items()}


def decode_stride(stride, slots):
    """Inverse of :func:`encode_stride`."""
    if isinstance(stride, tuple):
        return tuple(decode_stride(e, slots) for e in stride)
    v = int(stride)
    for k in sorted(slots, reverse=True):
        mk = _M ** k
        if abs(v) >= mk // 2:
            c = (v + mk // 2) // mk
            if c * mk != v:
                raise LayoutError(f"a stride mixes basis elements ({v}); CuTe strides hold one")
            return ScaledBasis(S(c) if type(stride) is S else c, slots[k])
    return stride


def _leaves(x):
    if isinstance(x, tuple):
        for e in x:
            yield from _leaves(e)
    else:
        yield x
