"""labkit.lab.measurements reads the committed GEMM-ladder run, and labkit.lab.kernel_source counts the
instructions of the generated kernels.

Expected values: docs/benchmarks.md ("GEMM ladder", run C's table, the registers table and the
SASS of the best kernel; runs A and B; the Nsight Compute profile) and FACTS.md (CuTe's
sgemm_sm80: 374 TFLOP/s, cuBLAS 680 in that run); hand counts of the kernels' instructions:
a 64x64x64 k-tile of 2x2 warps of 32x32 is 2x4 MMAs x 4 k-blocks = 32 mma.sync and (2 + 2) x 4
= 16 ldmatrix.x4 per thread.
"""

from __future__ import annotations

import shutil

import pytest

from labkit.lab import kernel_source, measurements
from labkit.errors import LabkitError

RUN_C = {  # (step, acc): (4096³, 8192³) TFLOP/s, docs/benchmarks.md
    ("naive", "f32"): (0.9, 0.9), ("smem", "f32"): (6.2, 6.0), ("mma", "f32"): (44.8, 51.9),
    ("swizzle", "f32"): (139.8, 158.6), ("pipeline", "f32"): (395.0, 399.6),
    ("naive", "f16"): (0.9, 0.9), ("smem", "f16"): (7.2, 7.3), ("mma", "f16"): (50.7, 52.5),
    ("swizzle", "f16"): (176.2, 181.6), ("pipeline", "f16"): (406.3, 416.5),
}


@pytest.fixture(scope="module")
def run():
    """Run C of 2026-11-30, the runs that built step 5 (the latest run is tested below)."""
    return measurements.gemm_ladder(measurements.STEP5_RUN)


def test_run_c_timings(run):
    assert run.steps == ["naive", "smem", "mma", "swizzle", "pipeline"]
    assert run.sizes == [4096, 8192] and run.all_correct
    for (step, acc), (t4, t8) in RUN_C.items():
        assert round(run.tflops(4096, acc, step), 1) == t4 and round(run.tflops(8192, acc, step), 1) == t8
    assert round(run.tflops(4096, "f32", "cuBLAS"), 1) == 774.2
    assert round(run.vs_cublas(4096, "f32", "pipeline"), 3) == 0.510
    assert round(run.vs_cublas(8192, "f16", "pipeline"), 3) == 0.545
    assert (run.date, run.gpu, run.sm, run.run["sms"]) == ("2026-11-30 10:22 UTC", "NVIDIA H200", "sm_90", 132)


def test_kernel_resources(run):
    # registers table: 78 / 62 for steps 3-4, 254 / 190 for step 5; 16 KB and 96 KB; 6 and 2 CTAs/SM
    assert [run.kernel(s, "f32").registers for s in ("mma", "swizzle", "pipeline")] == [78, 78, 254]
    assert [run.kernel(s, "f16").registers for s in ("mma", "swizzle", "pipeline")] == [62, 62, 190]
    k5 = run.kernel("pipeline", "f32")
    assert (k5.dynamic_smem_bytes, k5.threads, k5.ctas_per_sm, k5.local_bytes) == (96 * 1024, 128, 2, 0)
    assert run.kernel("mma", "f32").ctas_per_sm == 6
    # SASS of the best kernel: 4000 instructions, HMMA 128, LDSM 40, LDGSTS 48, STG 192, BAR 2
    assert k5.sass_total == 4000
    assert {op: k5.sass[op] for op in ("HMMA", "LDSM", "LDGSTS", "STG", "BAR", "LDL", "STL")} == \
        {"HMMA": 128, "LDSM": 40, "LDGSTS": 48, "STG": 192, "BAR": 2, "LDL": 0, "STL": 0}


def test_earlier_runs_profile_and_reference(run):
    by = {(e["config"], e["acc"]): e["tflops"] for e in run.earlier_runs}
    assert by["128x128x64s3", "f32"] == 154.4 and by["128x128x64s3ca", "f32"] == 395.7
    assert by["128x128x64s3g32", "f32"] == 151.4
    assert round(by["256x128x64s3", "f32"] / by["128x128x64s3", "f32"], 2) == 1.31
    assert run.profile["l2_throughput_pct"] == 88.6 and run.profile["dram_throughput_pct"] == 5.6
    assert (run.reference["tflops"], run.reference["cublas_tflops_same_run"]) == (374.0, 680.0)


def test_missing_or_bad_files_give_clear_errors(tmp_path, run):
    with pytest.raises(LabkitError, match="no result file"):
        measurements.gemm_ladder("nothing", tmp_path)
    shutil.copy(measurements.RESULTS / f"{measurements.GEMM_RUN}.csv", tmp_path / "x.csv")
    (tmp_path / "x.json").write_text('{"run": {}}')
    with pytest.raises(LabkitError, match="fields of a GEMM ladder run"):
        measurements.gemm_ladder("x", tmp_path)
    with pytest.raises(LabkitError, match="no measurement"):
        run.tflops(1024, "f32", "pipeline")
    with pytest.raises(LabkitError, match="no kernel report"):
        run.kernel("naive", "f32")


def test_gemm_ladder_record_holds_profiles_rates_and_per_ktile_sass(tmp_path):
    record = measurements.gemm_ladder_record("gemm_h200_2026-12-01")
    # docs/benchmarks.md, the 2026-12-01 run: tensor pipe 62.6 % (step 5) and 80.8 % (step 6),
    # L1/TEX 77.9 % for step 5; mma.sync with 32 chains: 608 (4 warps/SM), 615 (8), 623 (32)
    prof5, prof6 = record["profiles"]
    assert round(prof5["tensor_pipe_pct_elapsed"], 1) == 62.6 and round(prof5["l1tex_throughput_pct"], 1) == 77.9
    assert round(prof6["tensor_pipe_pct_elapsed"], 1) == 80.8
    assert [round(record["mma_rate"]["tflops"]["32"][w]) for w in ("4", "8", "32")] == [608, 615, 623]
    # hand count (module docstring): step 3's k-tile is 32 mma.sync and 16 ldmatrix.x4 per thread
    k = {(r["step"], r["acc"]): r for r in record["per_ktile"]}
    assert (k["mma", "f32"]["HMMA"], k["mma", "f32"]["LDSM"]) == (32, 16)
    assert record["run"]["gpu"] == "NVIDIA H200"
    with pytest.raises(LabkitError, match="no result file"):
        measurements.gemm_ladder_record("nothing", tmp_path)
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(LabkitError, match="not valid JSON"):
        measurements.gemm_ladder_record("bad", tmp_path)
    (tmp_path / "odd.json").write_text("[1, 2]")
    with pytest.raises(LabkitError, match="not the record of a GEMM ladder run"):
        measurements.gemm_ladder_record("odd", tmp_path)


def test_kernel_source_counts():
    from labkit.cuda.kernels.ladder import gemm_mma, gemm_pipeline, gemm_swizzle
    for mod in (gemm_mma, gemm_swizzle):
        c = kernel_source.kernel_counts(mod, "f32", 90)
        assert (c["mma"], c["ldmatrix"], c["cp.async"], c["barrier"]) == (32, 16, 0, 2)
        # the 64x64 A and B tiles: 2 x 64 x 64 halves / 128 threads / 8 halves per 16 bytes = 8
        assert (c["ld.global.v4"], c["st.shared.v4"]) == (8, 8)
        # sm_75 has no m16n8k16: two m16n8k8 per step
        assert kernel_source.kernel_counts(mod, "f32", 75)["mma"] == 64
    c5 = kernel_source.kernel_counts(gemm_pipeline, "f32", 90)
    assert (c5["mma"], c5["ldmatrix"], c5["cp.async"]) == (128, 40, 48)    # = the H200's HMMA, LDSM, LDGSTS
    loop = kernel_source.main_loop(gemm_pipeline.statements("f32", 90))
    assert sum("32 x mma_m16n8k16_f32f16f16f32(...)" in line for line in loop) == 4
    assert sum("8 x ldmatrix_x4(...)" in line for line in loop) == 4
    with pytest.raises(LabkitError, match="statements"):
        kernel_source.instruction_counts(None)
    with pytest.raises(LabkitError, match="not its source text"):
        kernel_source.main_loop("x = 1\n")


# -- one truth: the runs the book cites ---------------------------------------------------------

def test_gemm_run_is_the_latest_ladder_run_and_every_cited_run_is_committed():
    import re
    ladder_runs = sorted(p.stem for p in measurements.RESULTS.glob("gemm_*.csv"))
    # run names end in their date (YYYY-MM-DD), so the newest sorts last
    assert measurements.GEMM_RUN == ladder_runs[-1] == "gemm_h200_2026-12-01"
    for short, name in measurements.RUNS.items():
        assert (measurements.RESULTS / f"{name}.json").is_file(), short
        info = measurements.run_info(short)
        assert re.match(r"\d{4}-\d\d-\d\d", info["date"]) and ("gpu" in info or "device" in info), short
    # no other module keeps a latest-run constant of its own
    from labkit.cuda.kernels.ladder import gemm
    assert not hasattr(gemm, "H200_RUN") or gemm.H200_RUN == measurements.GEMM_RUN


def test_figures_are_found_again_by_their_path():
    # docs/benchmarks.md, the 2026-12-01 run: step 6 504.5 TFLOP/s at 4096³, cuBLAS 754.4; the
    # step-5 runs of 2026-11-30: cp.async.cg 154.4, .ca 395.7, L2 88.6 %
    assert round(measurements.figure("gemm", "ladder.4096 f32 tma.tflops").value, 1) == 504.5
    assert round(measurements.figure("gemm", "ladder.4096 f32 cuBLAS (torch).tflops").value, 1) == 754.4
    assert measurements.figure("gemm-step5", "earlier_runs.pipeline 128x128x64s3 f32.tflops").value == 154.4
    assert measurements.figure("gemm-step5", "earlier_runs.pipeline 128x128x64s3ca f32.tflops").value == 395.7
    assert measurements.figure("gemm-step5", "profile.l2_throughput_pct").value == 88.6
    assert measurements.figure("gemm", "kernels.pipeline f32.registers").value == 254
    every = measurements.figures("gemm")
    assert every["ladder.4096 f32 tma.tflops"] == measurements.figure("gemm", "ladder.4096 f32 tma.tflops").value
    for bad, rule in ((("nothing", "ladder"), "run"), (("gemm", "ladder.1024 f32 tma.tflops"), "path"),
                      (("gemm", "run.gpu"), "path")):
        with pytest.raises(LabkitError, match=rule):
            measurements.figure(*bad)


def test_report_and_tables_mark_every_number_with_its_run_and_path():
    import re
    html = measurements.report("experiments")._repr_html_()
    spans = re.findall(r'<span class="lk-measured" data-run="([^"]+)" data-figure="([^"]+)" data-value="([^"]+)">', html)
    figures = measurements.figures("experiments")
    assert len(spans) == len(figures) and {f for _, f, _ in spans} == set(figures)
    assert all(run == measurements.EXPERIMENTS_RUN and float(v) == figures[f] for run, f, v in spans)
    text = str(measurements.ladder("gemm")).splitlines()
    assert text[0].split()[:3] == ["step", "acc", "4096³"] and len(text) == 1 + 14
    with pytest.raises(LabkitError, match="not a GEMM ladder run"):
        measurements.ladder("experiments")


def test_every_measured_role_of_the_book_names_a_figure():
    import re
    from pathlib import Path
    book = Path(measurements.__file__).resolve().parents[2] / "book"
    roles = [(p.name, m) for p in sorted(book.glob("*.md"))
             for m in re.findall(r"\{measured\}`([^`]+)`", p.read_text())]
    assert len(roles) >= 40
    for page, role in roles:
        run, path, fmt = role.split(":", 1)[0], role.split(":", 1)[1].partition(":")[0], role.split(":", 1)[1].partition(":")[2]
        value = measurements.figure(run, path)
        if fmt:
            format(value.value, fmt)


def test_the_ablation_runs_nsight_figures_are_the_ones_ncu_printed():
    """Each kernel's figures in the ablation run's ``profile`` against the Nsight Compute text it came
    from (one ``==== <kernel>`` section per launch profiled)."""
    import re

    from labkit.lab.measurement_records import RESULTS, record, run_name

    run = run_name("gemm-hopper-ablation")
    profile = record(run)["profile"]
    text = (RESULTS / run.replace("ablation_", "ablation_ncu_")).with_suffix(".txt").read_text()
    metrics = {"elapsed_cycles": "sm__cycles_elapsed.avg", "sm_active_cycles": "sm__cycles_active.avg",
               "dram_read_mb": "dram__bytes_read.sum", "dram_write_mb": "dram__bytes_write.sum",
               "l2_hit_pct": "lts__t_sector_hit_rate.pct", "sm_clock_ghz": "sm__cycles_elapsed.avg.per_second",
               "time_us": "gpu__time_duration.sum"}
    sections = {part.split(" ", 1)[0]: part for part in text.split("==== ")[1:]}
    assert set(profile) == {"cuBLAS" if k == "cublas" else k for k in sections}
    for kernel, figures in profile.items():
        part = sections["cublas" if kernel == "cuBLAS" else kernel]
        for key, metric in metrics.items():
            printed = re.search(rf"^\s*{re.escape(metric)}\s+\S+\s+([\d,.]+)\s*$", part, re.M).group(1)
            tol = 0.5 if key.endswith("cycles") else 1e-9         # cycles rounded to a cycle
            assert figures[key] == pytest.approx(float(printed.replace(",", "")), abs=tol), (kernel, key)
