"""Hopper's warpgroup MMA from numba: the WGMMA_PTX table, its intrinsics, the probe kernel.

Expected values: the PTX ISA (instruction text, descriptor bit fields, the D fragment rule,
the K-major canonical layouts) and numpy's float64 matmul; the GPU tests need an sm_90a GPU.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from labkit.atoms.wgmma_ptx import WGMMA_N, WGMMA_PTX
from labkit.cuda import launch, ptx
from labkit.cuda.kernels import wgmma_probe as wp
from labkit.errors import DeviceError, InstructionError, LayoutError

# --- the table ------------------------------------------------------------------------------

# PTX ISA 9.7.15 (wgmma): the instruction text and the f32 D registers per thread of m64nNk16.
ISA_TEXT = {
    "wgmma_fence": "wgmma.fence.sync.aligned",
    "wgmma_commit_group": "wgmma.commit_group.sync.aligned",
    "wgmma_wait_group": "wgmma.wait_group.sync.aligned N",
    "fence_proxy_async_shared_cta": "fence.proxy.async.shared::cta",
    **{f"wgmma_m64n{n}k16_f32f16f16": f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16" for n in (8, 64, 128, 256)},
}
ISA_D_REGISTERS = {8: 4, 64: 32, 128: 64, 256: 128}


def test_the_table_holds_the_isa_instructions():
    assert {n: i.ptx for n, i in WGMMA_PTX.items()} == ISA_TEXT
    for name, ins in WGMMA_PTX.items():
        assert ins.min_sm == 90
        assert ins.arch == ("" if name == "fence_proxy_async_shared_cta" else "sm_90a"), name
    for n, regs in ISA_D_REGISTERS.items():
        ins = WGMMA_PTX[f"wgmma_m64n{n}k16_f32f16f16"]
        assert ins.shape == (64, n, 16) and ins.registers("D") == regs
        # the PTX operands in ISA order: d, a-desc, b-desc, scale-d (a predicate), four immediates
        assert re.search(r"\{\$0, .*\$%d\}, \$%d, \$%d, p, \$imm_scale_a, \$imm_scale_b, \$imm_trans_a, \$imm_trans_b;"
                         % (regs - 1, 2 * regs, 2 * regs + 1), ins.asm), ins.asm


def test_ptx_binds_every_entry_and_knows_its_minimum_sm():
    for name, ins in WGMMA_PTX.items():
        assert name in ptx.__all__
        assert ptx.instruction_of(getattr(ptx, name)) is ins
        assert ptx.min_sm(name) == 90 and ptx.min_sm(getattr(ptx, name)) == 90
    assert {"wgmma_zeros", "wgmma_fence_operand"} <= set(ptx.__all__)


# --- descriptors, layouts, the D fragment (PTX ISA) ------------------------------------------

def test_the_matrix_descriptor_has_the_isa_bit_fields():
    # start 0x1400 -> 0x140 in bits 0-13; LBO 16 -> 1 in bits 16-29; SBO 1024 -> 64 in bits 32-45;
    # base offset 0b101 in bits 49-51; 128-byte swizzle (1) in bits 62-63
    want = 0x140 | (1 << 16) | (64 << 32) | (0b101 << 49) | (1 << 62)
    assert wp.matrix_descriptor(0x1400, 16, 1024, 1, 5) == want
    assert wp.matrix_descriptor(0x1400, 16, 1024, 3, 0) >> 62 == 3           # 32-byte swizzle
    assert wp.matrix_descriptor(0x40010, 0, 0, 0, 0) == 0x1                 # the address keeps bits 4-17


@pytest.mark.parametrize("layout", sorted(wp.LAYOUTS))
def test_the_layouts_are_the_isa_k_major_canonical_ones(layout):
    kk, lbo, sbo = wp.LAYOUTS[layout]
    rows = 256
    offs = np.array([[wp.smem_offset(layout, r, k) for k in range(kk)] for r in range(rows)])
    assert sorted(offs.ravel().tolist()) == list(range(0, rows * kk * 2, 2))      # one slot per element
    core = offs[:, ::8] // 16                                                    # 16-byte chunks
    if layout == "INTERLEAVE":
        # core matrix (8 rows x 16 bytes) contiguous; along K LBO apart, 8-row groups SBO apart
        for r in range(rows):
            for c in range(kk // 8):
                assert offs[r, 8 * c] == (r // 8) * sbo + c * lbo + (r % 8) * 16
    else:
        # 128B swizzle: chunk c of row r at chunk c ^ (r % 8) of the row's 128 bytes; rows 128 B apart
        for r in range(rows):
            assert sorted(core[r] % 8) == list(range(8))
            assert (core[r] % 8 == np.arange(8) ^ (r % 8)).all()
            assert offs[r, 0] // 128 == r and (r // 8) * sbo == (r - r % 8) * 128


@pytest.mark.parametrize("n", WGMMA_N)
def test_the_d_fragment_covers_d_once(n):
    seen = {wp.d_coords(t, i) for t in range(128) for i in range(n // 2)}
    assert seen == {(m, j) for m in range(64) for j in range(n)}
    # PTX ISA figure (wgmma D, m64nNk16): thread 0 holds D(0,0), D(0,1), D(8,0), D(8,1), D(0,8) ...
    first = [(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9)][:min(6, n // 2)]
    assert [wp.d_coords(0, i) for i in range(len(first))] == first
    assert wp.d_coords(127, n // 2 - 1) == (63, n - 1)


def test_bad_operands_are_refused_with_labkit_errors():
    with pytest.raises(LayoutError, match="A must be 64 x 16"):
        wp.wgmma_matmul(np.zeros((64, 64)), np.zeros((8, 16)))
    with pytest.raises(LayoutError, match="N in"):
        wp.wgmma_matmul(np.zeros((64, 16)), np.zeros((24, 16)))
    with pytest.raises(LayoutError, match="layout must be one of"):
        wp.smem_offset("B64", 0, 0)


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


def _probe_sig():
    import numba

    return (numba.uint16[:, ::1], numba.uint16[:, ::1], numba.float32[:, ::1], numba.uint32[::1])


@pytest.mark.slow
@pytest.mark.parametrize("layout", sorted(wp.LAYOUTS))
@pytest.mark.parametrize("n", WGMMA_N)
def test_the_probe_compiles_to_sm_90a_wgmma(n, layout):
    text = _compile(wp._kernel(n, layout).py_func, _probe_sig())
    assert re.search(r"^\.target sm_90a$", text, re.M)
    steps = wp.LAYOUTS[layout][0] // 16
    mma = re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n{n}k16\.f32\.f16\.f16 \{{(.*?)\}}, %rd\d+, %rd\d+, p, 1, 1, 0, 0;",
                     text)
    assert len(mma) == steps and all(len(m.split(",")) == n // 2 for m in mma)
    for op in ("wgmma.fence.sync.aligned;", "wgmma.commit_group.sync.aligned;", "wgmma.wait_group.sync.aligned 0;",
               "fence.proxy.async.shared::cta;"):
        assert text.count(op) == 1, op
    # program order: fence.proxy.async, wgmma.fence, mma_async, commit, wait
    order = [text.index(s) for s in ("fence.proxy.async", "wgmma.fence", "wgmma.mma_async", "wgmma.commit_group",
                                     "wgmma.wait_group")]
    assert order == sorted(order)


def test_bad_immediates_are_typing_errors():
    from numba import cuda, uint64

    def kernel(out):
        acc = ptx.wgmma_zeros(4)
        acc = ptx.wgmma_m64n8k16_f32f16f16(uint64(0), uint64(0), acc, 0, 2, 1, 0, 0)
        out[0] = acc[0]

    import numba

    with pytest.raises(Exception) as e:        # numba's TypingError (numba.core.errors)
        _compile(kernel, (numba.float32[::1],))
    assert type(e.value).__name__ == "TypingError"
    assert "imm_scale_a must be a literal integer in (1, -1)" in str(e.value)

    def short(out):
        acc = ptx.wgmma_zeros(8)
        acc = ptx.wgmma_m64n8k16_f32f16f16(uint64(0), uint64(0), acc, 0, 1, 1, 0, 0)
        out[0] = acc[0]

    with pytest.raises(Exception) as e:        # numba's TypingError (numba.core.errors)
        _compile(short, (numba.float32[::1],))
    assert "acc must be a tuple of 4 float32 accumulators" in str(e.value)
    assert cuda  # imported for the compile


# --- a GPU without sm_90a refuses the launch ---------------------------------------------------

@pytest.mark.parametrize(("sm", "name"), [(80, "NVIDIA A100-SXM4-40GB (sm_80)"), (100, "NVIDIA B200 (sm_100)")])
def test_a_launch_on_a_gpu_without_sm_90a_is_refused(monkeypatch, sm, name):
    monkeypatch.setattr(launch, "device_sm", lambda: sm)
    monkeypatch.setattr(launch, "device_name", lambda: name)
    kernel = wp._kernel(64, "INTERLEAVE")
    assert kernel.min_sm == 90
    with pytest.raises(InstructionError, match=r"needs sm_90a, i\.e\. an sm_90 GPU \(Hopper") as e:
        kernel[1, 128]
    assert isinstance(e.value, DeviceError) and name in str(e.value)


def test_under_the_simulator_wgmma_names_refuse():
    if not ptx.SIMULATED:
        pytest.skip("the CUDA simulator is off: the names are numba intrinsics")
    with pytest.raises(DeviceError, match="no CUDA-simulator twin"):
        ptx.wgmma_fence()


# --- on the GPU ----------------------------------------------------------------------------------

def _need_sm90():
    if launch.device_sm() != 90:
        pytest.skip(f"wgmma needs an sm_90a GPU (Hopper); this is {launch.device_name()}")


@pytest.mark.gpu
@pytest.mark.parametrize("layout", sorted(wp.LAYOUTS))
@pytest.mark.parametrize("n", WGMMA_N)
def test_wgmma_computes_a_times_b_transposed(n, layout):
    _need_sm90()
    kk = wp.LAYOUTS[layout][0]
    rng = np.random.default_rng(1000 + n + kk)
    A = rng.uniform(-1, 1, (64, kk)).astype(np.float16)
    B = rng.uniform(-1, 1, (n, kk)).astype(np.float16)
    D = wp.wgmma_matmul(A, B, layout)
    ref = A.astype(np.float64) @ B.astype(np.float64).T
    assert not np.isnan(D).any(), "an element of D was not written"
    err = np.linalg.norm(D - ref) / np.linalg.norm(ref)
    assert err < 1e-5, err                          # f16 products are exact; f32 sums
    # small integers: exact
    Ai = rng.integers(-3, 4, (64, kk)).astype(np.float16)
    Bi = rng.integers(-3, 4, (n, kk)).astype(np.float16)
    assert (wp.wgmma_matmul(Ai, Bi, layout) == Ai.astype(np.float64) @ Bi.astype(np.float64).T).all()


@pytest.mark.gpu
def test_the_shared_arrays_are_1024_byte_aligned_and_the_sass_holds_hgmma():
    _need_sm90()
    regs, addrs = wp.wgmma_registers(np.ones((64, 64)), np.ones((256, 64)), "B128")
    assert (regs == 64).all() and (addrs % 1024 == 0).all()
    try:
        sass = wp._kernel(256, "B128").dispatcher.inspect_sass()
        sass = "\n".join(sass.values()) if isinstance(sass, dict) else sass    # one entry per signature
    except Exception as e:                          # nvdisasm missing
        pytest.skip(f"no SASS: {e}")
    assert sass.count("HGMMA.64x256x16.F32") == 4
