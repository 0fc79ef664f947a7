"""Exercise 7's capstone harness: a learner's epilogue addresses stage C in shared memory
(labkit.grading.kernels.run_epilogue / StagedTile).

The right addresses are written here from the facts, not from labkit: the m16n8k16 accumulator
layout of the PTX ISA gives lane L's register h (values 2h, 2h+1) the pair C(L // 4 + 8 h, 2 (L % 4))
and its right neighbour; the staged tile is row-major with rows of 256 bytes (128 halves) under
``Swizzle<3,3,4>`` (element bits 7-9 XORed into bits 3-5), so element (m, n) sits at byte
``256 m + 16 ((n // 8) ^ (m % 8)) + 2 (n % 8)``.
"""

from __future__ import annotations

import numpy as np
import pytest

from labkit.errors import DeviceError
from labkit.grading import checks, kernels


def staged_byte(m, n):
    return 256 * m + 16 * ((n // 8) ^ (m % 8)) + 2 * (n % 8)


def right(lane, h, m0, n0):
    return staged_byte(m0 + lane // 4 + 8 * h, n0 + 2 * (lane % 4))


def plain(lane, h, m0, n0):
    """The row-major tile without the swizzle: the stores land, but not where sC reads them."""
    m, n = m0 + lane // 4 + 8 * h, n0 + 2 * (lane % 4)
    return 256 * m + 2 * n


def registers_swapped(lane, h, m0, n0):
    """Register 1 stored in the rows of register 0 and back."""
    return right(lane, 1 - h, m0, n0)


def sw333(lane, h, m0, n0):
    """The swizzle of 128-byte rows on 256-byte rows (element bits 6-8 into 3-5)."""
    m, n = m0 + lane // 4 + 8 * h, n0 + 2 * (lane % 4)
    e = 128 * m + n
    return 2 * (e ^ (((e >> 6) & 7) << 3))


def test_right_addresses_stage_c_without_bank_conflicts():
    run = kernels.run_epilogue(right, backend="sim")
    assert run.correct and run.wrong_elements == 0 and run.first_wrong is None
    assert run.backends == ("sim",)
    # 64 st.shared.b32 per warp tile, each 8 rows x 16 bytes in 8 different bank groups: 1 wavefront
    assert (run.wavefronts, run.min_wavefronts) == (64, 64)
    checks.exact(right, kernels.StagedTile("sim"), kernels.STAGED, "pair_offset")
    checks.exact(lambda *a: np.int64(right(*a)), kernels.StagedTile("sim"), kernels.STAGED, "pair_offset")


@pytest.mark.parametrize("wrong", [plain, registers_swapped, sw333])
def test_wrong_addresses_are_caught(wrong):
    run = kernels.run_epilogue(wrong, backend="sim")
    assert not run.correct and run.wrong_elements > 0
    with pytest.raises(checks.Wrong, match="read through sC the staged tile is not C"):
        checks.exact(wrong, kernels.StagedTile("sim"), kernels.STAGED, "pair_offset")


def test_plain_tile_costs_eight_wavefronts_a_store():
    # the plain tile's 8 rows of 256 bytes start in bank 0: every store is an 8-way conflict
    assert kernels.run_epilogue(plain, backend="sim").wavefronts == 8 * 64


def test_inputs_cover_every_store_of_the_block():
    inputs = kernels.pair_inputs()
    assert len(inputs) == 32 * 2 * 8 * 16            # lanes x registers x 8 atom rows x 16 atom columns
    assert {(m0, n0) for _, _, m0, n0 in inputs} == {(16 * i, 8 * j) for i in range(8) for j in range(16)}


def test_bad_answers_get_one_line_reasons():
    def blank(lane, h, m0, n0):
        ...
    with pytest.raises(checks.NotAnswered, match="not answered yet"):
        checks.form(blank, kernels.PairAddress(), "pair_offset")
    with pytest.raises(checks.Hint, match="multiple of 4"):
        checks.form(lambda *a: 2, kernels.PairAddress(), "pair_offset")
    with pytest.raises(checks.Hint, match="must return an int"):
        checks.form(lambda *a: 0.0, kernels.PairAddress(), "pair_offset")
    with pytest.raises(checks.Hint, match="ZeroDivisionError"):
        checks.form(lambda *a: 1 // 0, kernels.PairAddress(), "pair_offset")
    with pytest.raises(checks.Hint, match="32768"):
        checks.exact(lambda lane, h, m0, n0: 4 * 8192 if m0 else 0, kernels.StagedTile("sim"), kernels.STAGED, "f")
    checks.form(right, kernels.PairAddress(), "pair_offset")
    assert kernels.epilogue_report() == "not answered yet"
    assert kernels.epilogue_report(blank).endswith("not answered yet")
    with pytest.raises(DeviceError, match="backend"):
        kernels.run_epilogue(right, backend="tpu")
    with pytest.raises(DeviceError, match="must be a function"):
        kernels.run_epilogue(3, backend="sim")


CUDASIM_SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import test_grading_epilogue_capstone as t
from labkit.grading import kernels
ok = kernels.run_epilogue(t.right)
bad = kernels.run_epilogue(t.sw333)
print(json.dumps({"backends": ok.backends, "correct": ok.correct, "wrong": [bad.correct, bad.wrong_elements > 0]}))
"""


@pytest.mark.slow
def test_the_numba_kernel_stages_the_tile_under_the_cuda_simulator():
    """The kernel a GPU runs (labkit.cuda.kernels.experiments.exp_epilogue), under numba's simulator."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    here = Path(__file__).resolve().parent
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1",
           "PYTHONPATH": os.pathsep.join([str(here.parent), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", CUDASIM_SCRIPT, str(here)], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out == {"backends": ["sim", "cudasim"], "correct": True, "wrong": [False, True]}


@pytest.mark.gpu
def test_on_a_gpu_the_stores_run_there_too():
    run = kernels.run_epilogue(right)
    assert run.backends == ("sim", "gpu") and run.correct
    assert not kernels.run_epilogue(sw333).correct
