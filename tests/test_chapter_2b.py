"""Chapter 2b (from the global tensor to a thread's tile): the page, its lab, the ragged-copy
model of :mod:`labkit.lab.predicated_copy` and the predicated copy kernel on numba's CUDA simulator.

Where the expected values come from:

- the layouts, coordinates and tiled copies the page prints are what CuTe C++ prints for the same
  calls (``local_tile``, ``local_partition``, ``make_identity_tensor``, ``make_tiled_copy`` with
  ``UniversalCopy<half_t>`` and ``UniversalCopy<uint128_t>``, compiled with g++ against the CUTLASS
  headers of the ``nvidia-cutlass`` wheel);
- tile counts, masks, requests and sectors are worked out by hand in the comment beside each;
- the measured bandwidths are the committed H200 result file of lab 1's copy experiment.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from labkit.lab import predicated_copy as pc
from labkit.errors import DeviceError, LayoutError

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "book" / "02b_global_to_thread.md"
LAB = REPO / "notebooks" / "02b_global_to_thread.ipynb"
FIRST_LAB = REPO / "notebooks" / "01_shape_stride.ipynb"
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p))


def notebook_tools():
    """jupytext, nbformat and nbclient's NotebookClient, imported where a test runs notebooks (a GPU
    machine without them still runs this module's GPU test)."""
    jupytext = pytest.importorskip("jupytext")
    nbformat = pytest.importorskip("nbformat")
    return jupytext, nbformat, pytest.importorskip("nbclient").NotebookClient


def stream_text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


# ---------------------------------------------------------------------------------------------
# the page


@pytest.fixture(scope="module")
def page(executed_page):
    return executed_page(PAGE)


# What CuTe C++ prints for the page's calls (A = make_layout(make_shape(1000, 776)), tiler
# (_128,_128), block (7, 6), threads (_32,_8), thread 37; mA 1000x64 with Step<_1,X,_1>).
CUTE_FACTS = [
    "(1000,776):(_1,1000)",
    "((_128,_128),(8,7)):((_1,1000),(_128,128000))",
    # tile (7,6) starts at element (896, 768): 896 + 768 * 1000
    "tile (7,6): (_128,_128):(_1,1000)  starts at offset 768896 = (896, 768)",
    "every tile: (_128,_128,8,7):(_1,1000,_128,128000)",
    # thread 37 = (5, 1) of the 32x8 threads: offset 768896 + 5 + 1000
    "thread 37:     (_4,_16):(_32,8000)   first element at offset 769901",
    "A tile: (_128,_8,8):(_1,1000,8000)",
    "(_4,_8):(_1@0,_1@1)",
    "cI(1, 2) = (1,2)   cI(13) = (1,3)",
    "make_identity_layout: (_4,_8):(_1@0,_1@1)",
    "tile (7,6): (_128,_128):(_1@0,_1@1)  first coordinate (896,768)",
    "thread 37:  (_4,_16):(_32@0,_8@1)",
    # values 0..3 walk down rows 901, 933, 965, 997; value 4 is the next column group, 769 + 8
    "values 0..4: (901,769) (933,769) (965,769) (997,769) (901,777)",
    "[True, True, True, True, False]",
    "thread 37 copies 4 of its 64 values",
    "grid: (8, 7)",
    "TiledLayout_TV (_256,_1):(_1,_0)",
    "TiledLayout_TV (_256,_8):(_8,_1)",
    "offsets:     ((_8,_1),_1,_8):((_1,_0),_0,16000)",
    "coordinates: ((_8,_1),_1,_8):((_1@0,_0),_0,_16@1)  first vector at (904,769)",
    "vector: M (1001) must be a multiple of 8",
]


def test_page_prints_what_cute_prints(page):
    code = [c for c in page.cells if c.cell_type == "code"]
    for cell in code:
        assert not any(o.output_type == "error" for o in cell.outputs), cell.source
    printed = "\n".join(stream_text(c) for c in code)
    for fact in CUTE_FACTS:
        assert fact in printed, fact


def test_page_predicts_sectors_and_cites_the_recorded_copy(page):
    printed = "\n".join(stream_text(c) for c in page.cells if c.cell_type == "code")
    # the recorded runs are tables of labkit.lab.measurements: the cells' results
    printed += "\n" + "\n".join(o["data"]["text/plain"] for c in page.cells if c.cell_type == "code"
                                 for o in c.get("outputs", []) if o.get("output_type") == "execute_result")
    # M = 1024: a scalar warp request is 32 halves = 64 aligned bytes (2 sectors), a vector one
    # two columns of 256 aligned bytes (16). Requests: 56 blocks x 8 warps x 64 values = 28672,
    # less the last block column's 8 blocks x 8 warps x 4 x 15 wholly masked = 24832; vector:
    # 56 x 8 x 8 = 3584 less 8 blocks x 60 = 3104.
    assert re.search(r"M = 1024, scalar: 24832 requests, 2 sectors/request, 49664 sectors, 100.0%", printed)
    assert re.search(r"M = 1024, vector: 3104 requests, 16 sectors/request, 49664 sectors, 100.0%", printed)
    rec = json.loads(sorted((REPO / "benchmarks" / "results").glob("experiments_*.json"))[-1].read_text())
    assert "measured on " + rec["copy"]["device"] in printed
    for r in rec["copy"]["rows"]:
        assert re.search(rf"{re.escape(r['variant'])} +{re.escape(r['layout'])} +\S+ +{r['GB/s']:.0f}\n", printed)


def test_page_shows_the_mask_figure_and_defines_no_helpers(page):
    kinds = [k for c in page.cells if c.cell_type == "code" for o in c.outputs for k in o.get("data", {})]
    assert "image/png" in kinds
    text = PAGE.read_text()
    jupytext, _, _ = notebook_tools()
    nb = jupytext.read(PAGE)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert not re.search(r"^\s*(def|class)\s", code, flags=re.M)
    assert "json.load" not in code and "open(" not in code and "read_text(" not in code
    cited = set(re.findall(r"\{glue:?\w*\}`([^`]+)`", prose))
    glued = set(re.findall(r"glue\(\"([^\"]+)\"", code))
    assert cited and cited <= glued, cited - glued
    assert text.startswith("---") and "(global-to-thread)=" in text


def test_glued_figures_are_the_hand_counts(page):
    glued = {}
    for c in page.cells:
        for o in c.get("outputs", []):
            name = o.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                glued[name] = o["data"]["text/plain"].strip("'")
    # 1000 = 7*128 + 104 and 776 = 6*128 + 8: 8 x 7 blocks, the last row (7) and column (6) of
    # blocks partial, one in both: 7 + 6 + 1 = 14; the corner tile holds 104 x 8 = 832 values of
    # 128*128 = 16384. The 16-byte copy: thread (tm, tn) copies the vector at row 8*tm of
    # columns tn + 16j: only tm < 13 and tn < 8 reach inside, 104 threads; 152 idle.
    expected = {"ch2b_grid_m": "8", "ch2b_grid_n": "7", "ch2b_blocks": "56", "ch2b_partial": "14",
                "ch2b_last_m": "104", "ch2b_last_n": "8", "ch2b_tile_offset": "768896",
                "ch2b_mask_s_on": "832", "ch2b_mask_s_all": "16384", "ch2b_mask_v_busy": "104",
                "ch2b_mask_v_idle": "152", "ch2b_req_s": "24832", "ch2b_req_v": "3104"}
    for key, value in expected.items():
        assert glued.get(key) == value, (key, glued.get(key))


# ---------------------------------------------------------------------------------------------
# the model


def test_ragged_tiles_by_hand():
    r = pc.ragged_tiles((1000, 776))
    assert r["grid"] == (8, 7) and r["blocks"] == 56 and r["last_tile"] == (104, 8)
    assert sorted(r["partial"]) == sorted([(7, j) for j in range(7)] + [(i, 6) for i in range(7)])
    assert pc.ragged_tiles((1024, 768))["partial_blocks"] == 0
    assert pc.ragged_tiles((1, 1))["grid"] == (1, 1) and pc.ragged_tiles((129, 1))["partial"] == [(0, 0), (1, 0)]
    for bad in [(0, 4), (4,), (4.0, 4), (True, 4), [4, 4]]:
        with pytest.raises(LayoutError, match="shape"):
            pc.ragged_tiles(bad)
    for bad in [(1, -8), (1,), (1.0, 8)]:
        with pytest.raises(LayoutError, match="stride"):
            pc.predict((8, 8), "scalar", stride=bad)


def test_thread_coordinates_follow_the_thread_layouts():
    c = pc.tile_coords("scalar")
    # thread t = (t % 32, t // 32); value (i, j) colexicographic over (4, 16): (tm + 32 i, tn + 8 j)
    t = np.arange(256)[:, None]
    v = np.arange(64)[None, :]
    assert np.array_equal(c[:, :, 0], t % 32 + 32 * (v % 4))
    assert np.array_equal(c[:, :, 1], t // 32 + 8 * (v // 4))
    cv = pc.tile_coords("vector")
    # thread t = (t % 16, t // 16); vector j at row 8 (t % 16), column t // 16 + 16 j
    v8 = np.arange(8)[None, :]
    assert cv.shape == (256, 8, 2)
    assert np.array_equal(cv[:, :, 0], np.broadcast_to(8 * (t % 16), (256, 8)))
    assert np.array_equal(cv[:, :, 1], t // 16 + 16 * v8)
    with pytest.raises(LayoutError, match="kind"):
        pc.tile_coords("wide")


def test_masks_by_hand():
    m = pc.value_mask((1000, 776), (7, 6), "scalar")
    t = np.arange(256)
    assert np.array_equal(m.sum(axis=1), np.where(t % 32 < 8, 4, 3))
    mv = pc.value_mask((1000, 776), (7, 6), "vector")
    assert np.array_equal(mv.sum(axis=1), ((t % 16 < 13) & (t // 16 < 8)).astype(int))
    assert pc.value_mask((1000, 776), (0, 0), "scalar").all()      # a full block copies everything


def test_sectors_by_hand():
    # (32, 8): one block; the 8 warps each copy column tn, 32 halves at byte 64 tn: 2 sectors
    p = pc.predict((32, 8), "scalar")
    assert (p["requests"], p["sectors_per_request"], p["efficiency"], p["copied"]) == (8, 2.0, 1.0, 256)
    # (40, 8): columns 80 bytes apart. Rows 0-31: 64 bytes from 80 tn, 2 sectors for even tn, 3 for
    # odd; rows 32-39: 16 bytes at 80 tn + 64, one sector. 16 requests, 4*2 + 4*3 + 8 = 28 sectors,
    # 8*64 + 8*16 = 640 bytes asked for of 28*32 = 896 moved.
    p = pc.predict((40, 8), "scalar")
    assert (p["requests"], p["sectors"], p["sectors_per_request"]) == (16, 28, 1.75)
    assert p["efficiency"] == pytest.approx(640 / 896)
    # vector, (32, 8): threads tm < 4 and tn < 8 copy; warp w holds columns 2w and 2w+1, 4 vectors
    # (64 bytes) each, at byte 64 * column: 2 + 2 sectors per request, 4 requests
    p = pc.predict((32, 8), "vector")
    assert (p["requests"], p["sectors_per_request"], p["copied"]) == (4, 4.0, 256)
    # row-major: a warp walks down a column of 32 rows, 776 halves apart: 32 sectors
    assert pc.predict((1024, 776), "scalar", stride=(776, 1))["sectors_per_request"] == 32.0


def test_mask_figure_names_what_it_shows():
    import matplotlib

    matplotlib.use("Agg")
    from labkit.viz.masks import draw_ragged, thread_counts

    fig = draw_ragged((1000, 776))
    assert "8 by 7 blocks" in fig.alt_text and "14 of them partial" in fig.alt_text
    assert "104 threads copy one vector or more and 152 copy nothing" in fig.alt_text
    assert thread_counts((1000, 776), (7, 6), "scalar")[:, 0].tolist() == [4] * 8 + [3] * 24


def test_recorded_run_is_read_back(tmp_path):
    assert pc.recorded(tmp_path) is None
    assert "no GPU run" in pc.recorded_table(tmp_path)
    e = {"name": "predicated copy", "backend": "gpu", "device": "NVIDIA H200 (sm_90)", "note": "n",
         "rows": [{"variant": "scalar", "sectors/request": 2.45, "requests": 1, "GB/s": 1000.0}],
         "predicted": ["sectors/request"], "measured": ["GB/s"], "extra": {}}
    (tmp_path / "predicated_copy_h200_2026-01-01.json").write_text(
        json.dumps({"environment": {"date": "2026-01-01 00:00 UTC", "python": "3.11"}, "experiment": e}))
    assert pc.recorded(tmp_path)["experiment"]["device"] == "NVIDIA H200 (sm_90)"
    text = pc.recorded_table(tmp_path)
    assert "recorded 2026-01-01" in text and "measured on NVIDIA H200 (sm_90)" in text and "1000" in text
    (tmp_path / "predicated_copy_h200_2026-01-02.json").write_text(json.dumps({"rows": []}))
    with pytest.raises(DeviceError, match="environment"):
        pc.recorded(tmp_path)


# ---------------------------------------------------------------------------------------------
# the kernel, validated before launch and run on the simulator

SIM = r'''
import json
import numpy as np
from numba import cuda
from labkit.lab import predicated_copy as pc
from labkit.cuda.kernels.experiments import exp_predicated_copy as kp
out = {"run": pc.run((200, 136)).to_dict(), "small": pc.run((40, 8)).to_dict()}
# the kernel writes only inside the matrix: a sentinel after it survives, and every element
# inside is the source's
m, n = 72, 24
src = np.arange(m * n + 16, dtype=np.uint16)
dst = cuda.to_device(np.full(m * n + 16, 7, np.uint16))
kp.launch("vector", cuda.to_device(src), dst, (m, n), (1, m), cuda.to_device(pc.tile_coords("vector")))()
h = dst.copy_to_host()
out["vector_small"] = [bool((h[:m * n] == src[:m * n]).all()), bool((h[m * n:] == 7).all())]
print("RESULT" + json.dumps(out))
'''


@pytest.fixture(scope="module")
def sim():
    env = dict(ENV, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, "-c", SIM], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT")][-1]
    return json.loads(line[len("RESULT"):])


def test_kernel_copies_every_inside_element_once_and_nothing_outside(sim):
    for key in ("run", "small"):
        e = sim[key]
        assert e["backend"] == "cudasim" and "timing needs a GPU" in e["note"]
        for r in e["rows"]:
            assert r["correct"] and r["copied once"] and r["outside untouched"], (key, r)
            assert r["counted sectors/request"] == r["sectors/request"], (key, r)
    small = {r["variant"]: r for r in sim["small"]["rows"]}
    # the same figures as test_sectors_by_hand, now from the addresses the kernel used
    assert small["scalar"]["counted sectors/request"] == 1.75 and small["scalar"]["requests"] == 16
    assert sim["vector_small"] == [True, True]


def _arrays(m=64, n=16):
    return np.zeros(m * n, np.uint16), np.zeros(m * n, np.uint16)


@pytest.mark.parametrize("kwargs, match", [
    (dict(kind="wide"), "kind must be one of"),
    (dict(shape=(64,)), "shape must be a pair"),
    (dict(shape=(0, 16)), "shape must be positive"),
    (dict(stride=(1, -64)), "stride must be >= 0"),
    (dict(shape=(64, 17)), "src holds 1024 elements but the layout reaches offset 1087"),
    (dict(src=np.zeros(1024, np.float32)), "src must be a 1-D array of 2-byte elements"),
    (dict(coords=np.zeros((128, 64, 2), np.int32)), r"coords must be an int32 array of shape \(256"),
    (dict(coords=np.full((256, 64, 2), 128, np.int32)), "coords must lie inside the 128x128 tile"),
    (dict(kind="vector", stride=(16, 1), shape=(16, 64)), r"s0 == 1"),
    (dict(kind="vector", shape=(60, 16), stride=(1, 64)), r"M \(60\) must be a multiple of 8"),
    (dict(kind="vector", stride=(1, 63), shape=(64, 16)), r"column stride \(63\) must be a multiple of 8"),
    (dict(kind="vector", src=np.zeros(1025, np.uint16)[1:]), "src must start on a 16-byte boundary"),
])
def test_launch_is_checked_before_it_runs(kwargs, match):
    from labkit.cuda.kernels.experiments import exp_predicated_copy as kp

    src, dst = _arrays()
    args = dict(kind="scalar", src=src, dst=dst, shape=(64, 16), stride=(1, 64), coords=pc.tile_coords("scalar"))
    if kwargs.get("kind") == "vector":
        args["coords"] = pc.tile_coords("vector")
    args.update(kwargs)
    with pytest.raises(DeviceError, match=match):
        kp.check_args(args["kind"], args["src"], args["dst"], args["shape"], args["stride"], args["coords"])


def test_grid_is_ceil_div():
    from labkit.cuda.kernels.experiments import exp_predicated_copy as kp

    assert kp.grid((1000, 776)) == (8, 7) and kp.grid((128, 129)) == (1, 2)


# ---------------------------------------------------------------------------------------------
# the lab


@pytest.fixture(scope="module")
def lab(executed_page):
    return executed_page(LAB)


def test_lab_is_a_colab_lab_of_small_experiments():
    _, nbformat, _ = notebook_tools()
    nb = nbformat.read(LAB, as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    colab = [c.source for c in nbformat.read(FIRST_LAB, as_version=4).cells if c.cell_type == "code"][0]
    assert code[0] == colab
    assert 15 <= len(nb.cells) <= 27
    assert not any(re.search(r"^\s*(def|class)\s", c, flags=re.M) for c in code)
    assert "import labkit as lk" in "\n".join(code)
    assert text.startswith("# Lab 2b:")
    assert text.count("**Try this.**") >= 2
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")


def test_lab_runs_and_prints_the_hand_worked_values(lab):
    for cell in lab.cells:
        assert not [o for o in cell.get("outputs", []) if o.output_type == "error"], cell.source
    printed = "\n".join(stream_text(c) for c in lab.cells if c.cell_type == "code")
    # 300x200 column-major in 64x32 tiles: ceil_div gives 5 x 7 tiles; tile (4, 6) starts at
    # (256, 192) = 256 + 192*300 = 57856; thread 21 of (16,8) is (5, 1): 57856 + 5 + 300 = 58161,
    # with 64/16 x 32/8 = 4 x 4 values, 16 rows and 8 columns (2400 elements) apart
    assert "every tile: (_64,_32,5,7):(_1,300,_64,9600)" in printed
    assert "tile (4,6): (_64,_32):(_1,300)  starts at 57856 = (row, col) (256, 192)" in printed
    assert "thread 21:  (_4,_4):(_16,2400)  starts at 58161" in printed
    assert "thread 21 at (5, 1)  first element 58161  local_partition: 58161" in printed
    # A is 300x96: tiles of 64 x 16, 96 / 16 = 6 K steps, 16 columns = 4800 apart
    assert "A (_64,_16,6):(_1,300,4800)" in printed
    # the corner tile (4,6) holds rows 256-299 and columns 192-199: thread 21 (5, 1) has rows
    # 261, 277, 293 (309 is out) and column 193 only
    assert "inside: ['(261,193)', '(277,193)', '(293,193)']" in printed
    assert "ran on CUDA simulator" in printed or "measured on" in printed
    assert "True" in printed and "predicated copy" in printed


GPU = r'''
import json
from labkit.lab import predicated_copy as pc
print("RESULT" + json.dumps({"ragged": pc.run((1000, 776), reps=3).to_dict(),
                             "aligned": pc.run((1024, 768), reps=3).to_dict()}))
'''


@pytest.mark.gpu
def test_predicated_copy_on_the_gpu():
    env = dict(ENV)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    proc = subprocess.run([sys.executable, "-c", GPU], capture_output=True, text=True, env=env, cwd=REPO,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads([x for x in proc.stdout.splitlines() if x.startswith("RESULT")][-1][len("RESULT"):])
    for key, e in res.items():
        assert e["backend"] == "gpu", key
        for r in e["rows"]:
            assert r["correct"] and r["GB/s"] > 0, (key, r)


def test_kernels_compile_for_a_gpu():
    """Under the simulator the kernels run as Python, which never type-checks a branch it does not
    take; numba must also compile both for sm_90 with the types a launch passes (a 3-D trace
    array even when nothing is traced)."""
    from numba import cuda, typeof

    from labkit.cuda.kernels.experiments import exp_predicated_copy as kp

    coords = np.zeros((kp.THREADS, 4, 2), np.int32)
    trace = np.zeros((1, 1, 1), np.int64)
    for kernel, dst in ((kp.predicated_copy_scalar, np.zeros(8, np.float16)),
                        (kp.predicated_copy_vector, np.zeros(8, np.uint32))):
        sig = (typeof(np.zeros(8, np.float16)), typeof(dst), typeof(1), typeof(1), typeof(1), typeof(1),
               typeof(coords), typeof(trace))
        ptx, _ = cuda.compile_ptx(kernel.py_func, sig, cc=(9, 0))
        assert ".visible .entry" in ptx
