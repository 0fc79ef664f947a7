"""The lab experiments (labkit.lab.experiments): each kernel does what its chapter predicts.

The kernels run in a child Python: under numba's CUDA simulator in CI (the simulator must be
switched on before numba is imported), and on a GPU for the ``gpu``-marked tests. Expected
values are worked out by hand in the comments (32-byte sectors, 32 banks of 4 bytes, the PTX
ISA's ldmatrix fragment figure), or come from numpy (transposes, slices); the recorded H200
figures in benchmarks/results are checked against labkit's predictions.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from labkit.errors import DeviceError, LayoutError

REPO = Path(__file__).resolve().parents[1]

SCRIPT = r'''
import json
import numpy as np
from labkit.lab import experiments as ex
out = {}
out["copy"] = ex.layout_copy(ex.copy_layouts(32, 64)).to_dict()
out["broadcast"] = ex.layout_copy({"row broadcast": "(32,64):(0,1)", "column broadcast": "(32,64):(1,0)",
                                   "sub-tile": ("(32,64):(128,1)", 8 * 128 + 32)}).to_dict()
out["transpose"] = ex.transpose(64).to_dict()
out["fragment"] = ex.fragment().to_dict()
out["banks"] = ex.bank_timing().to_dict()
from numba import cuda
from labkit.cuda.kernels.experiments import exp_copy
out["subtile_values"] = exp_copy.copy((32, 64), (128, 1), 8 * 128 + 32).tolist()
print("RESULT" + json.dumps(out))
'''


def run_child(simulator: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p))
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    else:
        env.pop("NUMBA_ENABLE_CUDASIM", None)
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT")][-1]
    return json.loads(line[len("RESULT"):])


@pytest.fixture(scope="module")
def twin():
    return run_child(simulator=True)


def rows(result, key):
    return {r["variant"]: r for r in result[key]["rows"]}


# ---------------------------------------------------------------------------------------------
# chapter 1: copy through row-major, padded, column-major layouts (on the simulator)


def test_copy_sectors_exact_on_the_twin(twin):
    assert twin["copy"]["backend"] == "cudasim"
    r = rows(twin, "copy")
    # 32 lanes x 4 B along a row: 128 contiguous bytes from a 256-byte-aligned row start -> 4 sectors
    assert r["row-major"]["sectors/request"] == r["row-major"]["counted sectors/request"] == 4
    # column-major (32,64):(1,32): lanes 128 bytes apart, each in its own sector
    assert r["column-major"]["sectors/request"] == r["column-major"]["counted sectors/request"] == 32
    # rows of 65 words start 260 i bytes in; 260 i = 4 i (mod 32) is sector-aligned only for
    # i = 0, 8, 16, 24: 4 of 32 rows take 4 sectors per request, 28 take 5 -> 156/32
    assert r["padded +1"]["sectors/request"] == r["padded +1"]["counted sectors/request"] == 156 / 32
    # distinct sectors: 2048 words = 8192 B = 256 sectors; padded reaches word 31*65 + 63 = 2078,
    # byte 8315 -> sectors 0..259
    assert r["row-major"]["counted distinct"] == r["column-major"]["counted distinct"] == 256
    assert r["padded +1"]["distinct sectors"] == r["padded +1"]["counted distinct"] == 260
    assert all(x["correct"] for x in r.values())
    assert "ms" not in r["row-major"] and "GB/s" not in r["row-major"]      # no time on the twin


# chapter 4: broadcast and offset


def test_broadcast_and_offset_on_the_twin(twin):
    r = rows(twin, "broadcast")
    # stride 0 between rows: 64 words, 256 B = 8 distinct sectors, still 4 per request
    assert r["row broadcast"]["counted distinct"] == r["row broadcast"]["distinct sectors"] == 8
    assert r["row broadcast"]["counted sectors/request"] == 4
    # stride 0 between columns: a warp reads one word -> 1 sector; 32 words = 4 sectors in all
    assert r["column broadcast"]["counted sectors/request"] == r["column broadcast"]["sectors/request"] == 1
    assert r["column broadcast"]["counted distinct"] == 4
    # memory to move: the output (32*64*4 B) plus the distinct sectors read
    assert r["row broadcast"]["MB moved"] == pytest.approx((8192 + 8 * 32) / 1e6)
    # the offset sub-tile is numpy's slice of the backing 2-D array
    backing = np.arange(40 * 128).reshape(40, 128)
    assert np.array_equal(np.array(twin["subtile_values"]), backing[8:40, 32:96])
    assert r["sub-tile"]["counted sectors/request"] == 4          # 32 + 128 i words: 128 B aligned


# chapter 2: transpose


def test_transpose_on_the_twin(twin):
    r = rows(twin, "transpose")
    # naive: a warp writes one column of the 64x64 output, rows 256 B apart -> 32 sectors
    assert r["naive"]["counted write"] == r["naive"]["write sectors/request"] == 32
    assert r["naive"]["counted read"] == 4
    for kind in ("tiled", "tiled_padded"):
        assert r[kind]["counted read"] == r[kind]["counted write"] == 4
    # the shared column tx*pitch + r: pitch 32 -> every lane in bank r (32-way); 33 -> bank tx + r
    assert r["tiled"]["counted smem load wf"] == r["tiled"]["smem load wavefronts"] == 32
    assert r["tiled_padded"]["counted smem load wf"] == r["tiled_padded"]["smem load wavefronts"] == 1
    assert all(x["correct"] for x in r.values())       # equal to numpy's a.T


# chapter 3: the m8n8 fragment


def check_fragment(result):
    # PTX ISA ldmatrix (m8n8, .b16): lane l receives row l // 4, columns 2 (l % 4) and 2 (l % 4) + 1
    held = np.array(result["fragment"]["extra"]["held"])
    lane = np.arange(32)
    expect = np.stack([8 * (lane // 4) + 2 * (lane % 4), 8 * (lane // 4) + 2 * (lane % 4) + 1], axis=1)
    assert np.array_equal(held, expect)
    assert result["fragment"]["extra"]["matches"] is True
    # chapter 3: element (5, 3) is held by lane 21, slot 1
    assert rows(result, "fragment")["row 5"]["kernel lane.slot"].split()[3] == "21.1"


def test_fragment_on_the_twin(twin):
    check_fragment(twin)


# chapter 5: banks


def test_bank_patterns_on_the_twin(twin):
    r = rows(twin, "banks")
    for p in (1, 2, 4, 8, 16, 32):
        # lane l reads word p*l: bank p*l mod 32, gcd(p, 32) different words per bank
        assert r[f"pitch {p}"]["counted wavefronts"] == r[f"pitch {p}"]["wavefronts"] == math.gcd(p, 32)
    assert r["padded 33"]["counted wavefronts"] == 1          # 33 l mod 32 = l
    assert r["swizzled 32x32"]["counted wavefronts"] == 1     # 32 l XOR l: bank l
    assert all(x["correct"] for x in r.values())
    assert "cycles/access" not in r["pitch 1"]


# ---------------------------------------------------------------------------------------------
# inputs are checked before a launch


def test_inputs_are_checked_before_launch():
    from labkit import sectors
    from labkit.cuda.kernels.experiments import exp_banks, exp_copy

    with pytest.raises(DeviceError, match="multiple of 32"):
        exp_copy.check_args(np.zeros(4096, np.int32), (32, 48), (48, 1), 0)
    with pytest.raises(DeviceError, match="reaches offset"):
        exp_copy.check_args(np.zeros(100, np.int32), (32, 32), (32, 1), 0)
    with pytest.raises(DeviceError, match="4-byte"):
        exp_copy.check_args(np.zeros(4096, np.float64), (32, 32), (32, 1), 0)
    with pytest.raises(DeviceError, match=">= 0"):
        exp_copy.check_args(np.zeros(4096, np.int32), (32, 32), (32, 1), -1)
    with pytest.raises(DeviceError, match="multiple of 32"):
        exp_copy.check_args(np.zeros(4096, np.int32), (8, 32), (32, 1), 0)
    with pytest.raises(DeviceError, match=r"\[0, 2048\)"):
        exp_banks.check_args(np.arange(32) * 100, 32, 4)
    with pytest.raises(DeviceError, match="warps"):
        exp_banks.check_args(np.arange(32), 33, 4)
    with pytest.raises(LayoutError, match="aligned"):
        sectors.sector_count([2, 6], 4)
    with pytest.raises(LayoutError, match="access_bytes"):
        sectors.sector_count([0, 4], 3)


def test_transpose_checks_its_layouts():
    import labkit as lk
    from labkit.cuda.kernels.experiments import exp_transpose

    a = np.zeros(64 * 64, np.float32)
    with pytest.raises(DeviceError, match="transpose"):
        exp_transpose.check_args("tiled", a, a, lk.make_layout((64, 64), (64, 1)), lk.make_layout((32, 128), (128, 1)))
    with pytest.raises(DeviceError, match="kind"):
        exp_transpose.check_args("fast", a, a, lk.make_layout((64, 64), (64, 1)), lk.make_layout((64, 64), (64, 1)))
    with pytest.raises(DeviceError, match="32x32 tiles"):
        b = np.zeros(48 * 48, np.float32)
        exp_transpose.check_args("naive", b, b, lk.make_layout((48, 48), (48, 1)), lk.make_layout((48, 48), (48, 1)))


def test_predictions_need_a_flat_rank_2_layout():
    from labkit.lab import experiments as ex

    with pytest.raises(LayoutError, match="rank 2"):
        ex.predict_copy("((2,4),32):((1,2),8)")
    # 64 rows of 65 words: row i starts 4 i (mod 32) bytes into a sector -> 1 row in 8 aligned:
    # (4 + 7 * 5) / 8 sectors per request
    p = ex.predict_copy("(64,64):(65,1)")
    assert (p["min_sectors"], p["max_sectors"], p["sectors_per_request"]) == (4, 5, 4.875)


# ---------------------------------------------------------------------------------------------
# the H200's recorded figures


def recorded():
    from labkit.lab import experiments as ex

    rec = ex.recorded()
    if rec is None:
        pytest.skip("no benchmarks/results/experiments_*.json")
    return rec


def test_recorded_bank_cycles_track_wavefronts():
    rec = recorded()
    from labkit.lab import experiments as ex

    r = rows(rec, "banks")
    c1 = rec["banks"]["extra"]["single_wavefront_cycles"]
    for name, w in ex.predict_banks().items():
        assert r[name]["wavefronts"] == w
        assert r[name]["correct"]
        assert abs(r[name]["cycles/access"] - w * c1) <= ex.TOLERANCE * w * c1, (name, r[name])


def test_recorded_copy_and_transpose_follow_the_sectors():
    rec = recorded()
    assert rec["environment"]["device"].startswith("NVIDIA")
    for key in ("copy", "copy_repeat"):
        copy = rows(rec, key)
        assert all(x["correct"] for x in copy.values())
        # 32 sectors per request against 4 or 5: column-major is the slowest in every run (the
        # padded row's fifth sector is within the spread between two runs of the same kernel)
        assert copy["column-major"]["GB/s"] < 0.9 * min(copy["row-major"]["GB/s"], copy["padded +1"]["GB/s"])
        # distinct sectors: 2^26 words = 2^23 sectors; padded rows reach word 8191*8193 + 8191, and a
        # 4-byte pad never empties a sector, so every sector up to that word's is read
        assert copy["row-major"]["distinct sectors"] == copy["column-major"]["distinct sectors"] == 2 ** 23
        assert copy["padded +1"]["distinct sectors"] == -(-4 * (8191 * 8193 + 8192) // 32)
    t = rows(rec, "transpose")
    assert all(x["correct"] for x in t.values())
    assert t["tiled_padded"]["GB/s"] > t["tiled"]["GB/s"] and t["tiled_padded"]["GB/s"] > t["naive"]["GB/s"]
    b = rows(rec, "broadcast")
    # a replica costs no memory traffic: the broadcasts read 1024 distinct sectors instead of 2^23,
    # so they move about half the bytes and cannot take longer than the materialised copy
    for name in ("row broadcast", "column broadcast"):
        assert b[name]["distinct sectors"] == 8192 * 4 // 32
        assert b[name]["ms"] < b["materialised"]["ms"]
    assert rec["fragment"]["extra"]["matches"] is True


# ---------------------------------------------------------------------------------------------
# on a GPU


@pytest.mark.gpu
def test_experiments_on_the_gpu():
    res = run_child(simulator=False)
    assert res["copy"]["backend"] == "gpu"
    for key in ("copy", "broadcast", "transpose", "banks"):
        assert all(r["correct"] for r in res[key]["rows"]), key
    assert "GB/s" in rows(res, "copy")["row-major"]
    check_fragment(res)
    backing = np.arange(40 * 128).reshape(40, 128)
    assert np.array_equal(np.array(res["subtile_values"]), backing[8:40, 32:96])


# ---------------------------------------------------------------------------------------------
# the labs' experiment cells, run on the simulator


LAB_CELLS = r'''
import json, sys, io, contextlib
import nbformat
out = {}
for name in ("01_shape_stride", "02_tiling", "03_named_axes", "04_replication_offset", "05_banks_swizzle"):
    nb = nbformat.read(f"notebooks/{name}.ipynb", as_version=4)
    cells = [c.source for c in nb.cells if c.cell_type == "code" and "labkit.lab import experiments" in c.source]
    buf = io.StringIO()
    scope = {}
    with contextlib.redirect_stdout(buf):
        exec("import labkit as lk\n" + "\n".join(cells), scope)
    out[name] = (len(cells), buf.getvalue())
print("RESULT" + json.dumps(out))
'''


@pytest.fixture(scope="module")
def lab_cells():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1",
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p))
    proc = subprocess.run([sys.executable, "-c", LAB_CELLS], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT")][-1]
    return json.loads(line[len("RESULT"):])


def test_every_lab_has_one_experiment_that_says_where_it_ran(lab_cells):
    for name, (count, text) in lab_cells.items():
        assert count == 1, name
        assert "ran on CUDA simulator" in text, name
        if name != "03_named_axes":           # the fragment is exact: nothing is timed anywhere
            assert "no time is measured" in text, name
            assert "recorded" in text and "measured on NVIDIA H200" in text, name


def test_lab_experiment_outputs(lab_cells):
    lab1 = lab_cells["01_shape_stride"][1].splitlines()
    # 32x64: 4 / 4.875 / 32 sectors per request, as worked out in test_copy_sectors_exact_on_the_twin
    assert "predicted row-major     4 sectors per request, 256 distinct" in lab1
    assert "predicted padded +1     4.875 sectors per request, 260 distinct" in lab1
    assert "predicted column-major  32 sectors per request, 256 distinct" in lab1
    # the tiles of a 64x64 row-major matrix: 32x32 tiles, 2x2 of them, 2048 = 32*64 apart down
    assert "tiles: ((32,32),(2,2)):((64,1),(2048,32))" in lab_cells["02_tiling"][1]
    assert "element (5, 3) is held by 21.1" in lab_cells["03_named_axes"][1]
    assert "kernel == Axe layout S[(8,4,2):(4@laneid,1@laneid,1@reg)]: True" in lab_cells["03_named_axes"][1]
    banks = [ln.split() for ln in lab_cells["05_banks_swizzle"][1].splitlines() if ln.startswith("pitch 32 ")]
    assert banks[0][-3:] == ["32", "True", "32"]           # simulator: predicted, correct, counted
