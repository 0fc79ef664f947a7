"""Lab 7 (the GEMM ladder) runs on this machine's backend and shows correct results, and the last
section of chapter 6 ("Climbing the GEMM ladder") shows the H200 run and the facts it computes.

Expected values come from docs/benchmarks.md ("GEMM ladder": the 2026-12-01 table with step 6,
cuBLAS and CuTe's sgemm_sm80 of one run, its profiles and mma.sync rates; run C's register and
SASS figures), CuTe's Swizzle<3,3,3> through labkit.layout,
the PTX ISA (m16n8k16 and cp.async need sm_80, m16n8k8 and ldmatrix sm_75), the bank rule
(32 banks of 4 bytes; 16-byte accesses are served 8 lanes per phase) and arithmetic worked by
hand in the comments: never from running the code under test.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import jupytext
import nbformat
import pytest

from labkit.cuda.kernels.ladder import gemm_pipeline, gemm_tma
from labkit.lab import measurements

REPO = Path(__file__).resolve().parents[1]
LAB = REPO / "notebooks" / "07_gemm_ladder.ipynb"
PAGE = REPO / "book" / "06c_gemm_ladder.md"
PAGE_TMA = REPO / "book" / "06d_gemm_tma.md"
FIRST_PAGE = REPO / "book" / "06a_one_warp_mma.md"
DOCS = REPO / "docs" / "benchmarks.md"
NOTES = REPO / "benchmarks" / "gemm_notes.md"
HEADING = "# 6c. Climbing the GEMM ladder"
LABEL = "(ch6-gemm-ladder)="
HEADING_TMA = "# 6d. Past the tutorial: Hopper's copy engine"
LABEL_TMA = "(ch6-gemm-tma)="
STEPS = ("naive", "smem", "mma", "swizzle", "pipeline", "tma")
GLUE = "application/papermill.record/text/plain"


def stream_text(cell) -> str:
    """What a cell printed (stdout; numba's warnings on stderr are left out), then the text of its
    result (a table of labkit.lab.measurements)."""
    return "".join(o.get("text", "") for o in cell.get("outputs", [])
                   if o.output_type == "stream" and o.get("name") == "stdout") + "".join(
        "\n" + o["data"]["text/plain"] for o in cell.get("outputs", []) if o.output_type == "execute_result")


def by_first_line(nb) -> dict[str, str]:
    return {c.source.splitlines()[0]: stream_text(c) for c in nb.cells
            if c.cell_type == "code" and c.source.strip()}


def output_of(out: dict[str, str], start: str) -> str:
    """The output of the one code cell whose first line starts with ``start``."""
    found = [text for first, text in out.items() if first.startswith(start)]
    assert len(found) == 1, (start, len(found))
    return found[0]


def f32_tolerance(K: int) -> float:
    """The rounding model of the ladder's checks for fp32 accumulation: u = 2**-24, and a bound
    that grows linearly with K, u * (2 + K / 8) (docstring of gemm_common.tolerance)."""
    return 2.0**-24 * (2 + K / 8)


# ---------------------------------------------------------------------------------------------
# the lab


@pytest.fixture(scope="module")
def lab(executed_page):
    nb = executed_page(LAB)
    out = by_first_line(nb)
    backend = re.search(r"^backend: (\w+)$", out["import re"], re.M).group(1)
    return nb, out, backend


def test_lab_is_a_colab_lab_without_helpers():
    nb = nbformat.read(LAB, as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    first = nbformat.read(REPO / "notebooks" / "01_shape_stride.ipynb", as_version=4).cells[1].source
    assert code[0] == first                      # the same Colab install cell as lab 1
    assert not any(re.search(r"^\s*(def|class)\s", c, flags=re.M) for c in code)
    assert "import labkit as lk" in "\n".join(code)


def test_lab_runs_and_names_its_backend(lab):
    nb, out, backend = lab
    for cell in nb.cells:
        assert not any(o.output_type == "error" for o in cell.get("outputs", [])), cell.source
    assert backend in ("gpu", "cudasim")
    device = out["import re"].splitlines()[1]
    if backend == "cudasim":
        # the simulated device is sm_80 unless told otherwise
        assert device == "device: CUDA simulator (sm_80); the kernels are built for sm_80"
    else:
        assert re.fullmatch(r"device: .+ \(sm_(\d+)\); the kernels are built for sm_\1", device)


def test_lab_checks_every_step_against_float64(lab):
    _, out, backend = lab
    lines = out["M, N, K = (1000, 776, 1032) if on_gpu else (56, 40, 40)"].splitlines()
    pattern = re.compile(r"(\w+) +(f32|f16) (\d+)x(\d+)x(\d+): relative error (\S+), tolerance (\S+): (ok|WRONG)")
    refused = re.compile(r"tma +(f32|f16): refused: sm: step 'tma' needs sm_90 or newer, this GPU is sm_(\d+)")
    # step 7 (wgmma) runs only on sm_90a and accumulates in f32: elsewhere, and for f16, it is refused
    for line in (x for x in lines if x.startswith("wgmma")):
        ran = pattern.fullmatch(line)
        assert re.fullmatch(r"wgmma +(f32|f16): refused: .+", line) or (ran and ran.group(8) == "ok"), line
    lines = [x for x in lines if not x.startswith("wgmma")]
    if backend == "gpu" and any(refused.fullmatch(line) for line in lines):
        # an older GPU than Hopper: step 6 (TMA) refuses before launch
        assert all(int(refused.fullmatch(line).group(2)) < 90 for line in lines if line.startswith("tma"))
        lines = [line for line in lines if not line.startswith("tma")]
        steps = STEPS[:-1]
    else:
        steps = STEPS
    if backend == "cudasim":
        # the simulator runs steps 5 and 6 at one warp's CTA tile (every thread runs in Python)
        first = lines.pop(0)
        assert first.startswith("on the simulator, steps 5 and 6 run with the CTA tiles ")
        names = first.rsplit("tiles ", 1)[1].split(", ")
        cfgs = [gemm_pipeline.CONFIGS[names[0]], gemm_tma.CONFIGS[names[1]]]
        assert all((c.bm, c.bn, c.threads) == (32, 32, 32) for c in cfgs)
        assert (cfgs[0].loader, cfgs[1].loader) == ("cp.async", "tma")
    found = [pattern.fullmatch(line).groups() for line in lines]
    accs = ("f32", "f16") if backend == "gpu" else ("f32",)
    assert [(s, a) for s, a, *_ in found] == [(s, a) for a in accs for s in steps]
    for step, acc, M, N, K, err, tol, verdict in found:
        # tiles of 16x16 (naive), 64x64 (smem, mma, swizzle), 128x128 or 32x32 (pipeline, tma): M
        # and N are no multiple of any of them, so every check runs the edge code
        assert int(M) % 16 and int(N) % 16
        assert verdict == "ok" and float(err) <= float(tol), (step, acc, M, N, K, err, tol)
        assert 0 < float(err)                        # fp16 inputs: some rounding is always there
        if acc == "f32":
            assert math.isclose(float(tol), f32_tolerance(int(K)), rel_tol=0.01)


def test_lab_times_on_a_gpu_and_says_why_not_on_a_cpu(lab):
    _, out, backend = lab
    timing = out["size = 4096"]
    report = out["if on_gpu:"]
    if backend == "gpu":
        for step in STEPS:
            assert re.search(rf"{step}\S* f32 4096: +([\d.]+ TFLOP/s median|skipped: sm)", timing), step
        assert all(f"{s} " in report and "bytes spilled" in report for s in ("mma", "swizzle", "pipeline"))
    else:
        assert timing.startswith("timings need a GPU")
        assert report.startswith("registers and SASS come from the compiled kernel: they need a GPU")


def test_lab_counts_the_instructions_of_its_kernels(lab):
    _, out, _ = lab
    table = output_of(out, "calls = kernel_source.INSTRUCTIONS").splitlines()
    sm = int(re.match(r"sm_(\d+), per thread:", table[0]).group(1))
    counts = {line.split()[0]: [int(v) for v in line.split()[1:]] for line in table[1:4]}
    # columns: mma.sync, ldmatrix.x4, cp.async, ld.global.v4, st.shared.v4, barrier
    if sm >= 80:
        # 32x32 warp tile = 2x4 atoms, 4 k-blocks of 16 per 64-deep k-tile: 32 m16n8k16; A one
        # ldmatrix.x4 per 16-row atom (2), B one per pair of 8-column atoms (2): 16; the copy moves
        # (64 + 64) rows x 128 B / 16 B / 128 threads = 8 chunks per thread
        assert counts["mma"] == counts["swizzle"] == [32, 16, 0, 8, 8, 2]
        # docs/benchmarks.md, SASS of the best kernel: HMMA 128, LDSM 40, LDGSTS 48, BAR 2
        assert counts["pipeline"] == [128, 40, 48, 0, 0, 2]
        assert table[4] == "MMA instruction: mma_m16n8k16 ; pipeline stages on this device: 3"
    else:
        # sm_75: two m16n8k8 per 16-deep step, no cp.async, one stage of plain 16-byte copies
        assert counts["mma"] == counts["swizzle"] == [64, 16, 0, 8, 8, 2]
        assert counts["pipeline"] == [256, 32, 0, 16, 16, 2]
        assert table[4] == "MMA instruction: mma_m16n8k8 ; pipeline stages on this device: 1"


def test_lab_runs_the_turing_path(lab):
    _, out, backend = lab
    lines = out["if on_gpu and sm >= 80:"].splitlines()
    if backend == "cudasim":
        pattern = re.compile(r"(\w+) +sm_75 path on the CUDA simulator \(sm_75\): relative error (\S+), "
                             r"tolerance (\S+): ok")
        found = [pattern.fullmatch(line) for line in lines]
        assert [m.group(1) for m in found] == ["mma", "swizzle", "pipeline"]
        for m in found:
            assert float(m.group(2)) <= float(m.group(3))
            assert math.isclose(float(m.group(3)), f32_tolerance(40), rel_tol=0.01)
    else:
        assert lines and all(line.endswith(": ok") or "sm_75 GPU" in line for line in lines)


def test_lab_counts_step_6(lab):
    _, out, _ = lab
    lines = out['stmts6 = gemm_tma.statements("f32", 90)'].splitlines()
    counts = {line.split()[0]: int(line.split()[1]) for line in lines[:6]}
    # 4 stages: the prologue asks for k-tiles 0-2, the loop for one per k-tile: 4 places of 2 boxes
    # (A, B) and one arming each; the first wait before the loop and one in it; no cp.async;
    # ldmatrix: 8 before the loop + 4 k-blocks x (4 + 4); MMAs: 4 k-blocks x 4x8 atoms
    assert counts == {"cp.async.bulk.tensor": 8, "mbarrier.arrive.expect_tx": 4, "mbarrier.try_wait": 2,
                      "cp.async": 0, "ldmatrix": 40, "mma": 128}
    # 4 x (256 + 128) rows x 128 B = 192 KB, plus 1 KB of alignment slack and mbarriers
    assert lines[6] == "CTA tile 256x128x64, 256 threads, 4 stages, 193 KB of shared memory"
    assert lines[7] == "TMA's 128-byte swizzle is CuTe's Sw<3,3,3> o (8,64):(64,1): True"


def test_lab_pipeline_configurations_and_bank_exercise(lab):
    _, out, _ = lab
    configs = out['for name in ("128x128x64s3ca", "128x128x64s3", "256x128x64s3ca"):']
    assert "128x128x64s3ca   CTA 128x128x64, 128 threads" in configs and "copies cp.async.ca" in configs
    assert "128x128x64s3     CTA 128x128x64, 128 threads" in configs and "copies cp.async.cg" in configs
    assert "256x128x64s3ca   CTA 256x128x64, 256 threads" in configs      # 4x2 warps
    # 32 lanes store words lane * s apart: bank (lane * s) mod 32, so gcd(s, 32) lanes share a bank
    lines = out["lane = np.arange(32)"].splitlines()
    for line, s in zip(lines, (64, 65, 66, 68, 72, 96)):
        assert line == f"rows of {s} words: {math.gcd(s, 32):>2} wavefronts ({math.gcd(s, 32)}-way)"


# ---------------------------------------------------------------------------------------------
# the chapter section


def section_notebook(page=PAGE, heading=HEADING, label=LABEL, nb=None):
    """The section's cells of chapter 6 (from its label to the end of the page); ``nb``: the page
    already read (or executed)."""
    nb = jupytext.read(page) if nb is None else nb
    start = next(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and heading in c.source)
    nb.cells = nb.cells[start:]
    nb.cells[0].source = nb.cells[0].source[nb.cells[0].source.index(label):]
    return nb


def executed(nb):
    """The section's notebook (from an executed page), checked for errors: (notebook, outputs by
    first line, glued values)."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    for cell in code:
        assert not any(o.output_type == "error" for o in cell.outputs), cell.source
    glued = {o.metadata["scrapbook"]["name"]: float(o.data[GLUE])
             for c in code for o in c.outputs if o.output_type == "display_data" and GLUE in o.data}
    return nb, by_first_line(nb), glued


@pytest.fixture(scope="module")
def section(executed_page):
    return executed(section_notebook(nb=executed_page(PAGE)))


@pytest.fixture(scope="module")
def tma_section(executed_page):
    """The page after the ladder: step 6, Hopper's copy engine."""
    return executed(section_notebook(PAGE_TMA, HEADING_TMA, LABEL_TMA, nb=executed_page(PAGE_TMA)))


def cited_figures(page) -> dict[str, float]:
    """The GEMM run's figures that ``page`` cites with the {measured} role, by path."""
    found = re.findall(r"\{measured\}`gemm:([^`:]+)(?::[^`]*)?`", page.read_text())
    assert found, page
    return {path: measurements.figure("gemm", path).value for path in found}


def run_table() -> dict[tuple[str, str], list[float]]:
    """docs/benchmarks.md, the 2026-12-01 run: (step, acc) -> [4096³ TFLOP/s, vs cuBLAS, vs CuTe,
    8192³ TFLOP/s, vs cuBLAS, vs CuTe]."""
    text = DOCS.read_text()
    table = text[text.index("### H200, 2026-12-01"):text.index("Whole kernels (static SASS")]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip().strip("*").strip() for c in line.split("|")[1:-1]]
        if len(cells) == 13 and re.match(r"(\d \w+|cuBLAS \(torch\)|CuTe sgemm_sm80 \(nvcc\))", cells[0]):
            step = cells[0].split(" ", 1)[1].split("[")[0] if cells[0][0].isdigit() else cells[0]
            rows[step, cells[1]] = [float(c) for c in cells[2:8]]
    return rows


@pytest.mark.parametrize("page", ["ladder", "tma"])
def test_section_cites_only_what_it_glues_and_defines_no_helpers(page):
    nb = section_notebook() if page == "ladder" else section_notebook(PAGE_TMA, HEADING_TMA, LABEL_TMA)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert not re.search(r"^\s*(def|class)\s", code, flags=re.M)
    cited = {key.split(":")[0] for key in re.findall(r"\{glue:?\w*\}`([^`]+)`", text)}
    glued = set(re.findall(r'glue\(f?"([^"]+)"', code))
    patterns = [re.compile(re.sub(r"\\\{\w+\\\}", r"\\w+", re.escape(g)) + r"\Z") for g in glued]
    assert cited and all(any(p.match(key) for p in patterns) for key in cited), cited - glued
    # the chapter's first page points to the ladder's page, the ladder to step 6's page and back
    assert "{doc}`06c_gemm_ladder`" in FIRST_PAGE.read_text()
    assert "{doc}`06d_gemm_tma`" in PAGE.read_text() and "{doc}`06c_gemm_ladder`" in PAGE_TMA.read_text()


def test_section_counts_the_two_floors(section):
    _, out, glued = section
    floors = out["M = N = K = 4096"].splitlines()
    # 2 * 4096**3 = 137,438,953,472 flops; A and B 2 * 4096**2 halves (67.1 MB), C 4096**2 floats
    # (67.1 MB): 134.2 MB, so 2 n**3 / (8 n**2) = n / 4 = 1024 flops per byte
    assert floors[0] == "work 137.4 GFLOP, least traffic 134.2 MB: 1024 flop per byte"
    # 137.4e9 / 989e12 s and 134.2e6 / 4.8e12 s; the ridge 989 / 4.8 = 206
    assert floors[1] == "arithmetic floor 0.139 ms, memory floor 0.028 ms"
    assert floors[2] == "ridge point 206 flop per byte"
    assert glued["ch6_gemm_intensity"] == 1024 and glued["ch6_gemm_ridge"] == 206


def test_section_table_is_the_run_of_the_docs(section):
    _, out, _ = section
    text = output_of(out, "run = measurements.gemm_ladder(measurements.GEMM_RUN)")
    # docs/benchmarks.md: the 2026-12-01 run at 15:20 UTC on the H200 (sm_90, 132 SMs)
    assert text.startswith("date: 2026-12-01 15:20 UTC\ngpu: NVIDIA H200 (sm_90, 132 SMs)")
    assert "torch 2.11.0+cu130" in text and "every result within its float64 tolerance: True" in text
    printed = {}
    for line in text.splitlines():
        m = re.fullmatch(r"(\w+|cuBLAS \(torch\)|CuTe sgemm_sm80 \(nvcc\)) +(f32|f16) +" + " +".join([r"([\d.]+)"] * 6) + " *",
                         line)
        if m:
            printed[m.group(1), m.group(2)] = [float(v) for v in m.groups()[2:]]
    expected = run_table()
    assert len(expected) == 14 and set(printed) == set(expected)
    for key, values in expected.items():
        assert printed[key] == pytest.approx(values, abs=0.0011), key


def test_section_glues_the_measured_ratios(section):
    _, _, glued = section
    # the measured figures themselves are {measured} roles of the page, read from the run
    figure = cited_figures(PAGE)
    glued = {**glued, "ch6_gemm_pipeline": figure["ladder.4096 f32 pipeline.tflops"],
             "ch6_gemm_pipeline_f16": figure["ladder.4096 f16 pipeline.tflops"],
             "ch6_gemm_cublas": measurements.figure("gemm", "ladder.4096 f32 cuBLAS (torch).tflops").value,
             **{f"ch6_gemm_tma_{n}": figure[f"ladder.{n} f32 tma.tflops"] for n in (4096, 8192)},
             **{f"ch6_gemm_cute_{n}": figure[f"ladder.{n} f16 CuTe sgemm_sm80 (nvcc).tflops"] for n in (4096,)},
             "ch6_gemm_cute_8192": measurements.figure("gemm", "ladder.8192 f16 CuTe sgemm_sm80 (nvcc).tflops").value,
             **{f"ch6_gemm_{w}_{s}": figure[f"kernels.{s} f32.{k}"] for w, k in (("regs", "registers"),
                                                                                ("ctas", "ctas_per_sm"))
                for s in ("mma", "pipeline")}}
    t = run_table()
    at4096 = {key: row[0] for key, row in t.items()}
    for a, b in zip(STEPS, STEPS[1:]):
        # the docs round to 0.1 TFLOP/s: the gain lies between the extreme ratios of the rounded figures
        x, y = at4096[a, "f32"], at4096[b, "f32"]
        assert (y - 0.05) / (x + 0.05) <= glued[f"ch6_gemm_gain_{b}"] <= (y + 0.05) / (x - 0.05), b
    assert glued["ch6_gemm_pipeline"] == pytest.approx(392.4, abs=0.05)
    assert glued["ch6_gemm_pipeline_f16"] == pytest.approx(403.9, abs=0.05)
    assert glued["ch6_gemm_ratio_f16"] == pytest.approx(0.535, abs=0.001)
    assert glued["ch6_gemm_cute_ratio"] == pytest.approx(0.495, abs=0.001)      # CuTe's "vs cuBLAS"
    assert glued["ch6_gemm_cublas"] == pytest.approx(754.4, abs=0.05)
    assert glued["ch6_gemm_cublas_of_peak"] == pytest.approx(100 * 754.4 / 989, abs=0.05)
    # step 6 beside CuTe's kernel in the same run: >= 1.2x at both sizes
    for n, i in ((4096, 0), (8192, 3)):
        assert glued[f"ch6_gemm_tma_{n}"] == pytest.approx(t["tma", "f32"][i], abs=0.05)
        assert glued[f"ch6_gemm_cute_{n}"] == pytest.approx(t["CuTe sgemm_sm80 (nvcc)", "f16"][i], abs=0.05)
        assert glued[f"ch6_gemm_tma_vs_cute_{n}"] == pytest.approx(t["tma", "f32"][i + 2], abs=0.0011)
        assert glued[f"ch6_gemm_tma_vs_cute_{n}"] >= 1.2 and glued[f"ch6_gemm_tma_{n}"] >= 450
        assert glued[f"ch6_gemm_pipeline_vs_cute_{n}"] == pytest.approx(t["pipeline", "f32"][i + 2], abs=0.0011)
    # docs/benchmarks.md, registers table and occupancy: 78 and 254 registers, 6 and 2 CTAs/SM
    assert (glued["ch6_gemm_regs_mma"], glued["ch6_gemm_regs_pipeline"]) == (78, 254)
    assert (glued["ch6_gemm_ctas_mma"], glued["ch6_gemm_ctas_pipeline"]) == (6, 2)
    assert glued["ch6_gemm_swizzle_extra"] > 0       # the swizzle adds address arithmetic only


def test_section_resources_per_step(section):
    _, out, _ = section
    lines = output_of(out, "record = measurements.gemm_ladder_record(").splitlines()[1:]
    got = {line.split()[0]: line.split()[1:] for line in lines}
    # docs/benchmarks.md, the 2026-12-01 table: registers, spills, smem (KB), CTAs/SM and SASS per
    # k-tile; by hand: a 32x32 warp tile is 32 MMAs and 16 ldmatrix.x4 per 64-deep k-tile, a 64x64
    # one 128 and 32; step 5 copies 16 chunks a thread, step 6 two TMA boxes a block
    assert got["mma"] == got["swizzle"] == ["78", "0", "16", "6", "32", "/", "16", "/", "0", "/", "0"]
    assert got["pipeline"] == ["254", "0", "96", "2", "128", "/", "32", "/", "16", "/", "0"]
    assert got["tma"] == ["213", "0", "193", "1", "128", "/", "32", "/", "0", "/", "2"]


def test_section_chart_shows_the_ladder_and_the_cute_bar(section):
    nb, _, _ = section
    chart = next(c for c in nb.cells if c.cell_type == "code" and "cute_sgemm_sm80" in c.source)
    assert "image/png" in {k for o in chart.outputs for k in o.get("data", {})}
    assert "alt" in chart.metadata["mystnb"]["image"]
    assert 'cute_sgemm_sm80 = speed[4096, "f16", CUTE]' in chart.source
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "examples/cute/tutorial/sgemm_sm80.cu" in text and "built and timed by the same command" in text


def test_section_tile_reuse(section):
    _, out, _ = section
    lines = output_of(out, "tiles = {").splitlines()[1:]
    got = {line.split()[0]: line.split()[1:] for line in lines}
    # a BM x BN tile: 2 BM BN BK flops per 2 (BM + BN) BK bytes; 4096³ is 137.4 GFLOP, and the
    # DRAM ceiling is 4.8 TB/s times the flops per byte; measured: run C's f32 column
    c = run_table()
    # 256x128: 256 * 128 / 384 = 85.3 flops per byte
    for step, (tile, reuse) in {"naive": ("1x1", 0.5), "smem": ("64x64", 32), "mma": ("64x64", 32),
                                "swizzle": ("64x64", 32), "pipeline": ("128x128", 64),
                                "tma": ("256x128", 256 * 128 / 384)}.items():
        assert got[step][:2] == [tile, f"{reuse:.1f}"]
        assert float(got[step][2]) == pytest.approx(137.44 / reuse, abs=0.06)
        assert float(got[step][3]) == pytest.approx(4.8 * reuse, abs=0.06)
        assert float(got[step][5]) == c[step, "f32"][0]


def test_section_counts_bank_conflicts(section):
    _, out, _ = section
    smem = out["BM, BN, BK = gemm_smem.TILE"].splitlines()
    # sA[k, ty + 16 i]: two words (ty = 0, 1) broadcast; sB[k, tx + 16 j]: 16 consecutive words
    assert smem[0] == "inner loop, 8 loads per k: 8 wavefronts, worst degree 1"
    # sA[lane, 0] with rows of 64 words: all 32 words in bank 0; with 65 words bank = lane
    assert smem[1] == "one store of the transposed copy: 32 wavefronts (32-way); with rows padded to 65 words: 1"
    # per 32-deep k-tile: 32 k x 8 loads of 1 wavefront; (64 + 64) x 32 / 256 = 16 stores of 32
    assert smem[2] == "per k-tile and warp: loads 256 wavefronts, stores 512"
    swizzle = out["cfg3 = gemm_mma.CONFIG"].splitlines()
    assert swizzle[0] == "gemm_layout.swizzled_offset == CuTe's Sw<3,3,3> tile everywhere: True"
    # 128-byte rows: the 8 rows of a phase start in banks 0-3, 8 wavefronts per phase, 4 phases
    # per ldmatrix.x4: 32, where 4 would do; 16 per k-tile: 512 against 64. The copy: 8 lanes
    # store one row's 8 chunks (128 contiguous bytes, permuted when swizzled): 4 per store
    assert re.fullmatch(r"mma +16 ldmatrix.x4: 512 wavefronts \(minimum 64\), worst 8-way; +"
                        r"8 st.shared.v4: 32 wavefronts, worst 1-way", swizzle[1])
    assert re.fullmatch(r"swizzle +16 ldmatrix.x4: +64 wavefronts \(minimum 64\), worst 1-way; +"
                        r"8 st.shared.v4: 32 wavefronts, worst 1-way", swizzle[2])


def test_section_source_counts_match_the_h200_sass(section):
    _, out, _ = section
    text = output_of(out, "atom16 = ").splitlines()
    assert text[0] == "one mma.sync m16n8k16: 2048 multiply-adds per warp, 64 times one FFMA's 32"
    rows = {}
    for line in text[2:]:
        label, _, rest = line.partition("  ")
        rows[label.strip()] = re.findall(r"(\d+)(?: / (\d+))?", rest)
    pairs = {k: [(int(a), int(b)) if b else int(a) for a, b in v] for k, v in rows.items()}
    # steps 3 and 4 (hand, see the lab test): 32 HMMA, 16 LDSM, 8 LDG, 8 STS, 2 BAR; step 5 from
    # docs/benchmarks.md: HMMA 128, LDSM 40, LDGSTS 48, BAR 2, 254 registers, 0 spills, 4000 in all
    assert pairs["mma / HMMA"] == [(32, 32), (32, 32), (128, 128)]
    assert pairs["ldmatrix / LDSM"] == [(16, 16), (16, 16), (40, 40)]
    assert pairs["cp.async / LDGSTS"] == [(0, 0), (0, 0), (48, 48)]
    assert pairs["ld.global.v4 / LDG"] == [(8, 8), (8, 8), (0, 0)]
    assert pairs["st.shared.v4 / STS"] == [(8, 8), (8, 8), (0, 0)]
    assert pairs["barrier / BAR"] == [(2, 2), (2, 2), (2, 2)]
    assert pairs["registers, spill bytes"] == [(78, 0), (78, 0), (254, 0)]     # docs' registers table
    assert pairs["SASS instructions"][2] == 4000


def test_section_shows_the_pipelined_main_loop(section):
    _, out, _ = section
    loop = out['src5 = gemm_pipeline.statements("f32", 90)']
    # 4 k-blocks of 16 in a 64-deep k-tile; per k-block 4 + 4 ldmatrix.x4 and 4 x 8 MMAs; the next
    # k-tile's copy (128 + 128 rows x 8 chunks / 128 threads = 16 cp.async) issued once; with 3
    # stages the wait leaves stages - 2 = 1 group in flight
    assert loop.count("8 x ldmatrix_x4(...)") == 4
    assert loop.count("32 x mma_m16n8k16_f32f16f16f32(...)") == 4
    assert loop.count("16 x cp_async_16(...)") == 1
    assert loop.index("# k-block 0") < loop.index("16 x cp_async_16") < loop.index("# k-block 1")
    assert loop.index("# k-block 3") < loop.index("cp_async_wait_group(1)")
    # 3 stages x (128 + 128) x 64 halves = 96 KB; docs/benchmarks.md: 254 registers, 2 CTAs/SM
    assert ("shared memory 96 KB per block; 254 registers per thread, 0 bytes spilled; "
            "2 blocks per SM (measured)") in loop


def test_section_step_6(tma_section):
    _, out, glued = tma_section
    figure = cited_figures(PAGE_TMA)
    glued = {**glued, "ch6_gemm_pipeline": figure["ladder.4096 f32 pipeline.tflops"],
             "ch6_gemm_tma": figure["ladder.4096 f32 tma.tflops"],
             "ch6_gemm_cublas": figure["ladder.4096 f32 cuBLAS (torch).tflops"],
             "ch6_gemm_p6_tensor_active": figure["profiles.tma 256x128x64s4, f32, 4096^3.tensor_pipe_pct_active"],
             "ch6_gemm_p6_waves": figure["profiles.tma 256x128x64s4, f32, 4096^3.waves_per_sm"],
             "ch6_gemm_mma_ceiling": figure["mma_rate.tflops.32.8"]}
    first = output_of(out, "import numpy as np").splitlines()
    # docs/benchmarks.md, the 2026-12-01 run: 392.4 / 504.5 / 754.4 TFLOP/s at 4096³
    assert first[1] == "4096³, fp32 accumulation: step 5 392.4, step 6 504.5, cuBLAS 754.4 TFLOP/s"
    assert (glued["ch6_gemm_pipeline"], glued["ch6_gemm_tma"], glued["ch6_gemm_cublas"]) == pytest.approx(
        (392.4, 504.5, 754.4), abs=0.05)
    prof = output_of(out, "prof5, prof6").splitlines()
    # docs/benchmarks.md: step 5 tensor pipe 62.6 %, L1/TEX 77.9 %; step 6 80.8 % and 60.6 %
    assert "tensor pipe busy 62.6 % of the cycles, L1/shared data path 77.9 %" in prof[0]
    assert "tensor pipe busy 80.8 % of the cycles, L1/shared data path 60.6 %" in prof[1]
    assert (glued["ch6_gemm_p6_tensor_active"], glued["ch6_gemm_p6_waves"]) == (84.96, 3.88)
    per_mma = output_of(out, "ktile = {").splitlines()
    # 64x64 warp tile: per k-block 4 + 4 ldmatrix.x4 of 512 B for 32 MMAs = 128 B; copies: a
    # 128x128x64 k-tile is 32 KB for 4 warps x 128 MMAs = 64 B, 256x128x64 48 KB for 8 x 128 = 48 B;
    # (128 + 128) x 8 chunks / 128 threads = 16 cp.async per thread; two boxes per block
    assert per_mma[0] == ("step 5 (128x128x64, 128 threads): ldmatrix 128 B per MMA; copies 64 B per MMA, "
                          "issued as 16 cp.async (LDGSTS) per thread and 0 TMA loads (UTMALDG) per block and k-tile")
    assert per_mma[1] == ("step 6 (256x128x64, 256 threads): ldmatrix 128 B per MMA; copies 48 B per MMA, "
                          "issued as 0 cp.async (LDGSTS) per thread and 2 TMA loads (UTMALDG) per block and k-tile")
    loop = output_of(out, "atom = lk.composition(")
    assert "gemm_layout.tma_offset == CuTe's Sw<3,3,3> o (8,64):(64,1) on every 8-row block: True" in loop
    # chunk c of rows 0-7 lands in slots c ^ r: a permutation of the 8 slots, one wavefront
    for c in range(8):
        assert f"chunk {c}: 16-byte slots {[c ^ r for r in range(8)]}" in loop
    assert loop.count("tma_load_2d(") == 2 and "cp_async" not in loop
    assert loop.count("32 x mma_m16n8k16_f32f16f16f32(...)") == 4
    # docs/benchmarks.md: 213 registers, no spills, 193 KB, one block of 256 threads per SM
    assert "213 registers, 0 bytes spilled, 193 KB of shared memory, 1 block of 256 threads per SM" in loop
    rate = output_of(out, "rate = record").splitlines()
    # docs: 608 (4 warps/SM), 615 (8), 623 (32) TFLOP/s with 32 chains; step 6 at 504.5 / 615 = 0.82
    assert "4 warps/SM 608, 8 warps/SM 615" in rate[1] and "32 warps/SM 623" in rate[1]
    assert rate[2] == "step 6 at 4096³: 0.82 of the mma.sync ceiling of its occupancy"
    assert glued["ch6_gemm_mma_ceiling"] == pytest.approx(615, abs=0.5)


def test_section_turing_table(section):
    _, out, _ = section
    lines = out["sms = (90, 75)"].splitlines()[2:]
    got = {line.split()[0]: line.split()[1:] for line in lines}
    # PTX ISA: no m16n8k16 and no cp.async on sm_75, so two m16n8k8 per step and one stage of
    # plain copies: 16 ld.global.v4 per thread for step 5, (128 + 128) x 64 x 2 B = 32 KB
    assert got["mma"] == got["swizzle"] == ["32", "64", "0", "0", "8", "8", "16", "KB", "16", "KB"]
    assert got["pipeline"] == ["128", "256", "48", "0", "0", "16", "96", "KB", "32", "KB"]


def test_step_6_refuses_older_gpus(tma_section):
    _, out, _ = tma_section
    refusals = output_of(out, "A, B = np.zeros((256, 64)").splitlines()
    assert refusals == [f"DeviceError sm: step 'tma' needs sm_90 or newer, this GPU is sm_{sm}"
                        for sm in (75, 80)]


def test_section_prose_figures_are_the_committed_measurements():
    text = PAGE.read_text().split(HEADING)[1]
    docs, notes = DOCS.read_text(), NOTES.read_text()
    # the .cg kernel, its L2 throughput and the .ca kernel of runs A and B: {measured} roles of
    # the 2026-11-30 run, whose values are the docs'
    cited = dict(re.findall(r"\{measured\}`gemm-step5:([^`:]+):([^`]*)`", text))
    for path, shown in (("earlier_runs.pipeline 128x128x64s3 f32.tflops", "154.4"),
                        ("profile.l2_throughput_pct", "88.6"),
                        ("earlier_runs.pipeline 128x128x64s3ca f32.tflops", "395.7")):
        assert path in cited and format(measurements.figure("gemm-step5", path).value, cited[path]) == shown, path
        assert shown in docs, shown
    # the 256x128 tile: 0.75x the bytes per flop, 1.31x faster (notes); 256*128/384 = 85.3
    # flops per byte against 128*128/256 = 64
    assert "0.75" in text and "ch6_gemm_tile_gain" in text and "0.75x the bytes per flop and ran 1.31x faster" in notes
    assert round(measurements.figure("gemm-step5", "earlier_runs.pipeline 256x128x64s3 f32.tflops").value
                 / measurements.figure("gemm-step5", "earlier_runs.pipeline 128x128x64s3 f32.tflops").value, 2) == 1.31
    assert re.search(r"groups of 32 rows instead of\s+8 made no difference", text) and "151.4" in docs
