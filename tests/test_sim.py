"""labkit.sim: the numpy warp model, checked against seed 000, FACTS.md, the PTX ISA and labkit.atoms.

Expected values come from those sources (and from numpy arithmetic), never from labkit.sim itself.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import labkit as lk
from labkit import lab, sim
from labkit.errors import DeviceError, LayoutError

LANES = np.arange(32)
MMA_ATOMS = [
    "SM80_16x8x16_F16F16F16F16_TN", "SM80_16x8x16_F32F16F16F32_TN", "SM80_16x8x16_F32BF16BF16F32_TN",
    "SM80_16x8x8_F16F16F16F16_TN", "SM80_16x8x8_F32F16F16F32_TN", "SM75_16x8x8_F32F16F16F32_TN",
    "SM80_16x8x8_F32TF32TF32F32_TN", "SM80_16x8x32_S32S8S8S32_TN",
]


def smem_with_offsets(count=256):
    s = sim.SharedMemory(2 * count)
    s.fill(0, np.arange(count, dtype=np.uint16))   # element i holds i
    return s


def halves(regs):
    return sim.unpack_pairs(regs)


# ---------------------------------------------------------------------------------------------
# ldmatrix


def test_ldmatrix_x4_lane0_matches_seed_000_table():
    # seed 000 section 2: lane 0 holds offsets 0,1 | 128,129 | 8,9 | 136,137 of sA (16,16):(16,1)
    s = smem_with_offsets()
    regs = sim.ldmatrix(s, 2 * ((LANES % 16) * 16 + (LANES // 16) * 8), num=4)
    assert halves(regs)[0].tolist() == [0, 1, 128, 129, 8, 9, 136, 137]


def test_ldmatrix_x4_every_lane_follows_seed_000_formula():
    # seed 000: m = t1 + 8 v1, k = 2 t0 + v0 + 8 v2 with t = t0 + 4 t1, v = v0 + 2 v1 + 4 v2
    s = smem_with_offsets()
    h = halves(sim.ldmatrix(s, 2 * ((LANES % 16) * 16 + (LANES // 16) * 8), num=4))
    for t in range(32):
        for v in range(8):
            m = t // 4 + 8 * ((v // 2) % 2)
            k = 2 * (t % 4) + v % 2 + 8 * (v // 4)
            assert h[t, v] == 16 * m + k


@pytest.mark.parametrize("num, atom", [(1, "SM75_U16x2_LDSM_T"), (2, "SM75_U16x4_LDSM_T"), (4, "SM75_U16x8_LDSM_T")])
def test_ldmatrix_trans_matches_facts_dst_layout(num, atom):
    # FACTS.md: DstLayout (bits) of the .trans atoms; SrcLayout: lane s supplies row s (128 bits);
    # element bit b of dst (t, v) is source bit D(t, v) = 128 * row + 16 * element.
    dst_bits = {
        1: "((4,8),(16,2)):((256,16),(1,128))",
        2: "((4,8),(16,2,2)):((256,16),(1,128,1024))",
        4: "((4,8),(16,2,4)):((256,16),(1,128,1024))",
    }[num]
    D = lk.parse_layout(dst_bits)
    s = sim.SharedMemory(4096)
    rows = np.random.default_rng(1).permutation(256)[:32]     # lane L -> row rows[L] of 16 bytes
    data = np.random.default_rng(2).integers(0, 1 << 16, 2048, dtype=np.uint16)
    s.fill(0, data)
    regs = sim.ldmatrix(s, 16 * rows, num=num, trans=True)
    got = halves(regs)
    for t in range(32):
        for v in range(2 * num):
            bit = int(D(t, 16 * v))        # value v = 16-bit element v: its lowest bit
            row, elem = bit // 128, (bit % 128) // 16
            assert got[t, v] == data[8 * rows[row] + elem], (atom, t, v)


@pytest.mark.parametrize("num", [1, 2, 4])
def test_ldmatrix_non_trans_matches_facts_dst_layout(num):
    # FACTS.md recast to 16-bit elements: x1 dst (32,2):(2,1); x2 (32,(2,2)):(2,(1,64)); x4 (32,(2,4)):(2,(1,64));
    # src: lane s, element j -> 8 s + j (row s of matrix s // 8)
    dst = {1: "(32,2):(2,1)", 2: "(32,(2,2)):(2,(1,64))", 4: "(32,(2,4)):(2,(1,64))"}[num]
    D = lk.parse_layout(dst)
    s = sim.SharedMemory(4096)
    rows = np.random.default_rng(3).permutation(256)[:32]
    data = np.random.default_rng(4).integers(0, 1 << 16, 2048, dtype=np.uint16)
    s.fill(0, data)
    got = halves(sim.ldmatrix(s, 16 * rows, num=num))
    for t in range(32):
        for v in range(2 * num):
            e = int(D(t, v))
            assert got[t, v] == data[8 * rows[e // 8] + e % 8]


def test_ldmatrix_x1_and_x2_ignore_the_upper_lanes():
    # PTX ISA: .x1 uses the addresses of threads 0-7, .x2 of threads 0-15
    s = smem_with_offsets(1024)
    base = 16 * LANES
    other = base.copy()
    other[8:] = 16 * (40 + LANES[8:])
    assert np.array_equal(sim.ldmatrix(s, base, num=1), sim.ldmatrix(s, other, num=1))
    other2 = base.copy()
    other2[16:] = 16 * (40 + LANES[16:])
    assert np.array_equal(sim.ldmatrix(s, base, num=2), sim.ldmatrix(s, other2, num=2))


def test_ldmatrix_rejects_misaligned_and_out_of_range_addresses():
    s = smem_with_offsets()
    with pytest.raises(DeviceError, match="aligned to 16"):
        sim.ldmatrix(s, 16 * LANES + 4, num=4)
    with pytest.raises(DeviceError, match="inside"):
        sim.ldmatrix(s, 16 * LANES + 4096, num=4)
    with pytest.raises(DeviceError, match="num"):
        sim.ldmatrix(s, 16 * LANES, num=3)
    with pytest.raises(DeviceError, match="32 lanes"):
        sim.ldmatrix(s, 16 * LANES[:16], num=1)


def test_ldmatrix_conflicts_are_accounted():
    # rows 128 bytes apart all start in bank 0: 8-way per matrix; 16 bytes apart: conflict-free
    s = sim.SharedMemory(8192)
    sim.ldmatrix(s, 128 * LANES, num=4)
    sim.ldmatrix(s, 16 * LANES, num=4)
    bad, good = s.log[-2], s.log[-1]
    assert (bad.degree, bad.wavefronts, bad.min_wavefronts) == (8, 32, 4)
    assert (good.degree, good.wavefronts) == (1, 4)
    assert bad.op == "ldmatrix.sync.aligned.m8n8.x4.shared.b16"


def test_ldmatrix_batches_many_warps():
    s = smem_with_offsets(1024)
    addrs = np.stack([16 * LANES, 16 * ((LANES + 5) % 64)])
    batch = sim.ldmatrix(s, addrs, num=2)
    assert batch.shape == (2, 32, 2)
    for w in range(2):
        assert np.array_equal(batch[w], sim.ldmatrix(s, addrs[w], num=2))


# ---------------------------------------------------------------------------------------------
# mma.sync


@pytest.mark.parametrize("atom", MMA_ATOMS + ["SM80_16x8x8_F32BF16BF16F32_TN"])
@pytest.mark.parametrize("operand", ["A", "B", "C"])
def test_fragment_coords_agree_with_the_cute_atoms(atom, operand):
    # labkit.sim is written from the PTX ISA, labkit.atoms from CuTe's traits: they must agree
    spec = sim.mma_spec(atom)
    a = lk.mma_atom(atom)
    layout = {"A": a.layout_A, "B": a.layout_B, "C": a.layout_C}[operand]
    rows = {"A": spec.m, "B": spec.n, "C": spec.m}[operand]
    coords = sim.fragment_coords(spec, operand)
    for t in range(32):
        for v in range(coords.shape[1]):
            idx = int(layout(t, v))
            assert (idx % rows, idx // rows) == tuple(coords[t, v])


def test_b_and_c_fragments_match_seed_and_facts():
    spec = sim.mma_spec("SM80_16x8x16_F16F16F16F16_TN")
    b = sim.fragment_coords(spec, "B")
    c = sim.fragment_coords(spec, "C")
    for t in range(32):
        for v in range(4):
            # seed 000 (B): n = t//4, k = 2*(t%4) + v%2 + 8*(v//2); FACTS (C): row t//4 + 8*(v//2), col 2*(t%4) + v%2
            assert tuple(b[t, v]) == (t // 4, 2 * (t % 4) + v % 2 + 8 * (v // 2))
            assert tuple(c[t, v]) == (t // 4 + 8 * (v // 2), 2 * (t % 4) + v % 2)


@pytest.mark.parametrize("atom", MMA_ATOMS)
def test_mma_on_small_integers_is_exact(atom):
    rng = np.random.default_rng(5)
    spec = sim.mma_spec(atom)
    m, n, k = spec.shape_mnk
    A, B, C = rng.integers(-3, 4, (m, k)), rng.integers(-3, 4, (n, k)), rng.integers(-9, 10, (m, n))
    d = sim.mma_sync(spec, sim.pack_fragment(spec, "A", A), sim.pack_fragment(spec, "B", B),
                     sim.pack_fragment(spec, "C", C))
    assert np.array_equal(sim.unpack_fragment(spec, "D", d), A @ B.T + C)


def test_mma_f16_accumulator_rounds_to_nearest_even_once():
    # 2048 + 1 = 2049 is halfway between the f16 neighbours 2048 and 2050: nearest even is 2048;
    # with an f32 accumulator 2049 is exact.
    A = np.zeros((16, 16)); A[0, 0], A[0, 1] = 2048, 1
    B = np.zeros((8, 16)); B[0, 0], B[0, 1] = 1, 1
    for atom, want in (("SM80_16x8x16_F16F16F16F16_TN", 2048.0), ("SM80_16x8x16_F32F16F16F32_TN", 2049.0)):
        spec = sim.mma_spec(atom)
        d = sim.mma_sync(spec, sim.pack_fragment(spec, "A", A), sim.pack_fragment(spec, "B", B),
                         sim.pack_fragment(spec, "C", np.zeros((16, 8))))
        assert sim.unpack_fragment(spec, "D", d)[0, 0] == want


def test_s8_mma_is_exact_over_the_whole_range_and_wraps_in_s32():
    # PTX ISA, mma .s32.s8.s8.s32: products and sums in integers; without .satfinite the s32 sum wraps
    spec = sim.mma_spec("SM80_16x8x32_S32S8S8S32_TN")
    rng = np.random.default_rng(8)
    A, B = rng.integers(-128, 128, (16, 32)), rng.integers(-128, 128, (8, 32))
    C = rng.integers(-2**31, 2**31, (16, 8))
    d = sim.mma_sync(spec, sim.pack_fragment(spec, "A", A), sim.pack_fragment(spec, "B", B),
                     sim.pack_fragment(spec, "C", C))
    want = (A @ B.T + C + 2**31) % 2**32 - 2**31
    assert np.array_equal(sim.unpack_fragment(spec, "D", d), want)
    assert sim.pack_fragment(spec, "A", A).dtype == np.uint32                  # four s8 to a register
    with pytest.raises(LayoutError, match="s8 must be integers"):
        sim.pack_fragment(spec, "A", A + 0.5)


def test_tf32_operands_round_like_cvt_rna():
    # tf32 keeps 10 mantissa bits; 1 + 2**-11 is a tie and rounds away from zero to 1 + 2**-10
    spec = sim.mma_spec("SM80_16x8x8_F32TF32TF32F32_TN")
    A = np.zeros((16, 8)); A[0, 0] = 1 + 2**-11
    B = np.zeros((8, 8)); B[0, 0] = 1
    d = sim.mma_sync(spec, sim.pack_fragment(spec, "A", A), sim.pack_fragment(spec, "B", B),
                     sim.pack_fragment(spec, "C", np.zeros((16, 8))))
    assert sim.unpack_fragment(spec, "D", d)[0, 0] == 1 + 2**-10


def test_bf16_rounding_follows_ieee_round_to_nearest_even():
    # bf16 keeps 8 significant bits: 257 is halfway between 256 and 258 -> 256; 259 -> 260
    assert sim.from_bits(sim.to_bits([257.0, 259.0, 1.0], "bf16"), "bf16").tolist() == [256.0, 260.0, 1.0]
    assert sim.to_bits([1.0], "bf16").tolist() == [0x3F80]


def test_mma_batches_broadcast():
    spec = sim.mma_spec("SM80_16x8x8_F32F16F16F32_TN")
    rng = np.random.default_rng(6)
    A = rng.integers(-2, 3, (3, 1, 16, 8))
    B = rng.integers(-2, 3, (1, 4, 8, 8))
    d = sim.mma_sync(spec, sim.pack_fragment(spec, "A", A), sim.pack_fragment(spec, "B", B),
                     sim.pack_fragment(spec, "C", np.zeros((16, 8))))
    assert d.shape == (3, 4, 32, 4)
    assert np.array_equal(sim.unpack_fragment(spec, "C", d), A @ np.swapaxes(B, -1, -2))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_pack_then_unpack_fragment_is_the_identity(seed):
    rng = np.random.default_rng(seed)
    spec = sim.mma_spec("SM80_16x8x16_F32BF16BF16F32_TN")
    A = sim.from_bits(sim.to_bits(rng.standard_normal((16, 16)), "bf16"), "bf16")
    assert np.array_equal(sim.unpack_fragment(spec, "A", sim.pack_fragment(spec, "A", A)), A)


def test_mma_rejects_unknown_names_and_bad_shapes():
    with pytest.raises(DeviceError, match="no mma instruction named"):
        sim.mma_spec("SM80_16x8x32_S32U8U8S32_TN")
    spec = sim.mma_spec("SM80_16x8x16_F16F16F16F16_TN")
    with pytest.raises(DeviceError, match="shape"):
        sim.pack_fragment(spec, "A", np.zeros((16, 8)))
    with pytest.raises(DeviceError, match="operand"):
        sim.fragment_coords(spec, "E")


# ---------------------------------------------------------------------------------------------
# cp.async


def test_cp_async_groups_land_at_wait_group():
    s = sim.SharedMemory(2048)
    q = sim.CpAsync(s)
    src = np.arange(1024, dtype=np.uint16)
    q.copy(16 * LANES, src, 16 * LANES)
    q.commit_group()
    q.copy(512 + 16 * LANES, src, 512 + 16 * LANES)
    q.commit_group()
    assert s.read(0, 8).tolist() == [0] * 8 and q.pending == 2
    q.wait_group(1)                          # PTX: at most 1 (the newest) group still pending
    assert s.read(0, 8).tolist() == list(range(8)) and s.read(512, 1).tolist() == [0]
    q.wait_all()
    assert np.array_equal(s.read(0, 512), src[:512]) and q.pending == 0


def test_cp_async_checks_alignment_and_counts_phases():
    s = sim.SharedMemory(1024)
    q = sim.CpAsync(s)
    with pytest.raises(DeviceError, match="aligned to 16"):
        q.copy(16 * LANES + 8, np.zeros(512, np.uint16), 16 * LANES)
    with pytest.raises(DeviceError, match="16-byte aligned"):
        q.copy(16 * LANES, np.zeros(512, np.uint16), 16 * LANES + 2)
    q.copy(16 * LANES, np.zeros(512, np.uint16), 16 * LANES)
    # 32 lanes x 16 bytes = 512 bytes: 4 phases of 8 lanes, conflict-free
    assert (s.log[-1].wavefronts, s.log[-1].degree) == (4, 1)


# ---------------------------------------------------------------------------------------------
# the lab on the numpy backend


def test_trace_mma_default_reads_as_coordinates():
    t = lab.trace_mma(backend="sim")
    assert t.atom == "SM80_16x8x16_F16F16F16F16_TN" and t.backend == "sim"
    # seed 000: A(0,9) sits in lane 0, slot 5
    assert t.coords("A")[0, 5].tolist() == [0, 9]
    assert np.array_equal(t.matrix("A"), t.a) and np.array_equal(t.matrix("B"), t.b)
    assert np.allclose(t.matrix("D"), t.a @ t.b.T, rtol=1e-3)


def test_trace_mma_of_the_tf32_and_int8_atoms():
    # tf32: the default inputs 16 m + k are exact; PTX ISA m16n8k8 .tf32: lane 1 holds
    # A(0, 1), A(8, 1), A(0, 5), A(8, 5)
    t = lab.trace_mma("SM80_16x8x8_F32TF32TF32F32_TN", backend="sim")
    assert t.coords("A")[1].tolist() == [[0, 1], [8, 1], [0, 5], [8, 5]]
    assert np.array_equal(t.matrix("D"), t.a @ t.b.T)
    # int8: 16 m + k wrapped into -128..127; the s32 product is exact
    t = lab.trace_mma("SM80_16x8x32_S32S8S8S32_TN", backend="sim")
    assert t.a.min() >= -128 and t.a.max() <= 127 and t.values("A").shape == (32, 16)
    assert np.array_equal(t.matrix("D"), t.a @ t.b.T)
    with pytest.raises(DeviceError, match="cannot hold every coordinate"):
        t.coords("A")
    with pytest.raises(DeviceError, match="16-bit elements only|without .trans"):
        lab.trace_mma("SM80_16x8x32_S32S8S8S32_TN", "x4.trans", backend="sim")


@pytest.mark.parametrize("variant", ["x1", "x2", "x4", "x1.trans", "x2.trans", "x4.trans"])
@pytest.mark.parametrize("b_variant", ["x1", "x2", "x1.trans", "x2.trans"])
def test_every_ldmatrix_variant_fills_the_same_fragment(variant, b_variant):
    t = lab.trace_mma("SM80_16x8x16_F32F16F16F32_TN", variant, b_variant, backend="sim")
    ref = lab.trace_mma("SM80_16x8x16_F32F16F16F32_TN", backend="sim")
    for stage in "ABD":
        assert np.array_equal(t.regs[stage], ref.regs[stage])


def test_trace_mma_refuses_loads_wider_than_the_operand():
    # one MMA's B has 2 registers (k16) or 1 (k8): ldmatrix.x4 cannot fill it
    with pytest.raises(DeviceError, match="not divisible"):
        lab.trace_mma("SM80_16x8x16_F16F16F16F16_TN", b_variant="x4", backend="sim")
    with pytest.raises(DeviceError, match="not divisible"):
        lab.trace_mma("SM75_16x8x8_F32F16F16F32_TN", variant="x4", backend="sim")
    with pytest.raises(DeviceError, match="variant"):
        lab.trace_mma(variant="x3", backend="sim")
    with pytest.raises(DeviceError, match="shape"):
        lab.trace_mma(a=np.zeros((8, 8)), backend="sim")
    with pytest.raises(DeviceError, match="backend"):
        lab.trace_mma(backend="tpu")


def test_default_atom_on_turing_is_m16n8k8():
    assert lab.default_atom(75) == "SM75_16x8x8_F32F16F16F32_TN"
    assert lab.default_atom(80) == "SM80_16x8x16_F16F16F16F16_TN"
    with pytest.raises(DeviceError, match="sm_75"):
        lab.default_atom(70)


def test_cta_plan_thread0_partition_matches_seed_000():
    # seed 000 / FACTS: thread 0's tCsA = ((_2,_2,_2),_4,(_2,_2)):((_1,_512,72),_2048,(144,288));
    # lane 0 starts A fragment i of k-block kb at 2048 i + {0, 144, 288, 144+288}[kb];
    # lane 16 (k + 8) at 72; lane 8 (m + 8) at 512.
    from labkit.cuda.kernels.probes.trace_kernels import cta_plan

    p = cta_plan()
    for kb, koff in enumerate([0, 144, 288, 432]):
        for i in range(4):
            assert p.a_offsets[kb, 0, i, 0] == 2048 * i + koff
    assert p.a_offsets[0, 0, 0, 16] == 72 and p.a_offsets[0, 0, 0, 8] == 512


def test_trace_cta_on_sim_matches_numpy_and_is_conflict_free():
    t = lab.trace_cta(backend="sim")
    assert t.k_blocks == 4
    assert np.array_equal(t.d(), t.a @ t.b.T)
    assert np.array_equal(t.d(0), t.a[:, :16] @ t.b[:, :16].T)
    c = t.conflicts()
    # seed 000: per warp and k-block 4 + 4 ldmatrix.x4; Swizzle<3,3,3> keeps them conflict-free
    n, wave, ideal, degree = c["ldmatrix.sync.aligned.m8n8.x4.shared.b16"]
    assert (n, wave, ideal, degree) == (4 * 4 * 8, 4 * 4 * 8 * 4, 4 * 4 * 8 * 4, 1)
    n, wave, ideal, degree = c["cp.async.ca.shared.global"]
    assert degree == 1 and n == 64
    # 32 mma.sync per warp and k-block: 4 (M) x 8 (N) accumulator fragments
    assert t.regs["D"].shape == (4, 4, 4, 8, 32, 2)


def test_warp_named_registers():
    s = sim.SharedMemory(512)
    s.fill(0, np.arange(256, dtype=np.float16))
    w = sim.Warp(s, index=3)
    w.ldmatrix("a", 2 * ((LANES % 16) * 16 + (LANES // 16) * 8), num=4)
    assert w.halves("a")[1].tolist() == [2, 3, 130, 131, 10, 11, 138, 139]
    assert s.log[-1].warp == 3
    with pytest.raises(DeviceError, match="no registers named"):
        w.halves("b")


def test_shared_memory_rejects_bad_sizes_and_accesses():
    with pytest.raises(DeviceError, match="positive"):
        sim.SharedMemory(0)
    s = sim.SharedMemory(64)
    with pytest.raises(DeviceError, match="fit"):
        s.fill(60, np.zeros(4, np.uint16))
    with pytest.raises(DeviceError, match="access_bytes"):
        s.store(np.zeros(32, np.int64), np.zeros(32, np.uint32), access_bytes=3)
