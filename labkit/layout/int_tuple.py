"""Integers and integer tuples as CuTe sees them: static (`_8`) or dynamic (`8`).

CuTe distinguishes compile-time integers (``Int<8>``, printed ``_8``) from run-time
integers (``int``, printed ``8``). labkit models a static integer as :class:`S`, an
``int`` subclass; a plain ``int`` is dynamic. Arithmetic keeps a result static only
when every operand is static, as C++ template arithmetic does.

>>> from labkit.layout.int_tuple import S, is_static, product
>>> S(4) * S(2), S(4) * 2
(_8, 8)
>>> is_static((S(2), (S(4), S(1)))), is_static((S(2), 4))
(True, False)
>>> product((S(2), (S(4), 3)))
24

Mirrors ``include/cute/int_tuple.hpp`` and ``numeric/integral_constant.hpp``.
"""

from __future__ import annotations

from ..errors import LayoutError

__all__ = [
    "S", "cdiv", "is_static", "is_int", "is_tuple", "is_constant", "product", "flatten_tuple",
    "shape_div", "shape_min", "ceil_div", "fmt", "congruent", "depth_of", "rank_of",
    "signum", "as_static", "as_dynamic", "unwrap", "check_int_tuple", "coalesce_shape",
]


# CuTe's mixed static/dynamic special cases (``integral_constant.hpp``): a static zero
# absorbs a run-time operand in ``_0 * x``, ``x * _0``, ``_0 / x``, ``_0 % x``, ``_0 & x``,
# ``x & _0``, and ``x % _1`` is ``_0``; the result stays static.
_ZERO_ABSORBS = {"__mul__", "__rmul__", "__floordiv__", "__mod__", "__and__", "__rand__"}


_int_new = int.__new__


def _binop(name):
    base = getattr(int, name)
    absorbs = name in _ZERO_ABSORBS
    rmod = name == "__rmod__"

    def op(self, other):
        r = base(self, other)
        if r is NotImplemented:
            return r
        t = type(other)
        if t is S:
            return _int_new(S, r)
        if t is int:
            if absorbs and not self:
                return _S0
            if rmod and (self == 1 or self == -1):
                return _S0
            return r
        if t is bool or not isinstance(other, int):
            return r
        if isinstance(other, S):
            return _int_new(S, r)
        if absorbs and not self:
            return _S0
        if rmod and (self == 1 or self == -1):
            return _S0
        return int(r)

    op.__name__ = name
    return op


class S(int):
    """A static (compile-time) integer, CuTe's ``Int<N>``; prints as ``_N``.

    >>> S(8), str(S(8)), S(8) + S(1), S(8) + 1
    (_8, '_8', _9, 9)
    """

    __slots__ = ()

    def __new__(cls, value):
        if type(value) is int or type(value) is S:
            return _int_new(cls, value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise LayoutError(f"S(value): value must be an int, got {value!r}")
        return _int_new(cls, value)

    def __repr__(self):
        return f"_{int(self)}"

    __str__ = __repr__

    def __neg__(self):
        return _int_new(S, -int(self))

    def __abs__(self):
        return self if self >= 0 else _int_new(S, -int(self))

    def __pos__(self):
        return self


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__xor__", "__rxor__",
              "__and__", "__rand__", "__or__", "__ror__", "__lshift__", "__rlshift__",
              "__rshift__", "__rrshift__"):
    setattr(S, _name, _binop(_name))
del _name
_S0 = _int_new(S, 0)
_S1 = _int_new(S, 1)
_S2 = _int_new(S, 2)


def is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def is_tuple(x) -> bool:
    return isinstance(x, tuple)


def is_static(x) -> bool:
    """True when ``x`` (an int or a nested tuple) holds only static integers."""
    if isinstance(x, tuple):
        return all(is_static(e) for e in x)
    return isinstance(x, S)


def is_constant(value: int, x) -> bool:
    """CuTe's ``is_constant<value, X>``: ``x`` is a static integer equal to ``value``."""
    return isinstance(x, S) and int(x) == value


def as_static(x):
    """Every integer of ``x`` made static."""
    if isinstance(x, tuple):
        return tuple(as_static(e) for e in x)
    return S(int(x))


def as_dynamic(x):
    """Every integer of ``x`` made dynamic."""
    if isinstance(x, tuple):
        return tuple(as_dynamic(e) for e in x)
    return int(x)


def check_int_tuple(x, what: str):
    """Raise :class:`LayoutError` unless ``x`` is an int or a nested tuple of ints."""
    if isinstance(x, tuple):
        if len(x) == 0:
            raise LayoutError(f"{what}: empty tuples are not allowed")
        for e in x:
            check_int_tuple(e, what)
    elif not is_int(x):
        raise LayoutError(f"{what}: expected an int or a tuple of ints, got {x!r} "
                          f"({type(x).__name__})")


def flatten_tuple(x) -> tuple:
    if type(x) is not tuple:
        return (x,)
    for e in x:
        if type(e) is tuple:
            out = []
            _flatten_into(x, out)
            return tuple(out)
    return x


def _flatten_into(x, out):
    for e in x:
        if type(e) is tuple:
            _flatten_into(e, out)
        else:
            out.append(e)


def product(x):
    """Product of all integers of ``x``; static if all are static."""
    if isinstance(x, tuple):
        r = S(1)
        for e in x:
            r = r * product(e)
        return r
    return x


def rank_of(x) -> int:
    return len(x) if isinstance(x, tuple) else 1


def depth_of(x) -> int:
    if isinstance(x, tuple):
        return 1 + max(depth_of(e) for e in x)
    return 0


def congruent(a, b) -> bool:
    """Same tuple structure."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(congruent(x, y) for x, y in zip(a, b))
    return not isinstance(a, tuple) and not isinstance(b, tuple)


def signum(x):
    r = (x > 0) - (x < 0)
    return S(r) if isinstance(x, S) else r


def _sdiv(a, b):
    """Integer division truncating toward zero, keeping static-ness."""
    q = abs(int(a)) // abs(int(b))
    if (a < 0) != (b < 0):
        q = -q
    return S(q) if isinstance(a, S) and isinstance(b, S) else q


def shape_div(a, b):
    """CuTe's ``shape_div``: ``ceil_div(a, b)``, folded over tuples.

    When both are static they must divide one another (CuTe's static "Divisibility
    Condition"); run-time values are not checked, as in C++.

    >>> shape_div((S(4), S(8)), S(8)), shape_div(S(2), S(8)), shape_div(6, 4)
    ((_1, _4), _1, 2)
    """
    if isinstance(a, tuple):
        if isinstance(b, tuple):
            if len(a) != len(b):
                raise LayoutError(f"shape_div: ranks of {fmt(a)} and {fmt(b)} differ "
                                  "(CuTe: Mismatched ranks)")
            return tuple(shape_div(x, y) for x, y in zip(a, b))
        out = []
        rest = b
        for x in a:
            out.append(shape_div(x, rest))
            rest = shape_div(rest, product(x))
        return tuple(out)
    if isinstance(b, tuple):
        return shape_div(a, product(b))
    if not (is_int(a) and is_int(b)):
        raise LayoutError(f"shape_div: expected ints or tuples of ints, got {a!r} and {b!r}")
    if b == 0:
        raise LayoutError(f"shape_div: cannot divide {fmt(a)} by zero")
    if type(a) is S and type(b) is S and a % b != 0 and (a == 0 or b % a != 0):
        raise LayoutError(f"shape_div: {fmt(a)} and {fmt(b)} must divide one another "
                          "(CuTe: Divisibility Condition)")
    return cdiv(a + b - _S1, b)


def cdiv(a, b):
    """C++ integer division ``a / b`` (truncates toward zero), static when both are static
    or when ``a`` is a static zero; a run-time zero divisor raises (C++ aborts)."""
    if not b:
        raise LayoutError(f"division of {fmt(a)} by {fmt(b)}: division by zero "
                          "(C++ aborts at run time: SIGFPE)")
    ia, ib = int(a), int(b)
    q = ia // ib if (ia >= 0) == (ib > 0) or ia % ib == 0 else -(abs(ia) // abs(ib))
    if type(a) is S:
        if type(b) is S or ia == 0:
            return _int_new(S, q)
    return q


def shape_min(a, b):
    """CuTe's ``shape_min``: a static 1 wins and stays static."""
    if is_constant(1, a) or is_constant(1, b):
        return S(1)
    r = min(int(a), int(b))
    return S(r) if isinstance(a, S) and isinstance(b, S) else r


def ceil_div(a, b):
    """``ceil(a / b)`` elementwise (CuTe's ``ceil_div``)."""
    ta, tb = type(a), type(b)
    if (ta is S or ta is int) and (tb is S or tb is int):
        ia, ib = int(a), int(b)
        if ib > 0 and ia >= 0:
            q = (ia + ib - 1) // ib
            return _int_new(S, q) if ta is S and tb is S else q
        return cdiv(a + b - _S1, b)
    if isinstance(a, tuple):
        if isinstance(b, tuple):
            out = [ceil_div(x, y) for x, y in zip(a, b)]
            out += list(a[len(b):])
            return tuple(out)
        out = []
        rest = b
        for x in a:
            out.append(ceil_div(x, rest))
            rest = ceil_div(rest, product(x))
        return tuple(out)
    if isinstance(b, tuple):
        return ceil_div(a, product(b))
    if not (is_int(a) and is_int(b)):
        raise LayoutError(f"ceil_div: expected ints or tuples of ints, got {a!r} and {b!r}")
    return cdiv(a + b - _S1, b)


def coalesce_shape(x):
    """CuTe's ``coalesce(shape)``: flatten, then multiply neighbours of equal static-ness.

    >>> coalesce_shape((S(2), (S(4), 3), 5, S(2)))
    (_8, 15, _2)
    """
    if type(x) is not tuple:
        return x
    flat = flatten_tuple(x)
    out = [flat[0]]
    for a in flat[1:]:
        if isinstance(out[-1], S) == isinstance(a, S):
            out[-1] = out[-1] * a
        else:
            out.append(a)
    return out[0] if len(out) == 1 else tuple(out)


def unwrap(t):
    """A 1-tuple becomes its element."""
    while isinstance(t, tuple) and len(t) == 1:
        t = t[0]
    return t


def fmt(x) -> str:
    """Print an int tuple as CuTe does: ``(_2,(4,_8))``."""
    if isinstance(x, tuple):
        return "(" + ",".join(fmt(e) for e in x) + ")"
    return str(x)
