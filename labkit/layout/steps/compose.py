"""``composition`` and ``complement`` of :mod:`labkit.layout.compose`, step by step: composition
mode by mode (each mode of B walked over the modes of ``coalesce_x(A)``), and the complement's
gaps taken in order of stride. Each trace rebuilds the algebra's own answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import LayoutError
from ..compose import composition, complement
from ..coordinates import compact_major
from ..int_tuple import S, ceil_div, coalesce_shape, flatten_tuple, fmt
from ..inverses import left_inverse, _exchange_sort
from ..layout import Layout, make_layout, size, cosize, coalesce_x, _as_layout
from ..simplify import coalesce, filter as filter_layout

__all__ = ["WalkStep", "ModeWalk", "CompositionSteps", "composition_steps", "ComplementPick",
           "ComplementSteps", "complement_steps"]


def _st(x):
    return type(x) is S


def _L(shape, stride):
    """A Layout of one or more modes from lists (a single mode stays unwrapped)."""
    if len(shape) == 1:
        return Layout(shape[0], stride[0])
    return Layout(tuple(shape), tuple(stride))



@dataclass(frozen=True)
class WalkStep:
    """One mode of ``coalesce_x(A)`` met by one mode ``s:d`` of ``B``.

    ``rest_shape:rest_stride`` is what is left of ``B``'s mode when it reaches A's mode
    ``a_shape:a_stride``. ``action`` is ``"skip"`` (the stride jumps the whole mode, or
    nothing is left to take), ``"take"`` (a new mode ``new`` of the result) or ``"last"``
    (A's last mode takes what is left). ``exact`` is False where CuTe's arithmetic rounds
    (a ``ceil_div`` or a ``/`` that does not divide): then the result is not ``A o B``.
    ``checked`` says whether CuTe's ``static_assert`` could see the values.
    """

    a_mode: int
    a_shape: object
    a_stride: object
    rest_shape: object
    rest_stride: object
    action: str
    new: tuple | None
    exact: bool
    checked: bool
    rule: str

    def __str__(self):
        head = (f"A mode {self.a_mode} {fmt(self.a_shape)}:{fmt(self.a_stride)}  "
                f"rest {fmt(self.rest_shape)}:{fmt(self.rest_stride)}  -> {self.action}")
        if self.new is not None:
            head += f" {fmt(self.new[0])}:{fmt(self.new[1])}"
        if not self.exact:
            head += f"  [inexact: {self.rule}; {'checked' if self.checked else 'not checked'}]"
        return head


@dataclass(frozen=True)
class ModeWalk:
    """The walk of one leaf mode of ``B`` through ``coalesce_x(A)``."""

    path: tuple
    b_mode: Layout
    steps: tuple
    result: Layout          # composition(A, b_mode), from the algebra

    @property
    def exact(self):
        return all(s.exact for s in self.steps)

    def __str__(self):
        lines = [f"B mode {self.b_mode}:"]
        lines += ["  " + str(s) for s in self.steps]
        lines.append(f"  = {self.result}")
        return "\n".join(lines)


@dataclass(frozen=True)
class CompositionSteps:
    """``composition(A, B)`` mode by mode: see :func:`composition_steps`."""

    a: Layout
    b: Layout
    flat_a: Layout           # coalesce_x(A): what every mode of B walks through
    modes: tuple             # one ModeWalk per leaf of B
    result: Layout           # composition(A, B), from the algebra
    agrees: bool             # size(R) == size(B) and R(i) == A(B(i)) for every i
    first_difference: int | None

    @property
    def exact(self):
        """Every step divided exactly (so the result is ``A o B``)."""
        return all(m.exact for m in self.modes)

    @property
    def modes_add_up(self):
        """Each mode of ``B`` is composed on its own, and ``R`` adds the pieces:
        ``R(i) = sum_k (A o B_k)(i_k)``. That is ``A(B(i))`` only if the offsets of B's modes
        add inside ``A`` without carrying from one of A's modes into the next. True when,
        for every ``i``, ``A(B(i)) == sum_k A(B_k(i_k))``."""
        from ..coordinates import idx2crd
        from ..layout import flatten
        leaves = [m.b_mode for m in self.modes]
        for i in range(int(size(self.b))):
            crd = idx2crd(i, self.b.shape)
            crd = flatten(crd) if isinstance(crd, tuple) else (crd,)
            if int(self.a(self.b(i))) != sum(int(self.a(l(c))) for l, c in zip(leaves, crd)):
                return False
        return True

    @property
    def passes_static_checks(self):
        """No step broke a rule that CuTe could check at compile time (else it would not
        compile and :func:`composition_steps` would have raised)."""
        return all(s.exact or not s.checked for m in self.modes for s in m.steps)

    def index_maps(self):
        """``(asked, computed)``: two TV-style layouts ``(i, 0) -> index of A`` for drawing
        over A's coordinates, ``asked`` sending ``i`` to ``B(i)`` and ``computed`` to the
        index of A whose offset is ``R(i)`` (through ``left_inverse(A)``). Needs an ``A``
        with static strides that reaches each of ``0 .. size(A)-1`` once.

        >>> import labkit as lk
        >>> t = composition_steps(lk.parse_layout("(_4,_8):(_8,_1)"), lk.parse_layout("_4:_3"))
        >>> asked, computed = t.index_maps()
        >>> [int(asked(i, 0)) for i in range(4)], [int(computed(i, 0)) for i in range(4)]
        ([0, 3, 6, 9], [0, 3, 4, 7])
        """
        n = int(size(self.a))
        if sorted(int(self.a(i)) for i in range(n)) != list(range(n)):
            raise LayoutError(f"index_maps: A = {self.a} must reach each offset below its size "
                              "once (a one-to-one, gap-free layout)")
        one = Layout(S(1), S(0))
        return (make_layout(self.b, one),
                make_layout(composition(left_inverse(self.a), self.result), one))

    def __str__(self):
        lines = [f"A = {self.a}, coalesce_x(A) = {self.flat_a}"]
        lines += [str(m) for m in self.modes]
        verdict = ("R(i) == A(B(i)) for every i" if self.agrees else
                   f"R(i) != A(B(i)) from i = {self.first_difference}")
        lines.append(f"R = {self.result}: {verdict}")
        return "\n".join(lines)


def _leaves(shape, stride, path=()):
    if isinstance(shape, tuple):
        out = []
        for k, (s, d) in enumerate(zip(shape, stride)):
            out += _leaves(s, d, path + (k,))
        return out
    return [(path, shape, stride)]


def _walk(flat, s, d):
    """CuTe's ``composition_impl`` for one integral mode ``s:d`` of B, with its steps."""
    shp, std = flat.shape, flat.stride
    if _st(d) and d == 0:
        return [WalkStep(0, shp, std, s, d, "stride 0", (s, d), True, True, "")]
    if not isinstance(shp, tuple):
        return [WalkStep(0, shp, std, s, d, "last", (s, d * std), True, True, "")]
    out = []
    rest_shape, rest_stride = s, d
    taken = 0
    for i in range(len(shp) - 1):
        cur = shp[i]
        a = abs(int(rest_stride))
        sa = S(a) if _st(rest_stride) else a
        next_shape, next_stride = ceil_div(cur, sa), ceil_div(sa, cur)
        if int(rest_stride) < 0:
            next_stride = -next_stride
        broken = []          # (rule, whether CuTe's static_assert sees it)
        if not (a % int(cur) == 0 or a < int(cur)):
            broken.append(("Stride Divisibility Condition", _st(cur) and _st(rest_stride)))
        elif a < int(cur) and int(cur) % a:
            broken.append((f"the stride {a} does not divide the extent {int(cur)}", False))
        if (_st(next_shape) and next_shape == 1) or (_st(rest_shape) and rest_shape == 1):
            if _st(rest_shape) and rest_shape == 1:
                broken = []
            out.append(_step(i, cur, std[i], rest_shape, rest_stride, "skip", None, broken))
            rest_stride = next_stride
            continue
        new_shape = next_shape if next_shape < rest_shape else rest_shape
        if int(rest_shape) % int(new_shape):
            broken.append(("Shape Divisibility Condition", _st(new_shape) and _st(rest_shape)))
        out.append(_step(i, cur, std[i], rest_shape, rest_stride, "take",
                         (new_shape, rest_stride * std[i]), broken))
        taken += 1
        rest_shape = rest_shape // new_shape
        rest_stride = next_stride
    last = len(shp) - 1
    if taken and _st(rest_shape) and rest_shape == 1:
        out.append(_step(last, shp[last], std[last], rest_shape, rest_stride, "skip", None, []))
    else:
        out.append(_step(last, shp[last], std[last], rest_shape, rest_stride, "last",
                         (rest_shape, rest_stride * std[last]), []))
    return out


def _step(i, cur, cur_d, rest_shape, rest_stride, action, new, broken):
    return WalkStep(i, cur, cur_d, rest_shape, rest_stride, action, new, not broken,
                    any(c for _r, c in broken), "; ".join(r for r, _c in broken))


def composition_steps(a, b) -> CompositionSteps:
    """Trace ``composition(A, B)`` as CuTe computes it.

    CuTe first coalesces ``A`` (``coalesce_x``: like ``coalesce``, but a trailing ``_1``
    mode is kept so that the function past A's domain stays the same). Then every leaf mode
    ``s:d`` of ``B`` walks through the modes of ``coalesce_x(A)`` from the left: a mode of
    extent ``n`` that the remaining stride jumps (``d % n == 0``) is skipped and the stride
    becomes ``d / n``; a mode the stride steps inside (``d < n``) gives a result mode of
    ``min(ceil(n / d), rest)`` steps of ``d * stride``; the last mode takes what is left.
    The result has ``B``'s shape profile.

    >>> import labkit as lk
    >>> t = composition_steps(lk.parse_layout("(_4,_8):(_8,_1)"), lk.parse_layout("_4:_3"))
    >>> print(t.result, t.passes_static_checks, t.exact, t.agrees)
    (_2,_2):(_24,_1) True False False
    """
    a = _as_layout(a, "composition_steps: A")
    b = _as_layout(b, "composition_steps: B")
    result = composition(a, b)               # the algebra's answer (raises where CuTe asserts)
    flat = coalesce_x(a)
    modes = []
    for path, s, d in _leaves(b.shape, b.stride):
        bm = Layout(s, d)
        walk = _walk(flat, s, d)
        got = composition(a, bm)
        rebuilt = [st.new for st in walk if st.new is not None]
        if [tuple(int(x) for x in p) for p in rebuilt] != [
                (int(x), int(y)) for x, y in zip(flatten_tuple(got.shape), flatten_tuple(got.stride))]:
            raise LayoutError(f"composition_steps: the walk of {bm} rebuilt {rebuilt}, the algebra "
                              f"gives {got}")
        modes.append(ModeWalk(path, bm, tuple(walk), got))
    n, m = int(size(b)), int(size(result))
    diff = next((i for i in range(min(n, m)) if int(result(i)) != int(a(b(i)))), None)
    if diff is None and m != n:
        diff = min(n, m)          # the sizes differ: R ends (or goes on) where B does not
    return CompositionSteps(a, b, flat, tuple(modes), result, diff is None, diff)


@dataclass(frozen=True)
class ComplementPick:
    """One mode of the filtered layout, taken in order of stride: the gap below it becomes a
    mode ``gap:last_stride`` of the complement, and the next gap starts at ``stride*shape``."""

    shape: object
    stride: object
    gap: object          # stride / last  (the complement's new extent)
    gap_stride: object   # last           (where the gap starts)
    exact: bool = True   # last divides stride; else the division truncates and offsets are lost


@dataclass(frozen=True)
class ComplementSteps:
    """``complement(L, cotarget)`` step by step: see :func:`complement_steps`."""

    layout: Layout
    cotarget: object
    filtered: Layout           # filter(L): no stride-0, no size-1 modes
    sorted: Layout | None      # the filtered modes in increasing stride (None: stride 0 only)
    picks: tuple
    end_stride: object         # stride * shape of the largest mode: where the rest begins
    rest: Layout               # coalesce(ceil_div(cotarget, end_stride)), compact from there
    uncoalesced: Layout        # (gaps..., rest) before the final coalesce
    result: Layout             # complement(L, cotarget), from the algebra

    @property
    def exact(self):
        """Every gap division ``stride / last`` was exact. CuTe does not check it: where it
        truncates, ``(L, complement)`` leaves offsets out."""
        return all(p.exact for p in self.picks)

    def __str__(self):
        lines = [f"L = {self.layout}, filter(L) = {self.filtered}, cotarget {fmt(self.cotarget)}"]
        if self.sorted is None:
            lines.append("only stride-0 modes: the complement is the whole cotarget")
        else:
            lines.append(f"sorted by stride: {self.sorted}")
            for p in self.picks:
                lines.append(f"  mode {fmt(p.shape)}:{fmt(p.stride)}: gap {fmt(p.stride)} / "
                             f"{fmt(p.gap_stride)} = {fmt(p.gap)}, gap mode "
                             f"{fmt(p.gap)}:{fmt(p.gap_stride)}"
                             + ("" if p.exact else "  [inexact: the division truncates]"))
            lines.append(f"  rest from {fmt(self.end_stride)}: ceil_div({fmt(self.cotarget)}, "
                         f"{fmt(self.end_stride)}) -> {self.rest}")
        lines.append(f"(gaps, rest) = {self.uncoalesced} -> coalesce -> {self.result}")
        return "\n".join(lines)


def complement_steps(layout, cotarget=None) -> ComplementSteps:
    """Trace ``complement(L, cotarget)`` as CuTe computes it.

    CuTe filters ``L`` (``filter``: stride-0 and size-1 modes go; a broadcast adds no
    offsets), then takes the modes in increasing stride. Below each mode lies a gap of
    ``stride / last`` copies, where ``last`` is the span ``stride*shape`` of the mode before
    (1 at the start); a gap of 0 means two modes overlap (CuTe: "Non-injective Layout").
    Past the largest mode, a rest mode repeats everything until the cotarget is covered:
    ``ceil_div(cotarget, stride*shape)`` copies, rounded *up*. The modes are coalesced.

    >>> import labkit as lk
    >>> print(complement_steps(lk.parse_layout("_3:_2"), lk.S(16)).rest)
    _3:_6
    """
    layout = _as_layout(layout, "complement_steps")
    result = complement(layout, cotarget)        # raises where CuTe asserts
    f = filter_layout(layout)
    if cotarget is None:
        cotarget = cosize(f)
    elif isinstance(cotarget, Layout):
        cotarget = cotarget.shape
    shp, std = flatten_tuple(f.shape), flatten_tuple(f.stride)
    if len(std) == 1 and _st(std[0]) and std[0] == 0:
        rest_shape = coalesce_shape(cotarget)
        rest = Layout(rest_shape, compact_major(rest_shape, "left"))
        return ComplementSteps(layout, cotarget, f, None, (), S(1), rest, rest, result)
    order = _exchange_sort([int(d) for d in std]) if len(std) > 1 else [0]
    # CuTe picks the minimum stride each time; the strides of an injective layout differ,
    # so this is the sort by stride
    srt_s, srt_d = [shp[i] for i in order], [std[i] for i in order]
    picks, gaps, gap_strides = [], [], [S(1)]
    last = S(1)
    for s, d in zip(srt_s, srt_d):
        gap = d // last
        picks.append(ComplementPick(s, d, gap, last, int(d) % int(last) == 0))
        gaps.append(gap)
        last = d * s
        gap_strides.append(last)
    rest_shape = coalesce_shape(ceil_div(cotarget, last))
    rest_stride = compact_major(rest_shape, "left", last)
    rest = Layout(rest_shape, rest_stride)
    rs, rd = flatten_tuple(rest_shape), flatten_tuple(rest_stride)
    g_s, g_d = tuple(gaps), tuple(gap_strides[:-1])
    unco = Layout((g_s if len(g_s) > 1 else g_s[0], rs if len(rs) > 1 else rs[0]),
                  (g_d if len(g_d) > 1 else g_d[0], rd if len(rd) > 1 else rd[0]))
    if str(coalesce(unco)) != str(result):
        raise LayoutError(f"complement_steps: the steps give {coalesce(unco)}, the algebra "
                          f"{result}")
    return ComplementSteps(layout, cotarget, f, _L(srt_s, srt_d), tuple(picks), last, rest,
                           unco, result)
