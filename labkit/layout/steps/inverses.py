"""``right_inverse`` and ``left_inverse`` of :mod:`labkit.layout.inverses`, step by step: the modes of
``coalesce(L)`` in order of stride, each used or passed over; and a left inverse built from the
complement. Each trace rebuilds the algebra's own answer and checks the inverse's law.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import LayoutError
from ..compose import complement
from ..int_tuple import S, fmt
from ..inverses import right_inverse, left_inverse, _exchange_sort, _prefix_products
from ..layout import Layout, make_layout, size, _as_layout
from ..simplify import coalesce
from .compose import _L, _st

__all__ = ["InverseStep", "InverseSteps", "right_inverse_steps", "left_inverse_steps",
           "left_inverse_from_complement"]


@dataclass(frozen=True)
class InverseStep:
    """One mode of ``coalesce(L)`` in sorted order: ``used`` with ``new = shape:prefix`` or
    passed over (``why``)."""

    index: int
    shape: object
    stride: object
    prefix: object           # the product of the extents before this mode in L
    used: bool
    new: tuple | None
    why: str


@dataclass(frozen=True)
class InverseSteps:
    kind: str                 # "right_inverse" or "left_inverse"
    layout: Layout
    coalesced: Layout
    order: tuple              # the modes of `coalesced` by increasing (static) stride
    steps: tuple
    result: Layout            # from the algebra
    holds_for: int            # right: L(R(k)) == k for k < holds_for; left: R(L(i)) == i ...
    identity: bool            # the defining law holds on its whole domain

    def __str__(self):
        lines = [f"{self.kind}({self.layout}): coalesce -> {self.coalesced}, "
                 f"sorted mode order {list(self.order)}"]
        for s in self.steps:
            tail = f"-> {fmt(s.new[0])}:{fmt(s.new[1])}" if s.used else f"passed over: {s.why}"
            lines.append(f"  mode {s.index} {fmt(s.shape)}:{fmt(s.stride)} (prefix "
                         f"{fmt(s.prefix)}) {tail}")
        law = "L(R(k)) == k" if self.kind == "right_inverse" else "R(L(i)) == i"
        lines.append(f"= {self.result}; {law} {'everywhere' if self.identity else 'fails'}")
        return "\n".join(lines)


def _flat_modes(layout):
    c = coalesce(layout)
    shp = c.shape if isinstance(c.shape, tuple) else (c.shape,)
    std = c.stride if isinstance(c.stride, tuple) else (c.stride,)
    return c, shp, std


def right_inverse_steps(layout) -> InverseSteps:
    """Trace ``right_inverse(L)``: the offsets ``0, 1, 2, ...`` back to L's indices.

    CuTe coalesces ``L``, drops run-time strides, sorts the rest by stride and walks them
    from ``curr = 1``: a mode whose stride is exactly ``curr`` continues the run of offsets,
    gives the inverse a mode ``shape:prefix`` (prefix: the product of the extents before it
    in ``L``, so it steps L's index by one of this mode's coordinates) and sets ``curr`` to
    ``shape*stride``. Any other mode is passed over: an offset below it is missing (a gap)
    or reached twice. The run is the inverse.

    >>> import labkit as lk
    >>> print(right_inverse_steps(lk.parse_layout("(_4,_8):(_16,_1)")).result)
    _8:_4
    """
    layout = _as_layout(layout, "right_inverse_steps")
    result = right_inverse(layout)
    c, shp, std = _flat_modes(layout)
    pre = _prefix_products(shp)
    static = [i for i, d in enumerate(std) if _st(d)]
    keys = [int(std[i]) for i in static]
    order = tuple(static[k] for k in _exchange_sort(keys)) if len(static) > 1 else tuple(static)
    steps, out_s, out_d = [], [S(1)], [S(0)]
    curr = S(1)
    for i in range(len(std)):
        if not _st(std[i]):
            steps.append(InverseStep(i, shp[i], std[i], pre[i], False, None,
                                     "a run-time stride (CuTe cannot sort it)"))
    for i in order:
        if _st(curr) and int(std[i]) == int(curr):
            steps.append(InverseStep(i, shp[i], std[i], pre[i], True, (shp[i], pre[i]), ""))
            out_s.append(shp[i])
            out_d.append(pre[i])
            curr = shp[i] * std[i]
        else:
            why = (f"stride {int(std[i])} is not the next offset {int(curr)}"
                   if _st(curr) else "the run ended at a run-time extent")
            steps.append(InverseStep(i, shp[i], std[i], pre[i], False, None, why))
    rebuilt = coalesce(_L(out_s, out_d)) if len(out_s) > 1 else Layout(S(1), S(0))
    if str(rebuilt) != str(result):
        raise LayoutError(f"right_inverse_steps: the steps give {rebuilt}, the algebra {result}")
    n = int(size(result))
    ok = all(int(layout(int(result(k)))) == k for k in range(n))
    return InverseSteps("right_inverse", layout, c, order, tuple(steps), result, n, ok)


def left_inverse_steps(layout) -> InverseSteps:
    """Trace ``left_inverse(L)``: an offset of L back to the index that reaches it.

    CuTe coalesces ``L`` (all strides must be static), sorts by stride and skips stride-0
    modes. Each mode gets a mode ``stride / size_so_far : prefix`` in the inverse: the
    extent covers the offsets from the previous modes up to this stride, gaps included (so
    the stride must be a multiple of the size so far: "Left inverse divisibility
    condition"). The largest mode's own extent closes the inverse.

    >>> import labkit as lk
    >>> print(left_inverse_steps(lk.parse_layout("(_4,_8):(_16,_1)")).result)
    (_16,_4):(_4,_1)
    """
    layout = _as_layout(layout, "left_inverse_steps")
    result = left_inverse(layout)
    c, shp, std = _flat_modes(layout)
    pre = _prefix_products(shp)
    order = tuple(_exchange_sort([int(d) for d in std])) if len(std) > 1 else (0,)
    steps, out_s, out_d = [], [], [S(0)]
    so_far = S(1)
    for i in order:
        if int(std[i]) == 0:
            steps.append(InverseStep(i, shp[i], std[i], pre[i], False, None,
                                     "stride 0: a broadcast adds no offsets"))
            continue
        q = std[i] // so_far
        steps.append(InverseStep(i, shp[i], std[i], pre[i], True, (q, pre[i]), ""))
        out_s.append(q)
        out_d.append(pre[i])
        so_far = so_far * q
    out_s.append(shp[order[-1]])
    rebuilt = coalesce(_L(out_s, out_d))
    if str(rebuilt) != str(result):
        raise LayoutError(f"left_inverse_steps: the steps give {rebuilt}, the algebra {result}")
    n = int(size(layout))
    ok = all(int(result(int(layout(i)))) == i for i in range(n))
    return InverseSteps("left_inverse", layout, c, order, tuple(steps), result, n, ok)


def left_inverse_from_complement(layout):
    """``right_inverse(make_layout(L, complement(L)))``: a left inverse of an injective ``L``
    built from the complement and the right inverse.

    When every gap of the complement divides exactly (:attr:`ComplementSteps.exact`),
    ``(L, complement(L))`` reaches every offset up to its cosize exactly once, so its right
    inverse is defined everywhere there; on the offsets L reaches it returns L's own index.
    Where a gap truncates, offsets are missing and the right inverse stops early.

    >>> import labkit as lk
    >>> L = lk.parse_layout("(_4,_8):(_16,_1)")
    >>> print(left_inverse_from_complement(L), lk.left_inverse(L))
    (_16,_4):(_4,_1) (_16,_4):(_4,_1)
    """
    layout = _as_layout(layout, "left_inverse_from_complement")
    return right_inverse(make_layout(layout, complement(layout)))
