"""Every ladder step takes ``config=``; a tensor-core config takes any shared-memory layout, checked
when it is made (16-byte rows for ldmatrix and cp.async, one place per element, the loops' constant
row steps, what the TMA writes, bank conflicts on request), with a labkit ConfigError.

Expected addresses come from the layouts' own definitions written out here (row r, column k of a
``(rows, 64):(72, 1)`` tile is at ``72 r + k``), expected bank costs from the bank rule (a 16-byte
access per lane, 8 lanes a phase; a phase whose 8 rows share a 16-byte slot column costs 8).
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from numba import cuda      # a global of the module: the simulator swaps kernels' globals

import labkit as lk
from labkit.cuda.kernels.ladder import gemm, gemm_mma, gemm_pipeline, gemm_swizzle, gemm_tma
from labkit.cuda.kernels.ladder.gemm_config import TileConfig
from labkit.cuda.kernels.ladder.gemm_smem_check import smem_conflicts
from labkit.errors import ConfigError, DeviceError
from labkit.lab.ladder_trace import trace

S = lk.S
REPO = Path(__file__).resolve().parents[1]


def padded(rows=256, bk=64, pad=8):
    return lk.make_layout((S(rows), S(bk)), (S(bk + pad), S(1)))


def test_every_step_takes_config():
    for step in gemm.ALL_STEPS:
        mod = gemm.step_module(step)
        assert "config" in inspect.signature(mod.launch).parameters, step
        if hasattr(mod, "source"):
            assert "config" in inspect.signature(mod.source).parameters, step


def test_a_copied_step_with_another_layout_keeps_the_step_and_changes_the_addresses():
    cfg = dataclasses.replace(gemm_mma.CONFIG, smem_layout=padded(64))
    src = gemm_mma.source("f32", 80, config=cfg)
    assert src.startswith("def gemm_mma(") and "its own layout of shared memory" in src
    # one stage: A tile 64 rows of 72 halves = 4608 elements, so B starts 9216 bytes in
    assert "st_b = uint32(st_a + 9216)" in src
    assert cfg.stage_bytes() == 2 * (64 * 72 + 64 * 72) == 18432


def test_the_kernel_copies_to_the_layouts_addresses():
    cfg = dataclasses.replace(gemm_pipeline.CONFIGS[gemm_pipeline.SIMULATOR], smem_layout=padded(64, 32, 8))
    for thread in (0, 5, 31):
        t = trace("pipeline", M=32, N=32, K=64, thread=thread, config=cfg)
        dst = [args[0] for name, args in t.calls if name in ("cp_async_16", "cp_async_cg_16", "cp_async_cg_16_zfill")]
        # thread t copies chunk t % 4 of row t // 4 (and the rows 8, 16, 24 below): A tile first
        row, chunk = thread // 4, thread % 4
        want_a = [2 * ((row + 8 * p) * 40 + 8 * chunk) for p in range(4)]
        assert dst[:4] == want_a
        # then B, after A's 32 rows x 40 = 1280 elements (rounded up to 1280: a multiple of 64)
        assert dst[4:8] == [2 * 1280 + a for a in want_a]


def test_bank_costs_of_the_ladders_layouts():
    # step 3: 128-byte rows, so an ldmatrix phase's 8 rows share one 16-byte slot column: 8 wavefronts
    # a phase, 4 phases an ldmatrix.x4; warp 0 issues 4 k-blocks x (2 A + 2 B) = 16 of them a k-tile
    assert smem_conflicts(gemm_mma.CONFIG)["ldmatrix"] == (16 * 4 * 8, 16 * 4)
    assert smem_conflicts(gemm_swizzle.CONFIG)["ldmatrix"] == (64, 64)       # Swizzle<3,3,3>: none
    assert smem_conflicts(TileConfig(smem_layout=padded()))["ldmatrix"] == (128, 128)   # 144-byte rows
    assert gemm_swizzle.CONFIG.conflict_free


@pytest.mark.parametrize("layout, rule", [
    (lk.make_layout((S(256), S(64)), (S(68), S(1))), "ldmatrix and cp.async move 16 bytes"),
    (lk.make_layout((S(256), S(64)), (S(1), S(256))), "ldmatrix and cp.async move 16 bytes"),   # column-major
    (lk.make_layout((S(256), S(64)), (S(32), S(1))), "share offset"),
    (lk.make_layout((S(256), S(32)), (S(32), S(1))), "bk = 64 columns"),
    (lk.make_layout((S(64), S(64)), (S(64), S(1))), "at least max(bm, bn) = 128 rows"),
    (lk.make_layout(S(64), S(1)), "rank 2"),
    ("(_256,_64):(_64,_1)", "must be a labkit Layout"),
])
def test_a_layout_the_kernel_cannot_use_is_refused(layout, rule):
    with pytest.raises(ConfigError, match="config.smem_layout") as e:
        TileConfig(smem_layout=layout)
    assert rule in str(e.value)
    assert isinstance(e.value, DeviceError)                # one class, still a DeviceError


def test_rows_must_step_by_a_constant():
    # 8-row blocks 3 to a group of 24 rows: injective, but 16 rows down from row 0 is +1024
    # (block 0 -> 2) and from row 8 is +1536 (block 1 -> the next group's block 0)
    odd = lk.make_layout(((S(8), S(3), S(6)), S(64)), ((S(64), S(512), S(2048)), S(1)))
    with pytest.raises(ConfigError, match="16 rows down must move every element by the same offset"):
        TileConfig(smem_layout=odd)


def test_tma_needs_the_tmas_own_swizzle():
    cfg = gemm_tma.CONFIGS[gemm_tma.DEFAULT]
    with pytest.raises(ConfigError, match="128-byte swizzled"):
        dataclasses.replace(cfg, smem_layout=padded())
    from labkit.cuda.kernels.ladder.gemm_layout import smem_layout

    same = dataclasses.replace(cfg, smem_layout=smem_layout("tma", 64))
    assert gemm_tma.source("f32", 90, config=same).count("tma_load_2d(") == gemm_tma.source("f32", 90).count("tma_load_2d(")


def test_conflict_free_refuses_a_conflicting_layout():
    with pytest.raises(ConfigError, match="conflict_free: warp 0's ldmatrix of one k-tile take 512"):
        dataclasses.replace(gemm_mma.CONFIG, conflict_free=True)
    dataclasses.replace(gemm_mma.CONFIG, smem_layout=padded(64), conflict_free=True)      # padding: none


def test_the_simple_steps_configs():
    from labkit.cuda.kernels.ladder import gemm_naive, gemm_smem

    assert gemm_naive.check_config((32, 8)) == (32, 8) and gemm_smem.check_config(None) == gemm_smem.TILE
    with pytest.raises(ConfigError, match="at most 1024 threads"):
        gemm_naive.check_config((64, 32))
    with pytest.raises(ConfigError, match="BM = 64"):
        gemm_smem.check_config((128, 64, 32))
    with pytest.raises(ConfigError, match="one of"):
        gemm_pipeline.source(config="no-such")


SIM_SCRIPT = r"""
import dataclasses, json, sys
import labkit as lk
from labkit.cuda.kernels.ladder import gemm, gemm_mma, gemm_pipeline
S = lk.S
pad = lk.make_layout((S(64), S(32)), (S(40), S(1)))
cfgs = {"pipeline": dataclasses.replace(gemm_pipeline.CONFIGS[gemm_pipeline.SIMULATOR], smem_layout=pad),
        "mma": dataclasses.replace(gemm_mma.CONFIG, bm=32, bn=32, bk=32, warps_m=1, warps_n=1,
                                   smem_layout=pad)}
out = {}
for step, cfg in cfgs.items():
    out[step] = gemm.check(step, 40, 36, 72, acc="f32", seed=3, config=cfg)
out["naive"] = gemm.check("naive", 20, 30, 9, acc="f32", seed=4, config=(8, 4))
out["smem"] = gemm.check("smem", 70, 40, 20, acc="f32", seed=5, config=(64, 32, 8))
print(json.dumps(out))
"""


@pytest.mark.slow
def test_configs_run_on_the_cuda_simulator():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", SIM_SCRIPT], env=env, cwd=REPO, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    for step, (err, tol) in json.loads(done.stdout.strip().splitlines()[-1]).items():
        assert err <= tol, (step, err, tol)


def test_one_error_class_for_a_wrong_step_or_config_everywhere():
    from labkit.cuda.kernels.ladder import gemm_wgmma
    from labkit.lab import ladder_trace

    wrong = [lambda: gemm.step_module("fast"), lambda: ladder_trace.trace("fast"),
             lambda: ladder_trace.trace("wgmma"), lambda: ladder_trace.gemm_block_dim("mma"),
             lambda: gemm.kernel_report("naive", sm=80)]
    for call in wrong:
        with pytest.raises(ConfigError, match=r"^step: must be one of \("):
            call()
    configs = [lambda: TileConfig(bk=48), lambda: gemm_wgmma.source(config="nope"),
               lambda: gemm_tma.source("f32", 90, config=gemm_pipeline.CONFIGS[gemm_pipeline.DEFAULT]),
               lambda: ladder_trace.kernel_statements("mma", config=(64, 64, 32))]
    for call in configs:
        with pytest.raises(ConfigError, match=r"^config"):
            call()


def test_the_own_step_lab_reports_what_the_kernel_makes_of_a_layout():
    from labkit.lab import own_step

    t = own_step.try_layout("mma", padded(64))
    # 16 ldmatrix.x4 of 4 phases each; 144-byte rows put a phase's 8 rows in 8 bank groups
    assert t.accepted and t.ldmatrix == (64, 64) and t.step_ldmatrix == (512, 64)
    assert t.stage_bytes == 2 * 2 * 64 * 72 and t.step_stage_bytes == 2 * 2 * 64 * 64
    bad = own_step.try_layout("mma", lk.make_layout((S(64), S(64)), (S(66), S(1))))
    assert not bad.accepted and bad.refused.startswith("config.smem_layout: ldmatrix and cp.async")
    assert own_step.offsets_agree(lk.composition(lk.Swizzle(3, 3, 3), padded(64)))
    rows = own_step.trial_table([t, bad])
    assert rows[0][0] == "step" and rows[1][2] == "64 (64)" and rows[2][2] == "-"
    with pytest.raises(ConfigError, match="step: must be one of"):
        own_step.try_layout("tma", padded())


# ---------------------------------------------------------------------------------------------
# on a GPU


@pytest.mark.gpu
@pytest.mark.parametrize("step, layout", [("mma", "padded"), ("swizzle", "padded"), ("pipeline", "padded"),
                                          ("pipeline", "xor")])
def test_own_layouts_on_gpu(step, layout):
    mod = gemm.step_module(step)
    own = mod.CONFIGS[mod.DEFAULT] if step == "pipeline" else mod.CONFIG
    rows = max(own.bm, own.bn)
    L = padded(rows) if layout == "padded" else lk.composition(
        lk.Swizzle(3, 3, 3), lk.make_layout((S(rows), S(64)), (S(64), S(1))))
    cfg = dataclasses.replace(own, smem_layout=L, conflict_free=True)
    for M, N, K in [(257, 263, 136), (1000, 776, 1032)]:
        err, tol = gemm.check(step, M, N, K, acc="f32", config=cfg)
        assert err <= tol, f"{step} {layout} {M}x{N}x{K}: relative error {err:.3g} over {tol:.3g}"


@pytest.mark.gpu
def test_offset_function_on_gpu():
    import numpy as np

    from labkit.cuda import jit

    L = lk.composition(lk.Swizzle(3, 4, 3), lk.parse_layout("((_8,_2),(_8,_8)):((_64,_4096),(_1,_512))"))
    off = lk.offset_function(L)

    @jit
    def kernel(out):
        i = cuda.grid(1)
        if i < out.shape[0] * out.shape[1]:
            out[i % 16, i // 16] = off(i % 16, i // 16)

    out = cuda.to_device(np.zeros((16, 64), np.int64))
    kernel[4, 256](out)
    want = np.array([[L(r, c) for c in range(64)] for r in range(16)])
    assert (out.copy_to_host() == want).all()
