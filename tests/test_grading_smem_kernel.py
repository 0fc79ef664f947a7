"""Exercise 7's questions 12 and 13 (labkit.grading.smem_kernel): a layout ldmatrix reads and a
warp's transpose kernel, graded on what they do.

The wavefront counts expected here are worked out by hand from the bank rules the book states
(32 banks of 4 bytes; a 16-byte access is served 8 lanes a phase, each phase's 16-byte rows
falling in the 8 slots of 128 bytes; a 4-byte access of 32 lanes takes as many wavefronts as the
most distinct words one bank is asked for), written out below as a small model of its own
(:func:`hand_ldmatrix`, :func:`hand_transpose`) and as literals for the plain tiles, never taken
from the code under test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import labkit as lk
from labkit.grading import checks, kernels

REPO = Path(__file__).resolve().parents[1]


def hand_ldmatrix(offset, rows, cols):
    """(wavefronts, least) of ldmatrix.x4 over every 16x16 block: per phase of 8 lanes, the most
    distinct 16-byte rows that share one of the 8 slots of 128 bytes."""
    waves = least = 0
    for r0 in range(0, rows, 16):
        for c0 in range(0, cols, 16):
            lanes = [2 * offset(r0 + lane % 16, c0 + 8 * (lane // 16)) for lane in range(32)]
            for phase in range(4):
                slots = defaultdict(set)
                for byte in lanes[8 * phase: 8 * phase + 8]:
                    slots[(byte // 16) % 8].add(byte)
                waves += max(len(v) for v in slots.values())
                least += 1
    return waves, least


def hand_transpose(offset, rows, cols):
    """(wavefronts, least) of the transpose's stores (row r, columns 32 j + lane) and loads
    (column c, rows 32 j + lane): per warp access, the most distinct words one bank is asked for."""
    def one(words):
        banks = defaultdict(set)
        for w in words:
            banks[w % 32].add(w)
        return max(len(v) for v in banks.values())

    waves = least = 0
    for r in range(rows):
        for j in range(cols // 32):
            waves, least = waves + one([offset(r, 32 * j + t) for t in range(32)]), least + 1
    for c in range(cols):
        for j in range(rows // 32):
            waves, least = waves + one([offset(32 * j + t, c) for t in range(32)]), least + 1
    return waves, least


# ------------------------------------------------------------------------------ question 12

def test_a_plain_tile_of_128_byte_rows_takes_eight_wavefronts_a_phase():
    # 8 rows 128 bytes apart: one 16-byte slot, 8 wavefronts a phase, 32 an ldmatrix.x4 (least 4);
    # a 64x64 tile is 16 blocks: 512 against 64, 448 past the least
    assert kernels.ldmatrix_wavefronts("(64,64):(64,1)") == (512, 64)
    assert checks.read("(64,64):(64,1)", kernels.LdmatrixTile(), "t") == (64, 64, 448)
    # rows of 64 bytes: rows r and r + 2 share a slot, 4 a phase; 16x32 is 2 blocks of 4 phases
    assert kernels.ldmatrix_wavefronts("(16,32):(32,1)") == (32, 8)


@pytest.mark.parametrize("rows,cols", [(16, 32), (64, 64), (48, 128), (128, 256)])
def test_padded_and_swizzled_tiles_are_conflict_free(rows, cols):
    padded = lk.make_layout((rows, cols), (cols + 8, 1))
    assert hand_ldmatrix(lambda r, c: r * (cols + 8) + c, rows, cols)[0] == 4 * (rows // 16) * (cols // 16)
    assert checks.read(padded, kernels.LdmatrixTile(), "t") == (rows, cols, 0)
    if cols >= 64:      # Sw<3,3,S>, 2^(3+S) halves a row: the row's low three bits XOR the 16-byte chunk
        shift = (cols // 8).bit_length() - 1
        sw = lk.composition(lk.Swizzle(3, 3, shift), lk.make_layout((rows, cols), (cols, 1)))

        def by_hand(r, c):
            o = r * cols + c
            return o ^ ((o >> shift) & (7 << 3))
        assert hand_ldmatrix(by_hand, rows, cols) == (4 * (rows // 16) * (cols // 16),) * 2
        assert checks.read(sw, kernels.LdmatrixTile(), "t") == (rows, cols, 0)


@pytest.mark.parametrize("seed", range(1, 25))
def test_question_12_agrees_with_the_hand_model_on_each_variants_tile(seed):
    from labkit.grading import variants

    rows, cols = variants.of("07_gemm_ladder", seed).tile12
    for pad in (0, 8, 16, 24):       # row r's chunk 0 in slot r (cols / 8 + pad / 8) % 8, cols / 8 even
        lay = lk.make_layout((rows, cols), (cols + pad, 1))
        waves, least = hand_ldmatrix(lambda r, c: r * (cols + pad) + c, rows, cols)
        assert kernels.ldmatrix_wavefronts(lay) == (waves, least)
        assert (waves == least) == (pad in (8, 24))        # an odd slot step: 8 slots for 8 rows


@pytest.mark.parametrize("text,why", [
    ("(64,64):(1,64)", "contiguous"),            # column-major: a 16-byte row is 8 columns apart
    ("(64,64):(68,1)", "contiguous"),            # rows padded by 8 bytes: chunks off 16-byte alignment
    ("(64,64):(0,1)", "share offset"),           # every row at one place
    ("(64,60):(64,1)", "multiples of 16"),
])
def test_a_tile_ldmatrix_cannot_read_is_refused_by_the_public_check(text, why):
    with pytest.raises(checks.Hint, match=why):
        checks.form(text, kernels.LdmatrixTile(), "t")


def test_question_12_wrong_and_blank_answers():
    with pytest.raises(checks.Wrong):                # the right tile, with conflicts
        checks.exact("(64,64):(64,1)", kernels.LdmatrixTile(), (64, 64, 0), "t")
    with pytest.raises(checks.Wrong):                # conflict-free, of another tile
        checks.exact("(32,64):(72,1)", kernels.LdmatrixTile(), (64, 64, 0), "t")
    with pytest.raises(checks.NotAnswered):
        checks.form(..., kernels.LdmatrixTile(), "t")
    with pytest.raises(checks.Hint):
        checks.form((64, 64, 0), kernels.LdmatrixTile(), "t")   # the book's expected tuple is no layout


# ------------------------------------------------------------------------------ question 13

def host(layout, rows, cols, wrong=False):
    """A transpose done on the host (what a kernel must return), through ``layout``."""
    def transposed(seed):
        a = kernels.tile_input(seed, rows, cols)
        out = a.T.copy()
        if wrong:
            out[0, 1] += 1
        return tuple(map(tuple, out.tolist())), layout
    return transposed


def test_the_plain_tile_transposes_with_a_32_way_conflict_on_every_load():
    # stores: 32 rows, one wavefront each; loads: 32 columns, all 32 lanes in bank c: 32 each
    assert kernels.transpose_wavefronts(lk.make_layout((32, 32), (32, 1))) == (32 + 32 * 32, 64)
    got = kernels.WarpTranspose().read(host(lk.make_layout((32, 32), (32, 1)), 32, 32), "f")
    assert got == (32, 32, 32 * 31)


@pytest.mark.parametrize("rows,cols", [(32, 32), (64, 32), (32, 96), (96, 64)])
def test_padding_a_word_or_swizzling_makes_the_transpose_conflict_free(rows, cols):
    padded = lk.make_layout((rows, cols), (cols + 1, 1))
    least = rows * (cols // 32) + cols * (rows // 32)
    assert hand_transpose(lambda r, c: r * (cols + 1) + c, rows, cols) == (least, least)
    assert kernels.transpose_wavefronts(padded) == (least, least)
    assert kernels.WarpTranspose().read(host(padded, rows, cols), "f") == (rows, cols, 0)
    sw = lk.composition(lk.Swizzle(5, 0, 5), lk.make_layout((rows, cols), (cols, 1)))
    if cols == 32:       # Sw<5,0,5> on rows of 32 words: the column XOR the row's low five bits
        assert hand_transpose(lambda r, c: r * 32 + (c ^ (r % 32)), rows, cols) == (least, least)
        assert kernels.transpose_wavefronts(sw) == (least, least)


def test_question_13_wrong_output_blank_and_form():
    padded = lk.make_layout((32, 32), (33, 1))
    with pytest.raises(checks.Wrong, match="not the transpose"):
        kernels.WarpTranspose().read(host(padded, 32, 32, wrong=True), "f")
    checks.form(host(padded, 32, 32, wrong=True), kernels.TransposeRun(), "f")   # the form says nothing of values
    with pytest.raises(checks.NotAnswered):
        checks.form(lambda seed: ..., kernels.TransposeRun(), "f")
    with pytest.raises(checks.Hint, match="pair"):
        checks.form(lambda seed: 3, kernels.TransposeRun(), "f")
    with pytest.raises(checks.Hint):
        checks.form((32, 32, 0), kernels.TransposeRun(), "f")
    # the grader calls the answer on its own tiles; the first is the one the public check calls
    assert kernels.TransposeRun().inputs() == kernels.WarpTranspose().inputs()
    assert kernels.WarpTranspose().inputs()[0] == (0,) and len(kernels.WarpTranspose().inputs()) >= 3


def test_the_grader_tile_is_the_same_for_the_same_seed():
    a = kernels.tile_input(7, 32, 64)
    assert a.dtype == np.int32 and a.shape == (32, 64)
    assert np.array_equal(a, kernels.tile_input(7, 32, 64)) and not np.array_equal(a, kernels.tile_input(8, 32, 64))


KERNEL = r'''
import os
os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
import numba, numpy as np
from numba import cuda
import labkit as lk
from labkit.grading import checks, kernels

tile = (64, 32)
sT = lk.make_layout(tile, (tile[1] + 1, 1))
sT_offset = lk.offset_function(sT)
WORDS = int(lk.cosize(sT))

@cuda.jit
def transpose_kernel(a, out):
    sm = cuda.shared.array(WORDS, numba.int32)
    lane = cuda.threadIdx.x
    for r in range(a.shape[0]):
        for c in range(lane, a.shape[1], 32):
            sm[sT_offset(r, c)] = a[r, c]
    cuda.syncthreads()
    for c in range(a.shape[1]):
        for r in range(lane, a.shape[0], 32):
            out[c, r] = sm[sT_offset(r, c)]

def transposed(seed):
    a = kernels.tile_input(seed, *tile)
    out = np.zeros(tile[::-1], np.int32)
    transpose_kernel[1, 32](a, out)
    return tuple(map(tuple, out.tolist())), sT

print(kernels.WarpTranspose().read(transposed, "transposed"))
'''


@pytest.mark.slow
def test_a_numba_kernel_through_the_offset_function_is_read_on_the_simulator():
    env = {**os.environ, "PYTHONPATH": str(REPO), "NUMBA_ENABLE_CUDASIM": "1"}
    out = subprocess.run([sys.executable, "-c", KERNEL], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "(64, 32, 0)"


def _solution_cells(marks):
    """The code cells of exercise 7's solution that contain any of ``marks``, in order, with the
    solution markers stripped (what a learner who answered would have run)."""
    import json

    nb = json.loads((REPO / "solutions" / "07_gemm_ladder.ipynb").read_text())
    cells = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    keep = [c for c in cells if any(m in c for m in marks) and "BEGIN TEST CONFIG" not in c]
    return "\n".join(line.split("  # SOLUTION")[0] for c in keep for line in c.splitlines()
                     if "BEGIN SOLUTION" not in line and "END SOLUTION" not in line)


@pytest.mark.gpu
def test_question_13_the_learners_kernel_runs_on_a_gpu_and_is_graded_there():
    """The answer cells of question 13 (layout, kernel with its two clock64 reads, the answer
    function) run on a real GPU: the output is the transpose, the clock counted cycles (the
    simulator's reads 0), and the grader's check of the answer passes on the book's tiles."""
    body = _solution_cells(("sT = lk.make_layout(tile13", "SMEM_WORDS = int(", "def transpose_kernel",
                            "kernels.transpose_answer("))
    script = ("import json\nimport numpy as np\nimport labkit as lk\nfrom labkit.grading import kernels\n"
              "tile13 = (32, 32)\n" + body + "\n"
              "out, _ = transposed(1)\n"
              "a = kernels.tile_input(1, *tile13)\n"
              "print(json.dumps({'transpose': bool(np.array_equal(np.array(out), a.T)),\n"
              "                  'cycles': transposed.cycles,\n"
              "                  'read': str(kernels.WarpTranspose().read(transposed, 'transposed'))}))\n")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    import json

    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["transpose"] and out["cycles"] > 0, out
    assert out["read"] == "(32, 32, 0)", out
