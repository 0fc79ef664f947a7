"""Tensors: storage + layout + offset, CuTe-style calls, slices that share storage, recast.

Expected values come from the layouts' definitions, seed 000 (the fragment aliases of section
4, mma_unpack's recast in section 5) and IEEE-754 half-precision bit patterns.
"""

from __future__ import annotations

import numpy as np
import pytest

import labkit as lk

S = lk.S
P = lk.parse_layout
_ = lk._


def test_make_tensor_and_call():
    t = lk.make_tensor(np.arange(100, 132), P("(4,8):(8,1)"))
    assert int(t(1, 2)) == 100 + 10 and int(t[1, 2]) == 110
    assert int(t((3, 7))) == 100 + 31
    assert int(t(5)) == 100 + 8 * 1 + 1 * 1          # flat 5 -> (1, 1)
    t[0, 1] = -1
    assert t.storage[1] == -1
    assert t.layout == P("(4,8):(8,1)") and t.shape == (4, 8) and t.stride == (8, 1)


def test_nested_coordinates():
    t = lk.make_tensor(np.arange(16), P("((2,2),4):((1,8),2)"))
    assert int(t((1, 1), 3)) == 1 + 8 + 6
    assert int(t(3, 3)) == 15                          # 3 into (2,2) is (1,1)


def test_coordinate_only_tensor_returns_offsets():
    sA = lk.make_tensor(None, P("(_16,_16):(_16,_1)"))
    # seed 000: lane 0's A values sit at shared-memory offsets 0,1,128,129,8,9,136,137
    coords = [(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9)]
    assert [sA(m, k) for m, k in coords] == [0, 1, 128, 129, 8, 9, 136, 137]


def test_slice_with_underscore_and_none():
    store = np.arange(32)
    t = lk.make_tensor(store, P("(4,8):(8,1)"))
    row = t(1, _)
    assert str(row.layout) == "(8):(1)" and row.offset == 8
    assert [int(row(j)) for j in range(8)] == list(range(8, 16))
    col = t(None, 2)
    assert str(col.layout) == "(4):(8)" and col.offset == 2
    assert [int(col(i)) for i in range(4)] == [2, 10, 18, 26]
    assert str(t(_, _).layout) == "(4,8):(8,1)" and t(_, _).offset == 0


def test_nested_slice_flattens_like_cute():
    # slice ((_,1),_) of ((2,2),4):((1,8),2) keeps (2,4):(1,2) at offset 8
    t = lk.make_tensor(np.arange(32), P("((2,2),4):((1,8),2)"))
    sub = t((_, 1), _)
    assert str(sub.layout) == "(2,4):(1,2)" and sub.offset == 8
    assert [[int(sub(i, j)) for j in range(4)] for i in range(2)] == \
        [[8 + i + 2 * j for j in range(4)] for i in range(2)]


def test_views_share_storage():
    store = np.zeros(32, dtype=np.int32)
    t = lk.make_tensor(store, P("(4,8):(8,1)"))
    row = t(2, _)
    row[5] = 7
    assert store[2 * 8 + 5] == 7 and int(t(2, 5)) == 7
    assert row.data_ptr_equal(t) and np.shares_memory(row.storage, store)


def test_fragment_views_alias_like_retile():
    # seed 000 section 4: tCrA ((2,2,2),1,1):((1,2,4),0,0) and the ldmatrix.x4 view
    # tXrA ((8,1),1,1):((1,0),0,0) address the same 8 halves
    tCrA = lk.make_fragment(P("((_2,_2,_2),_1,_1):((_1,_2,_4),_0,_0)"), np.float16)
    assert tCrA.storage.size == 8
    tXrA = lk.make_tensor(tCrA.storage, P("((_8,_1),_1,_1):((_1,_0),_0,_0)"))
    tXrA[(5, 0), 0, 0] = 7
    assert float(tCrA((1, 0, 1), 0, 0)) == 7.0
    where_x = lk.make_tensor(None, tXrA.layout)
    where_c = lk.make_tensor(None, tCrA.layout)
    assert [where_x(v, 0, 0) for v in range(8)] == [where_c(v, 0, 0) for v in range(8)] \
        == list(range(8))
    # ldmatrix.x1 splits the same storage into four pairs
    x1 = lk.make_tensor(None, P("((_2,_4),_1,_1):((_1,_2),_0,_0)"))
    assert [[x1((v, g), 0, 0) for v in range(2)] for g in range(4)] == \
        [[0, 1], [2, 3], [4, 5], [6, 7]]


# IEEE-754 binary16 bit patterns
H = {1.0: 0x3C00, 2.0: 0x4000, 3.0: 0x4200, -2.0: 0xC000, 0.5: 0x3800, 4.0: 0x4400, 0.0: 0x0000}


def test_recast_halves_to_words_low_half_first():
    halves = [1.0, 2.0, 3.0, -2.0, 0.5, 4.0, 0.0, 1.0]
    frag = lk.make_tensor(np.array(halves, dtype=np.float16),
                          P("((_2,_2,_2),_1,_1):((_1,_2,_4),_0,_0)"))
    words = lk.recast(frag, np.uint32)
    assert words.storage.dtype == np.uint32 and words.storage.size == 4
    assert str(words.layout) == "((_1,_2,_2),_1,_1):((_1,_1,_2),_0,_0)"
    # element 2i is the low 16 bits of word i, element 2i+1 the high 16 bits
    want = [H[halves[2 * i]] | (H[halves[2 * i + 1]] << 16) for i in range(4)]
    assert want == [0x40003C00, 0xC0004200, 0x44003800, 0x3C000000]
    assert [int(words(v, 0, 0)) for v in range(4)] == want
    assert np.shares_memory(words.storage, frag.storage)


def test_recast_words_back_to_halves():
    words = lk.make_tensor(np.array([0x40003C00, 0xC0004200], dtype=np.uint32), P("_2:_1"))
    halves = lk.recast(words, np.float16)
    assert str(halves.layout) == "_4:_1"
    assert [float(halves(i)) for i in range(4)] == [1.0, 2.0, 3.0, -2.0]


def test_recast_keeps_the_offset_in_new_units():
    t = lk.make_tensor(np.zeros(16, np.float16), P("_4:_1"), 4)
    w = lk.recast(t, np.uint32)
    assert w.offset == 2 and str(w.layout) == "_2:_1"


@pytest.mark.parametrize(("layout", "coord"), [("(4,8):(8,1)", (3, 7)), ("_8:_2", 7)])
def test_values_and_offsets(layout, coord):
    L = P(layout)
    t = lk.make_tensor(np.arange(int(lk.cosize(L))) * 10, L)
    assert t.offsets().tolist() == [L(i) for i in range(int(lk.size(L)))]
    assert t.values().tolist() == [10 * L(i) for i in range(int(lk.size(L)))]
    assert int(t(coord)) == 10 * L(coord)


def test_swizzled_tensor():
    L = lk.composition(lk.Swizzle(1, 0, 1), P("(_2,_2):(_1,_2)"))
    t = lk.make_tensor(np.arange(4) * 100, L)
    assert [[int(t(m, n)) for n in range(2)] for m in range(2)] == [[0, 300], [100, 200]]
