"""The epilogue (labkit.lab.epilogue, labkit.cuda.kernels.experiments.exp_epilogue, book page 6f) against
independent oracles:

- CuTe's swizzle, through pycute: ``Swizzle<B,M,S>(o) = o ^ ((o & (2^B-1) << (M+S)) >> S)``;
- the PTX ISA's fragment of the m16n8 accumulator ("Matrix Fragments for mma.m16n8k16 with
  floating point type": ``groupID = laneid >> 2``, ``threadID_in_group = laneid % 4``; c0, c1 at
  row ``groupID``, c2, c3 at ``groupID + 8``, column ``threadID_in_group * 2 + (i & 1)``) and of
  stmatrix ("lanes 8i..8i+7 give the row addresses of matrix i; lane t holds row t // 4, elements
  2 (t % 4) and 2 (t % 4) + 1 of each matrix");
- the bank rule, counted here with its own few lines: 32 banks of 4 bytes; a warp access is
  served in phases of 32 lanes (4-byte accesses) or 8 lanes (16-byte); a phase costs the
  largest number of distinct 4-byte words any one bank must deliver;
- the sector rule: global memory moves aligned 32-byte sectors;
- the H200 (the recorded run): its images and its cycles.

Hand-worked figures are in the comments.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from pycute import Swizzle as PySwizzle
from sim_child import run_child

from labkit.errors import DeviceError, LayoutError
from labkit.lab import epilogue as ep

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "book" / "06f_epilogue.md"

# layout name -> (columns of halves per row, pycute swizzle or None, rows of 128 bytes?)
GEOMETRY = {"rows 128 B": (64, None), "rows 128 B + Sw<3,3,3>": (64, PySwizzle(3, 3, 3)),
            "rows 256 B": (128, None), "rows 256 B + Sw<3,3,3>": (128, PySwizzle(3, 3, 3)),
            "rows 256 B + Sw<3,3,4>": (128, PySwizzle(3, 3, 4))}


def offset(name, m, n):
    """Offset in halves of element (m, n) of the tile, from pycute's swizzle of the row-major offset."""
    cols, sw = GEOMETRY[name]
    o = m * cols + n
    return sw(o) if sw is not None else o


def isa_pair(t, h):
    """(row, column) of the first of lane t's accumulator pair h (c0,c1: h=0; c2,c3: h=1)."""
    return (t >> 2) + 8 * h, 2 * (t % 4)


def wavefronts(addresses, width):
    """The bank rule, counted independently: phases of 32 // (width // 4) lanes."""
    per_phase = 32 // max(1, width // 4)
    total = 0
    for p in range(0, 32, per_phase):
        words = {}
        for a in addresses[p:p + per_phase]:
            for w in range(a // 4, (a + width) // 4):
                words.setdefault(w % 32, set()).add(w)
        total += max(len(v) for v in words.values())
    return total


def warp_origin(name, w):
    """(row, column) of warp w's tile in the 128x128 block tile (warps (2,2):(1,2)), the tile-local
    origin its stores address, and the byte base of its buffer."""
    origin = (64 * (w % 2), 64 * (w // 2))
    if name.startswith("rows 128"):
        return origin, (0, 0), 8192 * w
    return origin, origin, 0


def expected_addresses(name, store):
    """Every warp's instructions from the ISA and pycute, in the order the module documents."""
    out = []
    for w in range(4):
        _, local, base = warp_origin(name, w)
        if store == "st.shared.b32":
            for mi in range(4):
                for ni in range(8):
                    for h in range(2):
                        out.append([base + 2 * offset(name, local[0] + 16 * mi + isa_pair(t, h)[0],
                                                      local[1] + 8 * ni + isa_pair(t, h)[1]) for t in range(32)])
        else:
            # the x4 of a 16x16 block: lane l addresses row l % 16, columns 8 (l // 16)
            for mi in range(4):
                for nj in range(4):
                    out.append([base + 2 * offset(name, local[0] + 16 * mi + l % 16, local[1] + 16 * nj + 8 * (l // 16))
                                for l in range(32)])
    return np.asarray(out).reshape(4, -1, 32)


# ---------------------------------------------------------------------------------------------
# layouts and fragments


@pytest.mark.parametrize("name", ep.LAYOUTS)
def test_tiles_are_pycutes_swizzled_row_major_layouts(name):
    lay = ep.layouts()[name]
    cols, _ = GEOMETRY[name]
    rows = 64 if cols == 64 else 128
    got = [lay(m, n) for m in range(rows) for n in range(cols)]
    assert got == [offset(name, m, n) for m in range(rows) for n in range(cols)]


def test_row_swizzle_puts_eight_rows_in_eight_bank_groups():
    for row_bytes in (128, 256, 512, 1024):
        sw = ep.row_swizzle(row_bytes)
        py = PySwizzle(sw.bits, sw.base, sw.shift)
        cols = row_bytes // 2
        # 16 bytes (8 halves) stay together, and the 8 rows' chunk 0 fall into 8 bank groups
        assert sw.base == 3 and all(py(8 * c + e) == py(8 * c) + e for c in range(64) for e in range(8))
        groups = {(2 * py(r * cols)) // 16 % 8 for r in range(8)}
        assert len(groups) == 8, row_bytes
    # the 128-byte swizzle on 256-byte rows: rows r and r + 4 meet (bit 6 is a column bit there)
    py = PySwizzle(3, 3, 3)
    assert len({(2 * py(r * 128)) // 16 % 8 for r in range(8)}) == 4
    assert str(ep.row_swizzle(128)) == "Sw<3,3,3>" and str(ep.row_swizzle(128, elem_bytes=4)) == "Sw<3,2,3>"


@pytest.mark.parametrize("bad", [(100, 2), (64, 2), (128, 3), (128, True), ("128", 2)])
def test_row_swizzle_refuses_bad_input(bad):
    with pytest.raises(LayoutError, match="row_bytes|elem_bytes"):
        ep.row_swizzle(*bad)


def test_accumulator_pairs_are_the_isas_fragment():
    pairs = ep.accumulator_pairs()
    assert pairs.shape == (32, 2, 2)
    assert all(tuple(pairs[t, h]) == isa_pair(t, h) for t in range(32) for h in range(2))
    grid = ep.owner_grid().splitlines()
    # row 9 is groupID 1 + 8: lanes 4..7, register 1, two columns each
    assert grid[10].startswith("m= 9") and grid[10].split()[-8:] == ["4.1", "4.1", "5.1", "5.1", "6.1", "6.1", "7.1", "7.1"]


def test_stmatrix_registers_are_the_accumulators():
    assert ep.stmatrix_matches_accumulators()
    assert ep.stmatrix_blocks() == [(0, 0), (0, 1), (1, 0), (1, 1)]


@pytest.mark.parametrize("name", ep.LAYOUTS)
@pytest.mark.parametrize("store", ep.STORES)
def test_instructions_follow_the_isa(name, store):
    addr, regs = ep.instructions(name, store)
    assert addr.tolist() == expected_addresses(name, store).tolist()
    tile = np.arange(128)[:, None] * 128 + np.arange(128)[None, :]     # C(m, n) = 128 m + n
    w, i = 3, 5                                                         # any warp, any instruction
    origin, _, _ = warp_origin(name, w)
    for t in (0, 6, 17, 31):
        if store == "st.shared.b32":
            mi, rest = divmod(i, 16)
            ni, h = divmod(rest, 2)
            m, n = isa_pair(t, h)
            want = [tile[origin[0] + 16 * mi + m, origin[1] + 8 * ni + n + j] for j in (0, 1)]
            got = [int(regs[w, i, t, 0]) & 0xFFFF, int(regs[w, i, t, 0]) >> 16]
            assert got == want
        else:
            mi, nj = divmod(i, 4)
            for k in range(4):          # matrix k: rows 8 (k % 2).., columns 8 (k // 2).. of the block
                row, col = origin[0] + 16 * mi + 8 * (k % 2) + t // 4, origin[1] + 16 * nj + 8 * (k // 2) + 2 * (t % 4)
                assert [int(regs[w, i, t, k]) & 0xFFFF, int(regs[w, i, t, k]) >> 16] == [tile[row, col], tile[row, col + 1]]


# ---------------------------------------------------------------------------------------------
# predictions


# per warp tile: 64 plain stores or 16 x4 (64 phases of 8 lanes); 8-way: 8 rows 128 or 256 bytes
# apart start in one bank; the 128-byte swizzle on 256-byte rows pairs rows r and r + 4: 2-way
WAVEFRONTS = {"rows 128 B": 512, "rows 128 B + Sw<3,3,3>": 64, "rows 256 B": 512, "rows 256 B + Sw<3,3,3>": 128,
              "rows 256 B + Sw<3,3,4>": 64}


@pytest.mark.parametrize("name", ep.LAYOUTS)
@pytest.mark.parametrize("store", ep.STORES)
def test_predicted_wavefronts_are_the_bank_rules(name, store):
    width = 4 if store == "st.shared.b32" else 16
    counted = sum(wavefronts(list(a), width) for a in expected_addresses(name, store).reshape(-1, 32)) // 4
    assert counted == WAVEFRONTS[name]
    p = ep.predict(name, store)
    assert (p["wavefronts"], p["min_wavefronts"], p["instructions"]) == (counted, 64, 64 if width == 4 else 16)
    assert p["degree"] == counted // 64


def test_row_banks_of_the_page():
    # Sw<3,3,3> on 256-byte rows: chunk 0 of row r goes to chunk 2 (r % 4): banks 8 (r % 4)
    assert ep.row_banks("rows 256 B + Sw<3,3,3>", "stmatrix.x4") == [0, 8, 16, 24, 0, 8, 16, 24]
    assert ep.row_banks("rows 256 B + Sw<3,3,4>", "stmatrix.x4") == [4 * r for r in range(8)]
    assert ep.row_banks("rows 256 B", "st.shared.b32") == [0] * 8


def test_readout_and_global_stores():
    # read-out: lane t reads chunk t % 16 of row 8p + t // 16; 16 accesses of 4 phases each
    r = ep.readout_conflicts()
    assert (r.accesses, r.wavefronts, r.degree) == (16, 64, 1)
    g = ep.predict_global(8192)
    # direct: 8 rows x 16 bytes, each 16 bytes inside one 32-byte sector: 8 sectors, half used
    assert (g["direct"]["sectors/request"], g["direct"]["efficiency"], g["direct"]["requests/warp"]) == (8.0, 0.5, 64)
    # f32 pairs: 8 rows x 32 bytes, whole sectors
    assert (g["direct f32"]["sectors/request"], g["direct f32"]["efficiency"]) == (8.0, 1.0)
    # staged: 2 rows x 256 bytes = 16 sectors, all used; 16 passes of 8 rows, warp 0 takes 2 rows of each
    assert (g["staged"]["sectors/request"], g["staged"]["efficiency"], g["staged"]["requests/warp"]) == (16.0, 1.0, 16)


@pytest.mark.parametrize("name", ep.LAYOUTS)
def test_simulator_leaves_the_tile_where_pycute_says(name):
    for store in ep.STORES:
        s = ep.simulate(name, store)
        img = s["image"]
        assert s["wavefronts"] == WAVEFRONTS[name]
        for m, n in ((0, 0), (9, 3), (70, 65), (127, 127)):
            w = (m // 64) + 2 * (n // 64)
            _, local, base = warp_origin(name, w)
            lm, ln = (m % 64, n % 64) if name.startswith("rows 128") else (m, n)
            assert img[base // 2 + offset(name, lm, ln)] == 128 * m + n
        assert (ep.read_tile(img, name) == np.arange(16384).reshape(128, 128)).all()


def test_bad_input_is_refused():
    with pytest.raises(LayoutError, match="layout must be one of"):
        ep.predict("rows 64 B", "stmatrix.x4")
    with pytest.raises(LayoutError, match="store must be one of"):
        ep.instructions("rows 128 B", "st.shared.v4")
    with pytest.raises(DeviceError, match="image must be"):
        ep.read_tile(np.zeros(10, np.uint16), "rows 128 B")
    with pytest.raises(DeviceError, match="which must be"):
        ep.recorded_experiment("sectors")


# ---------------------------------------------------------------------------------------------
# the kernels


KERNEL_CHILD = r"""
import json
import numpy as np
from labkit.errors import DeviceError
from labkit.lab import epilogue as ep
from labkit.cuda.kernels.experiments import exp_epilogue as ke
out = {}
e = ep.run_smem(layouts=["rows 128 B + Sw<3,3,3>", "rows 256 B + Sw<3,3,3>"])
out["smem"] = [[r["variant"], r["== labkit.sim"], r["== CuTe layout"]] for r in e.rows]
out["backend"] = e.backend
g = ep.run_global((128, 128))
out["global"] = [[r["variant"], r["correct"]] for r in g.rows]
a, r = ep.instructions("rows 128 B", "stmatrix.x4")
errors = []
for args in ((a + 2, r), (a, r[..., :2]), (a[:, :, :16], r)):
    try:
        ke.run_smem("stmatrix.x4", *args)
    except DeviceError as exc:
        errors.append(str(exc))
try:
    ke.run_smem("st.shared.b32", *ep.instructions("rows 128 B", "st.shared.b32"), warps=6)
except DeviceError as exc:
    errors.append(str(exc))
out["errors"] = errors
print("RESULTS" + json.dumps(out))
"""


@pytest.mark.slow
def test_kernels_under_the_cuda_simulator():
    res = run_child(KERNEL_CHILD, True)
    assert res["backend"] == "cudasim"
    assert [row[0] for row in res["smem"]] == [f"{lay}, {st}" for lay in ("rows 128 B + Sw<3,3,3>", "rows 256 B + Sw<3,3,3>")
                                              for st in ep.STORES]
    assert all(row[1] and row[2] for row in res["smem"])
    assert res["global"] == [["direct", True], ["staged_b32", True], ["staged_stmatrix", True]]
    assert len(res["errors"]) == 4
    assert "multiple of 16 bytes" in res["errors"][0] and "regs must be uint32 of shape" in res["errors"][1]
    assert "addr must be integer byte offsets" in res["errors"][2] and "warps must be a multiple of 4" in res["errors"][3]


@pytest.mark.gpu
def test_kernels_on_the_gpu():
    res = run_child("import json\nfrom labkit.lab import epilogue as ep\ne = ep.run_smem(launches=2)\n"
                    "print('RESULTS' + json.dumps({'rows': e.rows, 'order': [o[-1] for o in ep.ordering(e)]}))", False)
    ran = [r for r in res["rows"] if "== labkit.sim" in r]
    assert ran and all(r["== labkit.sim"] and r["== CuTe layout"] for r in ran)
    assert all(res["order"])


# ---------------------------------------------------------------------------------------------
# the recorded H200 run and the page


def test_recorded_run_agrees_with_the_predictions():
    rec = ep.recorded()
    assert rec is not None
    env = rec["environment"]
    assert env["device"] == "NVIDIA H200 (sm_90)" and re.fullmatch(r"NVIDIA H200, [\d.]+, \d+ MHz, \d+ MHz", env["nvidia-smi"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", env["date"])
    smem = ep.recorded_experiment("smem")
    assert [r["variant"] for r in smem.rows] == [f"{lay}, {st}" for lay, st in ep.variants()]
    for r in smem.rows:
        lay, st = r["variant"].split(", ")
        assert r["wavefronts"] == WAVEFRONTS[lay]                    # the recorded prediction is today's
        assert r["== labkit.sim"] and r["== CuTe layout"]            # the hardware's image
    order = ep.ordering(smem)
    assert len(order) == 20 and all(ok for *_, ok in order)        # 2 x C(5, 2) pairs
    assert ep.ordering_summary(smem).endswith("20 of 20 pairs in the order the wavefronts predict "
                                              "(more wavefronts: more cycles; equal: within 15%)")
    glob = ep.recorded_experiment("global")
    assert [r["variant"] for r in glob.rows] == ["direct", "staged_b32", "staged_stmatrix"]
    assert all(r["correct"] for r in glob.rows) and glob.extra["shape"] == [8192, 8192]
    assert all(local == 0 for _, local in ep.kernel_registers().values())


def test_recorded_readers_without_a_run(tmp_path):
    assert ep.recorded(tmp_path) is None and ep.recorded_experiment("smem", tmp_path) is None
    assert ep.recorded_header(tmp_path) == "no GPU run of the epilogue is recorded in this installation"
    (tmp_path / "epilogue_x_2026-01-01.json").write_text(json.dumps({"environment": {}}))
    with pytest.raises(DeviceError, match="does not hold 'smem'"):
        ep.recorded(tmp_path)


def test_page_is_in_the_toc_after_the_ladder():
    import yaml

    toc = yaml.safe_load((REPO / "_toc.yml").read_text())
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    assert files.index("book/06f_epilogue") == files.index("book/06e_ladder_in_cute") + 1


@pytest.mark.slow
def test_page_runs_and_shows_labkits_figures(executed_page):
    import jupytext

    nb = jupytext.read(PAGE)
    code = [c for c in nb.cells if c.cell_type == "code"]
    source = "\n".join(c.source for c in code)
    assert 5 <= len(code) <= 30
    assert not re.search(r"^\s*(def|class)\s", source, re.M) and "glue" not in source
    assert "json" not in source and "open(" not in source and "read_text(" not in source
    code = [c for c in executed_page(PAGE).cells if c.cell_type == "code"]
    out = {c.source.splitlines()[0]: "".join(o.get("text", "") for o in c.outputs) for c in code}
    assert not any(o.output_type == "error" for c in code for o in c.outputs)
    assert "LayoutC_TV: ((_4,_8),(_2,_2)):((_32,_1),(_16,_8))" in out["import labkit as lk"]
    banks = out['for name in ("rows 256 B", "rows 256 B + Sw<3,3,3>", "rows 256 B + Sw<3,3,4>"):']
    assert "[0, 8, 16, 24, 0, 8, 16, 24]" in banks and "8 wavefronts where 4 would do (2-way)" in banks
    assert "are the accumulators of two atoms: True" in out['stsm = lk.copy_atom(epilogue.STSM, "f16")']
    order = out["print(epilogue.ordering_summary(smem))"]
    assert "20 of 20 pairs" in order and "64 x st.shared.b32 to shared" in order
    table = out['out = epilogue.recorded_experiment("global")']
    assert all(re.search(rf"^{row}\s", table, re.M) for row in ("direct", "staged_b32", "staged_stmatrix")), table
    # the prose cites the run's bandwidths through the measured role (the Measurements page lists them)
    text = PAGE.read_text()
    for row in ("direct", "staged_b32", "staged_stmatrix"):
        assert f"{{measured}}`epilogue:global.rows.{row}.GB/s" in text, row
