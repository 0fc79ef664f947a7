"""MMA and copy atoms against the PTX ISA's fragment formulas, seed 000 and CuTe's traits."""

import itertools

import numpy as np
import pytest

import labkit as lk

F16_16816 = ["SM80_16x8x16_F16F16F16F16_TN", "SM80_16x8x16_F32F16F16F32_TN",
             "SM80_16x8x16_F32BF16BF16F32_TN"]
F16_1688 = ["SM80_16x8x8_F16F16F16F16_TN", "SM80_16x8x8_F32F16F16F32_TN",
            "SM75_16x8x8_F32F16F16F32_TN"]


# --- PTX ISA "Matrix Fragments for mma.m16n8k16 / m16n8k8" (f16/bf16), written out directly:
#     groupID = lane >> 2, threadID_in_group = lane % 4
def ptx_a_16816(lane, i):   # a0..a7 halves
    g, t = lane >> 2, lane % 4
    row = g if i in (0, 1, 4, 5) else g + 8
    col = t * 2 + (i & 1) + (8 if i >= 4 else 0)
    return row, col


def ptx_b_16816(lane, i):   # b0..b3 halves, (k, n) in the ISA -> (n, k) in CuTe
    g, t = lane >> 2, lane % 4
    k = t * 2 + (i & 1) + (8 if i >= 2 else 0)
    return g, k


def ptx_c(lane, i):         # c0..c3
    g, t = lane >> 2, lane % 4
    return (g if i < 2 else g + 8), t * 2 + (i & 1)


def ptx_a_1688(lane, i):    # a0..a3
    g, t = lane >> 2, lane % 4
    return (g if i < 2 else g + 8), t * 2 + (i & 1)


def ptx_b_1688(lane, i):    # b0..b1
    g, t = lane >> 2, lane % 4
    return g, t * 2 + (i & 1)


# PTX ISA "Matrix Fragments for mma.m16n8k8" with .tf32 (one element per register):
#   a0, a2 row groupID, a1, a3 row groupID + 8; a0, a1 col threadID_in_group, a2, a3 col + 4;
#   b0 row (k) threadID_in_group, b1 row + 4, col (n) groupID
def ptx_a_1688_tf32(lane, i):
    g, t = lane >> 2, lane % 4
    return (g if i in (0, 2) else g + 8), (t if i < 2 else t + 4)


def ptx_b_1688_tf32(lane, i):
    g, t = lane >> 2, lane % 4
    return g, (t if i == 0 else t + 4)


# PTX ISA "Matrix Fragments for mma.m16n8k32" with .s8 (four elements per register):
#   ai row groupID for i < 4 and 8 <= i < 12, else groupID + 8; col threadID_in_group*4 + (i & 3),
#   + 16 for i >= 8; bi row (k) threadID_in_group*4 + (i & 3), + 16 for i >= 4; col (n) groupID
def ptx_a_16832_s8(lane, i):
    g, t = lane >> 2, lane % 4
    return (g if i < 4 or 8 <= i < 12 else g + 8), t * 4 + (i & 3) + (16 if i >= 8 else 0)


def ptx_b_16832_s8(lane, i):
    g, t = lane >> 2, lane % 4
    return g, t * 4 + (i & 3) + (16 if i >= 4 else 0)


PTX_FRAGMENTS = {16: (8, ptx_a_16816, 4, ptx_b_16816), 8: (4, ptx_a_1688, 2, ptx_b_1688),
                 "tf32": (4, ptx_a_1688_tf32, 2, ptx_b_1688_tf32), "s8": (16, ptx_a_16832_s8, 8, ptx_b_16832_s8)}
NEW_SM80 = ["SM80_16x8x8_F32TF32TF32F32_TN", "SM80_16x8x32_S32S8S8S32_TN"]


@pytest.mark.parametrize("name", F16_16816 + F16_1688 + NEW_SM80)
def test_layouts_match_ptx(name):
    atom = lk.mma_atom(name)
    key = atom.a_type if atom.a_type in ("tf32", "s8") else int(atom.shape_mnk[2])
    n_a, ptx_a, n_b, ptx_b = PTX_FRAGMENTS[key]
    for lane in range(32):
        assert [atom.coord_A(lane, i) for i in range(n_a)] == [ptx_a(lane, i) for i in range(n_a)]
        assert [atom.coord_B(lane, i) for i in range(n_b)] == [ptx_b(lane, i) for i in range(n_b)]
        assert [atom.coord_C(lane, i) for i in range(4)] == [ptx_c(lane, i) for i in range(4)]


def test_seed000_section2_formulas_both_ways():
    atom = lk.mma_atom("SM80_16x8x16_F16F16F16F16_TN")
    for t, v in itertools.product(range(32), range(8)):
        t0, t1 = t % 4, t // 4
        v0, v1, v2 = v % 2, (v // 2) % 2, v // 4
        assert atom.layout_A(t, v) == 32 * t0 + t1 + 16 * v0 + 8 * v1 + 128 * v2
        assert atom.coord_A(t, v) == (t1 + 8 * v1, 2 * t0 + v0 + 8 * v2)
    for m, k in itertools.product(range(16), range(16)):
        assert atom.owner("A", m, k) == (4 * (m % 8) + (k % 8) // 2,
                                         k % 2 + 2 * (m // 8) + 4 * (k // 8))
    for n, k in itertools.product(range(8), range(16)):
        assert atom.owner("B", n, k) == (4 * n + (k % 8) // 2, k % 2 + 2 * (k // 8))
    for t, v in itertools.product(range(32), range(4)):
        assert atom.coord_B(t, v) == (t // 4, 2 * (t % 4) + v % 2 + 8 * (v // 2))
        assert atom.coord_C(t, v) == (t // 4 + 8 * (v // 2), 2 * (t % 4) + v % 2)


def test_lane0_table():
    # seed 000 section 2: lane 0 holds A(0,0),A(0,1),A(8,0),A(8,1),A(0,8),A(0,9),A(8,8),A(8,9)
    atom = lk.mma_atom("SM80_16x8x16_F16F16F16F16_TN")
    assert [atom.coord_A(0, v) for v in range(8)] == [
        (0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9)]
    sA = lk.make_layout((16, 16), (16, 1))
    assert [sA(*atom.coord_A(0, v)) for v in range(8)] == [0, 1, 128, 129, 8, 9, 136, 137]
    assert atom.owner("A", 0, 9) == (0, 5)
    assert [atom.coord_B(0, v) for v in range(4)] == [(0, 0), (0, 1), (0, 8), (0, 9)]


def test_register_counts():
    def regs(name):
        atom = lk.mma_atom(name)
        return {op: (atom.registers(op), atom.register_type(op)) for op in "ABCD"}

    r = regs("SM80_16x8x16_F16F16F16F16_TN")
    assert r["A"] == (4, "u32") and r["B"] == (2, "u32") and r["C"] == (2, "u32")
    r = regs("SM80_16x8x16_F32F16F16F32_TN")
    assert r["A"] == (4, "u32") and r["C"] == (4, "f32") and r["D"] == (4, "f32")
    r = regs("SM75_16x8x8_F32F16F16F32_TN")
    assert r["A"] == (2, "u32") and r["B"] == (1, "u32") and r["C"] == (4, "f32")
    # PTX ISA wgmma: a descriptor is one .b64; A of the RS form four .b32; D of m64nNk16 .f32 N/2
    r = regs("SM90_64x64x16_F32F16F16_SS")
    assert r["A"] == r["B"] == (1, "u64") and r["C"] == (32, "f32")
    r = regs("SM90_64x64x32_S32S8U8_RS_TN")
    assert r["A"] == (4, "u32") and r["B"] == (1, "u64") and r["C"] == (32, "s32")


def test_min_sm_and_ptx():
    assert lk.mma_atom("SM80_16x8x16_F16F16F16F16_TN").min_sm == 80
    assert lk.mma_atom("SM80_16x8x16_F32BF16BF16F32_TN").min_sm == 80
    assert lk.mma_atom("SM75_16x8x8_F32F16F16F32_TN").min_sm == 75
    assert lk.mma_atom("SM80_16x8x8_F16F16F16F16_TN").min_sm == 75
    assert lk.mma_atom("SM80_16x8x8_F32BF16BF16F32_TN").min_sm == 80
    assert lk.mma_atom("SM80_16x8x16_F32BF16BF16F32_TN").ptx == \
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
    assert lk.copy_atom("SM75_U32x4_LDSM_N").ptx == "ldmatrix.sync.aligned.m8n8.x4.shared.b16"
    assert lk.copy_atom("SM75_U16x8_LDSM_T").min_sm == 75
    assert lk.copy_atom("SM80_CP_ASYNC_CACHEALWAYS").min_sm == 80
    # CuTe copy_sm90.hpp issues stmatrix (PTX ISA: sm_90); the registry writes the ISA's order
    assert lk.copy_atom("SM90_U32x4_STSM_N").ptx == "stmatrix.sync.aligned.m8n8.x4.shared.b16"
    assert lk.copy_atom("SM90_U16x8_STSM_T").ptx == "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16"
    assert lk.copy_atom("SM90_U16x2_STSM_T").min_sm == 90


# --- copy atoms: FACTS.md (CuTe traits; the recast column was cross-checked with CuTe DSL)
@pytest.mark.parametrize("name,src,dst", [
    ("SM75_U32x1_LDSM_N", "((_8,_4),_128):((_128,_0),_1)", "(_32,_32):(_32,_1)"),
    ("SM75_U32x2_LDSM_N", "((_16,_2),_128):((_128,_0),_1)", "(_32,(_32,_2)):(_32,(_1,_1024))"),
    ("SM75_U32x4_LDSM_N", "(_32,_128):(_128,_1)", "(_32,(_32,_4)):(_32,(_1,_1024))"),
    ("SM75_U16x2_LDSM_T", "((_8,_4),_128):((_128,_0),_1)",
     "((_4,_8),(_16,_2)):((_256,_16),(_1,_128))"),
    ("SM75_U16x4_LDSM_T", "((_16,_2),_128):((_128,_0),_1)",
     "((_4,_8),(_16,_2,_2)):((_256,_16),(_1,_128,_1024))"),
    ("SM75_U16x8_LDSM_T", "(_32,_128):(_128,_1)",
     "((_4,_8),(_16,_2,_4)):((_256,_16),(_1,_128,_1024))"),
])
def test_copy_traits_in_bits(name, src, dst):
    t = lk.COPY_TRAITS[name]
    assert str(t.src_bits) == src and str(t.dst_bits) == dst and str(t.ref_bits) == dst


@pytest.mark.parametrize("name,src,dst", [
    ("SM75_U32x1_LDSM_N", "((_8,_4),_8):((_8,_0),_1)", "(_32,_2):(_2,_1)"),
    ("SM75_U32x2_LDSM_N", "((_16,_2),_8):((_8,_0),_1)", "(_32,(_2,_2)):(_2,(_1,_64))"),
    ("SM75_U32x4_LDSM_N", "(_32,_8):(_8,_1)", "(_32,(_2,_4)):(_2,(_1,_64))"),
    ("SM75_U16x8_LDSM_T", "(_32,_8):(_8,_1)", "((_4,_8),(_1,_2,_4)):((_16,_1),(_1,_8,_64))"),
])
def test_copy_atoms_recast_to_f16(name, src, dst):
    a = lk.copy_atom(name, "f16")
    assert str(a.layout_src) == src and str(a.layout_dst) == dst
    assert str(a.layout_ref) == dst


def test_x4_a09_element_numbers():
    # seed 000 section 4: S(16,1) = 129 = D(0,5)
    a = lk.copy_atom("SM75_U32x4_LDSM_N", "f16")
    assert a.layout_src(16, 1) == 129 == a.layout_dst(0, 5)
    assert lk.right_inverse(a.layout_ref)(129) == 160


def test_ldmatrix_dst_matches_ptx():
    # PTX ISA ldmatrix: thread t receives row t//4, elements 2*(t%4), 2*(t%4)+1 of each matrix.
    for name, nmat in (("SM75_U32x1_LDSM_N", 1), ("SM75_U32x2_LDSM_N", 2),
                       ("SM75_U32x4_LDSM_N", 4)):
        a = lk.copy_atom(name, "f16")
        for t in range(32):
            for j in range(nmat):
                for h in range(2):
                    e = a.layout_dst(t, h + 2 * j)
                    # element e lies in source row e // 8 (a 16-byte row), column e % 8
                    assert (e // 8) % 8 == t // 4 and e // 64 == j and e % 8 == 2 * (t % 4) + h


def test_universal_and_cp_async():
    assert str(lk.copy_atom("SM80_CP_ASYNC_CACHEALWAYS", "f16").layout_src) == "(_1,_8):(_0,_1)"
    assert str(lk.copy_atom("UniversalCopy", "f32").layout_src) == "(_1,_1):(_0,_1)"
    assert str(lk.copy_atom("UniversalCopy<u128>", "f16").layout_src) == "(_1,_8):(_0,_1)"


def test_atom_errors():
    with pytest.raises(lk.LayoutError, match="unknown atom"):
        lk.mma_atom("SM90_WHATEVER")
    with pytest.raises(lk.LayoutError, match="element_type"):
        lk.copy_atom("SM75_U32x4_LDSM_N", "f8")
    with pytest.raises(lk.LayoutError, match="unknown atom"):
        lk.copy_atom("LDSM")
    atom = lk.mma_atom("SM80_16x8x16_F16F16F16F16_TN")
    with pytest.raises(lk.LayoutError, match="thread"):
        atom.coord_A(32, 0)
    with pytest.raises(lk.LayoutError, match="outside"):
        atom.owner("A", 16, 0)
    with pytest.raises(lk.LayoutError, match="operand"):
        atom.owner("E", 0, 0)


def test_recast_fragment_to_u32_low_high_halves():
    # mma_unpack: recast<uint32_t> of the 8 halves; halves 2i, 2i+1 -> low, high of word i
    frag = lk.make_fragment(lk.parse_layout("((_2,_2,_2),_1,_1):((_1,_2,_4),_0,_0)"), np.float16)
    vals = np.array([1, 2, 3, 4, 5, 6, 7, 8], np.float16)
    frag.storage[:] = vals
    words = lk.recast(frag, np.uint32)
    assert str(words.layout) == "((_1,_2,_2),_1,_1):((_1,_1,_2),_0,_0)"
    bits = vals.view(np.uint16).astype(np.uint32)   # IEEE binary16 bit patterns
    for i in range(4):
        w = int(words.storage[i])
        assert w & 0xFFFF == bits[2 * i] and w >> 16 == bits[2 * i + 1]
    # A(0,9) sits in slot 5: word 2 (operand a2), high half
    assert (5 // 2, 5 % 2) == (2, 1)


# --- the instruction registry: facts from the PTX ISA ("Target ISA notes", instruction syntax)

from labkit.atoms import instructions as isa  # noqa: E402

# PTX ISA: ldmatrix needs sm_75; mma.m16n8k8 with .f16 inputs sm_75; m16n8k16 and every .bf16
# form sm_80; cp.async sm_80; stmatrix sm_90.
ISA_MIN_SM = {
    "ldmatrix_x1": 75, "ldmatrix_x2": 75, "ldmatrix_x4": 75,
    "ldmatrix_x1_trans": 75, "ldmatrix_x2_trans": 75, "ldmatrix_x4_trans": 75,
    "stmatrix_x1": 90, "stmatrix_x2": 90, "stmatrix_x4": 90,
    "stmatrix_x1_trans": 90, "stmatrix_x2_trans": 90, "stmatrix_x4_trans": 90,
    "mma_m16n8k8_f16f16f16f16": 75, "mma_m16n8k8_f32f16f16f32": 75, "mma_m16n8k8_f32bf16bf16f32": 80,
    "mma_m16n8k16_f16f16f16f16": 80, "mma_m16n8k16_f32f16f16f32": 80, "mma_m16n8k16_f32bf16bf16f32": 80,
    "cp_async_16": 80, "cp_async_cg_16": 80, "cp_async_commit_group": 80, "cp_async_wait_group": 80,
    "cp_async_wait_all": 80,
    "mma_m16n8k8_f32tf32tf32f32": 80, "mma_m16n8k32_s32s8s8s32": 80,
}


@pytest.mark.parametrize("name", sorted(ISA_MIN_SM))
def test_registry_minimum_sm_is_the_ptx_isas(name):
    assert isa.instruction(name).min_sm == ISA_MIN_SM[name]


def test_registry_register_counts_follow_the_isa_operand_lists():
    # PTX ISA mma.m16n8k16 .f16: a = {4 x .f16x2}, b = {2 x .f16x2}, c/d = {2 x .f16x2};
    # .f32 accumulators {4 x .f32}; m16n8k8: a = {2 x .f16x2}, b = {1 x .f16x2}
    # m16n8k8 .tf32: a = {4 x .b32}, b = {2 x .b32}; m16n8k32 .s8: a = {4 x .b32}, b = {2 x .b32},
    # c/d = {4 x .s32}
    want = {(16, "f16"): (4, 2), (16, "bf16"): (4, 2), (8, "f16"): (2, 1), (8, "bf16"): (2, 1),
            (8, "tf32"): (4, 2), (32, "s8"): (4, 2)}
    for ins in isa.MMA.values():
        assert (ins.registers("A"), ins.registers("B")) == want[(ins.k, ins.ab_type)]
        assert ins.registers("C") == (2 if ins.acc_type == "f16" else 4)
        assert ins.ptx == (f"mma.sync.aligned.m16n8k{ins.k}.row.col.{ins.acc_type}.{ins.ab_type}."
                           f"{ins.ab_type}.{ins.acc_type}")


def test_every_cute_atom_is_keyed_by_its_registry_entry():
    for name, atom in lk.MMA_ATOMS.items():
        ins = isa.instruction(name)
        assert atom.instruction == ins.name and atom.ptx == ins.ptx and atom.min_sm == ins.min_sm
    for name, traits in lk.COPY_TRAITS.items():
        ins = isa.instruction(name)
        assert traits.instruction == ins.name and traits.ptx == ins.ptx and traits.min_sm == ins.min_sm
    # CuTe's SM75 and SM80 16x8x8 F32F16F16F32 atoms issue the same instruction
    assert (lk.mma_atom("SM75_16x8x8_F32F16F16F32_TN").instruction
            == lk.mma_atom("SM80_16x8x8_F32F16F16F32_TN").instruction == "mma_m16n8k8_f32f16f16f32")


def test_one_error_for_unknown_or_unavailable_instructions():
    from labkit.cuda import ptx
    from labkit import sim

    calls = [lambda: lk.mma_atom("SM80_16x8x32_S32U8U8S32_TN"),
             lambda: lk.copy_atom("SM90_U32x8_STSM_N"),          # stmatrix has no .x8
             lambda: sim.mma_spec("SM80_16x8x32_S32U8U8S32_TN"),
             lambda: ptx.min_sm("mma_m16n8k32_s32u8u8s32"),
             lambda: isa.instruction("ldmatrix_x4", kind="mma"),
             lambda: isa.require_sm("mma_m16n8k16_f16f16f16f16", 75)]
    for call in calls:
        with pytest.raises(lk.InstructionError) as e:
            call()
        assert isinstance(e.value, lk.LayoutError) and isinstance(e.value, lk.DeviceError)
    with pytest.raises(lk.InstructionError, match="needs sm_80; this device is sm_75"):
        isa.require_sm("SM80_16x8x16_F16F16F16F16_TN", 75)
    assert isa.require_sm("SM75_16x8x8_F32F16F16F32_TN", 75).name == "mma_m16n8k8_f32f16f16f32"


def test_every_registry_entry_has_a_ptx_binding():
    from labkit.cuda import ptx

    for name, ins in isa.INSTRUCTIONS.items():
        fn = getattr(ptx, name)
        assert ptx.instruction_of(fn) is ins and name in ptx.__all__


def test_contributing_worked_example_runs():
    # CONTRIBUTING.md's worked example is what the code does, not a description of it
    import doctest
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "CONTRIBUTING.md"
    result = doctest.testfile(str(path), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 8 and result.failed == 0


def test_element_types_are_spelled_as_cute_ptx_or_numpy_everywhere():
    # one vocabulary: CuTe's name, PTX's and a numpy dtype give the same atom and the same width
    import numpy as np
    from labkit.swizzle_atoms import element_bits, swizzle_atom

    want = str(lk.copy_atom("SM75_U32x4_LDSM_N", "f16").layout_dst)
    for spelling in ("half_t", np.float16, "float16"):
        assert str(lk.copy_atom("SM75_U32x4_LDSM_N", spelling).layout_dst) == want
    assert [element_bits(t) for t in ("float_e4m3_t", "tfloat32_t", "bfloat16_t", np.int8)] == [8, 32, 16, 8]
    assert str(swizzle_atom("SW128", "half_t")) == str(swizzle_atom("SW128", "f16"))
    with pytest.raises(lk.LayoutError, match="copy_atom: element_type='halff' is not an element type"):
        lk.copy_atom("SM75_U32x4_LDSM_N", "halff")
