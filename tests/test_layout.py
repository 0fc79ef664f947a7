"""Layout facts from the seeds and from CuTe, worked out by hand (never from labkit's output).

Seed 000 (section 3 and its source appendix) builds register fragments with
``make_fragment_like``: ``filter_zeros`` + ``compact_major<LayoutLeft>`` for the atom's values,
``make_ordered_layout`` for the repeats, ``tiled_product`` to join them. Seed 001 writes a
tiling in Axe's lexicographic notation. FACTS.md gives the sgemm_sm80 shared-memory layout.
Static integers print as ``_n`` (CuTe's ``Int<n>``), run-time ones as ``n``.
"""

from __future__ import annotations

import numpy as np
import pytest

import labkit as lk
from labkit.layout.swizzle import swizzle_strides

S = lk.S
P = lk.parse_layout


def values(layout):
    return [layout(i) for i in range(int(lk.size(layout)))]


# --------------------------------------------------------------------------- static integers

def test_static_integers_print_with_underscore():
    assert str(S(8)) == "_8" and repr(S(8)) == "_8"
    assert str(S(-1)) == "_-1"
    assert lk.is_static(S(8)) and not lk.is_static(8)


@pytest.mark.parametrize(("expr", "text"), [
    (lambda: S(4) * S(2), "_8"),
    (lambda: S(4) * 2, "8"),
    (lambda: 2 * S(4), "8"),
    (lambda: S(4) + 1, "5"),
    # CuTe's mixed special cases: a static zero absorbs a run-time factor
    (lambda: S(0) * 7, "_0"),
    (lambda: 7 * S(0), "_0"),
    (lambda: 7 % S(1), "_0"),
    (lambda: S(1) * 7, "7"),
])
def test_static_arithmetic(expr, text):
    assert str(expr()) == text


# --------------------------------------------------------------------------- printing

@pytest.mark.parametrize(("build", "text"), [
    # compact_major<LayoutLeft> starts from a static _1; the running product of run-time
    # extents is run-time
    (lambda: lk.make_layout((4, 8)), "(4,8):(_1,4)"),
    (lambda: lk.make_layout((S(4), 8)), "(_4,8):(_1,_4)"),
    (lambda: lk.make_layout((S(4), S(8))), "(_4,_8):(_1,_4)"),
    (lambda: lk.make_layout(((2, 2), 4)), "((2,2),4):((_1,2),4)"),
    (lambda: lk.make_layout(8), "8:_1"),
    # a static extent 1 gets stride _0 and does not advance the running stride
    (lambda: lk.make_layout((S(2), S(1), S(4))), "(_2,_1,_4):(_1,_0,_2)"),
    (lambda: lk.make_layout((4, 8), (8, 1)), "(4,8):(8,1)"),
    # make_layout(L) wraps L into a rank-1 tuple
    (lambda: lk.make_layout(lk.make_layout(8)), "(8):(_1)"),
    (lambda: lk.make_layout(lk.make_layout(4, 2), lk.make_layout(3, 8)), "(4,3):(2,8)"),
    (lambda: lk.make_layout(((S(2), S(2), S(2)), S(1), S(1)), ((S(1), S(2), S(4)), S(0), S(0))),
     "((_2,_2,_2),_1,_1):((_1,_2,_4),_0,_0)"),
])
def test_print_like_cute(build, text):
    assert str(build()) == text


def test_compact_major_right():
    # LayoutRight: rightmost extent stride _1
    assert str(lk.make_layout((S(2), S(3), S(4)), lk.compact_major((S(2), S(3), S(4)), "right"))) \
        == "(_2,_3,_4):(_12,_4,_1)"


def test_swizzle_and_composed_layout_print():
    sw = lk.Swizzle(3, 3, 3)
    assert str(sw) == "Sw<3,3,3>"
    atom = lk.composition(sw, P("(_8,(_8,_8)):(_8,(_1,_64))"))
    assert isinstance(atom, lk.ComposedLayout)
    assert str(atom) == "Sw<3,3,3> o _0 o (_8,(_8,_8)):(_8,(_1,_64))"
    assert str(P(str(atom))) == str(atom)


def test_layout_queries():
    L = P("((_2,_2),_4):((_1,_8),_2)")
    assert lk.rank(L) == 2 and lk.depth(L) == 2 and len(L) == 2
    assert lk.size(L) == 16 and lk.cosize(L) == 1 + 1 + 8 + 3 * 2
    assert str(L[0]) == "(_2,_2):(_1,_8)" and str(L[1]) == "_4:_2"
    assert str(lk.flatten(L)) == "(_2,_2,_4):(_1,_8,_2)"
    # colexicographic: the leftmost coordinate moves fastest; an int into a nested mode
    assert L(1) == 1 and L(2) == 8 and L(3) == 9 and L(4) == 2
    assert L((1, 1), 3) == 1 + 8 + 6 and L(3, 3) == 15
    assert lk.crd2idx((1, 2), (4, 8), (8, 1)) == 10
    assert lk.idx2crd(5, ((2, 2), 4)) == ((1, 0), 1)


# --------------------------------------------------------------------------- seed 000, section 3

def test_block_from_atom_filter_zeros_compact_major():
    # atom_shape (_2,_2,_2), atom_stride (_1,_128,_8): no static zero, so filter_zeros keeps
    # the shape and compact_major<LayoutLeft> gives (_1,_2,_4).
    shape, stride = (S(2), S(2), S(2)), (S(1), S(128), S(8))
    assert lk.filter_zeros(stride, shape) == (2, 2, 2)
    assert lk.is_static(lk.filter_zeros(stride, shape))
    block = lk.make_layout(shape, lk.compact_major(lk.filter_zeros(stride, shape), "left"))
    assert str(block) == "(_2,_2,_2):(_1,_2,_4)"
    # v = v0 + 2*v1 + 4*v2 fills slots 0..7
    assert values(block) == list(range(8))


def test_broadcast_static_zero():
    # stride (1, _0, 8): the static zero makes the helper shape (2,_1,2), compact_major gives
    # a static _0 for the static _1 and keeps the running stride, so the third stride is 2.
    shape, stride = (2, 2, 2), (1, S(0), 8)
    helper = lk.filter_zeros(stride, shape)
    assert helper == (2, 1, 2) and lk.is_static(helper[1])
    block = lk.make_layout(shape, lk.compact_major(helper, "left"))
    assert str(block) == "(2,2,2):(_1,_0,2)"
    assert block(0, 0, 0) == 0 and block(0, 1, 0) == 0      # the broadcast mode shares a slot
    assert lk.cosize(block) == 4                              # 8 logical positions, 4 slots
    # all static
    sblock = lk.make_layout((S(2),) * 3, lk.compact_major(lk.filter_zeros(
        (S(1), S(0), S(8)), (S(2),) * 3), "left"))
    assert str(sblock) == "(_2,_2,_2):(_1,_0,_2)"


def test_broadcast_dynamic_zero_is_not_broadcast():
    # a run-time 0 is not recognised: the helper shape stays (2,2,2) and the strides are
    # (1,2,4), which is also what compact_major on the original shape gives
    shape, stride = (2, 2, 2), (1, 0, 8)
    assert lk.filter_zeros(stride, shape) == (2, 2, 2)
    block = lk.make_layout(shape, lk.compact_major(lk.filter_zeros(stride, shape), "left"))
    assert str(block) == "(2,2,2):(_1,2,4)"
    assert block(0, 1, 0) == 2
    assert lk.compact_major(shape, "left") == (1, 2, 4)


def test_rest_make_ordered_layout_dynamic_orders_come_last():
    # order (_2048,(144,288)): static orders compare by value, dynamic ones count as larger
    # and keep their order of appearance -> M first, then the two K sub-modes.
    rest = lk.make_ordered_layout((S(4), (S(2), S(2))), (S(2048), (144, 288)))
    assert str(rest) == "(_4,(_2,_2)):(_1,(_4,_8))"


def test_rest_make_ordered_layout_all_static():
    # CuTe DSL with a compile-time thread: order (_2048,_144): K (144) before M (2048)
    assert str(lk.make_ordered_layout((S(4), S(4)), (S(2048), S(144)))) == "(_4,_4):(_4,_1)"


def test_make_ordered_layout_cute_doc_examples():
    # the two examples in the comment above make_ordered_layout in CuTe's layout.hpp
    assert str(lk.make_ordered_layout((S(2),) * 4, (S(0), S(2), S(3), S(1)))) \
        == "(_2,_2,_2,_2):(_1,_4,_8,_2)"
    assert str(lk.make_ordered_layout((2, 3, 4, 5), (S(2), 67, 42, S(50)))) \
        == "(2,3,4,5):(_1,10,30,2)"


def test_rest_small_example():
    # a single MMA: the repeats are (_1,_1) with strides (_0,_0)
    assert str(lk.make_ordered_layout((S(1), S(1)), (S(0), S(0)))) == "(_1,_1):(_0,_0)"


def test_tiled_product_block_rest():
    # each repeat steps over a whole 8-value block: M stride 1*8, K strides (4*8, 8*8)
    block = P("(_2,_2,_2):(_1,_2,_4)")
    rest = P("(_4,(_2,_2)):(_1,(_4,_8))")
    assert str(lk.tiled_product(block, rest)) == "((_2,_2,_2),_4,(_2,_2)):((_1,_2,_4),_8,(_32,_64))"
    # with run-time repeat strides (the seed's printout without underscores)
    rest_dyn = P("(4,(2,2)):(1,(4,8))")
    assert str(lk.tiled_product(block, rest_dyn)) == "((_2,_2,_2),4,(2,2)):((_1,_2,_4),8,(32,64))"


PARTITION_A = "((_2,_2,_2),_4,(_2,_2)):((_1,_512,72),_2048,(144,288))"


def test_make_fragment_like_seed_partition():
    frag = lk.make_fragment_like(P(PARTITION_A))
    assert str(frag) == "((_2,_2,_2),_4,(_2,_2)):((_1,_2,_4),_8,(_32,_64))"
    assert lk.cosize(frag) == 128 and lk.size(frag) == 128


def test_fragment_offsets_formula():
    # offset_A(v, m, k) = v + 8*m + 32*k, with v = 0..7 and k = 0..3 into the (2,2) mode
    frag = lk.make_fragment_like(P(PARTITION_A))
    for v in range(8):
        for m in range(4):
            for k in range(4):
                assert frag(v, m, k) == v + 8 * m + 32 * k


def test_make_layout_like_seed_partition():
    # every leaf ordered together: _1, _512, then _2048 (M), then the run-time 72, 144, 288
    # in order of appearance -> atom values in slots 0..3 and 16..19
    like = lk.make_layout_like(P(PARTITION_A))
    assert str(like) == "((_2,_2,_2),_4,(_2,_2)):((_1,_2,_16),_4,(_32,_64))"
    assert sorted(like(v, 0, 0) for v in range(8)) == [0, 1, 2, 3, 16, 17, 18, 19]


def test_make_layout_like_keeps_static_zeros():
    # the example in the comment above make_layout_like in CuTe's layout.hpp
    L = lk.make_layout((S(2),) * 4, (S(0), S(2), S(4), S(1)))
    assert str(lk.make_layout_like(L)) == "(_2,_2,_2,_2):(_0,_2,_4,_1)"


def test_make_fragment_like_small_example():
    part = P("((_2,_2,_2),_1,_1):((_1,_128,_8),_0,_0)")
    assert str(lk.make_fragment_like(part)) == "((_2,_2,_2),_1,_1):((_1,_2,_4),_0,_0)"


def test_make_fragment_like_all_static_dsl_case():
    # FACTS.md, CuTe DSL with a compile-time thread: K before M
    part = lk.make_layout(((S(2), S(2), S(2)), S(4), S(4)),
                          ((S(1), S(512), S(72)), S(2048), S(144)))
    assert str(lk.make_fragment_like(part)) == "((_2,_2,_2),_4,_4):((_1,_2,_4),_32,_8)"


def test_make_fragment_like_dynamic_shape_is_compact_column_major():
    # the non-static-shape branch is make_layout(shape)
    part = P("((2,2),4):((1,128),8)")
    assert str(lk.make_fragment_like(part)) == "((2,2),4):((_1,2),4)"


def test_swizzled_strides_72_144_288():
    sw = lk.Swizzle(3, 3, 3)     # XOR bits 6..8 into bits 3..5
    assert (sw(64), sw(128), sw(256)) == (64 ^ 8, 128 ^ 16, 256 ^ 32) == (72, 144, 288)
    assert sw(512) == 512 and sw(2048) == 2048 and sw(7) == 7
    unswizzled = P("((_2,_2,_2),_4,(_2,_2)):((_1,_512,_64),_2048,(_128,_256))")
    lay, base = swizzle_strides(sw, 0, unswizzled)
    # strides that touch the swizzled bits become run-time sw(d) - sw(0); the others stay
    assert str(lay) == PARTITION_A and base == 0
    assert str(lk.make_fragment_like(lay)) == "((_2,_2,_2),_4,(_2,_2)):((_1,_2,_4),_8,(_32,_64))"


# --------------------------------------------------------------------------- seed 001 tiling

def f_seed001(x):
    # Axe S[(4,2,2,4):(16,4,8,1)]: lexicographic unflatten, rightmost coordinate fastest
    c0, c1, c2, c3 = x // 16, (x // 8) % 2, (x // 4) % 2, x % 4
    return 16 * c0 + 4 * c1 + 8 * c2 + 1 * c3


def test_seed001_tiling_as_cute_layout():
    # CuTe is colexicographic: reversing shape and stride gives the same map of x
    L = lk.make_layout((4, 2, 2, 4), (1, 8, 4, 16))
    assert [L(x) for x in range(64)] == [f_seed001(x) for x in range(64)]
    assert sorted(L(x) for x in range(64)) == list(range(64))


def test_seed001_tiling_on_matrix_coordinates():
    # x = 8*i + j on the 8x8 matrix: i = row_in_tile + 2*tile_row, j = col_in_tile + 4*tile_col
    L = lk.make_layout(((2, 4), (4, 2)), ((4, 16), (1, 8)))
    for i in range(8):
        for j in range(8):
            x = 8 * i + j
            assert L(i, j) == f_seed001(x)
            assert L(i, j) == 16 * (i // 2) + 4 * (i % 2) + 8 * (j // 4) + (j % 4)


# --------------------------------------------------------------------------- sgemm_sm80 smem

def sgemm_smem():
    atom = lk.composition(lk.Swizzle(3, 3, 3), P("(_8,(_8,_8)):(_8,(_1,_64))"))
    return lk.tile_to_shape(atom, (S(128), S(64), S(3)))


def test_sgemm_sm80_smem_prints_like_cute():
    # tile_to_shape on a ComposedLayout tiles layout_b; block (_8,_64,_1) over (_128,_64,_3)
    # repeats (_16,_1,_3) column-major, and blocked_product zips block and repeats mode by mode
    # without coalescing. What CuTe C++ prints (g++, CUTLASS 4.2 headers):
    assert str(sgemm_smem()) == ("Sw<3,3,3> o _0 o ((_8,_16),((_8,_8),_1),(_1,_3))"
                                 ":((_8,_512),((_1,_64),_0),(_0,_8192))")


def test_sgemm_sm80_smem_function():
    L = sgemm_smem()
    m = np.arange(128)[:, None, None]
    k = np.arange(64)[None, :, None]
    s = np.arange(3)[None, None, :]
    raw = 8 * (m % 8) + 512 * (m // 8) + (k % 8) + 64 * (k // 8) + 8192 * s
    want = raw ^ ((raw & (0b111 << 6)) >> 3)           # Swizzle<3,3,3>
    # offsets() runs colexicographically: m fastest, then k, then the stage
    got = L.offsets().reshape(3, 64, 128).transpose(2, 1, 0)
    assert np.array_equal(got, want)
    assert sorted(L.offsets().tolist()) == list(range(128 * 64 * 3))   # a bijection
    for mm, kk, ss in [(0, 0, 0), (1, 0, 0), (0, 8, 0), (9, 17, 2), (127, 63, 2)]:
        assert L(mm, kk, ss) == int(want[mm, kk, ss])


# --------------------------------------------------------------------------- algebra examples

@pytest.mark.parametrize(("a", "b", "text"), [
    # (_4,_2):(_8,_1) into (_4,_8):(_8,_1), whose coalesced form stays (_4,_8):(_8,_1)
    ("(_4,_8):(_8,_1)", "(_4,_2):(_8,_1)", "(_4,_2):(_2,_8)"),
    # CuTe tutorial example: (6,2):(8,2) o (4,3):(3,1) = ((2,2),3):((24,2),8)
    ("(_6,_2):(_8,_2)", "(_4,_3):(_3,_1)", "((_2,_2),_3):((_24,_2),_8)"),
    ("_20:_2", "(_5,_4):(_4,_1)", "(_5,_4):(_8,_2)"),
    # a trailing static _1 mode of A is kept as _2 (coalesce_x) before composing
    ("(_4,_1):(_1,_0)", "_8:_1", "(_4,_2):(_1,_0)"),
])
def test_composition_examples(a, b, text):
    R = lk.composition(P(a), P(b))
    assert str(R) == text
    A, B = P(a), P(b)
    for i in range(int(lk.size(B))):
        x = B(i)
        if x < lk.size(A):
            assert R(i) == A(x)


def test_composition_by_mode_drops_unnamed_modes():
    # CuTe: a tuple tiler composes mode by mode and drops the modes it does not name
    A = P("(_4,_8,_2):(_1,_4,_32)")
    assert str(lk.composition(A, (S(2), lk._))) == "(_2,_8):(_1,_4)"


@pytest.mark.parametrize(("layout", "cotarget", "text"), [
    ("_4:_1", S(24), "_6:_4"),
    ("(_2,_2):(_1,_6)", S(24), "(_3,_2):(_2,_12)"),
    ("_4:_2", S(16), "(_2,_2):(_1,_8)"),
    # a run-time cotarget gives a run-time rest extent
    ("(_2,_2):(_1,_6)", 24, "(_3,2):(_2,_12)"),
    # a shape cotarget: coalesce(ceil_div((4,_8), _2)) keeps static and dynamic apart
    ("_2:_1", (4, S(8)), "16:_2"),
    ("_2:_1", (S(4), 8), "(_2,8):(_2,_4)"),
])
def test_complement_examples(layout, cotarget, text):
    assert str(lk.complement(P(layout), cotarget)) == text


@pytest.mark.parametrize(("layout", "text"), [
    ("(_4,_8):(_8,_1)", "(_8,_4):(_4,_1)"),
    ("(_2,_3):(_3,_1)", "(_3,_2):(_2,_1)"),
    # only static strides are followed: the chain stops after the run-time next stride 4
    ("(4,8):(_1,4)", "4:_1"),
    ("(4,8):(1,4)", "_1:_0"),
])
def test_right_inverse_examples(layout, text):
    assert str(lk.right_inverse(P(layout))) == text


def test_left_inverse_example():
    L = P("(_4,_2):(_2,_1)")       # image 0..7
    Linv = lk.left_inverse(L)
    assert str(Linv) == "(_2,_4):(_4,_1)"
    assert [Linv(L(i)) for i in range(8)] == list(range(8))


def test_logical_divide_examples():
    # CuTe tutorial: (4,2,3):(2,1,8) / 4:2 = ((2,2),(2,3)):((4,1),(2,8))
    assert str(lk.logical_divide(P("(_4,_2,_3):(_2,_1,_8)"), P("_4:_2"))) \
        == "((_2,_2),(_2,_3)):((_4,_1),(_2,_8))"
    L = P("(_8,_8):(_1,_8)")
    assert str(lk.zipped_divide(L, (S(2), S(4)))) == "((_2,_4),(_4,_2)):((_1,_8),(_2,_32))"
    assert str(lk.tiled_divide(L, (S(2), S(4)))) == "((_2,_4),_4,_2):((_1,_8),_2,_32)"
    assert str(lk.flat_divide(L, (S(2), S(4)))) == "(_2,_4,_4,_2):(_1,_8,_2,_32)"


def test_logical_divide_uses_the_shape_as_cotarget():
    # complement(_2:_1, shape (4,_8)) = coalesce(ceil_div((4,_8), _2)) = 16:_2 (run-time).
    # Composing (4,_8):(_1,4) with (_2,16):(_1,_2): the run-time 4 cannot be split at compile
    # time, so mode _2:_1 becomes (2,1):(_1,4) (min and division with a run-time extent)
    # and 16:_2 becomes (2,8):(_2,4) (the stride _2 * _1 stays static) -- what CuTe C++
    # prints (tests/test_cute_cpp.py compiles this case), an identity map on 0..31.
    L = P("(4,_8):(_1,4)")
    assert str(lk.complement(P("_2:_1"), L.shape)) == "16:_2"
    D = lk.logical_divide(L, S(2))
    assert str(D) == "((2,1),(2,8)):((_1,4),(_2,4))"
    assert values(D) == list(range(32))


def test_product_examples():
    assert str(lk.logical_product(P("(_2,_2):(_1,_2)"), P("_3:_1"))) == "((_2,_2),_3):((_1,_2),_4)"
    blk, t = P("(_2,_2):(_1,_2)"), P("(_2,_3):(_1,_2)")
    assert str(lk.blocked_product(blk, t)) == "((_2,_2),(_2,_3)):((_1,_4),(_2,_8))"
    assert str(lk.raked_product(blk, t)) == "((_2,_2),(_3,_2)):((_4,_1),(_8,_2))"


def test_max_common_vector_examples():
    col = P("(_8,_8):(_1,_8)")
    row = P("(_8,_8):(_8,_1)")
    assert lk.max_common_vector(col, col) == 64
    assert lk.max_common_vector(row, col) == 1
    # a static stride-1 leading mode survives run-time modes after it
    assert lk.max_common_vector(P("(_8,4):(_1,_8)"), P("(_8,4):(_1,_8)")) == 8


def test_recast_layout_examples():
    # ldmatrix.x4's destination in bits, seen as 16-bit elements (FACTS.md)
    assert str(lk.recast_layout(P("(_32,(_32,_4)):(_32,(_1,_1024))"), 1, 16)) \
        == "(_32,(_2,_4)):(_2,(_1,_64))"
    assert str(lk.recast_layout(P("(_32,_128):(_128,_1)"), 1, 16)) == "(_32,_8):(_8,_1)"
    # the seed fragment as 32-bit words: _2:_1 -> _1:_1, the other strides halve
    frag = P("((_2,_2,_2),_1,_1):((_1,_2,_4),_0,_0)")
    assert str(lk.recast_layout(frag, 16, 32)) == "((_1,_2,_2),_1,_1):((_1,_1,_2),_0,_0)"
    assert str(lk.recast_layout(P("_4:_1"), 32, 16)) == "_8:_1"


def test_coalesce_and_filter_examples():
    assert str(lk.coalesce(P("(_2,_4):(_1,_2)"))) == "_8:_1"
    # run-time modes are not merged (the merge must be provable at compile time)
    assert str(lk.coalesce(P("(2,4):(1,2)"))) == "(2,4):(1,2)"
    assert str(lk.coalesce(P("(_2,(_1,_6)):(_1,(_6,_2))"))) == "_12:_1"
    assert str(lk.coalesce(P("(_1,_1):(_4,_2)"))) == "_1:_0"
    assert str(lk.filter(P("(_2,_3,_4):(_1,_0,_2)"))) == "_8:_1"
    assert str(lk.coalesce(P("(_2,(_2,_4)):(_1,(_2,_16))"), (S(1), S(1)))) \
        == "(_2,(_2,_4)):(_1,(_2,_16))"


def test_slicing_flattens_like_cute():
    L = P("((_2,_2),_4):((_1,_8),_2)")
    sub, off = lk.slice_layout(L, ((lk._, 1), lk._))
    assert str(sub) == "(_2,_4):(_1,_2)" and off == 8
    sub, off = lk.slice_layout(L, (lk._, 3))
    assert str(sub) == "((_2,_2)):((_1,_8))" and off == 6
    sub, off = lk.slice_layout(L, lk._)
    assert str(sub) == str(L) and off == 0


# ------------------------------------------------------------------- seed 000, sections 2, 4, 7

A_TV = "((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))"     # SM80_16x8x16 ALayout (FACTS.md)


def test_a_tv_layout_matches_the_seed_formulas():
    # q = m + 16*k with m = t1 + 8*v1, k = 2*t0 + v0 + 8*v2 (t = t0 + 4*t1, v = v0 + 2*v1 + 4*v2)
    F = P(A_TV)
    for t in range(32):
        for v in range(8):
            t0, t1 = t % 4, t // 4
            v0, v1, v2 = v % 2, (v // 2) % 2, v // 4
            m, k = t1 + 8 * v1, 2 * t0 + v0 + 8 * v2
            assert F(t, v) == m + 16 * k
            assert (t, v) == (4 * (m % 8) + (k % 8) // 2, k % 2 + 2 * (m // 8) + 4 * (k // 8))


def test_a09_path_through_ldmatrix_x4():
    # seed 000 section 4: source (16,1) and destination (0,5) share the copy element e = 129;
    # right_inverse of the reference gives tv = 160 (t=0, v=5); the MMA's TV layout maps it to
    # q = 144 = 0 + 16*9, i.e. A(0,9)
    src = P("(_32,_8):(_8,_1)")
    dst = ref = P("(_32,(_2,_4)):(_2,(_1,_64))")
    assert src(16, 1) == 129 and dst(0, 5) == 129
    inv = lk.right_inverse(ref)
    # coalesce keeps (_32,_2,_4):(_2,_1,_64); the chain of strides _1 -> _2 -> _64 visits
    # modes 1, 0, 2, whose compact strides are _32, _1, _64
    assert str(inv) == "(_2,_32,_4):(_32,_1,_64)"
    assert inv(129) == 160 == 0 + 32 * 5
    assert P(A_TV)(160) == 144 == 0 + 16 * 9
    assert all(ref(inv(e)) == e for e in range(256))


def test_exercise_1_row_stride_24_keeps_the_fragment():
    # seed 000 exercise 1: a row stride of 24 turns partition_A's 128 into 192; the fragment
    # layout does not change
    part = P("((_2,_2,_2),_1,_1):((_1,_192,_8),_0,_0)")
    assert str(lk.make_fragment_like(part)) == "((_2,_2,_2),_1,_1):((_1,_2,_4),_0,_0)"


def test_exercise_2_b_fragment_regrouping():
    # offset_B(v, n, k) = v + 4*n + 32*k on tCrB; the x4 copy view groups 8 values:
    # tXrB(v, j, k) <-> tCrB(v % 4, 2*j + v // 4, k); (6,1,0) -> tCrB(2,3,0), slot 14
    tCrB = P("((_2,_2),_8,(_2,_2)):((_1,_2),_4,(_32,_64))")
    tXrB = P("(_8,_4,(_2,_2)):(_1,_8,(_32,_64))")
    for v in range(8):
        for j in range(4):
            for k in range(4):
                assert tXrB(v, j, k) == tCrB(v % 4, 2 * j + v // 4, k) == v + 8 * j + 32 * k
    assert tXrB(6, 1, 0) == tCrB(2, 3, 0) == 14
