"""Named-axis (Axe) layouts: the examples of the data-layout chapter, text round-trips, laws.

Expected values come from the chapter's definitions and worked numbers, from CuTe's atom
tables (CUTLASS ``include/cute/atom``), from a run on an H200, and from the number-format
specifications, written out here by hand.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import labkit as lk
from labkit.errors import LayoutError

# --------------------------------------------------------------------------------------
# Shape-stride model over m
# --------------------------------------------------------------------------------------


def test_row_major_4x4_is_dot_product_with_strides():
    L = lk.parse_axe("S[(4, 4) : (4, 1)]")
    assert str(L) == "S[(4,4):(4,1)]"
    for i in range(4):
        for j in range(4):
            assert L((i, j)) == [{"m": i * 4 + j}]


def test_torch_view_and_its_transpose():
    t = lk.parse_axe("S[(3,4):(4,1)]")
    tt = lk.parse_axe("S[(4,3):(1,4)]")
    # the contiguous tensor reads its storage in order: [0, 1, ..., 11]
    assert [c[0]["m"] for _, c in t.items()] == list(range(12))
    # tt[i, j] is the element t[j, i]
    for i in range(4):
        for j in range(3):
            assert tt((i, j)) == t((j, i))


def test_lexicographic_unflatten_differs_from_cute():
    L = lk.parse_axe("S[(2,3):(3,1)]")
    # Axe: index 1 -> digits (0, 1) -> 1; CuTe's (2,3):(3,1) reads 1 as (1, 0) -> 3
    assert L.coordinate(1) == (0, 1)
    assert L(1) == [{"m": 1}]
    assert [L(x)[0]["m"] for x in range(6)] == [0, 1, 2, 3, 4, 5]


def test_tiling_8x8_into_2x4_tiles():
    L = lk.axe_tiled_layout((8, 8), (2, 4))
    assert str(L) == "S[(4,2,2,4):(16,4,8,1)]"
    assert L == lk.parse_axe("S[(4, 2, 2, 4) : (16, 4, 8, 1)]")
    for i in range(8):
        for j in range(8):
            x = i * 8 + j
            c = (x // 16, (x // 8) % 2, (x // 4) % 2, x % 4)
            assert c == (i // 2, i % 2, j // 4, j % 4)
            assert L.coordinate(x) == c
            # tiles in row-major order (2 per tile row), 8 elements each, row-major inside
            tile = (i // 2) * 2 + j // 4
            assert L(x) == [{"m": tile * 8 + (i % 2) * 4 + j % 4}]
    assert L((3, 5), shape=(8, 8)) == [{"m": 29}]
    assert L.is_injective()


def test_axe_tiled_layout_rejects_tiles_that_do_not_divide():
    with pytest.raises(LayoutError, match="tile_shape"):
        lk.axe_tiled_layout((8, 8), (3, 4))
    with pytest.raises(LayoutError, match="matrix_shape"):
        lk.axe_tiled_layout(8, (2, 4))


# --------------------------------------------------------------------------------------
# Named axes: TMEM and register fragments
# --------------------------------------------------------------------------------------


def test_tmem_accumulator_128x256():
    acc = lk.tmem_accumulator_layout(128, 256)
    assert str(acc) == "S[(128,256):(1@TLane,1@TCol)]"
    assert acc == lk.parse_axe("S[(128,256):(1@TLane,1@TCol)]")
    t = acc.table(shape=(128, 256), replicas=False)
    rows, cols = np.meshgrid(np.arange(128), np.arange(256), indexing="ij")
    assert np.array_equal(t["TLane"], rows)
    assert np.array_equal(t["TCol"], cols)
    assert acc.span("TLane") == (0, 127) and acc.span("TCol") == (0, 255)
    assert acc.is_injective()
    assert acc.backward({"TLane": 5, "TCol": 7}) == [5 * 256 + 7]


def test_tmem_is_128_lanes_by_512_columns():
    assert lk.HARDWARE_AXES["TLane"] == 128 and lk.HARDWARE_AXES["TCol"] == 512
    lk.tmem_accumulator_layout(128, 512)
    with pytest.raises(LayoutError, match="TLane"):
        lk.tmem_accumulator_layout(129, 256)
    with pytest.raises(LayoutError, match="TCol"):
        lk.tmem_accumulator_layout(128, 513)
    with pytest.raises(LayoutError, match="TLane"):
        lk.parse_axe("S[(256,2):(1@TLane,1@TCol)]")


def test_explicit_m_tag_is_the_same_layout():
    tagged = lk.parse_axe("S[(8, 16) : (16@m, 1@m)]")
    assert str(tagged) == "S[(8,16):(16@m,1@m)]"
    assert tagged == lk.parse_axe("S[(8,16):(16,1)]")
    for row in range(8):
        for col in range(16):
            assert tagged((row, col)) == [{"m": row * 16 + col}]


def test_m8n8_fragment():
    frag = lk.m8n8_fragment_layout()
    assert str(frag) == "S[(8,4,2):(4@laneid,1@laneid,1@reg)]"
    assert frag == lk.parse_axe("S[(8, 4, 2) : (4@laneid, 1@laneid, 1@reg)]")
    # the chapter's click: cell 43 is (5, 3), held by lane 21 in slot 1
    assert frag.index((5, 3), shape=(8, 8)) == 43
    assert frag(43) == [{"laneid": 21, "reg": 1}]
    assert frag.backward({"laneid": 21, "reg": 1}) == [43]
    for row in range(8):
        for col in range(8):
            expected = {"laneid": row * 4 + col // 2, "reg": col % 2}
            assert frag((row, col), shape=(8, 8)) == [expected]
            assert frag.coordinate(row * 8 + col) == (row, col // 2, col % 2)
    # 64 elements over 32 lanes: two slots per lane
    for lane in range(32):
        assert len(frag.backward({"laneid": lane})) == 2
    assert frag.is_injective()


def test_m8n8_fragment_from_cute_tv_layout():
    # B of CuTe's SM80_16x8x8 atom: ((4,8),2):((16,1),8) over its (N,K) = (8,8) tile
    tv = _tv(((4, 8), 2), ((16, 1), 8))
    assert lk.axe_from_tv(tv, (8, 8)) == lk.m8n8_fragment_layout()


def test_sm80_16x8x16_a_fragment_lane0():
    tv = _tv(((4, 8), (2, 2, 2)), ((32, 1), (16, 8, 128)))
    F = lk.axe_from_tv(tv, (16, 16))
    # rows r = 8*(v//2 % 2) + t//4, columns c = 8*(v//4) + 2*(t%4) + v%2, read row-major
    assert str(F) == "S[(2,8,2,4,2):(2@reg,4@laneid,4@reg,1@laneid,1@reg)]"
    # measured on the H200: lane 0 holds these A elements, in value order
    lane0 = [(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9)]
    for v, (r, c) in enumerate(lane0):
        assert F((r, c), shape=(16, 16)) == [{"laneid": 0, "reg": v}]
    assert sorted(F.backward({"laneid": 0})) == sorted(r * 16 + c for r, c in lane0)
    assert F.is_injective()


def test_tv_layout_with_broadcast_threads_becomes_replicas():
    # CuTe's ldmatrix .x1 source layout (SM75_U32x1_LDSM_N, in bits): ((8,4),128):((128,0),1);
    # lanes t and t+8k read the same 128-bit row
    tv = _tv(((8, 4), 128), ((128, 0), 1))
    F = lk.axe_from_tv(tv)
    assert str(F) == "S[(8,128):(1@laneid,1@reg)] + R[4:8@laneid]"
    assert F(3 * 128 + 5) == [{"laneid": 3 + 8 * k, "reg": 5} for k in range(4)]


def test_tv_layout_spanning_warps_uses_warpid():
    # 64 threads, one value each, thread t holds element t (column-major (8,8) tile)
    tv = _tv((64, 1), (1, 0))
    F = lk.axe_from_tv(tv, (8, 8))
    for r in range(8):
        for c in range(8):
            t = r + 8 * c
            assert F((r, c), shape=(8, 8)) == [{"laneid": t % 32, "warpid": t // 32}]


def _tv(shape, stride):
    """A minimal CuTe-like object: only .shape and .stride are read."""

    class _Layout:
        pass

    obj = _Layout()
    obj.shape, obj.stride = shape, stride
    return obj


def _cute_leaves(shape, stride):
    if isinstance(shape, tuple):
        return [leaf for s, d in zip(shape, stride) for leaf in _cute_leaves(s, d)]
    return [(shape, stride)]


def _cute_eval(shape, stride, i):
    """CuTe's flat index -> offset: colexicographic, leftmost leaf fastest."""
    out = 0
    for e, d in _cute_leaves(shape, stride):
        out += (i % e) * d
        i //= e
    return out


@st.composite
def _random_tv(draw, extents=(1, 2, 3, 4), zeros=(2, 3)):
    """A random one-to-one TV layout (compact strides in random order), maybe with a broadcast
    (stride-0) thread mode."""
    ext = draw(st.lists(st.sampled_from(extents), min_size=2, max_size=6))
    order = draw(st.permutations(range(len(ext))))
    strides = [0] * len(ext)
    acc = 1
    for k in order:
        strides[k] = acc
        acc *= ext[k]
    cut = draw(st.integers(1, len(ext) - 1))
    zero = draw(st.lists(st.sampled_from(zeros), max_size=1))
    thr_shape = tuple(ext[:cut]) + tuple(zero)
    thr_stride = tuple(strides[:cut]) + (0,) * len(zero)
    return (thr_shape, tuple(ext[cut:])), (thr_stride, tuple(strides[cut:])), acc


def _holders(shape, stride):
    """Brute force over every (thread, value): element index -> set of (thread, value)."""
    threads = math.prod(e for e, _ in _cute_leaves(shape[0], stride[0]))
    values = math.prod(e for e, _ in _cute_leaves(shape[1], stride[1]))
    holders = {}
    for t in range(threads):
        for v in range(values):
            idx = _cute_eval(shape[0], stride[0], t) + _cute_eval(shape[1], stride[1], v)
            holders.setdefault(idx, set()).add((t, v))
    return holders


@settings(max_examples=150, deadline=None)
@given(_random_tv())
def test_axe_from_tv_is_the_inverse_of_the_tv_layout(tv):
    shape, stride, size = tv
    # free axis names: the random thread counts exceed a real warp
    F = lk.axe_from_tv(
        _tv(shape, stride), thread_axes=("thr", "w"), value_axis="v", warp_size=1 << 20
    )
    holders = _holders(shape, stride)
    assert F.size == size == len(holders)
    for idx, expected in holders.items():
        assert {(c.get("thr", 0), c.get("v", 0)) for c in F(idx)} == expected


@settings(max_examples=150, deadline=None)
@given(_random_tv(extents=(1, 2, 4), zeros=(2, 4)), st.sampled_from([2, 4, 8]), st.data())
def test_axe_from_tv_over_a_tile_splits_warps_and_rows(tv, warp, data):
    shape, stride, size = tv
    M = data.draw(st.sampled_from([d for d in (1, 2, 4, 8, 16, 32) if size % d == 0]))
    N = size // M
    F = lk.axe_from_tv(_tv(shape, stride), (M, N), thread_axes=("lane", "warp"), warp_size=warp)
    for idx, expected in _holders(shape, stride).items():
        r, c = idx % M, idx // M  # column-major element index of the (M, N) tile
        got = {(p.get("lane", 0) + warp * p.get("warp", 0), p.get("reg", 0))
               for p in F((r, c), shape=(M, N))}
        assert got == expected


def test_axe_from_tv_rejects_what_has_no_inverse():
    with pytest.raises(LayoutError, match="tv_layout"):
        lk.axe_from_tv(_tv((4, 2), (1, 1)))  # two (t, v) on one element
    with pytest.raises(LayoutError, match="two modes"):
        lk.axe_from_tv(_tv((4, 2, 2), (1, 4, 8)))
    with pytest.raises(LayoutError, match="tile_shape"):
        lk.axe_from_tv(_tv(((4, 8), 2), ((16, 1), 8)), (8, 4))
    with pytest.raises(LayoutError, match="tv_layout"):
        lk.axe_from_tv("((4,8),2):((16,1),8)")
    with pytest.raises(LayoutError, match="tv_layout"):
        lk.axe_from_tv(_tv((4, 2), 1))
    with pytest.raises(LayoutError, match="thread_axes"):
        lk.axe_from_tv(_tv((4, 2), (2, 1)), thread_axes=("laneid",))
    with pytest.raises(LayoutError, match="warp boundary"):
        lk.axe_from_tv(_tv((6, 1), (1, 0)), warp_size=4)  # 6 threads: lanes 0..3, then 2 more


# --------------------------------------------------------------------------------------
# CuTe layouts over m
# --------------------------------------------------------------------------------------


def test_axe_from_cute_reverses_a_flat_layout():
    A = lk.axe_from_cute(_tv((4, 8), (8, 1)))
    assert str(A) == "S[(8,4):(1,8)]"
    # CuTe (4,8):(8,1): index 1 = coordinate (1,0) -> 8; index 4 = (0,1) -> 1
    assert A(1) == [{"m": 8}] and A(4) == [{"m": 1}]


@st.composite
def _nested(draw, depth=2):
    if depth == 0 or draw(st.booleans()):
        return draw(st.integers(1, 4)), draw(st.integers(-5, 9))
    parts = draw(st.lists(_nested(depth=depth - 1), min_size=1, max_size=3))
    return tuple(p[0] for p in parts), tuple(p[1] for p in parts)


@settings(max_examples=150, deadline=None)
@given(_nested())
def test_axe_from_cute_matches_cute_index_for_index(layout):
    shape, stride = layout
    A = lk.axe_from_cute(_tv(shape, stride))
    size = math.prod(e for e, _ in _cute_leaves(shape, stride))
    assert A.size == size
    expected = [_cute_eval(shape, stride, i) for i in range(size)]
    assert [A(i)[0]["m"] for i in range(size)] == expected


@pytest.mark.skipif(not hasattr(lk, "make_layout"), reason="needs the layout engine")
@settings(max_examples=100, deadline=None)
@given(_nested())
def test_axe_from_cute_matches_the_layout_engine(layout):
    L = lk.make_layout(*layout)
    A = lk.axe_from_cute(L)
    assert [A(i)[0]["m"] for i in range(A.size)] == [L(i) for i in range(A.size)]


@pytest.mark.skipif(not hasattr(lk, "composition"), reason="needs the layout engine")
def test_axe_from_cute_refuses_a_swizzled_layout():
    sw = lk.composition(lk.Swizzle(3, 3, 3), lk.make_layout((8, 64), (64, 1)))
    with pytest.raises(LayoutError, match="swizzle"):
        lk.axe_from_cute(sw)


def test_axe_from_cute_refuses_non_layouts():
    with pytest.raises(LayoutError, match="layout"):
        lk.axe_from_cute((4, 8))
    with pytest.raises(LayoutError, match="layout"):
        lk.axe_from_cute(_tv((4, 8), (1,)))
    with pytest.raises(LayoutError, match="positive"):
        lk.axe_from_cute(_tv((0, 8), (1, 0)))


# --------------------------------------------------------------------------------------
# Replication: block-scale factors in TMEM
# --------------------------------------------------------------------------------------


def test_warpx4_text_form():
    T = lk.parse_axe("S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane]")
    assert str(T) == "S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane]"
    assert T.num_replicas == 4
    for lane in range(32):
        for col in range(4):
            assert T((lane, col)) == [{"TLane": lane + 32 * r, "TCol": col} for r in range(4)]


def test_nvfp4_sfa_in_tmem():
    sfa = lk.scale_factor_layout(mn=128, sf_k=4)
    assert sfa.size == 128 * 4  # 512 one-byte factors = 32 lanes x 16 bytes
    tlcb = ("TLane", "TCol", "byte")
    expected = [(0, 2, 2), (32, 2, 2), (64, 2, 2), (96, 2, 2)]
    assert sfa.forward((64, 2), shape=(128, 4), axes=tlcb) == expected
    # SFA[0,2], SFA[32,2], SFA[64,2], SFA[96,2]: local lane 0, TCol 0..3
    for g in range(4):
        assert sfa.forward((32 * g, 2), shape=(128, 4), axes=tlcb)[0] == (0, g, 2)
    for m in range(128):
        for sfk in range(4):
            expected = [(m % 32 + 32 * p, m // 32, sfk) for p in range(4)]
            assert sfa.forward((m, sfk), shape=(128, 4), axes=tlcb) == expected


def test_sfa_fills_each_lane_with_16_bytes_and_copies_do_not_collide():
    sfa = lk.scale_factor_layout(128, 4)
    assert sfa.is_injective(replicas=True)
    t = sfa.table(shape=(128, 4))
    for lane in range(128):
        assert len(sfa.backward({"TLane": lane})) == 16
        here = t["TLane"] == lane
        cells = {(int(c), int(b)) for c, b in zip(t["TCol"][here], t["byte"][here])}
        assert cells == {(c, b) for c in range(4) for b in range(4)}

    # every partition holds the same base tile
    def partition(p):
        lanes, cols, bytes_ = (t[a][..., p].ravel() for a in ("TLane", "TCol", "byte"))
        return {(int(l) - 32 * p, int(c), int(b)) for l, c, b in zip(lanes, cols, bytes_)}

    assert all(partition(p) == partition(0) for p in range(1, 4))
    assert len(partition(0)) == 512


def test_sfb_is_the_same_over_n():
    sfb = lk.scale_factor_layout(mn=128, sf_k=4)
    for n in (0, 31, 33, 127):
        for sfk in range(4):
            assert sfb.forward((n, sfk), shape=(128, 4), axes=("TLane", "TCol", "byte")) == [
                (n % 32 + 32 * p, n // 32, sfk) for p in range(4)
            ]


def test_scale_factor_layout_errors():
    with pytest.raises(LayoutError, match="mn"):
        lk.scale_factor_layout(100, 4)
    with pytest.raises(LayoutError, match="sf_k"):
        lk.scale_factor_layout(128, 8)
    with pytest.raises(LayoutError, match="TCol"):
        lk.scale_factor_layout(32 * 513, 4)


def test_schematic_ellipsis_is_not_a_layout():
    with pytest.raises(LayoutError, match="text"):
        lk.parse_axe("S[(32, …) : (1@TLane, …)] + R[4 : 32@TLane]")


# --------------------------------------------------------------------------------------
# Block-scaled formats and the block-scaled product
# --------------------------------------------------------------------------------------

E2M1_VALUES = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


def test_formats_as_parameters():
    assert (lk.NVFP4.data_type, lk.NVFP4.scale_type, lk.NVFP4.sf_vec) == ("e2m1", "ue4m3", 16)
    assert (lk.MXFP8.data_type, lk.MXFP8.scale_type, lk.MXFP8.sf_vec) == ("e4m3", "ue8m0", 32)
    assert lk.NVFP4.scale_blocks(64) == 4 and lk.MXFP8.scale_blocks(128) == 4
    with pytest.raises(LayoutError, match="k"):
        lk.NVFP4.scale_blocks(40)
    with pytest.raises(LayoutError, match="data_type"):
        lk.BlockScaledFormat("X", "e3m3", "ue8m0", 32)


def test_decode_e2m1_all_codes():
    expected = E2M1_VALUES + [-v for v in E2M1_VALUES]
    got = lk.decode_float(list(range(16)), "e2m1")
    assert got.tolist() == expected


def test_decode_fp8_and_scales():
    e4m3 = lk.decode_float([0x38, 0x7E, 0x01, 0x08, 0xB8], "e4m3")
    assert e4m3.tolist() == [1.0, 448.0, 2.0**-9, 2.0**-6, -1.0]
    assert np.isnan(lk.decode_float([0x7F], "e4m3")[0])
    e5m2 = lk.decode_float([0x3C, 0x7B, 0x01], "e5m2")
    assert e5m2.tolist() == [1.0, 57344.0, 2.0**-16]
    assert np.isinf(lk.decode_float([0x7C], "e5m2")[0])
    assert np.isnan(lk.decode_float([0x7D], "e5m2")[0])
    assert lk.decode_float([0, 127, 128, 254], "ue8m0").tolist() == [2.0**-127, 1.0, 2.0, 2.0**127]
    assert np.isnan(lk.decode_float([255], "ue8m0")[0])
    assert lk.decode_float([0x7E, 0x38], "ue4m3").tolist() == [448.0, 1.0]
    with pytest.raises(LayoutError, match="codes"):
        lk.decode_float([0x80], "ue4m3")
    with pytest.raises(LayoutError, match="codes"):
        lk.decode_float([1.5], "e2m1")
    with pytest.raises(LayoutError, match="kind"):
        lk.decode_float([1], "fp4")


def _reference_block_scaled(a, b, sfa, sfb, c, kblk):
    M, K = a.shape
    N = b.shape[1]
    d = c.copy()
    for m in range(M):
        for n in range(N):
            acc = 0.0
            for k in range(K):
                acc += (a[m, k] * sfa[m, k // kblk]) * (b[k, n] * sfb[n, k // kblk])
            d[m, n] += acc
    return d


@pytest.mark.parametrize("fmt_name, kblk, K", [("NVFP4", 16, 64), ("MXFP8", 32, 64)])
def test_block_scaled_product_matches_numpy(fmt_name, kblk, K):
    fmt = getattr(lk, fmt_name)
    rng = np.random.default_rng(7)
    M, N = 8, 6
    if fmt_name == "NVFP4":
        pool = np.array(E2M1_VALUES + [-v for v in E2M1_VALUES[1:]])
        scales = np.array([0.5, 1.0, 2.0, 4.0, 0.125, 1.5])  # E4M3 values
    else:
        pool = np.array([0.0, 1.0, -1.0, 1.125, 448.0, -3.5, 2.0**-9, 0.75])  # E4M3 values
        scales = 2.0 ** np.arange(-4, 5)  # E8M0 values: powers of two
    a = rng.choice(pool, (M, K))
    b = rng.choice(pool, (K, N))
    sfa = rng.choice(scales, (M, K // kblk))
    sfb = rng.choice(scales, (N, K // kblk))
    c = rng.standard_normal((M, N))
    got = lk.block_scaled_mma(a, b, sfa, sfb, c, fmt=fmt)
    expected = _reference_block_scaled(a, b, sfa, sfb, c, kblk)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-3)


def test_block_scaled_product_errors():
    a, b = np.ones((2, 32)), np.ones((32, 3))
    sfa, sfb = np.ones((2, 2)), np.ones((3, 2))
    with pytest.raises(LayoutError, match="k"):
        lk.block_scaled_mma(np.ones((2, 40)), np.ones((40, 3)), sfa, sfb)
    with pytest.raises(LayoutError, match="sfa"):
        lk.block_scaled_mma(a, b, np.ones((2, 3)), sfb)
    with pytest.raises(LayoutError, match="b"):
        lk.block_scaled_mma(a, np.ones((16, 3)), sfa, sfb)
    with pytest.raises(LayoutError, match="a"):
        lk.block_scaled_mma(a * 0.7, b, sfa, sfb)  # 0.7 is no E2M1 value
    with pytest.raises(LayoutError, match="sfa"):  # E8M0 is a power of two; 3 is not
        lk.block_scaled_mma(a, b, np.full((2, 1), 3.0), np.ones((3, 1)), fmt=lk.MXFP8)
    with pytest.raises(LayoutError, match="fmt"):
        lk.block_scaled_mma(a, b, sfa, sfb, fmt="NVFP4")


# --------------------------------------------------------------------------------------
# Replication and offset on a 2x2 GPU mesh
# --------------------------------------------------------------------------------------

XY_M = ("gpuid_x", "gpuid_y", "m")


def test_mesh_shard_plus_replica():
    L = lk.mesh_layout("replica")
    assert str(L) == "S[(2,4,8):(1@gpuid_y,8@m,1@m)] + R[2:1@gpuid_x]"
    assert L == lk.parse_axe("S[(2,4,8):(1@gpuid_y,8@m,1@m)] + R[2:1@gpuid_x]")
    got = L.forward((1, 2, 3), axes=XY_M)
    assert {(x, y) for x, y, _ in got} == {(0, 1), (1, 1)}
    assert {m for _, _, m in got} == {19}
    # every device holds the 32 elements of its gpuid_y half, at offsets 0..31
    for x in range(2):
        for y in range(2):
            held = L.backward({"gpuid_x": x, "gpuid_y": y})
            assert held == list(range(32 * y, 32 * y + 32))


def test_mesh_shard_plus_offset():
    L = lk.mesh_layout("offset")
    assert str(L) == "S[(2,4,8):(1@gpuid_y,8@m,1@m)] + O[1@gpuid_x]"
    assert L.forward((1, 2, 3), axes=XY_M) == [(1, 1, 19)]
    assert L.backward({"gpuid_x": 0}) == []
    assert L.backward({"gpuid_x": 1, "gpuid_y": 0}) == list(range(32))


def test_mesh_fully_sharded():
    L = lk.mesh_layout("sharded")
    assert str(L) == "S[(2,4,2,4):(1@gpuid_y,4@m,1@gpuid_x,1@m)]"
    assert L.is_injective()
    for i in range(8):
        for j in range(8):
            # row half on gpuid_y, column half on gpuid_x, a row-major 4x4 block per device
            expected = {"gpuid_y": i // 4, "m": (i % 4) * 4 + j % 4, "gpuid_x": j // 4}
            assert L((i, j), shape=(8, 8)) == [expected]
    for x in range(2):
        for y in range(2):
            assert len(L.backward({"gpuid_x": x, "gpuid_y": y})) == 16


def test_mesh_mode_error():
    with pytest.raises(LayoutError, match="mode"):
        lk.mesh_layout("diagonal")


def test_with_replica_and_with_offset_build_the_mesh_modes():
    base = lk.parse_axe("S[(2,4,8):(1@gpuid_y,8@m,1@m)]")
    assert base.with_replica((2, 1, "gpuid_x")) == lk.mesh_layout("replica")
    assert base.with_offset({"gpuid_x": 1}) == lk.mesh_layout("offset")
    assert base.with_offset({"gpuid_x": 1}).with_offset({"gpuid_x": 2}).O == {"gpuid_x": 3}


# --------------------------------------------------------------------------------------
# Text round-trips
# --------------------------------------------------------------------------------------

CHAPTER_TEXTS = [
    "S[(4,4):(4,1)]",
    "S[(4,2,2,4):(16,4,8,1)]",
    "S[(128,256):(1@TLane,1@TCol)]",
    "S[(8,16):(16@m,1@m)]",
    "S[(8,4,2):(4@laneid,1@laneid,1@reg)]",
    "S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane]",
    "S[(2,4,8):(1@gpuid_y,8@m,1@m)] + R[2:1@gpuid_x]",
    "S[(2,4,8):(1@gpuid_y,8@m,1@m)] + O[1@gpuid_x]",
    "S[(2,4,8):(1@gpuid_y,8,1)] + R[(2,2):(1@gpuid_x,16)] + O[(1@gpuid_z,3)]",
    "S[8:-1]",
]


@pytest.mark.parametrize("text", CHAPTER_TEXTS)
def test_text_round_trip(text):
    L = lk.parse_axe(text)
    assert str(L) == text
    assert lk.parse_axe(str(L)) == L
    assert repr(L) == f"AxeLayout({text!r})"
    assert lk.AxeLayout(text) == L


def test_spaces_and_single_parenthesised_iters_are_read():
    assert str(lk.parse_axe(" S[ (4) : (1) ]+R[ 2 : 4@bank ] ")) == "S[4:1] + R[2:4@bank]"


_AXES = st.sampled_from(["m", "a", "gpuid_x", "byte", "reg"])
_ITER = st.builds(
    lambda e, s, a, t: lk.AxeIter(e, s, a, tagged=t),
    st.integers(1, 5), st.integers(-6, 6), _AXES, st.booleans(),
)
_LANE_ITER = st.builds(
    lambda e, s: lk.AxeIter(e, s, "laneid"), st.integers(1, 4), st.integers(0, 2)
)


@st.composite
def _layouts(draw):
    D = draw(st.lists(st.one_of(_ITER, _LANE_ITER), min_size=1, max_size=4))
    R = draw(st.lists(_ITER, max_size=2))
    O = draw(st.dictionaries(_AXES, st.integers(-9, 9), max_size=2))
    return lk.AxeLayout(D, R, O)


@settings(max_examples=200, deadline=None)
@given(_layouts())
def test_print_parse_round_trip(L):
    text = str(L)
    again = lk.parse_axe(text)
    assert again == L
    assert str(again) == text


@settings(max_examples=150, deadline=None)
@given(_layouts(), st.data())
def test_forward_backward_and_table_agree(L, data):
    x = data.draw(st.integers(0, L.size - 1))
    coords = L(x)
    assert len(coords) == L.num_replicas
    for c in coords:
        assert x in L.backward(c)
    for c in coords:
        for y in L.backward(c):
            assert c in L(y)
    t = L.table()
    for r, c in enumerate(coords):
        assert {a: int(t[a][x, r]) for a in L.axes} == c
    assert L.index(L.coordinate(x)) == x
    # the definition: lexicographic digits dotted with the strides, per axis
    digits, rest = [], x
    for it in reversed(L.D):
        digits.append(rest % it.extent)
        rest //= it.extent
    digits.reverse()
    base = {a: L.O.get(a, 0) for a in L.axes}
    for d, it in zip(digits, L.D):
        base[it.axis] += d * it.stride
    assert coords[0] == base


def test_injectivity():
    assert not lk.parse_axe("S[(4,8):(0,1)]").is_injective()
    assert not lk.parse_axe("S[(2,2):(1,1)]").is_injective()
    collide = lk.parse_axe("S[4:1@laneid] + R[2:2@laneid]")
    assert collide.is_injective() and not collide.is_injective(replicas=True)


def test_items_len_and_structure():
    L = lk.parse_axe("S[(2,3):(1@bank,2@bank)] + R[2:1@w] + O[5@w]")
    assert len(L) == L.size == 6 and L.shape == (2, 3)
    assert L.replica_shape == (2,) and L.num_replicas == 2
    assert L.axes == ("bank", "w") and L.O == {"w": 5}
    assert [x for x, _ in L.items()] == list(range(6))
    assert L.D[1] == lk.AxeIter(3, 2, "bank") and L.R == (lk.AxeIter(2, 1, "w"),)
    assert L.span("w") == (5, 6)


# --------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------

BAD_TEXTS = [
    "",
    "S",
    "S[",
    "S[(4,2):(1)]",
    "S[(4,2):(1,2,3)]",
    "S[(0,2):(1,1)]",
    "S[-1:1]",
    "S[4:1@]",
    "S[4:1@9x]",
    "S[4.5:1]",
    "S[4:1] + X[2:1]",
    "S[4:1] + R[2:1] + R[2:1]",
    "S[4:1] + O[(1@a,2@a)]",
    "S[4:1] R[2:1]",
    "S[4:1] +",
    "S[(4,2:(1,2)]",
    "R[2:1]",
    "S[]",
    "S[4:1] + R[]",
]


@pytest.mark.parametrize("text", BAD_TEXTS)
def test_malformed_text(text):
    with pytest.raises(LayoutError, match="text"):
        lk.parse_axe(text)


@pytest.mark.parametrize("value", [None, 42, b"S[4:1]", ["S[4:1]"]])
def test_parse_needs_a_string(value):
    with pytest.raises(LayoutError, match="text"):
        lk.parse_axe(value)


def test_logical_index_errors():
    frag = lk.m8n8_fragment_layout()
    for bad in (64, -1):
        with pytest.raises(LayoutError, match="x"):
            frag(bad)
    with pytest.raises(LayoutError, match="integer"):
        frag("3")
    with pytest.raises(LayoutError, match="integer"):
        frag(True)
    with pytest.raises(LayoutError, match="entries"):
        frag((1, 2))
    with pytest.raises(LayoutError, match="x"):
        frag((8, 0, 0))
    with pytest.raises(LayoutError, match="shape"):
        frag((1, 2), shape=(8, 7))
    with pytest.raises(LayoutError, match="axes"):
        frag.forward(0, axes=("laneid", "TLane"))
    with pytest.raises(LayoutError, match="axes"):
        frag.forward(0, axes="laneid")


def test_physical_coordinate_errors():
    frag = lk.m8n8_fragment_layout()
    with pytest.raises(LayoutError, match=r"laneid=32 .*32 positions"):
        frag.backward({"laneid": 32})
    with pytest.raises(LayoutError, match="not an axis"):
        frag.backward({"TLane": 0})
    with pytest.raises(LayoutError, match="coord"):
        frag.backward([("laneid", 0)])
    with pytest.raises(LayoutError, match="integer"):
        frag.backward({"laneid": 1.0})
    with pytest.raises(LayoutError, match="not an axis"):
        frag.span("m")


def test_construction_errors():
    with pytest.raises(LayoutError, match="extent"):
        lk.AxeIter(0, 1)
    with pytest.raises(LayoutError, match="extent"):
        lk.AxeIter(-2, 1)
    with pytest.raises(LayoutError, match="stride"):
        lk.AxeIter(2, 1.5)
    with pytest.raises(LayoutError, match="axis"):
        lk.AxeIter(2, 1, "1x")
    with pytest.raises(LayoutError, match="D"):
        lk.AxeLayout([])
    with pytest.raises(LayoutError, match="D"):
        lk.AxeLayout([(2, 1, "m", "extra")])
    with pytest.raises(LayoutError, match="O"):
        lk.AxeLayout([(2, 1)], O=[("m", 1)])
    with pytest.raises(LayoutError, match="D"):
        lk.AxeLayout("S[4:1]", R=[(2, 1)])
    with pytest.raises(LayoutError, match="laneid"):
        lk.AxeLayout([(4, 1, "laneid")], R=[(2, 30, "laneid")], O={"laneid": 1})  # reaches 34
    with pytest.raises(LayoutError, match="laneid"):
        lk.AxeLayout([(4, -1, "laneid")])
    assert issubclass(LayoutError, ValueError)
