"""The GEMM ladder (labkit.cuda.kernels.ladder.gemm*): operand checks, shared-memory layouts,
the generated tensor-core kernels, and every step's result against a float64 reference.

Expected values come from CuTe's definitions (Swizzle<3,3,3> through labkit.layout), the
shared-memory bank rule (8 slots of 16 bytes per 128-byte wavefront), the PTX operand rules,
and float64 products of the same fp16 inputs. The simulator runs in a child Python
(``NUMBA_ENABLE_CUDASIM=1`` must be set before numba is imported).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from labkit.cuda.kernels.ladder import gemm, gemm_anchor, gemm_codegen, gemm_layout, gemm_pipeline, gemm_sass, gemm_tma
from labkit.cuda.kernels.ladder.gemm_common import check_operands, reference, relative_error, tolerance
from labkit.cuda.kernels.ladder.gemm_config import TileConfig
from labkit.cuda.kernels.ladder.gemm_sass import instruction_mix
from labkit.errors import DeviceError

REPO = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------------------------
# operand checks: before any launch, with a message naming the argument


def _ab(M=64, N=32, K=64, dtype=np.float16):
    return np.zeros((M, K), dtype), np.zeros((N, K), dtype)


@pytest.mark.parametrize(
    ("step", "A", "B", "acc", "sm", "needle"),
    [
        ("naive", *_ab(dtype=np.float32), "f32", 90, "A: must be float16"),
        ("naive", np.zeros((4, 8), np.float16), np.zeros((3, 9), np.float16), "f32", 90, "B: must be (N, K)"),
        ("naive", np.zeros((4, 8, 1), np.float16), np.zeros((3, 8), np.float16), "f32", 90, "A: must be 2-D"),
        ("naive", *_ab(), "f64", 90, "acc: must be one of"),
        ("mma", *_ab(K=60), "f32", 90, "K: step 'mma' needs K to be a multiple of 8"),
        ("pipeline", *_ab(), "f32", 70, "sm: step 'pipeline' needs sm_75 or newer, this GPU is sm_70"),
        ("smem", np.zeros((0, 8), np.float16), np.zeros((3, 8), np.float16), "f32", 90, "M: must be >= 1"),
        # TMA and mbarrier transaction counts are sm_90: T4 (sm_75) and A100 (sm_80) are refused
        ("tma", *_ab(), "f32", 75, "sm: step 'tma' needs sm_90 or newer, this GPU is sm_75"),
        ("tma", *_ab(), "f32", 80, "sm: step 'tma' needs sm_90 or newer, this GPU is sm_80"),
        # an SM is an int (75, 80, 90), as labkit.cuda.launch.device_sm gives it
        ("mma", *_ab(), "f32", (9, 0), "sm: must be an int SM version such as 80 or 90"),
        ("tma", *_ab(K=60), "f32", 90, "K: step 'tma' needs K to be a multiple of 8"),
        ("tma", *_ab(dtype=np.float32), "f32", 90, "A: must be float16"),
    ],
)
def test_bad_operands_are_refused_before_launch(step, A, B, acc, sm, needle):
    with pytest.raises(DeviceError) as e:
        gemm.gemm(A, B, step=step, acc=acc, sm=sm)
    assert needle in str(e.value)


def test_non_k_major_and_wrong_c_are_refused():
    A, B = _ab()
    with pytest.raises(DeviceError, match="A: must be row-major"):
        check_operands("mma", np.asfortranarray(A), B, None, "f32", 90, min_sm=75)
    with pytest.raises(DeviceError, match="C: acc='f16' writes float16"):
        check_operands("mma", A, B, np.zeros((64, 32), np.float32), "f16", 90, min_sm=75)
    with pytest.raises(DeviceError, match=r"C: must be \(M, N\) = \(64, 32\)"):
        check_operands("mma", A, B, np.zeros((32, 64), np.float32), "f32", 90, min_sm=75)
    with pytest.raises(DeviceError, match="step: must be one of"):
        gemm.step_module("cublas")


def test_tile_config_rules():
    with pytest.raises(DeviceError, match="bk must be"):
        TileConfig(bk=48)
    with pytest.raises(DeviceError, match="double_buffer needs stages >= 2"):
        TileConfig(stages=1, double_buffer=True)
    with pytest.raises(DeviceError, match="multiple of 16"):
        TileConfig(bm=96, warps_m=4)
    with pytest.raises(DeviceError, match="config: must be a TileConfig"):
        gemm_pipeline.source(config="huge")
    # a TMA box is one 128-byte-swizzled tile: 64 halves a row, at most 256 rows
    with pytest.raises(DeviceError, match="loader='tma' needs bk=64"):
        TileConfig(bk=32, loader="tma")
    with pytest.raises(DeviceError, match="loader must be"):
        TileConfig(loader="dma")
    with pytest.raises(DeviceError, match="step 'tma' needs loader='tma'"):
        gemm_tma.source(config=gemm_pipeline.CONFIGS["128x128x64s3ca"])
    with pytest.raises(DeviceError, match="loader='tma' needs sm_90"):
        gemm_codegen.kernel_source(gemm_tma.CONFIGS[gemm_tma.DEFAULT], "f32", 80)


# ---------------------------------------------------------------------------------------------
# shared-memory layouts


def test_swizzled_offset_is_cutes_swizzle_333_sgemm_sm80_layout():
    import labkit as lk

    atom = lk.composition(lk.Swizzle(3, 3, 3), lk.make_layout((8, (8, 8)), (8, (1, 64))))
    for r in range(128):
        for k in range(64):
            # tile_to_shape((128, 64)) repeats the 8x64 atom down the rows, 512 elements apart
            assert gemm_layout.swizzled_offset(r, k, 64) == 512 * (r // 8) + atom(r % 8, k)


def _ldmatrix_wavefronts(offset, bk, rows=16):
    """Worst number of 128-byte wavefronts one 8-row ldmatrix phase needs (1 = conflict-free).

    Eight lanes each give a 16-byte row; shared memory serves 8 distinct 16-byte slots of a
    128-byte line per wavefront, so rows in the same slot serialize.
    """
    worst = 1
    for r0 in range(0, rows, 8):
        for chunk in range(bk // 8):
            slots = [(2 * offset(r0 + i, 8 * chunk, bk) // 16) % 8 for i in range(8)]
            worst = max(worst, max(slots.count(s) for s in set(slots)))
    return worst


@pytest.mark.parametrize("bk", [32, 64])
def test_swizzle_makes_ldmatrix_conflict_free(bk):
    assert _ldmatrix_wavefronts(gemm_layout.swizzled_offset, bk) == 1
    # row-major: rows bk halves apart share a slot, 8 ways for 128-byte rows, 4 for 64-byte
    assert _ldmatrix_wavefronts(gemm_layout.plain_offset, bk) == {64: 8, 32: 4}[bk]


def test_tma_offset_is_cutes_128_byte_swizzle_atom():
    # The 128-byte TMA swizzle on a K-major fp16 tile is CuTe's Swizzle<3,3,3> o (8,64):(64,1)
    # (Swizzle<3,4,3> on bytes), repeated down the rows every 8 rows (512 elements)
    import labkit as lk

    atom = lk.composition(lk.Swizzle(3, 3, 3), lk.make_layout((8, 64), (64, 1)))
    for r in range(256):
        for k in range(64):
            assert gemm_layout.tma_offset(r, k, 64) == 512 * (r // 8) + atom(r % 8, k)
    assert _ldmatrix_wavefronts(gemm_layout.tma_offset, 64) == 1


@pytest.mark.parametrize("bk", [16, 32, 64])
def test_kernel_offsets_are_pycutes_swizzled_layout(bk):
    """The closed form the kernels compile (read off labkit's layout) equals pycute's
    Swizzle<log2(bk/8),3,3> o (8,(8,bk/8)):(8,(1,64)), repeated every 8 rows (8*bk elements)."""
    from pycute import Layout, Swizzle

    b = (bk // 8).bit_length() - 1
    atom = Layout((8, (8, bk // 8)), (8, (1, 64)))
    offset = gemm_layout.layout_offset(gemm_layout.smem_layout("swizzle", bk))
    for r in range(64):
        for k in range(bk):
            assert offset(r, k) == 8 * bk * (r // 8) + Swizzle(b, 3, 3)(atom(r % 8, k))
    assert "^" not in gemm_layout.offset_source(gemm_layout.smem_layout("plain", bk))


def test_ldmatrix_lanes_follow_the_ptx_isa():
    """PTX ISA: in ldmatrix.x4 lane t gives row t % 8 of matrix t // 8; mma.m16n8k16's A
    fragment registers a0..a3 are the 8x8 blocks (rows 0-7, k 0-7), (rows 8-15, k 0-7),
    (rows 0-7, k 8-15), (rows 8-15, k 8-15); B's b0, b1 are k 0-7 and 8-15 of one n8 atom,
    and an x4 loads two atoms (n 0-7, then n 8-15)."""
    a_origin = [(0, 0), (8, 0), (0, 8), (8, 8)]
    b_origin = [(0, 0), (0, 8), (8, 0), (8, 8)]
    for operand, origin in (("A", a_origin), ("B", b_origin)):
        rows, cols = gemm_layout.ldmatrix_lanes(operand)
        for t in range(32):
            mode = (t % 8, (t // 8) % 2, t // 16)
            got = (sum(m * d for m, d in zip(mode, rows)), sum(m * d for m, d in zip(mode, cols)))
            r0, c0 = origin[t // 8]
            assert got == (r0 + t % 8, c0), (operand, t)


def test_swizzled_offsets_are_a_permutation():
    for bk in (32, 64):
        offs = sorted(gemm_layout.swizzled_offset(r, k, bk) for r in range(64) for k in range(bk))
        assert offs == list(range(64 * bk))


# ---------------------------------------------------------------------------------------------
# generated kernels


@pytest.mark.parametrize(
    ("cfg", "sm", "acc", "per_kblock"),
    [
        # 2x2 warps of 64x64: 4x8 atoms, one m16n8k16 each per 16-deep k-block
        (gemm_pipeline.CONFIGS["128x128x64s3"], 80, "f32", 32),
        # sm_75: each k16 step is two m16n8k8
        (gemm_pipeline.CONFIGS["128x128x64s3"], 75, "f16", 64),
        # step 3: 2x2 warps of 32x32: 2x4 atoms
        (gemm.step_module("mma").CONFIG, 80, "f32", 8),
    ],
)
def test_kernel_source_unrolls_every_mma(cfg, sm, acc, per_kblock):
    src = gemm_codegen.kernel_source(cfg, acc, sm, "k")
    compile(src, "<k>", "exec")
    kblocks = cfg.bk // 16
    name = gemm_codegen.mma_name(acc, sm)[0]
    assert src.count(f"{name}(") == per_kblock * kblocks
    uses_async = cfg.stages_for(sm) >= 2
    assert ("cp_async_cg_16(" in src) == uses_async
    assert ("ld_global_v4(" in src) == (not uses_async)
    assert "cuda.local.array" not in src  # every register is a named scalar


def test_default_pipeline_copies_through_l1():
    # cp.async.ca (L1-allocating, CUTLASS's SM80_CP_ASYNC_CACHEALWAYS) in the main loop; only
    # the first, possibly partial k-tile uses the zero-filling cp.async.cg form
    cfg = gemm_pipeline.CONFIGS[gemm_pipeline.DEFAULT]
    per_tile = (cfg.bm + cfg.bn) * cfg.bk // 8 // cfg.threads  # 16-byte copies per thread
    src = gemm_pipeline.source("f32", 90)
    # prologue tiles 1 .. stages-2 and the main loop's tile, whole: .ca
    assert src.count("cp_async_16(") == per_tile * (cfg.stages - 1)
    assert "cp_async_cg_16(" not in src
    assert src.count("cp_async_cg_16_zfill(") == per_tile


def test_sm75_falls_back_to_one_stage():
    cfg = gemm_pipeline.CONFIGS[gemm_pipeline.DEFAULT]
    assert cfg.stages_for(75) == 1 and cfg.stages_for(90) == 3
    assert cfg.smem_bytes(90) == 3 * (128 + 128) * 64 * 2


def test_tma_kernel_statements():
    cfg = gemm_tma.CONFIGS[gemm_tma.DEFAULT]
    stmts = gemm_tma.statements("f32", 90)
    compile(gemm_tma.source("f32", 90), "<k>", "exec")
    ops = [s.op for s in stmts]
    # one thread issues two boxes (A, B) per k-tile: stages-1 in the prologue, one in the loop
    assert ops.count("cp.async.bulk.tensor") == 2 * cfg.stages
    assert [s.phase for s in stmts if s.op == "cp.async.bulk.tensor"].count("mainloop") == 2
    assert ops.count("mbarrier.init") == cfg.stages
    assert not {"cp.async", "ld.global.v4", "st.shared.v4"} & set(ops)
    assert [s.phase for s in stmts if s.op == "mma"].count("mainloop") == gemm_sass.hmma_per_ktile(cfg, 90)
    # 256x128x64, 4 stages: 4 * 48 KB of tiles + 1 KB (alignment, mbarriers) = one CTA per SM
    assert cfg.smem_bytes(90) == 4 * (256 + 128) * 64 * 2 + 1024
    assert gemm_sass.ctas_per_sm(255, cfg.threads, cfg.smem_bytes(90), 90) == 1


def test_ktile_mix_reads_the_main_loop():
    # cuobjdump's form: addresses, a backward branch closing the loop; nvdisasm's: labels
    cuobjdump = "\n".join([
        "        /*0000*/                   MOV R1, c[0x0][0x28] ;",
        "        /*0010*/                   LDSM.16.M88.4 R8, [R3] ;",
        "        /*0020*/                   HMMA.16816.F32 R4, R8, R12, R4 ;",
        "        /*0030*/                   HMMA.16816.F32 R16, R8, R14, R16 ;",
        "        /*0040*/               @P0 BRA 0x10 ;",
        "        /*0050*/                   EXIT ;",
    ])
    assert gemm_sass.ktile_mix(cuobjdump, 1) == {"LDSM": 0.5, "HMMA": 1.0, "BRA": 0.5, "total": 2.0}
    nvdisasm = "\n".join([
        "        /*0000*/                   MOV R1, c[0x0][0x28] ;",
        ".L_x_3:",
        "        /*0010*/                   HMMA.16816.F32 R4, R8, R12, R4 ;",
        "        /*0020*/              @!P0 LDGSTS.E.LTC128B.128 [R1], desc[UR4][R2.64] ;",
        "        /*0030*/               @P0 BRA `(.L_x_3) ;",
    ])
    assert gemm_sass.ktile_mix(nvdisasm, 1) == {"HMMA": 1.0, "LDGSTS": 1.0, "BRA": 1.0, "total": 3.0}
    assert gemm_sass.ktile_mix("", 1) == {}


def test_reports_take_occupancy_from_the_sm_limits():
    # Hopper: 64 K registers in 256-register units per warp, 228 KB of shared memory with 1 KB
    # reserved per CTA, 2048 threads; sgemm_sm80's 96 KB, 128-thread CTAs: 2 per SM
    assert gemm_sass.ctas_per_sm(254, 128, 96 * 1024, 90) == 2
    assert gemm_sass.ctas_per_sm(128, 128, 16 * 1024, 90) == 4
    assert gemm_sass.ctas_per_sm(64, 128, 16 * 1024, 90) == 8
    assert gemm_sass.ctas_per_sm(32, 1024, 0, 90) == 2
    # an A100 has 164 KB a multiprocessor: one such CTA; an SM the table lacks: no figure
    assert gemm_sass.ctas_per_sm(254, 128, 96 * 1024, 80) == 1
    assert gemm_sass.ctas_per_sm(254, 128, 96 * 1024, 120) is None


# sgemm_sm80.cu's own report line: printf("CUTE_GEMM:     [%6.1f]GFlop/s  (%6.4f)ms\n", ...)
SGEMM_SM80_PRINTF = 'printf("CUTE_GEMM:     [%6.1f]GFlop/s  (%6.4f)ms\\n"'


def test_anchor_parses_sgemm_sm80_output():
    line = "CUTE_GEMM:     [%6.1f]GFlop/s  (%6.4f)ms" % (377100.0, 0.3645)
    assert gemm_anchor.parse_output(line) == (377.1, 0.3645)
    assert gemm_anchor.parse_output("CUTE_GEMM: failed") is None
    cmd = gemm_anchor.build_command("nvcc", "/c", 90, "/tmp/x")
    assert "-gencode=arch=compute_90,code=sm_90" in cmd and cmd[-1] == "/tmp/x"


def test_anchor_source_prints_the_line_the_parser_reads():
    root = gemm_anchor.cutlass_dir()
    if root is None:
        pytest.skip("the CUTLASS sources (pip install nvidia-cutlass) are not installed")
    text = (Path(root) / gemm_anchor.SOURCE).read_text()
    assert SGEMM_SM80_PRINTF in text
    assert "SM80_16x8x16_F16F16F16F16_TN" in text and "SM80_CP_ASYNC_CACHEALWAYS" in text


def test_anchor_without_nvcc_says_so(monkeypatch):
    monkeypatch.setattr(gemm_anchor, "nvcc_path", lambda: None)
    a = gemm_anchor.Anchor(90)
    a.start()
    assert not a.wait() and a.reason.startswith("nvcc not found")
    out = __import__("io").StringIO()
    from labkit.cli import bench

    assert bench._anchor_rows(a, 4096, out) == []
    assert "anchor: nvcc not found" in out.getvalue()


def test_instruction_mix_counts_opcodes():
    text = "\n".join([
        "        /*0000*/                   HMMA.16816.F32 R4, R8, R12, R4 ;",
        "        /*0010*/              @!P1 LDGSTS.E.BYPASS.LTC128B.128 [R1], desc[UR4][R2.64] ;",
        "        /*0020*/                   LDSM.16.M88.4 R8, [R3] ;",
        "        /* 0x000fe20000000f00 */",
    ])
    assert instruction_mix(text) == {"HMMA": 1, "LDGSTS": 1, "LDSM": 1}


def test_tolerance_model():
    # f32: u = 2**-24, linear in K; f16: u = 2**-11, grows like sqrt(K)
    assert tolerance("f32", 64) == pytest.approx(2.0**-24 * 10)
    assert tolerance("f16", 6 * 64) == pytest.approx(2.0**-11 * 26)
    ref = reference(np.ones((2, 3), np.float16), np.ones((4, 3), np.float16))
    assert ref.shape == (2, 4) and np.all(ref == 3.0)
    assert relative_error(np.full((2, 4), np.nan), ref) == float("inf")


# ---------------------------------------------------------------------------------------------
# kernels as data: the tags of the generated statements


def _every_kernel():
    from labkit.cuda.kernels.ladder import gemm_mma, gemm_swizzle

    out = [(gemm_mma, None), (gemm_swizzle, None)]
    out += [(gemm_pipeline, name) for name in ("128x128x64s3ca", "128x128x64s3", "32x32x32s3ca")]
    out += [(gemm_tma, name) for name in ("256x128x64s4", "32x32x64s3")]
    return out


@pytest.mark.parametrize("acc", ["f32", "f16"])
@pytest.mark.parametrize("sm", [75, 80, 90])
@pytest.mark.parametrize("kernel", range(len(_every_kernel())))
def test_statement_tags_say_what_each_line_does(kernel, sm, acc):
    import re

    from labkit.cuda.kernels.ladder.gemm_statements import PHASES, render

    mod, config = _every_kernel()[kernel]
    if mod is gemm_tma and sm < 90:
        pytest.skip("TMA is sm_90")
    stmts = mod.statements(acc, sm, **({"config": config} if config else {}))
    assert render(stmts) == mod.source(acc, sm, **({"config": config} if config else {}))
    for st in stmts:
        # the intrinsic a statement's text calls is the one its tags name, with its PTX instruction
        called = {name for name in gemm_codegen.INTRINSICS
                  if re.search(rf"(?<![\w.]){re.escape(name)}\(", st.text)}
        assert called == ({st.call} if st.call else set()), st.text
        assert st.op == (gemm_codegen.INTRINSICS[st.call] if st.call else None)
        assert (st.kind in ("block", "def")) == st.text.split("#")[0].rstrip().endswith(":")
    # setup, prologue, k-tile loop, epilogue: in that order, the loop's header first
    phases = [PHASES.index(st.phase) for st in stmts]
    assert phases == sorted(phases)
    loop = [st for st in stmts if st.phase == "mainloop"]
    assert loop[0].kind == "block" and loop[0].cute == "k_tile" and all(st.depth > loop[0].depth for st in loop[1:])


def test_statements_give_each_cute_partition_its_lines():
    from labkit.cuda.kernels.ladder.gemm_statements import select

    cfg = gemm_pipeline.CONFIGS[gemm_pipeline.DEFAULT]
    stmts = gemm_pipeline.statements("f32", 90)
    per_tile = cfg.bm * cfg.bk // 8 // cfg.threads        # 16-byte copies of A per thread and k-tile
    copies = select(stmts, "copy", phase="mainloop", kind="code")
    assert [n for n, _ in copies] == [per_tile, per_tile] and all("cp_async_16(" in t for _, t in copies)
    mi, ni = cfg.atoms
    assert select(stmts, "gemm", phase="mainloop")[0][0] == mi * ni * cfg.bk // 16
    assert [t.split(" = ")[0] for _, t in select(stmts, "tCgC")] == ["erow", "ecol", "ebase"]
    from labkit.cuda.kernels.ladder.gemm_statements import CONCEPTS, Writer

    assert {st.cute for st in stmts} - {None} <= set(CONCEPTS)
    with pytest.raises(DeviceError, match="phase: must be one of"):
        with Writer().in_phase("teardown"):
            pass
    with pytest.raises(DeviceError, match="not one of gemm_statements.CONCEPTS"):
        Writer().code("x = 1", cute="tZgZ")


# ---------------------------------------------------------------------------------------------
# every step through the CUDA simulator (child process)

SIM_SCRIPT = r"""
import json, time
import numpy as np
from labkit.cuda import simulate_sm
from labkit.cuda.kernels.ladder import gemm, gemm_pipeline, gemm_tma

cases = json.loads(__import__("sys").argv[1])
out = []
for step, M, N, K, acc, sm, config in cases:
    opts = {"config": {"pipeline": gemm_pipeline, "tma": gemm_tma}[step].SIMULATOR if config == "small"
            else config} if config else {}
    t = time.time()
    with simulate_sm(sm):
        err, tol = gemm.check(step, M, N, K, acc=acc, seed=len(out), **opts)
    out.append([step, M, N, K, acc, sm, config, err, tol, time.time() - t])
print(json.dumps(out))
"""

# (step, M, N, K, acc, sm, pipeline config): tails in M, N and K, both accumulators, sm_75 paths
SIM_CASES = [
    ("naive", 33, 17, 20, "f32", 80, None),
    ("naive", 9, 12, 31, "f16", 80, None),
    ("smem", 70, 37, 45, "f32", 80, None),
    ("smem", 65, 64, 33, "f16", 80, None),
    ("mma", 40, 24, 72, "f32", 80, None),
    ("mma", 40, 24, 72, "f16", 75, None),
    ("swizzle", 64, 64, 64, "f16", 80, None),
    ("swizzle", 40, 24, 72, "f32", 75, None),
    ("pipeline", 64, 64, 104, "f32", 80, "small"),  # interior tiles, even N: vector stores
    ("pipeline", 70, 45, 104, "f16", 80, "small"),  # edge tiles, odd N
    ("pipeline", 45, 64, 40, "f32", 75, "small"),  # sm_75: plain loads, m16n8k8
    ("pipeline", 128, 128, 128, "f32", 80, None),  # the ladder's default 128x128x64, 3 stages
    ("tma", 70, 45, 200, "f32", 90, "small"),  # TMA boxes past every edge: zeros; K tail
    ("tma", 64, 64, 256, "f16", 90, "small"),  # four k-tiles through three stages: phases flip
]


@pytest.fixture(scope="module")
def sim_results():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", SIM_SCRIPT, json.dumps(SIM_CASES)], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("case", range(len(SIM_CASES)), ids=lambda i: "-".join(map(str, SIM_CASES[i][:6])))
def test_step_matches_float64_reference_in_simulator(sim_results, case):
    step, M, N, K, acc, sm, config, err, tol, seconds = sim_results[case]
    assert [step, M, N, K, acc, sm, config] == list(SIM_CASES[case])
    assert err <= tol, f"relative error {err:.3g} over {tol:.3g}"


# ---------------------------------------------------------------------------------------------
# on a GPU


GPU_SHAPES = [(257, 263, 136), (512, 512, 512), (1000, 776, 1032)]


@pytest.mark.gpu
@pytest.mark.parametrize("step", gemm.ALL_STEPS)
@pytest.mark.parametrize("acc", ["f32", "f16"])
def test_step_on_gpu(step, acc):
    if step == "wgmma":
        from labkit.cuda.launch import device_sm

        if acc == "f16" or device_sm() != 90:
            pytest.skip("the wgmma step accumulates in f32 and needs sm_90a (tests/test_gemm_wgmma.py)")
    shapes = GPU_SHAPES
    if step == "wgmma":      # it stores C two f32 at a time: an odd N is refused (tests/test_gemm_wgmma.py)
        shapes = [(M, N - N % 2, K) for M, N, K in GPU_SHAPES]
    for M, N, K in shapes:
        err, tol = gemm.check(step, M, N, K, acc=acc)
        assert err <= tol, f"{step} {acc} {M}x{N}x{K}: relative error {err:.3g} over {tol:.3g}"


@pytest.mark.gpu
@pytest.mark.parametrize("config", sorted(gemm_pipeline.CONFIGS))
def test_pipeline_configs_on_gpu_without_spills(config):
    err, tol = gemm.check("pipeline", 520, 392, 776, acc="f32", config=config)
    assert err <= tol
    rep = gemm.kernel_report("pipeline", "f32", config=config)
    assert rep["local_bytes"] == 0, f"{config}: {rep['local_bytes']} bytes of local memory (spills)"


@pytest.mark.gpu
@pytest.mark.parametrize("config", sorted(gemm_tma.CONFIGS))
def test_tma_configs_on_gpu_without_spills(config):
    from labkit.cuda.launch import device_sm

    if device_sm() < 90:
        pytest.skip("TMA needs sm_90")
    err, tol = gemm.check("tma", 520, 392, 776, acc="f32", config=config)
    assert err <= tol
    rep = gemm.kernel_report("tma", "f32", config=config)
    assert rep["local_bytes"] == 0, f"{config}: {rep['local_bytes']} bytes of local memory (spills)"


@pytest.mark.gpu
@pytest.mark.parametrize("step", ["mma", "swizzle", "pipeline"])
def test_sm75_code_path_on_gpu(step):
    # The T4 fallback (m16n8k8, plain loads instead of cp.async) uses only sm_75 instructions,
    # so any newer GPU runs it too.
    for M, N, K in GPU_SHAPES[:2]:
        err, tol = gemm.check(step, M, N, K, acc="f32", sm=75)
        assert err <= tol, f"{step} sm_75 path {M}x{N}x{K}: relative error {err:.3g} over {tol:.3g}"
