"""TiledMMA / TiledCopy: every statement of seed 000, sections 1-7 and its source appendix."""

import itertools

import numpy as np
import pytest

import labkit as lk

S = lk.S
ATOM = "SM80_16x8x16_F16F16F16F16_TN"


@pytest.fixture(scope="module")
def small():
    mma = lk.make_tiled_mma(ATOM)
    sA = lk.make_tensor(None, lk.parse_layout("(_16,_16):(_16,_1)"))
    sB = lk.make_tensor(None, lk.parse_layout("(_8,_16):(_16,_1)"))
    return mma, sA, sB


@pytest.fixture(scope="module")
def cta():
    """sgemm_sm80: 2x2 warps, Tile<_32,_32,_16>, Swizzle<3,3,3> smem tiled to (128,64,3)."""
    mma = lk.make_tiled_mma(ATOM, lk.make_layout((S(2), S(2))), (S(32), S(32), S(16)))
    atom = lk.parse_layout("(_8,(_8,_8)):(_8,(_1,_64))")
    sl = lk.tile_to_shape(atom, (S(128), S(64), S(3)))
    sA = lk.make_tensor(None, lk.composition(lk.Swizzle(3, 3, 3), sl))
    return mma, sA


def test_small_partition_and_fragment(small):
    mma, sA, _ = small
    thr = mma.get_slice(0)
    assert str(thr.partition_A(sA).layout) == "((_2,_2,_2),_1,_1):((_1,_128,_8),_0,_0)"
    tCrA = thr.partition_fragment_A(sA)
    assert str(tCrA.layout) == "((_2,_2,_2),_1,_1):((_1,_2,_4),_0,_0)"
    assert tCrA.storage.size == 8 and tCrA.storage.dtype == np.float16


def test_partition_offsets_are_lane0_table(small):
    mma, sA, _ = small
    part = mma.get_slice(0).partition_A(sA)
    assert [part(v, 0, 0) for v in range(8)] == [0, 1, 128, 129, 8, 9, 136, 137]


def test_every_lane_partition_matches_formula(small):
    mma, sA, sB = small
    for t in range(32):
        pa = mma.get_slice(t).partition_A(sA)
        pb = mma.get_slice(t).partition_B(sB)
        for v in range(8):
            m = t // 4 + 8 * ((v // 2) % 2)
            k = 2 * (t % 4) + v % 2 + 8 * (v // 4)
            assert pa(v, 0, 0) == 16 * m + k
        for v in range(4):
            assert pb(v, 0, 0) == 16 * (t // 4) + 2 * (t % 4) + v % 2 + 8 * (v // 2)


def test_row_stride_24_exercise():
    # section 7, exercise 1: row stride 16 -> 24 turns 128 into 192; tCrA unchanged
    mma = lk.make_tiled_mma(ATOM)
    sA = lk.make_tensor(None, lk.parse_layout("(_16,_16):(_24,_1)"))
    thr = mma.get_slice(0)
    assert str(thr.partition_A(sA).layout) == "((_2,_2,_2),_1,_1):((_1,_192,_8),_0,_0)"
    assert str(thr.partition_fragment_A(sA).layout) == "((_2,_2,_2),_1,_1):((_1,_2,_4),_0,_0)"


def test_retile_x4_x2_x1(small):
    mma, sA, _ = small
    tCrA = mma.get_slice(0).partition_fragment_A(sA)
    got = {}
    for name in ("SM75_U32x4_LDSM_N", "SM75_U32x2_LDSM_N", "SM75_U32x1_LDSM_N"):
        cp = lk.make_tiled_copy_A(lk.copy_atom(name, "f16"), mma)
        got[name] = cp.get_slice(0).retile_D(tCrA).layout
    assert str(got["SM75_U32x4_LDSM_N"]) == "((_8,_1),_1,_1):((_1,_0),_0,_0)"
    # x1 groups the same 8 slots as (2,4): pairs r[0:1], r[2:3], r[4:5], r[6:7]
    x1 = got["SM75_U32x1_LDSM_N"]
    assert lk.shape(x1)[0] == (2, 4)
    assert [[x1((a, g), 0, 0) for a in range(2)] for g in range(4)] == [[0, 1], [2, 3], [4, 5],
                                                                        [6, 7]]


def test_split_table_x4_x2_x1(small):
    # (AtomNumThr, AtomNumVal) and the (rest_T, rest_V) left of the (32,8) A TV layout
    mma, _, _ = small
    table = {}
    for name in ("SM75_U32x4_LDSM_N", "SM75_U32x2_LDSM_N", "SM75_U32x1_LDSM_N"):
        cp = lk.make_tiled_copy_A(lk.copy_atom(name, "f16"), mma)
        at, av = int(cp.atom.num_threads), int(cp.atom.num_values)
        table[name] = ((at, av), (int(cp.num_threads) // at, int(cp.num_values) // av))
    assert table == {"SM75_U32x4_LDSM_N": ((32, 8), (1, 1)),
                     "SM75_U32x2_LDSM_N": ((32, 4), (1, 2)),
                     "SM75_U32x1_LDSM_N": ((32, 2), (1, 4))}


def test_retile_aliases_storage(small):
    mma, sA, _ = small
    tCrA = mma.get_slice(0).partition_fragment_A(sA)
    cp = lk.make_tiled_copy_A(lk.copy_atom("SM75_U32x4_LDSM_N", "f16"), mma)
    tXrA = cp.get_slice(0).retile_D(tCrA)
    assert tXrA.storage is tCrA.storage
    tXrA[(5, 0), 0, 0] = 7
    assert tCrA[(1, 0, 1), 0, 0] == 7
    for v in range(8):
        assert tXrA.layout(v, 0, 0) == tCrA.layout(v, 0, 0)


def test_source_rows_x4(small):
    # source lane 16 supplies row A(0, 8..15), which starts at offset 8; rows are 16-byte aligned
    mma, sA, _ = small
    cp = lk.make_tiled_copy_A(lk.copy_atom("SM75_U32x4_LDSM_N", "f16"), mma)
    for lane in range(32):
        part = cp.get_slice(lane).partition_S(sA)
        offs = [part(v, 0, 0) for v in range(8)]
        assert offs == list(range(offs[0], offs[0] + 8))   # one contiguous 16-byte row
        assert (offs[0] * 2) % 16 == 0
        mat, row = lane // 8, lane % 8
        assert offs[0] == 16 * (row + 8 * (mat % 2)) + 8 * (mat // 2)
    assert cp.get_slice(16).partition_S(sA)(1, 0, 0) == 9


def test_every_a_element_routes_consistently(small):
    # For all 256 elements: the source thread/value and destination thread/value that share a
    # copy element e see the same matrix coordinate.
    mma, sA, _ = small
    cp = lk.make_tiled_copy_A(lk.copy_atom("SM75_U32x4_LDSM_N", "f16"), mma)
    src, dst = cp.atom.layout_src, cp.atom.layout_dst
    atom = mma.atom
    seen = set()
    for ts, vs in itertools.product(range(32), range(8)):
        e = src(ts, vs)
        off = cp.get_slice(ts).partition_S(sA)(vs, 0, 0)
        td_v = lk.right_inverse(dst)(e)
        td, vd = td_v % 32, td_v // 32
        assert atom.coord_A(td, vd) == (off // 16, off % 16)
        seen.add(off)
    assert len(seen) == 256


def test_trace_element_a09():
    p = lk.trace_element("A", (0, 9))
    assert (p.smem_offset, p.src_thread, p.src_value) == (9, 16, 1)
    assert (p.copy_element, p.ref_tv, p.matrix_index) == (129, 160, 144)
    assert (p.dst_thread, p.dst_value, p.fragment_coord) == (0, 5, (5, 0, 0))
    assert (p.register, p.half) == (2, "high")


def test_b_operand_table(small):
    mma, _, sB = small
    thr = mma.get_slice(0)
    tCrB = thr.partition_fragment_B(sB)
    assert str(tCrB.layout) == "((_2,_2),_1,_1):((_1,_2),_0,_0)"
    p = lk.trace_element("B", (0, 9))
    assert (p.dst_thread, p.dst_value, p.register, p.half) == (0, 3, 1, "high")
    p = lk.trace_element("B", (0, 8))
    assert (p.register, p.half) == (1, "low")


def test_single_mma_b_with_x4_is_refused(small):
    mma, _, _ = small
    with pytest.raises(lk.LayoutError, match="4 values per thread is not divisible by the atom "
                                             "SM75_U32x4_LDSM_N's 8"):
        lk.make_tiled_copy_B(lk.copy_atom("SM75_U32x4_LDSM_N", "f16"), mma)


def test_make_fragment_c(small):
    mma, _, _ = small
    gC = lk.make_tensor(None, lk.parse_layout("(_16,_8):(_8,_1)"))
    thr = mma.get_slice(0)
    tCgC = thr.partition_C(gC)
    tCrC = thr.make_fragment_C(tCgC)
    assert tCrC.storage.size == 4
    assert [tCgC(v, 0, 0) for v in range(4)] == [0, 1, 64, 65]   # C(0,0),C(0,1),C(8,0),C(8,1)


# --- section 6 and the source appendix: the full sgemm_sm80 CTA --------------------------
def test_cta_sizes(cta):
    mma, sA = cta
    s0 = sA(lk._, lk._, 0)
    thr = mma.get_slice(0)
    tCrA = thr.partition_fragment_A(s0)
    tCrB = thr.partition_fragment_B(s0)
    gC = lk.make_tensor(None, lk.make_layout((S(128), S(128))))
    tCrC = thr.make_fragment_C(thr.partition_C(gC))
    sizes = {k: tuple(int(lk.size(t.layout[i])) for i in range(3))
             for k, t in (("A", tCrA), ("B", tCrB), ("C", tCrC))}
    assert sizes == {"A": (8, 4, 4), "B": (4, 8, 4), "C": (4, 4, 8)}
    assert tCrA.storage.size == tCrB.storage.size == tCrC.storage.size == 128
    assert [int(x) for x in mma.tile_shape_mnk] == [32, 32, 16]
    assert int(mma.num_threads) == 128


def test_cta_partition_thread0_cpp(cta):
    mma, sA = cta
    s0 = sA(lk._, lk._, 0)
    part = mma.get_slice(0).partition_A(s0)
    assert str(part.layout) == "((_2,_2,_2),_4,(_2,_2)):((_1,_512,72),_2048,(144,288))"
    assert (72, 144, 288) == (64 ^ 8, 128 ^ 16, 256 ^ 32)
    frag = mma.get_slice(0).partition_fragment_A(s0)
    assert str(frag.layout) == "((_2,_2,_2),_4,(_2,_2)):((_1,_2,_4),_8,(_32,_64))"
    # offset_A(v,m,k) = v + 8m + 32k and offset_B(v,n,k) = v + 4n + 32k
    for v, m, k in itertools.product(range(8), range(4), range(4)):
        assert frag.layout(v, m, k) == v + 8 * m + 32 * k
    fb = mma.get_slice(0).partition_fragment_B(s0)
    for v, n, k in itertools.product(range(4), range(8), range(4)):
        assert fb.layout(v, n, k) == v + 4 * n + 32 * k


def test_cta_partition_static_thread_is_dsl(cta):
    mma, sA = cta
    s0 = sA(lk._, lk._, S(0))
    thr = mma.get_slice(S(0))
    assert str(thr.partition_A(s0).layout) == "((_2,_2,_2),_4,_4):((_1,_512,_72),_2048,_144)"
    assert str(thr.partition_fragment_A(s0).layout) == \
        "((_2,_2,_2),_4,_4):((_1,_2,_4),_32,_8)"
    assert str(thr.partition_fragment_B(s0).layout) == "((_2,_2),_8,_4):((_1,_2),_16,_4)"


def test_cta_partition_points_at_swizzled_addresses(cta):
    # every coordinate of every thread's partition equals Sw<3,3,3>(unswizzled offset)
    mma, sA = cta
    sw = lk.Swizzle(3, 3, 3)
    s0 = sA(lk._, lk._, 0)
    plain = lk.make_tensor(None, sA.layout.layout_b)(lk._, lk._, 0)
    for t in (0, 5, 37, 127):
        part = mma.get_slice(t).partition_A(s0)
        ref = mma.get_slice(t).partition_A(plain)
        assert np.array_equal(part.offsets(), sw(ref.offsets()))


def test_cta_b_retile_x4(cta):
    mma, sA = cta
    s0 = sA(lk._, lk._, 0)
    tCrB = mma.get_slice(0).partition_fragment_B(s0)
    cp = lk.make_tiled_copy_B(lk.copy_atom("SM75_U32x4_LDSM_N", "f16"), mma)
    tXrB = cp.get_slice(0).retile_D(tCrB)
    # tXrB(v,j,k) <-> tCrB(v%4, 2j+v/4, k)
    for v, j, k in itertools.product(range(8), range(4), range(4)):
        assert tXrB.layout(v, j, k) == tCrB.layout(v % 4, 2 * j + v // 4, k)
    # exercise 2: (6,1,0) -> tCrB(2,3,0), slot offset 14
    assert (6 % 4, 2 * 1 + 6 // 4, 0) == (2, 3, 0)
    assert tXrB.layout(6, 1, 0) == tCrB.layout(2, 3, 0) == 14


def test_cta_instruction_counts(cta):
    # per k-block and warp: 4 ldmatrix.x4 for A, 4 for B, 32 mma.sync
    mma, sA = cta
    s0 = sA(lk._, lk._, 0)
    thr = mma.get_slice(0)
    ca = lk.make_tiled_copy_A(lk.copy_atom("SM75_U32x4_LDSM_N", "f16"), mma)
    cb = lk.make_tiled_copy_B(lk.copy_atom("SM75_U32x4_LDSM_N", "f16"), mma)
    tXrA = ca.get_slice(0).retile_D(thr.partition_fragment_A(s0))
    tXrB = cb.get_slice(0).retile_D(thr.partition_fragment_B(s0))
    ldsm_a = int(lk.size(tXrA.layout[1]))            # copy groups along M in one k-block
    ldsm_b = int(lk.size(tXrB.layout[1]))
    tCrA = thr.partition_fragment_A(s0)
    tCrB = thr.partition_fragment_B(s0)
    mmas = int(lk.size(tCrA.layout[1])) * int(lk.size(tCrB.layout[1]))
    assert (ldsm_a, ldsm_b, mmas) == (4, 4, 32)


def test_tiled_mma_tv_layout_covers_tile(cta):
    mma, _ = cta
    tv = mma.get_layoutA_TV()
    vals = tv.offsets()
    # 128 threads x 8 values over a 32x16 A tile: the two warps along N hold the same A
    assert sorted(vals.tolist()) == sorted(list(range(32 * 16)) * 2)
    atom = mma.atom
    for v in range(8):
        m, k = atom.coord_A(0, v)
        assert tv(32, v) == (m + 16) + 32 * k      # warp 1 = (M=1, N=0): 16 rows down
        assert tv(64, v) == m + 32 * k             # warp 2 = (M=0, N=1): same A as warp 0


def test_make_tiled_copy_cp_async():
    cp = lk.make_tiled_copy(lk.copy_atom("SM80_CP_ASYNC_CACHEALWAYS", "f16"),
                            lk.parse_layout("(_16,_8):(_8,_1)"), lk.parse_layout("(_1,_8):(_8,_1)"))
    g = lk.make_tensor(None, lk.parse_layout("(_128,_64):(_64,_1)"))
    part = cp.get_slice(9).partition_S(g)
    # thread 9 of a (16,8) row-major thread grid: row 1, column block 1 -> 8 contiguous halves
    assert [part(v, 0, 0) for v in range(8)] == list(range(64 + 8, 64 + 16))


def test_tiled_errors(small):
    mma, sA, _ = small
    with pytest.raises(lk.LayoutError, match="thread index"):
        mma.get_slice(32)
    with pytest.raises(lk.LayoutError):
        lk.make_tiled_mma(ATOM, lk.make_layout((S(2), S(2))), (S(24), S(32), S(16)))
    bad = lk.make_tensor(None, lk.parse_layout("(_12,_16):(_16,_1)"))
    with pytest.raises(lk.LayoutError):
        mma.get_slice(0).partition_A(bad)
    with pytest.raises(lk.LayoutError, match="operand"):
        lk.trace_element("C", (0, 0))
    with pytest.raises(lk.LayoutError, match="outside"):
        lk.trace_element("A", (16, 0))


def test_tiled_mma_tv_layout_B_warps(cta):
    # warps are laid out (M,N) = (2,2) column-major: warp 1 = (M=1,N=0) shares warp 0's B,
    # warp 2 = (M=0,N=1) holds the next 8 columns of N
    mma, _ = cta
    tv = mma.get_layoutB_TV()
    atom = mma.atom
    for lane, v in itertools.product(range(32), range(4)):
        n, k = atom.coord_B(lane, v)
        assert tv(lane, v) == n + 32 * k
        assert tv(32 + lane, v) == n + 32 * k
        assert tv(64 + lane, v) == (n + 8) + 32 * k
        assert tv(96 + lane, v) == (n + 8) + 32 * k


def test_cta_copy_b_source_rows(cta):
    # thread 64 (warp 2, N=1) starts reading B at row 8 of the stage: offset 8 * 64 = 512
    mma, sA = cta
    plain = lk.make_tensor(None, sA.layout.layout_b)(lk._, lk._, 0)
    cp = lk.make_tiled_copy_B(lk.copy_atom("SM75_U32x4_LDSM_N", "f16"), mma)
    assert cp.get_slice(64).partition_S(plain)(0, 0, 0) == plain(8, 0) == 512
    assert cp.get_slice(32).partition_S(plain)(0, 0, 0) == cp.get_slice(0).partition_S(plain)(0, 0, 0)


@pytest.mark.parametrize("copy", ["SM75_U32x4_LDSM_N", "SM75_U32x2_LDSM_N", "SM75_U32x1_LDSM_N"])
def test_trace_every_a_element_any_ldmatrix(copy):
    # seed 000 section 2: lane = 4*(m%8) + (k%8)/2, v = k%2 + 2*(m/8) + 4*(k/8)
    mma = lk.make_tiled_mma(ATOM)
    for m, k in itertools.product(range(16), range(16)):
        p = lk.trace_element("A", (m, k), mma=mma, copy=copy)
        v = k % 2 + 2 * (m // 8) + 4 * (k // 8)
        assert (p.dst_thread, p.fragment_coord) == (4 * (m % 8) + (k % 8) // 2, (v, 0, 0))
        assert p.matrix_index == m + 16 * k and p.smem_offset == 16 * m + k
        assert (p.register, p.half) == (v // 2, ("low", "high")[v % 2])


@pytest.mark.parametrize("atom,copy", [(ATOM, "SM75_U32x2_LDSM_N"), (ATOM, "SM75_U32x1_LDSM_N"),
                                       ("SM80_16x8x8_F16F16F16F16_TN", "SM75_U32x1_LDSM_N")])
def test_trace_every_b_element(atom, copy):
    # B (n,k): lane = 4n + (k%8)/2, v = k%2 + 2*(k/8)
    mma = lk.make_tiled_mma(atom)
    K = int(mma.tile_size(2))
    for n, k in itertools.product(range(8), range(K)):
        p = lk.trace_element("B", (n, k), mma=mma, copy=copy)
        assert p.dst_thread == 4 * n + (k % 8) // 2
        assert p.fragment_coord == (k % 2 + 2 * (k // 8), 0, 0)
