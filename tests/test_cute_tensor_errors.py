"""Bad input to the basis strides, identity tensors and partitioning raises a clear LayoutError
naming the argument and the rule (the C++ outcomes are checked in test_cute_tensor_cpp.py)."""

from __future__ import annotations

import numpy as np
import pytest

import labkit as lk

S = lk.S
L = lk.make_layout((S(2), S(4), S(8)))
T = lk.make_tensor(None, lk.make_layout((S(64), S(32)), (S(32), S(1))))
THR = lk.make_layout((S(4), S(8)))

CASES = [
    ("give at least one index", lambda: lk.E()),
    ("value must be an int", lambda: lk.ScaledBasis(1.5, (0,))),
    ("index must be a tuple of non-negative ints", lambda: lk.ScaledBasis(1, (-1,))),
    ("ScaledBasis op+ error", lambda: lk.E(0) + S(1)),
    ("Arithmetic tuple op+ error", lambda: lk.make_arithmetic_tuple(1, 2) + 3),
    ("one is a tuple", lambda: lk.elem_less((1, 2), 3)),
    ("expected ints or tuples", lambda: lk.elem_less("a", 3)),
    ("Layout stride", lambda: lk.make_layout((4, 8), (lk.E(0), "x"))),
    ("make_identity_layout: shape", lambda: lk.make_identity_layout((4, "8"))),
    ("make_identity_tensor: shape", lambda: lk.make_identity_tensor(4.0)),
    ("basis strides", lambda: lk.cosize(lk.make_identity_layout((4, 8)))),
    ("basis strides", lambda: lk.complement(lk.make_identity_layout((4, 8)))),
    ("basis strides", lambda: lk.right_inverse(lk.make_identity_layout((4, 8)))),
    ("(4,8):(_1@0,_1@1) (coalesced) break CuTe's rule",
     lambda: lk.composition(lk.make_identity_layout((4, 8)), lk.make_layout(4, 0))),
    ("is a stride, not an extent", lambda: lk.parse_layout("(2@1,4):(1,2)")),
    ("composition: B", lambda: lk.composition(lk.make_layout((S(2), S(2))),
                                              lk.make_identity_layout((4, 8)))),
    ("upcast", lambda: lk.upcast(lk.make_identity_layout((4, 8)), 2)),
    ("print_layout", lambda: lk.print_layout(lk.make_identity_layout((4, 8)))),
    ("not a numpy element type", lambda: lk.make_fragment(lk.make_layout(4), "0:")),
    ("scaled by zero", lambda: lk.coalesce(lk.make_layout((4, 8), (lk.E(0) * 0, lk.E(1))))),
    ("take: empty range error", lambda: lk.take(L, 2, 1)),
    ("take: range out of bounds", lambda: lk.take(L, 0, 4)),
    ("B <= E", lambda: lk.group_modes(L, 2, 1)),
    ("mode bounds b and e must be ints", lambda: lk.group_modes(L, 0, "2")),
    ("out of range", lambda: lk.select(L, 3)),
    ("name at least one mode", lambda: lk.select(L)),
    ("tensor must be a labkit Tensor", lambda: lk.local_tile(L, (S(2),), (0,))),
    ("tiler must be", lambda: lk.local_tile(T, "8", (0,))),
    ("Too many modes in tiler", lambda: lk.local_tile(T, (S(8), S(8), S(8)), (0, 0, 0))),
    ("proj must be a tuple", lambda: lk.local_tile(T, (S(8), S(8)), (0, 0), 1)),
    ("Mismatched Ranks", lambda: lk.local_tile(T, (S(8), S(8), S(8)), (0, 0, 0), (1, lk.X))),
    ("thr_layout must be a Layout", lambda: lk.local_partition(T, (4, 8), 0)),
    ("thr_idx must be an int", lambda: lk.local_partition(T, THR, 1.0)),
    ("zero stride", lambda: lk.local_partition(T, lk.make_layout((4, 8), (0, 1)), 3)),
    ("coord must be non-negative", lambda: lk.local_tile(T, (S(8), S(8)), -1)),
    ("needs an int offset", lambda: lk.Tensor(np.zeros(4), lk.make_layout(4),
                                              lk.make_arithmetic_tuple(0))),
]


@pytest.mark.parametrize(("needle", "call"), CASES,
                         ids=[f"{i}-{c[0]}" for i, c in enumerate(CASES)])
def test_error_paths(needle, call):
    with pytest.raises(lk.LayoutError) as info:
        call()
    assert needle.lower() in str(info.value).lower()
