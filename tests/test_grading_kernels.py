"""Exercise 6's capstone harness: a learner's ldmatrix.x4 row addresses run in sgemm_sm80's
thread block (labkit.grading.kernels).

The right addresses are written here from the facts, not from labkit: sgemm_sm80's tile is
``Sw<3,3,3> o (8,(8,8)):(8,(1,64))`` tiled to 128x64 (FACTS, "The official CTA configuration"),
so element (r, c) sits at ``512 (r // 8) + 64 (c // 8) + 8 ((r % 8) ^ (c // 8)) + c % 8``; the
PTX ISA's ldmatrix gives lane L the row L % 8 of matrix L // 8, matrix j landing in register j;
the m16n8k16 A registers a0..a3 are the 8x8 blocks (rows 0-7, K 0-7), (8-15, 0-7), (0-7, 8-15),
(8-15, 8-15), and a B fragment's b0, b1 are K 0-7 and 8-15 of its 8 rows.
"""

from __future__ import annotations

import numpy as np
import pytest

from labkit.errors import DeviceError
from labkit.grading import checks, kernels


def tile_offset(r, c):
    return 512 * (r // 8) + 64 * (c // 8) + 8 * ((r % 8) ^ (c // 8)) + c % 8


def a_right(lane, m0, k0):
    j, row = divmod(lane, 8)
    return tile_offset(m0 + 8 * (j % 2) + row, k0 + 8 * (j // 2))


def b_right(lane, n0, k0):
    j, row = divmod(lane, 8)
    return tile_offset(n0 + 16 * (j // 2) + row, k0 + 8 * (j % 2))


def a_drawing_order(lane, m0, k0):
    """Matrices 1 and 2 swapped (rows 0-7 at K 8-15 first): a wrong register order."""
    j, row = divmod(lane, 8)
    return tile_offset(m0 + 8 * (j // 2) + row, k0 + 8 * (j % 2))


def a_unswizzled(lane, m0, k0):
    """The blocked tile without the XOR: at K 0-7 (matrices 0, 1) nothing moves, at K 8-15 it does."""
    j, row = divmod(lane, 8)
    r, c = m0 + 8 * (j % 2) + row, k0 + 8 * (j // 2)
    return 512 * (r // 8) + 64 * (c // 8) + 8 * (r % 8) + c % 8


def test_right_addresses_compute_a_times_b_transposed():
    run = kernels.run_capstone(a_offset=a_right, b_offset=b_right, backend="sim")
    assert run.correct and run.backends == ("sim",)
    assert np.array_equal(run.d, run.expected)
    # conflict-free: every ldmatrix.x4 takes its 4 wavefronts, 4 warps x 8 loads x 4 k-blocks
    assert run.wavefronts == run.min_wavefronts == 4 * 8 * 4 * 4


def test_right_numpy_integers_are_accepted():
    run = kernels.run_capstone(a_offset=lambda *a: np.int64(a_right(*a)), backend="sim")
    assert run.correct


@pytest.mark.parametrize("wrong, lanes", [(a_drawing_order, "8-23"), (a_unswizzled, "16-31")])
def test_wrong_a_addresses_are_caught_and_located(wrong, lanes):
    run = kernels.run_capstone(a_offset=wrong, backend="sim")
    assert not run.correct and run.wrong_elements > 0
    op, kb, warp, load, got = run.wrong[0]
    assert (op, kb, warp, load) == ("A", 0, 0, 0)
    assert got == lanes
    with pytest.raises(checks.Wrong, match="D is not A·Bᵀ"):
        kernels.exact(wrong, "A", "ldsm_a_offset")


def test_wrong_b_addresses_are_caught():
    def b_adjacent(lane, n0, k0):        # second fragment 8 rows down instead of 16
        j, row = divmod(lane, 8)
        return tile_offset(n0 + 8 * (j // 2) + row, k0 + 8 * (j % 2))

    assert not kernels.run_capstone(b_offset=b_adjacent, backend="sim").correct
    kernels.exact(b_right, "B", "ldsm_b_offset", backend="sim")


def test_blank_and_malformed_answers_say_so_in_one_line():
    def blank(lane, m0, k0):
        ...

    with pytest.raises(checks.NotAnswered, match="^ldsm_a_offset: not answered yet$"):
        kernels.form(blank, "A", "ldsm_a_offset")
    with pytest.raises(checks.NotAnswered):
        kernels.form(..., "A", "ldsm_a_offset")
    with pytest.raises(checks.Hint, match="int element offset; got float"):
        kernels.form(lambda *a: 0.0, "A", "ldsm_a_offset")
    with pytest.raises(checks.Hint, match="16-byte aligned"):
        kernels.form(lambda *a: 4, "B", "ldsm_b_offset")
    with pytest.raises(checks.Hint, match="raised ZeroDivisionError"):
        kernels.form(lambda *a: 1 // 0, "A", "ldsm_a_offset")
    assert kernels.report() == "not answered yet"
    assert kernels.report(blank).endswith("not answered yet") and "\n" not in kernels.report(blank)


def test_an_always_equal_answer_scores_nothing():
    class Yes(int):
        def __eq__(self, other):
            return True

        __hash__ = int.__hash__

    with pytest.raises(checks.Hint):
        kernels.form(lambda *a: Yes(0), "A", "ldsm_a_offset")
    with pytest.raises((checks.Hint, checks.Wrong)):
        kernels.exact(lambda *a: Yes(0), "A", "ldsm_a_offset")


def test_bad_arguments_are_named():
    with pytest.raises(DeviceError, match="operand must be 'A' or 'B'"):
        kernels.offset_table(a_right, "C")
    with pytest.raises(DeviceError, match="must be a function"):
        kernels.offset_table(3, "A")
    with pytest.raises(DeviceError, match="backend must be"):
        kernels.run_capstone(a_offset=a_right, backend="tpu")


CUDASIM_SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import test_grading_kernels as t
from labkit.grading import kernels
right = kernels.run_capstone(a_offset=t.a_right, b_offset=t.b_right, backend="cudasim")
print(json.dumps({"backends": right.backends, "correct": right.correct}))
"""


@pytest.mark.slow
def test_the_numba_kernel_runs_the_addresses_under_the_cuda_simulator():
    """The same kernel source a GPU runs, under numba's simulator with labkit's PTX twins."""
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
    assert out == {"backends": ["sim", "cudasim"], "correct": True}


@pytest.mark.gpu
def test_on_a_gpu_the_thread_block_runs_there_too():
    from labkit.cuda.launch import device_sm

    if device_sm() < 80:
        pytest.skip("sgemm_sm80's thread block needs sm_80 (cp.async, mma m16n8k16)")
    right = kernels.run_capstone(a_offset=a_right, b_offset=b_right)
    assert right.backends == ("sim", "gpu") and right.correct
    wrong = kernels.run_capstone(a_offset=a_drawing_order)
    assert wrong.backends == ("sim", "gpu") and not wrong.correct
