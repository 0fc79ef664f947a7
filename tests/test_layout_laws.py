"""Laws of CuTe's layout algebra, checked on random layouts (hypothesis).

Layouts mix static (``lk.S``) and run-time integers at random. Operands that CuTe requires to
be admissible (the right-hand side of a composition, a tiler, a product's block) are drawn from
a *digit space*: the prime factors of a layout's extents, in order, each with its place value.
A contiguous run of digits is a mode ``prod(radices):place``; disjoint runs compose and
divide exactly as CuTe's divisibility conditions ask.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import labkit as lk
from labkit.layout.int_tuple import as_static, flatten_tuple
from layout_gen import prime_factors

S = lk.S
SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
EXTENTS = [1, 2, 3, 4, 6, 8]


def vals(layout):
    return [int(layout(i)) for i in range(int(lk.size(layout)))]




def maybe_static(draw, v, p=0.5):
    if p >= 1:
        return S(v)
    return S(v) if draw(st.floats(0, 1)) < p else v


def nest(draw, leaves):
    """Group a flat list of (shape, stride) leaves into a random nested (shape, stride)."""
    modes, i = [], 0
    while i < len(leaves):
        k = draw(st.integers(1, min(3, len(leaves) - i)))
        grp = leaves[i:i + k]
        i += k
        if k == 1 and draw(st.booleans()):
            modes.append(grp[0])
        else:
            modes.append((tuple(g[0] for g in grp), tuple(g[1] for g in grp)))
    if len(modes) == 1 and draw(st.booleans()):
        return modes[0]
    return tuple(m[0] for m in modes), tuple(m[1] for m in modes)


@st.composite
def layouts(draw, max_size=192, strides=(0, 1, 2, 3, 4, 8, 16, 32), negative=False,
            static_zero=False, extents=EXTENTS, static_p=0.5):
    """Any layout: random extents and strides, random static-ness, up to depth 2.

    ``static_zero`` makes every zero stride static and gives extent-1 leaves stride ``_0``:
    CuTe composes with a run-time zero stride by dividing by it, and checks a size-1 mode's
    stride for divisibility too, so a right-hand operand avoids both.
    """
    n = draw(st.integers(1, 5))
    leaves, size = [], 1
    for _ in range(n):
        e = draw(st.sampled_from(extents))
        if size * e > max_size:
            e = 1
        size *= e
        d = draw(st.sampled_from(strides))
        if negative and draw(st.booleans()):
            d = -d
        if static_zero and (d == 0 or e == 1):
            leaves.append((maybe_static(draw, e, static_p), S(0)))
        else:
            leaves.append((maybe_static(draw, e, static_p), maybe_static(draw, d, static_p)))
    shp, std = nest(draw, leaves)
    return lk.make_layout(shp, std)


def digits_of(extents):
    """(radix, place value) of each prime factor of the extents, in colexicographic order."""
    out, place = [], 1
    for e in extents:
        for p in prime_factors(int(e)):
            out.append((p, place))
            place *= p
    return out


def draw_chunks(draw, digits, static_p=0.5, keep_all=False):
    """Disjoint contiguous runs of digits, in random order: ``[(shape, stride), ...]``."""
    cuts = [0] + sorted(draw(st.sets(st.integers(1, max(1, len(digits) - 1)),
                                     max_size=max(0, len(digits) - 1)))) + [len(digits)]
    runs = [(a, b) for a, b in zip(cuts, cuts[1:]) if a < b]
    if not keep_all:
        runs = [r for r in runs if draw(st.booleans())] or runs[:1]
    runs = draw(st.permutations(runs))
    leaves = []
    for a, b in runs:
        shape = math.prod(r for r, _ in digits[a:b])
        leaves.append((maybe_static(draw, shape, static_p),
                       maybe_static(draw, digits[a][1], static_p)))
    return leaves


def static_strides(leaves):
    return [(s, S(int(d))) for s, d in leaves]


@st.composite
def chunk_layouts(draw, static_p=0.5, max_size=256, radices=(2, 2, 2, 3, 4)):
    """Injective layouts whose strides nest (complementable): runs of a digit space."""
    radices = draw(st.lists(st.sampled_from(list(radices)), min_size=1, max_size=6))
    while math.prod(radices) > max_size:
        radices.pop()
    digits = digits_of(radices)
    leaves = draw_chunks(draw, digits, static_p)
    shp, std = nest(draw, leaves)
    return lk.make_layout(shp, std), math.prod(radices)


# --------------------------------------------------------------------------- composition

@st.composite
def composable(draw):
    A = draw(layouts())
    digits = digits_of(flatten_tuple(A.shape))
    leaves = draw_chunks(draw, digits) if digits else []
    for _ in range(draw(st.integers(0, 1 if leaves else 2))):      # broadcast modes
        pos = draw(st.integers(0, len(leaves)))
        leaves.insert(pos, (maybe_static(draw, draw(st.integers(1, 3))), S(0)))
    assume(leaves)
    shp, std = nest(draw, leaves)
    return A, lk.make_layout(shp, std)


def compatible(b_shape, r_shape):
    """CuTe's compatible(B, R): R refines B, with equal size at each leaf of B."""
    if isinstance(b_shape, tuple):
        return (isinstance(r_shape, tuple) and len(b_shape) == len(r_shape)
                and all(compatible(x, y) for x, y in zip(b_shape, r_shape)))
    return int(b_shape) == int(lk.size(r_shape))


@SETTINGS
@given(composable())
def test_composition_is_function_composition(ab):
    A, B = ab
    R = lk.composition(A, B)
    assert compatible(B.shape, R.shape), (A, B, R)
    assert [R(i) for i in range(int(lk.size(B)))] == [A(B(i)) for i in range(int(lk.size(B)))]


@SETTINGS
@given(composable())
def test_composition_static_operands_give_static_result(ab):
    A, B = ab
    A = lk.make_layout(as_static(A.shape), as_static(A.stride))
    B = lk.make_layout(as_static(B.shape), as_static(B.stride))
    R = lk.composition(A, B)
    assert lk.is_static(R.shape) and lk.is_static(R.stride)
    assert vals(R) == [A(x) for x in vals(B)]


# --------------------------------------------------------------------------- complement

@st.composite
def complement_case(draw):
    L, space = draw(chunk_layouts())
    k = draw(st.sampled_from([1, 1, 2, 3]))
    c = int(lk.cosize(L)) if draw(st.booleans()) else space * k
    cot = maybe_static(draw, c)
    if draw(st.floats(0, 1)) < 0.25:          # a shape as cotarget, as logical_divide passes
        f = draw(st.sampled_from([d for d in (2, 3, 4) if c % d == 0] or [1]))
        cot = (maybe_static(draw, f), maybe_static(draw, c // f))
    return L, cot


@SETTINGS
@given(complement_case())
def test_complement_disjoint_ordered_and_covering(case):
    L, cot = case
    F = lk.filter(L)
    if len(F) > 1 and not lk.is_static(F.stride):
        # CuTe: static_assert "Dynamic-stride complement only for rank-1 layouts"
        with pytest.raises(lk.LayoutError, match="Dynamic-stride complement"):
            lk.complement(L, cot)
        return
    C = lk.complement(L, cot)
    lv, cv = vals(L), vals(C)
    assert set(lv) & set(cv) == {0}
    assert all(x < y for x, y in zip(cv, cv[1:])), C                 # ordered
    fs = [(int(s), int(d)) for s, d in zip(flatten_tuple(C.shape), flatten_tuple(C.stride))
          if int(s) > 1]
    assert all(a[1] < b[1] for a, b in zip(fs, fs[1:])), C           # strides increase
    if not isinstance(cot, tuple):
        # (a shape cotarget is divided mode by mode, ceil_div((2,6), 3) = (1,3), and may fall
        # short)
        assert int(lk.size(L)) * int(lk.size(C)) >= int(cot)
    both = sorted(x + y for x in lv for y in cv)                     # (L, C) is injective
    assert len(set(both)) == len(both)
    assert both == list(range(len(both)))                            # ... onto a prefix


# --------------------------------------------------------------------------- inverses

@SETTINGS
@given(layouts(strides=(0, 1, 2, 3, 4, 8)))
def test_right_inverse(L):
    R = lk.right_inverse(L)
    n = int(lk.size(R))
    assert [L(R(i)) for i in range(n)] == list(range(n)), (L, R)


@SETTINGS
@given(chunk_layouts(static_p=1.0))
def test_right_inverse_of_static_injective_layout_is_the_longest_prefix(case):
    L, _space = case
    image = set(vals(L))
    prefix = 0
    while prefix in image:
        prefix += 1
    assert int(lk.size(lk.right_inverse(L))) == prefix


@SETTINGS
@given(chunk_layouts(static_p=1.0))
def test_left_inverse(case):
    L, _space = case
    Linv = lk.left_inverse(L)
    assert [Linv(L(i)) for i in range(int(lk.size(L)))] == list(range(int(lk.size(L))))


# --------------------------------------------------------------------------- coalesce, filter

@SETTINGS
@given(layouts(negative=True))
def test_coalesce_keeps_the_function(L):
    C = lk.coalesce(L)
    assert lk.size(C) == lk.size(L) and lk.depth(C) <= 1
    assert vals(C) == vals(L)
    prof = tuple(S(1) for _ in range(len(L)))
    Cm = lk.coalesce(L, prof)
    assert len(Cm) == len(L) and vals(Cm) == vals(L)


@SETTINGS
@given(layouts(negative=True))
def test_filter_keeps_the_image(L):
    F = lk.filter(L)
    assert set(vals(F)) == set(vals(L))
    assert lk.size(F) <= lk.size(L)


# --------------------------------------------------------------------------- divides

@st.composite
def divisible(draw):
    L = draw(layouts(negative=True))
    digits = digits_of(flatten_tuple(L.shape))
    assume(digits)
    # static strides: CuTe complements a tiler of rank > 1 only when its strides are static
    T = lk.make_layout(*nest(draw, static_strides(draw_chunks(draw, digits))))
    return L, T


@SETTINGS
@given(divisible())
def test_logical_divide_permutes_the_domain(case):
    L, T = case
    D = lk.logical_divide(L, T)
    n = int(lk.size(L))
    assert int(lk.size(D)) == n and int(lk.size(D[0])) == int(lk.size(T))
    perm = lk.make_layout(T, lk.complement(T, lk.coalesce(L).shape))
    pv = vals(perm)
    assert sorted(pv) == list(range(n))
    assert vals(D) == [L(p) for p in pv]
    leaves = sorted(zip(map(int, flatten_tuple(D.shape)), map(int, flatten_tuple(D.stride))))
    for other in (lk.zipped_divide(L, T), lk.tiled_divide(L, T), lk.flat_divide(L, T)):
        assert sorted(vals(other)) == sorted(vals(L))
        assert sorted(zip(map(int, flatten_tuple(other.shape)),
                          map(int, flatten_tuple(other.stride)))) == leaves


@st.composite
def divisible_by_mode(draw):
    L = draw(layouts(negative=True))
    assume(len(L) >= 2)
    tiler = []
    for i in range(draw(st.integers(1, len(L)))):
        digits = digits_of(flatten_tuple(L[i].shape))
        kind = draw(st.sampled_from(["layout", "int", "_"])) if digits else "_"
        if kind == "layout":
            tiler.append(lk.make_layout(*nest(draw, static_strides(draw_chunks(draw, digits)))))
        elif kind == "int":
            # a leading run of digits: n:_1
            k = draw(st.integers(1, len(digits)))
            tiler.append(maybe_static(draw, math.prod(r for r, _ in digits[:k])))
        else:
            tiler.append(lk._)
    return L, tuple(tiler)


@SETTINGS
@given(divisible_by_mode())
def test_divide_by_mode(case):
    L, tiler = case
    D = lk.logical_divide(L, tiler)
    assert len(D) == len(L)
    for i in range(len(L)):
        t = tiler[i] if i < len(tiler) else lk._
        if t is lk._:
            assert str(D[i]) == str(L[i])
            continue
        T = t if isinstance(t, lk.Layout) else lk.make_layout(t, S(1))
        perm = vals(lk.make_layout(T, lk.complement(T, lk.coalesce(L[i]).shape)))
        assert vals(D[i]) == [L[i](p) for p in perm]
    if lk._ not in tiler:
        Z = lk.zipped_divide(L, tiler)
        tile = math.prod(int(lk.size(t)) if isinstance(t, lk.Layout) else int(t) for t in tiler)
        assert int(lk.size(Z[0])) == tile
        assert sorted(vals(Z)) == sorted(vals(L))
        assert sorted(vals(lk.tiled_divide(L, tiler))) == sorted(vals(L))
        assert sorted(vals(lk.flat_divide(L, tiler))) == sorted(vals(L))


# --------------------------------------------------------------------------- products

@st.composite
def product_case(draw):
    """A block and a tiler CuTe accepts.

    Either a block with holes and a tiler of disjoint runs, all in powers of two (then every
    division in ``composition(complement(block), tiler)`` is exact), or a compact block (its
    complement is one mode, so any tiler composes).
    """
    static = draw(st.booleans())
    p = 1.0 if static else 0.5
    if draw(st.booleans()):
        # a block with holes has a complement of several modes: composing it with a tiler
        # whose modes overlap is not C o T (composition distributes over the tiler's modes),
        # and one whose strides do not nest breaks CuTe's divisibility rules
        B, _space = draw(chunk_layouts(static_p=p, max_size=32, radices=[2, 4]))
        T, _ = draw(chunk_layouts(static_p=p, max_size=16, radices=[2, 4]))
        return B, T, static, True
    else:
        shape = tuple(maybe_static(draw, e, p) for e in
                      draw(st.lists(st.sampled_from([2, 3, 4]), min_size=1, max_size=3)))
        B = lk.make_layout(shape)
        T = draw(layouts(max_size=16, strides=(0, 1, 2, 3, 4), static_zero=True, static_p=p))
    return B, T, static, False


def zip_accepts(a, b):
    """CuTe's zip(a, b) compiles when a's shape is not a tuple, or b's has a's rank."""
    return not isinstance(a.shape, tuple) or (isinstance(b.shape, tuple)
                                              and len(b.shape) == len(a.shape))


def padded(L, R):
    return lk.append(L, n=R) if len(L) < R else L


@SETTINGS
@given(product_case())
def test_logical_product_is_shifted_copies(case):
    B, T, static, disjoint = case
    F = lk.filter(B)
    if len(F) > 1 and not lk.is_static(F.stride):
        # CuTe: the block's complement needs static strides when it has several modes
        with pytest.raises(lk.LayoutError, match="Dynamic-stride complement"):
            lk.logical_product(B, T)
        return
    P = lk.logical_product(B, T)
    nb, nt = int(lk.size(B)), int(lk.size(T))
    assert int(lk.size(P)) == nb * nt and str(P[0]) == str(B)
    C = lk.complement(B, lk.size(B) * lk.cosize(T))
    shifts = [P(0, j) for j in range(nt)]
    if disjoint:
        # composition distributes over the tiler's modes; with disjoint modes that is C o T
        assert shifts == [C(T(j)) for j in range(nt)]
    else:
        assert sorted(set(shifts)) == sorted(set(vals(lk.composition(C, T))))
    bset = set(vals(B))
    image = set(vals(P))
    assert image == set().union(*({b + s for b in bset} for s in shifts))
    assert all(s == 0 or s not in bset for s in shifts)          # copies land outside B
    if len(set(vals(T))) == nt:                                   # injective tiler
        assert len(image) == nb * nt
    ref = sorted(vals(P))
    for other in [lk.zipped_product(B, T), lk.tiled_product(B, T), lk.flat_product(B, T)]:
        assert sorted(vals(other)) == ref
    # blocked/raked zip the padded block with its product; CuTe's zip needs equal ranks
    R = max(len(B), len(T))
    Pr = lk.logical_product(padded(B, R), padded(T, R))
    for fn, (a, b) in ((lk.blocked_product, (Pr[0], Pr[1])), (lk.raked_product, (Pr[1], Pr[0]))):
        if zip_accepts(a, b):
            Z = fn(B, T)
            assert sorted(vals(Z)) == ref and len(Z) == (len(a) if isinstance(a.shape, tuple) else 1)
        else:
            with pytest.raises(lk.LayoutError, match="Mismatched Ranks"):
                fn(B, T)


# --------------------------------------------------------------------------- text

@SETTINGS
@given(layouts(negative=True))
def test_print_parse_round_trip(L):
    text = str(L)
    back = lk.parse_layout(text)
    assert back == L and str(back) == text
    assert " " not in text


@SETTINGS
@given(layouts(), st.integers(0, 3), st.integers(0, 4), st.integers(-4, 4))
def test_composed_layout_round_trip(L, b, m, s):
    assume(abs(s) >= b)
    C = lk.composition(lk.Swizzle(b, m, s), L)
    back = lk.parse_layout(str(C))
    assert str(back) == str(C)
    assert vals(back) == vals(C)


# --------------------------------------------------------------------------- recast, vectors

@st.composite
def compact_layouts(draw):
    first = draw(st.sampled_from([4, 6, 8, 16]))
    rest = draw(st.lists(st.sampled_from([1, 2, 3, 4]), max_size=3))
    shape = tuple(maybe_static(draw, e) for e in [first] + rest)
    shape = (S(first),) + shape[1:] if draw(st.booleans()) else shape
    if len(shape) >= 3 and draw(st.booleans()):
        shape = (shape[0], tuple(shape[1:]))
    return lk.make_layout(shape)


@SETTINGS
@given(compact_layouts())
def test_recast_16_32_16(L):
    U = lk.recast_layout(L, 16, 32)
    assert int(lk.size(U)) * 2 == int(lk.size(L))
    assert [U(j) for j in range(int(lk.size(U)))] == [L(2 * j) // 2 for j in range(int(lk.size(U)))]
    back = lk.recast_layout(U, 32, 16)
    assert str(back) == str(L)


@st.composite
def same_shape_pairs(draw):
    shape = tuple(draw(st.lists(st.sampled_from([2, 3, 4]), min_size=1, max_size=4)))
    static = draw(st.booleans())

    def permuted():
        order = draw(st.permutations(range(len(shape))))
        stride, run = [0] * len(shape), 1
        for i in order:
            stride[i] = run
            run *= shape[i]
        return lk.make_layout(
            tuple(S(e) if static or draw(st.booleans()) else e for e in shape),
            tuple(S(d) if static or draw(st.booleans()) else d for d in stride))

    return permuted(), permuted(), static


@SETTINGS
@given(same_shape_pairs())
def test_max_common_vector_against_brute_force(case):
    a, b, static = case
    n = int(lk.size(a))
    binv = {b(i): i for i in range(n)}
    brute = 0
    while brute < n and a(binv[brute]) == brute:
        brute += 1
    v = lk.max_common_vector(a, b)
    assert lk.is_static(v)
    if static:
        assert int(v) == brute
    else:
        assert 1 <= int(v) <= max(brute, 1)
        assert all(a(binv[k]) == k for k in range(int(v)))


def test_offsets_match_calls():
    rng = np.random.default_rng(0)
    L = lk.parse_layout("((_2,3),(_4,2)):((_24,1),(_3,_96))")
    offs = L.offsets()
    for i in rng.integers(0, int(lk.size(L)), 20):
        assert offs[i] == L(int(i))
