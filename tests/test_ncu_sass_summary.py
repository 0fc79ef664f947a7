"""benchmarks/ncu_sass_summary.py groups an Nsight Compute source page by how often each
instruction ran, and the recorded pages of step 7 and cuBLAS read as their kernels are built."""

import doctest
import gzip
from pathlib import Path

from bench_scripts import load

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"


def _module():
    return load("ncu_sass_summary")


def test_docstring_examples():
    assert doctest.testmod(_module()).failed == 0


def test_instructions_are_grouped_by_times_executed(tmp_path):
    # a page as ncu writes it: the kernel's name first, then the header; 10 samples in all
    page = ('"Kernel Name","k"\n'
            '"Address","Source","Warp Stall Sampling (All Samples)","Instructions Executed"\n'
            '"0x10","HGMMA.64x256x16.F32 R24, gdesc[UR20], R24","6","64"\n'
            '"0x20","@P0 BRA 0x10","1","64"\n'
            '"0x30","STS [R1], R2","3","4"\n')
    path = tmp_path / "page.csv.gz"
    with gzip.open(path, "wt") as f:
        f.write(page)
    got = _module().levels(str(path))
    assert [(n, count) for n, count, _, _ in got] == [(64, 2), (4, 1)]
    assert abs(got[0][2] - 0.7) < 1e-12 and abs(got[1][2] - 0.3) < 1e-12
    assert dict(got[0][3]) == {"HGMMA.64x256x16.F32": 1, "BRA": 1}


def test_the_recorded_pages_hold_each_kernels_k_tile_loop():
    mod = _module()
    # step 7: 512 tiles x 64 k-tiles x 8 consumer warps, four m64n256k16 a k-tile
    step7 = {n: dict(ops) for n, _, _, ops in mod.levels(str(RESULTS / "hopper_sass_step7_h100_2026-12-06.csv.gz"),
                                                         top=50)}
    assert step7[512 * 64 * 8]["HGMMA.64x256x16.F32"] == 4
    # cuBLAS's kernel (nvjet ..._128x256_64x4_...): m64n128k16, two halves of N a k-tile
    cublas = mod.levels(str(RESULTS / "hopper_sass_cublas_h100_2026-12-06.csv.gz"), top=50)
    assert sum(dict(ops).get("HGMMA.64x128x16.F32", 0) * n for n, _, _, ops in cublas) == 512 * 64 * 8 * 8


def test_the_recorded_figures_are_what_the_pages_say():
    import json
    mod = _module()
    details = load("ncu_summary")
    record = json.loads((RESULTS / "hopper_sass_h100_2026-12-06.json").read_text())["sass"]
    for who, name, loops in (("step 7", "step7", [262144]), ("cuBLAS", "cublas", [197664, 64480, 196608])):
        levels = {n: (count, share, dict(ops)) for n, count, share, ops in
                  mod.levels(str(RESULTS / f"hopper_sass_{name}_h100_2026-12-06.csv.gz"), top=80)}
        fig = record[who]
        per_k_tile = sum(n * levels[n][0] for n in loops) / 262144
        assert abs(fig["k_tile_loop_instructions"] - per_k_tile) < 0.05, who
        assert abs(fig["k_tile_loop_samples_pct"] - 100 * sum(levels[n][1] for n in loops)) < 0.05, who
        count, share, ops = levels[4096]
        assert (fig["epilogue_instructions"], fig["epilogue_sts"], fig["epilogue_stmatrix"], fig["epilogue_cs2r"]) == \
            (count, ops.get("STS", 0), ops.get("STSM.16.M88.4", 0), ops.get("CS2R", 0)), who
        assert abs(fig["epilogue_samples_pct"] - 100 * share) < 0.05, who
        page = details.summary((RESULTS / f"hopper_sass_{name}_details_h100_2026-12-06.txt").read_text())
        assert fig["elapsed_cycles"] == page["elapsed_cycles"], who
        assert abs(fig["sm_active_cycles"] - page["sm_active_cycles"]) <= 0.5, who
