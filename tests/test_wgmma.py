"""Hopper's warpgroup MMA from numba: the GMMA entries' inline PTX, the WGMMA_PTX fences, their
intrinsics, and the probe kernel on CuTe's GMMA layouts.

Expected values: the PTX ISA (instruction text and operand order, D registers per thread, the D
fragment rule, the Target ISA notes), CuTe's ``CLayout_64xN`` text (the registry's, checked
against g++ by test_gmma_instructions_cpp) and numpy's float64 matmul; the GPU tests need an
sm_90a GPU.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from labkit.atoms.instructions import GMMA, WGMMA_PTX, tv_coords
from labkit.atoms.mma_table import GMMA_N
from labkit.cuda import launch, ptx
from labkit.elements import to_bits
from labkit.cuda.kernels.probes import wgmma_probe as wp
from labkit.errors import DeviceError, InstructionError, LayoutError

SS = sorted(name for name, g in GMMA.items() if g.form == "SS")
RS = sorted(name for name, g in GMMA.items() if g.form == "RS")

# --- the tables -------------------------------------------------------------------------------

# PTX ISA 9.7.15 (wgmma): the fences' text; mma_async's text and D registers per thread of
# m64nNk16 (f32: N/2 registers; f16: N/4, two halves each)
ISA_FENCES = {
    "wgmma_fence": "wgmma.fence.sync.aligned",
    "wgmma_commit_group": "wgmma.commit_group.sync.aligned",
    "wgmma_wait_group": "wgmma.wait_group.sync.aligned N",
    "fence_proxy_async_shared_cta": "fence.proxy.async.shared::cta",
}
ISA_D_REGISTERS = {("f32", 8): 4, ("f32", 64): 32, ("f32", 128): 64, ("f32", 256): 128,
                   ("f16", 8): 2, ("f16", 64): 16, ("f16", 256): 64}


def test_wgmma_ptx_holds_only_the_fences():
    assert {n: i.ptx for n, i in WGMMA_PTX.items()} == ISA_FENCES
    for name, ins in WGMMA_PTX.items():
        assert ins.min_sm == 90
        assert ins.arch == ("" if name == "fence_proxy_async_shared_cta" else "sm_90a"), name


# PTX ISA, wgmma.mma_async: K by the A/B type (.f16/.bf16 k16, .tf32 k8, .e4m3/.e5m2/.s8/.u8
# k32) and the operands after scale-d: .f16/.bf16 imm-scale-a, imm-scale-b, imm-trans-a (SS only),
# imm-trans-b; .tf32 and the fp8 types imm-scale-a, imm-scale-b; the integer types none.
ISA_K = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32}
ISA_IMMEDIATES = {
    ("f16", "SS"): ("imm_scale_a", "imm_scale_b", "imm_trans_a", "imm_trans_b"),
    ("f16", "RS"): ("imm_scale_a", "imm_scale_b", "imm_trans_b"),
    ("float", "SS"): ("imm_scale_a", "imm_scale_b"), ("float", "RS"): ("imm_scale_a", "imm_scale_b"),
    ("int", "SS"): (), ("int", "RS"): ()}


def _family(a):
    return "f16" if a in ("f16", "bf16") else ("int" if a in ("s8", "u8") else "float")


@pytest.mark.parametrize("name", SS + RS)
def test_each_entry_holds_its_inline_ptx(name):
    g = GMMA[name]
    n = g.shape_mnk[1]
    d, a, b = g.types[:3]
    k = ISA_K[a]
    assert g.shape_mnk == (64, n, k) and ISA_K[b] == k
    assert g.ptx == f"wgmma.mma_async.sync.aligned.m64n{n}k{k}.{d}.{a}.{b}"
    assert g.min_sm == 90 and g.arch == "sm_90a" and g.threads == 128
    regs = n // 4 if d == "f16" else n // 2
    if (d, n) in ISA_D_REGISTERS:
        assert ISA_D_REGISTERS[(d, n)] == regs
    assert (g.registers("C"), g.register_type("C")) == (regs, d if d != "f16" else "u32")
    imm = ISA_IMMEDIATES[_family(a), g.form]
    assert g.immediates == imm
    tail = "".join(r", \$" + x for x in imm)
    if g.form == "SS":
        want = (r"\{ \.reg \.pred p; setp\.ne\.b32 p, \$%d, 0; %s \{\$0(, \$\d+)*\}, \$%d, \$%d, p%s; \}$"
                % (2 * regs + 2, re.escape(g.ptx), 2 * regs, 2 * regs + 1, tail))
        assert g.asm.count("$") == regs + 3 + len(imm)
    else:
        assert (g.registers("A"), g.register_type("A")) == (4, "u32")       # a: four .b32
        a_regs = ", ".join(r"\$%d" % (2 * regs + i) for i in range(4))
        want = (r"\{ \.reg \.pred p; setp\.ne\.b32 p, \$%d, 0; %s \{\$0(, \$\d+)*\}, \{%s\}, \$%d, p%s; \}$"
                % (2 * regs + 5, re.escape(g.ptx), a_regs, 2 * regs + 4, tail))
        assert g.asm.count("$") == regs + 4 + 2 + len(imm)
    assert re.match(want, g.asm), g.asm


def test_ptx_binds_every_wgmma_name_and_knows_its_minimum_sm():
    assert set(ptx.WGMMA) == set(WGMMA_PTX) | set(SS) | set(RS)
    for name, ins in list(ptx.WGMMA.items())[::37] + list(WGMMA_PTX.items()):
        assert name in ptx.__all__
        assert ptx.instruction_of(getattr(ptx, name)) is ins
        assert ptx.min_sm(name) == 90 and ptx.min_sm(getattr(ptx, name)) == 90
    assert ptx.instruction_of(ptx.wgmma_m64n128k16_f16f16f16_ss) is GMMA["wgmma_m64n128k16_f16f16f16_ss"]
    assert {"wgmma_zeros", "wgmma_zeros_s32", "wgmma_zeros_u32", "wgmma_fence_operand"} <= set(ptx.__all__)


# --- the D fragment (PTX ISA) and CuTe's CLayout ------------------------------------------------

@pytest.mark.parametrize("n", (8, 16, 24, 64, 128, 200, 256))
def test_the_d_fragment_covers_d_once_as_cutes_clayout_says(n):
    seen = {wp.d_coords(t, v) for t in range(128) for v in range(n // 2)}
    assert seen == {(m, j) for m in range(64) for j in range(n)}
    # PTX ISA figure (wgmma D, m64nNk16): thread 0 holds D(0,0), D(0,1), D(8,0), D(8,1), D(0,8) ...
    first = [(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9)][:min(6, n // 2)]
    assert [wp.d_coords(0, v) for v in range(len(first))] == first
    assert wp.d_coords(127, n // 2 - 1) == (63, n - 1)
    cute = tv_coords(GMMA[f"wgmma_m64n{n}k16_f32f16f16_ss"].layout_C, 64, 128, n // 2)
    assert all(tuple(cute[t, v]) == wp.d_coords(t, v) for t in range(128) for v in range(n // 2))


def test_the_rs_a_registers_follow_the_ptx_isa_fragment():
    # PTX ISA, wgmma register fragment of A (m64nNk16, 16-bit types): warp w of the warpgroup
    # holds rows 16w .. 16w+15; lane = 4 * groupID + threadID_in_group; register a_i holds two
    # elements, row groupID + 8 * (i % 2), columns 2 * threadID_in_group + (0, 1) + 8 * (i // 2)
    from labkit.atoms.gmma_fragment import a_from_registers, a_registers

    rng = np.random.default_rng(11)
    A = rng.integers(-2048, 2048, (64, 16)).astype(np.float64)      # exact in f16
    regs = a_registers(A)
    assert regs.shape == (128, 4) and regs.dtype == np.uint32
    for t in range(128):
        warp, lane = divmod(t, 32)
        group, tig = divmod(lane, 4)
        for i in range(4):
            row = 16 * warp + group + 8 * (i % 2)
            for half in (0, 1):
                col = 2 * tig + half + 8 * (i // 2)
                bits = (int(regs[t, i]) >> (16 * half)) & 0xFFFF
                assert np.uint16(bits).view(np.float16) == A[row, col], (t, i, half)
    assert (a_from_registers(regs) == A).all()
    B = rng.integers(-3, 4, (64, 16)).astype(np.float64)
    assert (a_from_registers(a_registers(B, "bf16"), "bf16") == B).all()


def test_bad_a_registers_are_refused():
    from labkit.atoms.gmma_fragment import a_from_registers, a_registers

    with pytest.raises(LayoutError, match="A must be 64 x 16"):
        a_registers(np.zeros((64, 32)))
    with pytest.raises(LayoutError, match="A must be 64 x 8"):
        a_registers(np.zeros((64, 16)), "tfloat32_t")
    with pytest.raises(LayoutError, match=r"a must be \(128, 4\) integer registers"):
        a_from_registers(np.zeros((32, 4), np.uint32))
    with pytest.raises(LayoutError, match="element must be a wgmma A type"):
        a_registers(np.zeros((64, 16)), "f32")


def test_f16_accumulators_unpack_low_half_first():
    regs = np.zeros((128, 2), np.uint32)
    regs[0, 0] = (0x4000 << 16) | 0x3C00                     # halves 1.0 (low), 2.0 (high)
    D = wp.place(regs, "wgmma_m64n8k16_f16f16f16_ss")
    assert D[0, 0] == 1.0 and D[0, 1] == 2.0 and D.shape == (64, 8)


# --- the plan: CuTe's layouts, make_gmma_desc, the transpose immediates ----------------------------

def test_the_plan_uses_cutes_layouts_and_descriptors():
    from labkit.atoms.gmma_desc import make_gmma_desc, smem_tile
    from labkit.atoms.gmma_layouts import gmma_layout_atom
    import labkit as lk

    p = wp.make_plan("SM90_64x128x16_F32F16F16_SS", "MN", "SW32", "K", "SW64")
    assert p.trans == (1, 0) and p.steps == 4 and p.n == 128
    sB = lk.tile_to_shape(gmma_layout_atom("K", "SW64", 16), (lk.S(128), lk.S(64)))
    for s in range(4):
        tile, start = smem_tile(sB, (lk.S(128), lk.S(16)), (0, s), wp.B_START)
        assert int(p.descs[s, 1]) == make_gmma_desc("K", tile, start).encode()
    img = p.image(np.arange(64 * 64).reshape(64, 64) % 4096, np.zeros((128, 64), np.uint16))
    assert img.size == wp.SMEM_BYTES and img[wp.B_START:].sum() == 0


def test_bad_plans_are_refused_with_labkit_errors():
    with pytest.raises(LayoutError, match="MN-major SW64 atom is 32 elements wide"):
        wp.make_plan("wgmma_m64n8k16_f32f16f16_ss", "K", "SW64", "MN", "SW64")
    with pytest.raises(InstructionError, match="no wgmma instruction named"):
        wp.make_plan("SM80_16x8x16_F32F16F16F32_TN")
    with pytest.raises(LayoutError, match="A comes from registers, K-major only"):
        wp.make_plan("wgmma_m64n8k16_f32f16f16_rs", a_major="MN")
    rs = wp.make_plan("wgmma_m64n8k16_f32f16f16_rs", b_swizzle="SW64", k=32)
    with pytest.raises(LayoutError, match="takes A from registers: pass plan.a_registers"):
        wp.wgmma_registers(rs, np.zeros(wp.SMEM_BYTES, np.uint8))
    with pytest.raises(LayoutError, match=r"a_regs must be \(2, 128, 4\) uint32"):
        wp.wgmma_registers(rs, np.zeros(wp.SMEM_BYTES, np.uint8), a_regs=np.zeros((4, 128, 4), np.uint32))
    with pytest.raises(LayoutError, match="A must be 64 x 32"):
        rs.a_registers(np.zeros((64, 64)))
    with pytest.raises(LayoutError, match="A must be 64 x K and B 8 x K"):
        wp.wgmma_matmul(np.zeros((64, 16)), np.zeros((24, 16)), "wgmma_m64n8k16_f32f16f16_ss")
    p = wp.make_plan("wgmma_m64n8k16_f32f16f16_ss")
    with pytest.raises(LayoutError, match="image must be"):
        wp.wgmma_registers(p, np.zeros(10, np.uint8))


# --- compiling on the CPU for sm_90a -----------------------------------------------------------

def _compile(fn, sig):
    if ptx.SIMULATED:
        pytest.skip("the GPU binding is not imported under the CUDA simulator")
    from numba import cuda

    try:
        return cuda.compile_ptx(fn, sig, cc=(9, 0, "a"))[0]
    except Exception as e:                       # no NVVM in this environment
        if "NVVM" in str(e) or "libnvvm" in str(e).lower():
            pytest.skip(f"numba-cuda cannot find NVVM: {e}")
        raise


def _PROBE_ARGS(acc):
    import numba

    return (numba.uint32[::1], numba.uint64[::1], numba.uint32[:, :, ::1], acc[:, ::1], numba.uint32[::1])


@pytest.mark.slow
@pytest.mark.parametrize(("name", "trans_b", "steps"), [("wgmma_m64n8k16_f32f16f16_rs", 0, 4),
                                                        ("wgmma_m64n256k16_f32bf16bf16_rs", 1, 2),
                                                        ("wgmma_m64n64k16_f16f16f16_rs", 1, 1)])
def test_the_rs_probe_loads_a_before_the_fence_and_compiles_to_sm_90a_wgmma(name, trans_b, steps):
    import numba

    g = GMMA[name]
    r, kind = g.registers("C"), g.register_type("C")
    acc = {"f32": numba.float32, "s32": numba.int32, "u32": numba.uint32}[kind]
    text = _compile(wp._kernel(name, 0, trans_b, steps).py_func, _PROBE_ARGS(acc))
    assert re.search(r"^\.target sm_90a$", text, re.M)
    mma = re.findall(re.escape(g.ptx) + r" \{(.*?)\}, \{(%r\d+), (%r\d+), (%r\d+), (%r\d+)\}, %rd\d+, p, 1, 1, "
                     r"(\d);", text)
    assert len(mma) == steps and all(len(m[0].split(",")) == r and int(m[5]) == trans_b for m in mma)
    assert len({m[1:5] for m in mma}) == steps          # each step its own four A registers
    assert text.count("wgmma.fence.sync.aligned;") == 1
    fence = text.index("wgmma.fence.sync.aligned;")
    loads = [m.start() for m in re.finditer(r"ld\.global\.u32", text)]
    assert len(loads) >= 4 * steps and max(loads) < fence < text.index("wgmma.mma_async")


@pytest.mark.slow
@pytest.mark.parametrize(("name", "trans"), [("wgmma_m64n8k16_f32f16f16_ss", (0, 0)),
                                             ("wgmma_m64n256k16_f32f16f16_ss", (1, 1)),
                                             ("wgmma_m64n32k16_f32bf16bf16_ss", (1, 0)),
                                             ("wgmma_m64n64k16_f16f16f16_ss", (0, 1)),
                                             ("wgmma_m64n64k8_f32tf32tf32_ss", (0, 0)),
                                             ("wgmma_m64n128k32_f32e4m3e5m2_ss", (0, 0)),
                                             ("wgmma_m64n24k32_f16e5m2e4m3_ss", (0, 0)),
                                             ("wgmma_m64n48k32_s32u8s8_ss", (0, 0))])
def test_the_probe_compiles_to_sm_90a_wgmma(name, trans):
    import numba

    g = GMMA[name]
    r, kind = g.registers("C"), g.register_type("C")
    acc = {"f32": numba.float32, "s32": numba.int32, "u32": numba.uint32}[kind]
    text = _compile(wp._kernel(name, *trans).py_func, _PROBE_ARGS(acc))
    assert re.search(r"^\.target sm_90a$", text, re.M)
    # the immediates as literals: f16/bf16 scales 1, 1 and both transposes; tf32 and fp8 the
    # scales only; integers none (PTX ISA's operand lists)
    imm = {4: r", 1, 1, (\d), (\d)", 2: r", 1, 1()()", 0: r"()()"}[len(g.immediates)]
    mma = re.findall(re.escape(g.ptx) + r" \{(.*?)\}, %rd\d+, %rd\d+, p" + imm + ";", text)
    assert mma and all(len(m[0].split(",")) == r and (int(m[1] or 0), int(m[2] or 0)) == trans for m in mma)
    for op in ("wgmma.fence.sync.aligned;", "wgmma.commit_group.sync.aligned;", "wgmma.wait_group.sync.aligned 0;",
               "fence.proxy.async.shared::cta;"):
        assert text.count(op) == 1, op
    order = [text.index(s) for s in ("fence.proxy.async", "wgmma.fence", "wgmma.mma_async", "wgmma.commit_group",
                                     "wgmma.wait_group")]
    assert order == sorted(order)


def test_bad_immediates_and_accumulators_are_typing_errors():
    import numba
    from numba import uint64

    def kernel(out):
        acc = ptx.wgmma_zeros(4)
        acc = ptx.wgmma_m64n8k16_f32f16f16_ss(uint64(0), uint64(0), acc, 0, 2, 1, 0, 0)
        out[0] = acc[0]

    with pytest.raises(Exception) as e:        # numba's TypingError (numba.core.errors)
        _compile(kernel, (numba.float32[::1],))
    assert type(e.value).__name__ == "TypingError"
    assert "imm_scale_a must be a literal integer in (1, -1)" in str(e.value)

    def f32_for_f16(out):
        acc = ptx.wgmma_zeros(2)
        acc = ptx.wgmma_m64n8k16_f16f16f16_ss(uint64(0), uint64(0), acc, 0, 1, 1, 0, 0)
        out[0] = acc[0]

    with pytest.raises(Exception) as e:
        _compile(f32_for_f16, (numba.float32[::1],))
    assert "acc must be a tuple of 2 uint32 (two f16 each) accumulators (from wgmma_zeros_u32(2)" in str(e.value)


# --- a GPU without sm_90a refuses the launch ---------------------------------------------------

@pytest.mark.parametrize(("sm", "name"), [(80, "NVIDIA A100-SXM4-40GB (sm_80)"), (100, "NVIDIA B200 (sm_100)")])
def test_a_launch_on_a_gpu_without_sm_90a_is_refused(monkeypatch, sm, name):
    monkeypatch.setattr(launch, "device_sm", lambda: sm)
    monkeypatch.setattr(launch, "device_name", lambda: name)
    kernel = wp._kernel("wgmma_m64n64k16_f32f16f16_ss", 0, 0)
    assert kernel.min_sm == 90 and GMMA["wgmma_m64n64k16_f32f16f16_ss"] in kernel.uses
    with pytest.raises(InstructionError, match=r"needs sm_90a, i\.e\. an sm_90 GPU \(Hopper") as e:
        kernel[1, 128]
    assert isinstance(e.value, DeviceError) and name in str(e.value)


def test_under_the_simulator_wgmma_names_refuse():
    if not ptx.SIMULATED:
        pytest.skip("the CUDA simulator is off: the names are numba intrinsics")
    with pytest.raises(DeviceError, match="no CUDA-simulator twin"):
        ptx.wgmma_m64n8k16_f32f16f16_ss()


# --- on the GPU ----------------------------------------------------------------------------------

def _need_sm90():
    if launch.device_sm() != 90:
        pytest.skip(f"wgmma needs an sm_90a GPU (Hopper); this is {launch.device_name()}")


def _b_swizzle(major, sw, n):
    from labkit.atoms.gmma_smem import fits

    return sw if fits(major, sw, n, 64) else "INTER"


@pytest.mark.gpu
@pytest.mark.parametrize("major", ["K", "MN"])
@pytest.mark.parametrize("n", [8, 64, 256])
def test_wgmma_computes_a_times_b_transposed_in_every_swizzle(n, major):
    _need_sm90()
    for sw in ("INTER", "SW32", "SW64", "SW128"):
        args = (f"wgmma_m64n{n}k16_f32f16f16_ss", major, sw, major, _b_swizzle(major, sw, n))
        rng = np.random.default_rng(1000 + n + len(sw) + len(major))
        A = rng.uniform(-1, 1, (64, 64)).astype(np.float16)
        B = rng.uniform(-1, 1, (n, 64)).astype(np.float16)
        D = wp.wgmma_matmul(A, B, *args)
        ref = A.astype(np.float64) @ B.astype(np.float64).T
        assert not np.isnan(D).any(), f"{args}: an element of D was not written"
        err = np.linalg.norm(D - ref) / np.linalg.norm(ref)
        assert err < 1e-5, (args, err)                  # f16 products are exact; f32 sums
        Ai = rng.integers(-3, 4, (64, 64)).astype(np.float16)
        Bi = rng.integers(-3, 4, (n, 64)).astype(np.float16)
        assert (wp.wgmma_matmul(Ai, Bi, *args) == Ai.astype(np.float64) @ Bi.astype(np.float64).T).all(), args


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["wgmma_m64n128k16_f32bf16bf16_ss", "wgmma_m64n32k16_f16f16f16_ss"])
def test_wgmma_bf16_and_f16_accumulate(name):
    _need_sm90()
    n = GMMA[name].shape_mnk[1]
    rng = np.random.default_rng(7 + n)
    A, B = rng.integers(-3, 4, (64, 64)), rng.integers(-3, 4, (n, 64))
    for major, sw in (("K", "SW32"), ("MN", "SW32")):
        assert (wp.wgmma_matmul(A, B, name, major, sw, major, sw) == A @ B.T).all(), (name, major)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [8, 64, 256])
def test_rs_wgmma_takes_a_from_registers_with_b_in_every_swizzle(n):
    _need_sm90()
    for major in ("K", "MN"):
        for sw in ("INTER", "SW32", "SW64", "SW128"):
            args = (f"wgmma_m64n{n}k16_f32f16f16_rs", "K", "SW128", major, _b_swizzle(major, sw, n))
            rng = np.random.default_rng(2000 + n + len(sw) + len(major))
            A, B = rng.integers(-3, 4, (64, 64)), rng.integers(-3, 4, (n, 64))
            D = wp.wgmma_matmul(A, B, *args)
            assert (D == A @ B.T).all(), args


@pytest.mark.gpu
def test_a_misencoded_descriptor_reads_what_the_twin_predicts():
    _need_sm90()
    from labkit.cli import verify_checks, verify_wgmma

    for case in verify_wgmma.MISENCODED:
        r = verify_checks.check_misencoded(case, np.random.default_rng(5), lambda fn, *a: fn(*a))
        assert r.ok, r.items


@pytest.mark.gpu
def test_the_shared_array_is_1024_byte_aligned_and_the_sass_holds_hgmma():
    _need_sm90()
    p = wp.make_plan("wgmma_m64n256k16_f32f16f16_ss")
    img = p.image(to_bits(np.ones((64, 64)), "f16"), to_bits(np.ones((256, 64)), "f16"))
    regs, addr = wp.wgmma_registers(p, img)
    assert (regs == 64).all() and addr % 1024 == 0
    try:
        sass = wp._kernel(p.entry, 0, 0).dispatcher.inspect_sass()
        sass = "\n".join(sass.values()) if isinstance(sass, dict) else sass    # one entry per signature
    except Exception as e:                          # nvdisasm missing
        pytest.skip(f"no SASS: {e}")
    assert "HGMMA.64x256x16.F32" in sass
