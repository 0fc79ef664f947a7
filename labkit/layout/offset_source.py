"""A layout's offset function written out as Python: ``offset_source``.

A CuTe layout is a function from coordinates to offsets; a kernel wants that function as a few
integer operations it can inline. :func:`offset_source` writes any labkit layout (any rank, any
nesting, a ``Swizzle`` or a ``Layout`` composed on top, compositions of compositions) as the
Python source of ``name(c0, ..., c{r-1})``: one 1-D coordinate per top-level mode, as
``layout(c0, ..., c{r-1})`` takes them. Each mode's coordinate is split over its flattened shape
colexicographically (CuTe's ``idx2crd``), the last sub-mode unbounded as in CuTe's ``crd2idx``;
modes of size 1 and stride 0 drop out, and neighbours with ``n_i*d_i == d_{i+1}`` merge as CuTe's
``coalesce`` merges them. A swizzle ``Sw<B,M,S>`` becomes ``y ^ ((y >> S) & zzz_mask)`` (CuTe's ``(y & yyy_mask) >> S``); a
``Layout`` composed outside (``A o off o B``) evaluates ``A`` at the 1-D index ``off + B(c)``.

:func:`labkit.cuda.offset_function` compiles the text into a ``@cuda.jit(device=True)`` function.

>>> import labkit as lk
>>> sw = lk.composition(lk.Swizzle(3, 3, 3), lk.parse_layout("(_8,_64):(_64,_1)"))
>>> print(offset_source(sw), end="")
def offset(c0, c1):
    y0 = 64 * c0 + c1
    y1 = y0 ^ ((y0 >> 3) & 56)
    return y1
>>> print(offset_source(lk.parse_layout("((_2,_4),_8):((_1,_16),_2)")), end="")
def offset(c0, c1):
    y0 = (c0 % 2) + 16 * (c0 // 2) + 2 * c1
    return y0
"""

from __future__ import annotations

from ..errors import LayoutError
from .int_tuple import flatten_tuple, is_int
from .layout import Layout
from .swizzle import ComposedLayout, Swizzle

__all__ = ["offset_source"]


def _flat(t):
    f = flatten_tuple(t)
    out = []
    for v in (f if isinstance(f, tuple) else (f,)):
        if not is_int(v):
            raise LayoutError(f"layout: offset_source needs integer shapes and strides (an offset, not a "
                              f"coordinate: no ScaledBasis strides); got {v!r} in {t}")
        out.append(int(v))
    return out


def _terms(x, shape, stride):
    """``sum_i ((x // prefix_i) % n_i) * d_i`` over the flattened mode, the last one unbounded."""
    merged = []
    for n, d in zip(_flat(shape), _flat(stride)):
        if merged and merged[-1][1] * merged[-1][0] == d:
            merged[-1] = (merged[-1][0] * n, merged[-1][1])
        elif n != 1 or not merged:
            merged.append((n, d))
    terms, prefix = [], 1
    for i, (n, d) in enumerate(merged):
        if d:
            t = x if prefix == 1 else f"({x} // {prefix})"
            if i < len(merged) - 1:
                t = f"({t} % {n})"
            terms.append(t if d == 1 else f"{d} * {t}")
        prefix *= n
    return terms


def _modes(layout):
    """Top-level (shape, stride) pairs of a Layout."""
    if isinstance(layout.shape, tuple):
        return list(zip(layout.shape, layout.stride))
    return [(layout.shape, layout.stride)]


class _Writer:
    def __init__(self):
        self.lines, self.count = [], 0

    def let(self, expr):
        var = f"y{self.count}"
        self.count += 1
        self.lines.append(f"    {var} = {expr}")
        return var


def _apply(w, fn, args):
    """Emit ``fn(*args)`` (``args`` variable names or expressions); return the result's variable."""
    if isinstance(fn, Swizzle):
        (x,) = args
        if fn.bits == 0:
            return x
        op = ">>" if fn.shift >= 0 else "<<"        # (x & yyy) >> S == (x >> S) & zzz
        return w.let(f"{x} ^ (({x} {op} {abs(fn.shift)}) & {fn.zzz_mask})")
    if isinstance(fn, ComposedLayout):
        inner = _apply(w, fn.layout_b, args)
        if int(fn.offset):
            inner = w.let(f"{inner} + {int(fn.offset)}")
        return _apply(w, fn.layout_a, [inner])
    if isinstance(fn, Layout):
        if len(args) == 1 and len(_modes(fn)) > 1:          # a 1-D index into a rank-r layout
            terms = _terms(args[0], fn.shape, fn.stride)
        else:
            terms = [t for (s, d), x in zip(_modes(fn), args) for t in _terms(x, s, d)]
        return w.let(" + ".join(terms) or "0")
    raise LayoutError(f"layout: must be a labkit Layout, Swizzle or ComposedLayout; got {fn!r}")


def offset_source(layout, name: str = "offset") -> str:
    """Python source of ``name(c0, ..., c{r-1})``: ``layout``'s offset of a coordinate, one
    integer per top-level mode (see the module text)."""
    if not isinstance(layout, (Layout, ComposedLayout)):
        raise LayoutError(f"layout: must be a labkit Layout or ComposedLayout; got {layout!r}")
    if not isinstance(name, str) or not name.isidentifier():
        raise LayoutError(f"name: must be a Python identifier; got {name!r}")
    rank = len(layout.shape) if isinstance(layout.shape, tuple) else 1
    args = [f"c{i}" for i in range(rank)]
    w = _Writer()
    out = _apply(w, layout, args)
    return "\n".join([f"def {name}({', '.join(args)}):", *w.lines, f"    return {out}"]) + "\n"
