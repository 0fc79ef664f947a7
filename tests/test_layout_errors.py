"""Bad input to labkit.layout raises ``lk.LayoutError`` (a ``ValueError``) naming the rule.

Never an internal ``IndexError``, ``ZeroDivisionError``, ``TypeError`` or ``RecursionError``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import labkit as lk

S = lk.S
P = lk.parse_layout
L = P("(_4,_8):(_8,_1)")


def test_layout_error_is_a_value_error():
    assert issubclass(lk.LayoutError, ValueError)


CASES = [
    # shape / stride structure
    ("rank", lambda: lk.make_layout((4, 8), (1,))),
    ("rank", lambda: lk.make_layout((4, 8), ((1, 2), 4))),
    ("rank", lambda: lk.make_layout(4, (1, 2))),
    ("positive", lambda: lk.make_layout((4, -2))),
    ("positive", lambda: lk.make_layout((4, 0))),
    ("positive", lambda: lk.make_layout(S(0))),
    ("empty", lambda: lk.make_layout(())),
    ("expected an int", lambda: lk.make_layout((4, 2.5))),
    ("expected an int", lambda: lk.make_layout("4")),
    ("expected an int", lambda: lk.make_layout(True)),
    ("expected an int", lambda: lk.make_layout((4, 8), (1, None))),
    ("arguments", lambda: lk.make_layout((4,), (1,), (2,))),
    ("must be an int", lambda: lk.S(2.0)),
    ("must be an int", lambda: lk.S("8")),
    # coordinates
    # (CuTe has no upper bound: the outermost mode runs on past the domain, L(32) == 32)
    ("non-negative", lambda: L(-1)),
    ("non-negative", lambda: L(0, -1)),
    ("rank", lambda: L(1, 2, 3)),
    ("rank", lambda: P("8:1")((1, 2))),
    ("coordinates must be ints", lambda: L(1.5)),
    ("coordinates must be ints", lambda: L("a")),
    ("index", lambda: L()),
    ("slice", lambda: L(lk._, 1)),
    ("mode index", lambda: L[2]),
    ("mode index", lambda: L["0"]),
    ("non-negative", lambda: lk.crd2idx((-4, 0), (4, 8), (8, 1))),
    ("rank mismatch", lambda: lk.crd2idx((1, 1), ((1, 2), 3), (8, 1))),
    ("must be an int", lambda: lk.idx2crd(None, (4, 8))),
    ("positive", lambda: lk.idx2crd(3, (2, 0))),
    # divisibility
    # (CuTe's static_asserts; a tiler that does not divide a layout is not one of them)
    ("Shape Divisibility Condition", lambda: lk.composition(P("(_4,_6):(_1,_5)"), P("_6:_1"))),
    ("Stride Divisibility Condition", lambda: lk.composition(P("(_4,_6):(_1,_5)"), P("_3:_6"))),
    ("Stride Divisibility Condition", lambda: lk.logical_divide(P("(_4,_6):(_1,_5)"), P("_3:_6"))),
    ("Divisibility Condition", lambda: lk.shape_div(S(6), S(4))),
    ("SIGFPE", lambda: lk.composition(P("(_4,_6):(_1,_5)"), P("3:0"))),
    ("zero", lambda: lk.shape_div(4, 0)),
    ("zero", lambda: lk.ceil_div(4, 0)),
    ("does not divide", lambda: lk.tile_to_shape(P("(_3,_2):(_1,_3)"), (S(8), S(4)))),
    ("more modes", lambda: lk.tile_to_shape(P("(_2,_2,_2):(_1,_2,_4)"), (S(8), S(8)))),
    ("Too many modes", lambda: lk.logical_divide(P("8:1"), (S(2), S(2)))),
    ("Too many modes", lambda: lk.logical_product(P("8:1"), (S(2), S(2)))),
    ("longer", lambda: lk.composition(P("8:1"), (S(2), S(2)))),
    ("not a (tile, rest) pair", lambda: lk.zipped_divide(P("(_8,_8):(_1,_8)"), (lk._, S(2)))),
    # injectivity / inverses
    ("Mismatched Ranks", lambda: lk.blocked_product(P("((_2)):((_2))"), P("_4:_1"))),
    ("Mismatched Ranks", lambda: lk.raked_product(P("((_2)):((_2))"), P("_4:_1"))),
    ("injective", lambda: lk.complement(P("(_2,_2):(_1,_1)"), 8)),
    ("injective", lambda: lk.logical_product(P("(_2,_2):(_1,_1)"), P("_2:_1"))),
    ("static", lambda: lk.left_inverse(P("(4,2):(2,1)"))),
    ("Left inverse divisibility condition", lambda: lk.left_inverse(P("(_2,_2,_2):(_1,_3,_4)"))),
    ("Dynamic-stride complement", lambda: lk.complement(P("(2,2):(1,0)"), 8)),
    ("SIGFPE", lambda: lk.complement(P("4:0"), 8)),
    ("cotarget", lambda: lk.complement(L, "8")),
    # recast
    ("not supported", lambda: lk.recast_layout(L, 16, 24)),
    ("positive", lambda: lk.recast_layout(L, 0, 16)),
    ("stride-1", lambda: lk.recast_layout(P("(4,8):(8,1)"), 32, 16)),
    ("divisible", lambda: lk.recast_layout(P("4:3"), 16, 32)),
    # swizzle
    ("|S| must be >= B", lambda: lk.Swizzle(3, 0, 2)),
    ("|S| must be >= B", lambda: lk.Swizzle(2, 4, -1)),
    (">= 0", lambda: lk.Swizzle(-1, 3, 3)),
    ("must be an int", lambda: lk.Swizzle("3", 3, 3)),
    ("at most 64", lambda: lk.Swizzle(3, 60, 3)),
    ("offsets must be ints", lambda: lk.Swizzle(3, 3, 3)(1.5)),
    ("must be a Layout", lambda: lk.composition(lk.Swizzle(3, 3, 3), (4, 8))),
    # types
    ("expected a Layout", lambda: lk.cosize((4, 8))),
    ("expected a Layout", lambda: lk.coalesce("(4,8):(8,1)")),
    ("expected a Layout", lambda: lk.right_inverse([1, 2])),
    ("expected a Layout", lambda: lk.composition((4, 8), L)),
    ("B must be", lambda: lk.composition(L, 2.5)),
    ("expected a Layout, an int", lambda: lk.logical_divide(L, "2")),
    ("major", lambda: lk.compact_major((4, 8), "up")),
    ("congruent", lambda: lk.filter_zeros((1, 0), (2, 2, 2))),
    ("congruent", lambda: lk.make_ordered_layout((2, (2, 2)), (1, 2, 3))),
    ("bounds", lambda: lk.take(L, "0", 1)),
    ("empty range", lambda: lk.take(L, 1, 1)),
    # text
    ("cannot parse", lambda: P("(4,8):(8,1")),
    ("cannot parse", lambda: P("(4,8)")),
    ("cannot parse", lambda: P("(4,8):(8,1):(2)")),
    ("cannot parse", lambda: P("(4,,8):(8,1)")),
    ("cannot parse", lambda: P("(4,x):(8,1)")),
    ("cannot parse", lambda: P("():()")),
    ("cannot parse", lambda: P("")),
    ("cannot parse", lambda: P("(" * 3000 + "1" + ")" * 3000 + ":1")),
    ("text must be a str", lambda: P(48)),
    ("rank", lambda: P("(4,8):(8,(1,2))")),
    ("positive", lambda: P("(4,_-8):(8,1)")),
    ("|S| must be >= B", lambda: P("Sw<3,3,1> o _0 o (8,8):(8,1)")),
    ("rank 3", lambda: lk.print_layout(P("(2,2,2):(1,2,4)"))),
    ("expected a layout", lambda: lk.layout_table("(2,2):(1,2)")),
]


@pytest.mark.parametrize(("needle", "call"), CASES,
                         ids=[f"{i}-{c[0]}" for i, c in enumerate(CASES)])
def test_error_paths(needle, call):
    with pytest.raises(lk.LayoutError) as info:
        call()
    assert needle in str(info.value)


# --------------------------------------------------------------------------- tensors

def tensor():
    return lk.make_tensor(np.arange(32, dtype=np.float16), L)


TENSOR_CASES = [
    ("numpy array", lambda: lk.make_tensor([1, 2, 3], P("3:1"))),
    ("needs 32 elements", lambda: lk.make_tensor(np.arange(8), L)),
    ("must be a Layout", lambda: lk.make_tensor(np.arange(8), (8, 1))),
    ("outside the storage", lambda: tensor()(4, 0)),
    ("coordinates must be ints", lambda: tensor()[1.5]),
    ("cannot be written", lambda: lk.make_tensor(None, L).__setitem__((0, 0), 1)),
    ("needs 40 elements", lambda: lk.make_tensor(np.arange(32), L, 8)),
    ("outside the storage", lambda: lk.Tensor(np.arange(32), L, 8)(3, 7)),
    ("needs a Tensor", lambda: lk.recast(np.arange(8), np.uint32)),
    ("needs a Tensor", lambda: lk.recast(lk.make_tensor(None, L), np.uint32)),
    ("element type", lambda: lk.recast(tensor(), "not-a-type")),
    ("element type", lambda: lk.recast(tensor(), 1.5)),
    ("does not split", lambda: lk.recast(lk.make_tensor(np.zeros(3, np.float16), P("3:1")),
                                         np.uint32)),
    ("not aligned", lambda: lk.recast(lk.make_tensor(np.zeros(8, np.float16), P("4:1"), 1),
                                      np.uint32)),
    ("contiguous", lambda: lk.recast(lk.Tensor(np.zeros(16, np.float16)[::2], P("8:1")),
                                     np.uint32)),
    ("has no _", lambda: lk.slice_layout(L, (1, 2))),
]


@pytest.mark.parametrize(("needle", "call"), TENSOR_CASES,
                         ids=[f"{i}-{c[0]}" for i, c in enumerate(TENSOR_CASES)])
def test_tensor_error_paths(needle, call):
    with pytest.raises(lk.LayoutError) as info:
        call()
    assert needle in str(info.value)


# --------------------------------------------------------------------------- fuzzing

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TOKENS = st.sampled_from(["(", ")", ",", ":", "_", "-", "0", "1", "2", "4", "8", "16", " ",
                          "Sw<", ">", " o ", "3,3,3", "x", "\n", "_0", "()"])


@FUZZ
@given(st.one_of(st.lists(TOKENS, max_size=30).map("".join), st.text(max_size=40)))
def test_parse_layout_fuzz_raises_only_layout_errors(text):
    try:
        lay = lk.parse_layout(text)
    except lk.LayoutError:
        return
    again = lk.parse_layout(str(lay))
    assert str(again) == str(lay)


JUNK = st.one_of(
    st.none(), st.floats(allow_nan=True), st.text(max_size=5), st.booleans(),
    st.integers(-3, 40), st.integers(-3, 8).map(S),
    st.tuples(st.integers(-2, 9), st.integers(-2, 9)),
    st.tuples(st.integers(0, 4), st.tuples(st.integers(0, 4), st.integers(0, 4))),
    st.just(()), st.just([1, 2]), st.just(lk._), st.just(L), st.just(P("8:1")),
    st.just(P("(2,2):(1,0)")), st.just(lk.Swizzle(1, 0, 1)),
    st.just(lk.composition(lk.Swizzle(1, 0, 1), P("(_2,_2):(_1,_2)"))),
)

UNARY = [
    lk.make_layout, lk.size, lk.cosize, lk.rank, lk.depth, lk.flatten, lk.coalesce, lk.filter,
    lk.right_inverse, lk.left_inverse, lk.complement, lk.make_fragment_like, lk.make_layout_like,
    lk.parse_layout, lk.layout_table, lk.S, lk.compact_major,
    lambda a: L(a), lambda a: L[a], lambda a: lk.make_tensor(np.arange(32), L)(a),
    lambda a: lk.recast(lk.make_tensor(np.zeros(32, np.float16), L), a),
    lambda a: lk.idx2crd(a, (4, 8)), lambda a: lk.idx2crd(3, a),
    lambda a: lk.Swizzle(3, 3, 3)(a), lambda a: lk.Swizzle(a, 3, 3),
]
BINARY = [
    lk.make_layout, lk.composition, lk.complement, lk.logical_divide, lk.zipped_divide,
    lk.tiled_divide, lk.flat_divide, lk.logical_product, lk.zipped_product, lk.tiled_product,
    lk.blocked_product, lk.raked_product, lk.tile_to_shape, lk.max_common_vector,
    lk.filter_zeros, lk.make_ordered_layout, lk.shape_div, lk.ceil_div, lk.slice_layout,
    lk.make_tensor, lk.coalesce, lk.compact_major,
    lambda a, b: lk.crd2idx(a, b, b), lambda a, b: lk.recast_layout(L, a, b),
    lambda a, b: lk.recast_layout(a, 16, b), lk.zip_layouts, lk.upcast, lk.downcast,
    lambda a, b: lk.make_tensor(np.arange(64), L, a)(b),
    lambda a, b: lk.tile_to_shape(L, (S(8), S(8)), a),
    lambda a, b: lk.swizzle_strides(lk.Swizzle(3, 3, 3), a, b),
    lambda a, b: lk.make_composed_layout(a, 0, b),
]


@FUZZ
@given(st.sampled_from(range(len(UNARY))), JUNK)
def test_unary_api_fuzz_raises_only_layout_errors(i, a):
    try:
        UNARY[i](a)
    except lk.LayoutError:
        pass


@FUZZ
@given(st.sampled_from(range(len(BINARY))), JUNK, JUNK)
def test_binary_api_fuzz_raises_only_layout_errors(i, a, b):
    try:
        BINARY[i](a, b)
    except lk.LayoutError:
        pass


@pytest.mark.parametrize("tiler", [0, -3, S(0)])
@pytest.mark.parametrize("op", [lk.composition, lk.logical_divide, lk.zipped_divide])
def test_an_int_tiler_is_an_extent_and_must_be_positive(op, tiler):
    # an int tiler n means make_layout(n); C++ divides by it at run time (SIGFPE)
    with pytest.raises(lk.LayoutError, match="extents must be positive"):
        op(lk.parse_layout("(2,2):(1,0)"), tiler)
