"""The benchmark's anchors (labkit.cuda.kernels.ladder.gemm_anchor): CuTe's tutorial GEMMs and
CUTLASS's cooperative Hopper GEMM (labkit's ``anchors/cutlass_sm90_gemm.cu``) built with nvcc.

Expected values come from the tutorials' own sources (their ``printf`` format, their
arguments), nvcc's ``-gencode`` syntax for an arch-specific target (``compute_90a`` /
``sm_90a``, the form wgmma needs) and the rule that arch-specific code runs on its own SM
alone. The CPU tests build and run stand-ins: a fake ``nvcc`` that writes a script printing the
program's line with the shell's ``printf`` and the same format. A slow test compiles the CUTLASS
source for real where nvcc and the CUTLASS headers are found.
"""

from __future__ import annotations

import io
import os
import re
import stat
import subprocess
import time
from pathlib import Path

import pytest

from labkit.cli import bench
from labkit.cuda.kernels.ladder import gemm_anchor
from labkit.errors import DeviceError

HOPPER = ("wgmma_sm90", "wgmma_tma_sm90")
TUTORIALS = ("sgemm_sm80", *HOPPER)
CUTLASS = {"cutlass_sm90_f16": "F16", "cutlass_sm90_e4m3": "E4M3"}  # name: the -DLABKIT_GEMM_ variant
CUTLASS_CU = Path(gemm_anchor.__file__).parent / "anchors" / "cutlass_sm90_gemm.cu"
# the line cutlass_sm90_gemm.cu prints: 2*4096^3 flops in 0.2244 ms, as "%.1f" and "%.4f" write them
CUTLASS_LINE = ("CUTLASS_GEMM: [612473.1]GFlop/s  (0.2244)ms  rel_err 3.052e-04  abs_ratio 4.800e+01  "
                "samples 576\n")

# The line all three tutorials print (sgemm_sm80.cu, hopper/wgmma_sm90.cu, hopper/wgmma_tma_sm90.cu):
# printf("CUTE_GEMM:     [%6.1f]GFlop/s  (%6.4f)ms\n", gflops / cute_time, cute_time*1000);
CUTE_GEMM_PRINTF = 'printf("CUTE_GEMM:     [%6.1f]GFlop/s  (%6.4f)ms\\n", gflops / cute_time, cute_time*1000);'
CUTE_GEMM_FORMAT = "CUTE_GEMM:     [%6.1f]GFlop/s  (%6.4f)ms\n"
# what the Hopper tutorials print instead of a figure on a GPU that is not sm_9x
HOPPER_WAIVER = "This example requires NVIDIA's Hopper Architecture GPU with compute capability 90a"


# what nvcc 13.0's ptxas said building wgmma_sm90.cu for sm_90a (mangled kernel name shortened)
PTXAS_C7510 = ("ptxas info    : (C7510) Potential Performance Loss: wgmma.mma_async instructions are "
               "serialized due to wgmma pipeline crossing function boundary at a function call in the "
               "function '_Z11gemm_deviceIN4cute5tupleIJiiiEEE'")


def test_build_commands_name_each_target():
    root = "/c"
    cmd = gemm_anchor.build_command("nvcc", root, 90, "/t/sgemm")
    assert cmd[:4] == ["nvcc", "-O3", "-std=c++17", "-gencode=arch=compute_90,code=sm_90"]
    assert gemm_anchor.build_command("nvcc", root, 80, "/t/s")[3] == "-gencode=arch=compute_80,code=sm_80"
    for name in HOPPER:
        cmd = gemm_anchor.build_command("nvcc", root, 90, f"/t/{name}", name)
        assert cmd[3] == "-gencode=arch=compute_90a,code=sm_90a"
        # the include folders sgemm_sm80 uses, the tutorial's source, the output last
        assert cmd[4:9] == ["--expt-relaxed-constexpr", "-I", "/c/include", "-I", "/c/tools/util/include"]
        assert cmd[9] == f"/c/examples/cute/tutorial/hopper/{name}.cu"
        assert cmd[-2:] == ["-o", f"/t/{name}"]
    for name, variant in CUTLASS.items():
        cmd = gemm_anchor.build_command("nvcc", root, 90, f"/t/{name}", name)
        assert cmd == ["nvcc", "-O3", "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a",
                       "--expt-relaxed-constexpr", "-I", "/c/include", "-I", "/c/tools/util/include",
                       "-DNDEBUG", f"-DLABKIT_GEMM_{variant}", str(CUTLASS_CU), "-o", f"/t/{name}"]
        # sm_90a whatever the GPU: the refusal, not the command, keeps it off other SMs
        assert gemm_anchor.build_command("nvcc", root, 100, "/t/x", name)[3] == "-gencode=arch=compute_90a,code=sm_90a"
    with pytest.raises(DeviceError, match="anchor: 'cublas' is not one of sgemm_sm80, wgmma_sm90"):
        gemm_anchor.build_command("nvcc", root, 90, "/t/x", "cublas")


def test_each_tutorial_runs_t_n_at_m_n_k():
    for name in TUTORIALS:
        assert gemm_anchor.ANCHORS[name].argv(4096, 2048, 1024) == ["4096", "2048", "1024", "T", "N"]
    for name in CUTLASS:  # cutlass_sm90_gemm.cu: "M N K", always T N
        assert gemm_anchor.ANCHORS[name].argv(4096, 14336, 4096) == ["4096", "14336", "4096"]


def test_the_cutlass_anchors_are_in_the_table():
    assert list(gemm_anchor.ANCHORS) == [*TUTORIALS, *CUTLASS]
    f16, e4m3 = (gemm_anchor.ANCHORS[n] for n in CUTLASS)
    for spec in (f16, e4m3):
        assert (spec.arch, spec.min_sm, spec.acc, spec.in_labkit) == ("90a", 90, "f32", True)
        assert spec.path("/c") == str(CUTLASS_CU) and CUTLASS_CU.is_file()
        assert "KernelTmaWarpSpecializedCooperative" in spec.computes and "cluster 2x1x1" in spec.computes
    assert (f16.label, f16.types) == ("CUTLASS sm90 cooperative f16 (nvcc)", "f16·f16→f16")
    assert (e4m3.label, e4m3.types) == ("CUTLASS sm90 cooperative e4m3 (nvcc)", "e4m3·e4m3→bf16")
    assert "128x256x64" in f16.computes and "128x256x128" in e4m3.computes and "alpha" in e4m3.computes


def test_the_cutlass_source_is_the_cooperative_kernel():
    text = CUTLASS_CU.read_text()
    for needed in ("cutlass::gemm::KernelTmaWarpSpecializedCooperative",
                   "cutlass::epilogue::TmaWarpSpecializedCooperative",
                   "cutlass::epilogue::fusion::LinearCombination",
                   "cutlass::gemm::collective::CollectiveBuilder", "cutlass::epilogue::collective::CollectiveBuilder",
                   "using TileShape = Shape<_128, _256, _64>;", "using TileShape = Shape<_128, _256, _128>;",
                   "using ElementA = cutlass::float_e4m3_t;", "using ElementD = cutlass::bfloat16_t;",
                   "using LayoutA = cutlass::layout::RowMajor;", "using LayoutB = cutlass::layout::ColumnMajor;",
                   "#define LABKIT_CLUSTER_M 2", "#define LABKIT_CLUSTER_N 1"):
        assert needed in text, needed
    assert "examples/" not in text.split("#include")[-1]  # headers from include/ and tools/util only
    # its printf, filled in by hand, is what the parser reads
    fmt = re.search(r'"(CUTLASS_GEMM: [^"]*)\\n"', text).group(1)
    assert fmt == "CUTLASS_GEMM: [%.1f]GFlop/s  (%.4f)ms  rel_err %.3e  abs_ratio %.3e  samples %zu"
    line = fmt.replace("%zu", "%d") % (612473.1, 0.2244, 3.052e-4, 48.0, 576)
    assert line + "\n" == CUTLASS_LINE


@pytest.mark.parametrize("name", CUTLASS)
def test_parses_the_cutlass_line(name):
    parse = gemm_anchor.ANCHORS[name].parser
    assert parse("cutlass f16: tile 128x256x64, cluster 2x1x1\n" + CUTLASS_LINE) == pytest.approx(
        (612.4731, 0.2244, 3.052e-4, 48.0), rel=1e-12)
    assert parse("CUTLASS_GEMM: [ 950.0]GFlop/s  (1.2000)ms  rel_err inf  abs_ratio nan  samples 4") [:3] == (
        pytest.approx(0.95, rel=1e-12), 1.2, float("inf"))
    for garbage in ("", "CUTE_GEMM:     [612473.1]GFlop/s  (0.2244)ms\n",
                    "CUTLASS_GEMM: [612473.1]GFlop/s  (0.2244)ms\n",           # no check
                    "CUTLASS_GEMM: [612473.1]GFlop/s  (0.2244)ms  rel_err x.y  abs_ratio 1.0\n",
                    "can_implement(arguments) failed: Error Misaligned Operand"):
        assert parse(garbage) is None, garbage


@pytest.mark.parametrize("name", ["sgemm_sm80", *HOPPER])
def test_parses_the_line_the_tutorial_prints(name):
    parse = gemm_anchor.ANCHORS[name].parser
    # 2*4096^3 flops in 0.2244 ms: 612473.1 GFlop/s as the tutorial formats it
    line = CUTE_GEMM_FORMAT % (2 * 4096**3 * 1e-9 / 0.2244e-3, 0.2244)
    assert line == "CUTE_GEMM:     [612473.1]GFlop/s  (0.2244)ms\n"
    assert parse("\n" + line) == pytest.approx((612.4731, 0.2244), rel=1e-12)
    # %6.1f pads small figures to six characters: "[ 950.0]" and "(1.2000)"
    assert parse(CUTE_GEMM_FORMAT % (950.0, 1.2)) == pytest.approx((0.95, 1.2), rel=1e-12)
    assert parse(HOPPER_WAIVER + "\n") is None
    assert parse("CUTE_GEMM: failed") is None


def test_hopper_sources_print_the_line_and_offer_tn_in_half():
    root = gemm_anchor.cutlass_dir(None)
    if root is None:
        pytest.skip("the CUTLASS sources (pip install nvidia-cutlass) are not installed")
    for name in HOPPER:
        path = Path(root) / gemm_anchor.ANCHORS[name].source
        if not path.is_file():
            pytest.skip(f"{path} is not in this CUTLASS")
        text = path.read_text()
        assert CUTE_GEMM_PRINTF in text
        assert "transA == 'T' && transB == 'N'" in text  # "T N" dispatches to gemm_tn
        # gemm_tn: both operands K-major in shared memory, a half accumulator, half C
        assert "SM90_64x64x16_F16F16F16_SS<GMMA::Major::K,GMMA::Major::K>" in text
        assert "using TC = cute::half_t;" in text and "using TI = cute::half_t;" in text
        assert HOPPER_WAIVER in text
    assert "SM90_TMA_LOAD" in (Path(root) / gemm_anchor.ANCHORS["wgmma_tma_sm90"].source).read_text()


def _root(tmp_path, names=TUTORIALS, util=True):
    """A CUTLASS-like folder holding the tutorials in ``names`` (and, with ``util``, the headers
    the CUTLASS anchor needs)."""
    (tmp_path / "cutlass" / "include" / "cute").mkdir(parents=True)
    needs = gemm_anchor.CUTLASS_NEEDS if util else gemm_anchor.CUTLASS_NEEDS[:1]
    for rel in [gemm_anchor.ANCHORS[n].source for n in names] + list(needs):
        src = tmp_path / "cutlass" / rel
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text("// stand-in\n")
    return str(tmp_path / "cutlass")


def _script(path, body):
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.mark.parametrize("name, who", [(n, f"CuTe's {n}") for n in HOPPER] + [(n, f"CUTLASS's {n}") for n in CUTLASS])
def test_without_nvcc_or_the_sources_an_anchor_says_why(name, who, monkeypatch):
    monkeypatch.setattr(gemm_anchor, "nvcc_path", lambda: None)
    a = gemm_anchor.Anchor(90, name)
    a.start()
    assert not a.wait() and a.reason == f"nvcc not found (PATH, $CUDA_HOME/bin): {who} is left out"

    monkeypatch.setattr(gemm_anchor, "nvcc_path", lambda: "/usr/bin/nvcc")
    monkeypatch.setattr(gemm_anchor, "cutlass_dir", lambda source=None: None)
    assert gemm_anchor.Anchor(90, name).reason == (
        f"CUTLASS sources not found (pip install nvidia-cutlass, or set LABKIT_CUTLASS_DIR): {who} is left out")


@pytest.mark.parametrize("name", HOPPER)
def test_refusals_say_why(name, tmp_path, monkeypatch):
    monkeypatch.setattr(gemm_anchor, "nvcc_path", lambda: "/usr/bin/nvcc")
    root = _root(tmp_path, names=("sgemm_sm80",))  # a CUTLASS without the Hopper tutorials
    monkeypatch.setattr(gemm_anchor, "cutlass_dir", lambda source=None: root)
    assert gemm_anchor.Anchor(90, name).reason == (
        f"examples/cute/tutorial/hopper/{name}.cu is not in the CUTLASS sources at {root}: "
        f"CuTe's {name} is left out")
    assert gemm_anchor.Anchor(90, "sgemm_sm80").reason is None

    _root(tmp_path / "full")
    monkeypatch.setattr(gemm_anchor, "cutlass_dir", lambda source=None: str(tmp_path / "full" / "cutlass"))
    assert gemm_anchor.Anchor(90, name).reason is None
    for sm in (80, 89, 100, 120):  # sm_90a code runs on sm_90 alone, not on later GPUs either
        assert gemm_anchor.Anchor(sm, name).reason == (
            f"{name} is built for sm_90a (wgmma; arch-specific code runs on sm_90 alone), "
            f"this GPU is sm_{sm}: CuTe's {name} is left out")
    assert gemm_anchor.Anchor(100, "sgemm_sm80").reason is None
    assert gemm_anchor.Anchor(75, "sgemm_sm80").reason == "sgemm_sm80 needs sm_80 or newer, this GPU is sm_75"


def test_build_and_run_through_stand_ins(tmp_path, monkeypatch):
    # the fake nvcc copies, as the "binary", a script printing its arguments and the program's line
    tutorial = _script(tmp_path / "tutorial", 'echo "args: $*"\n'
                       'printf "CUTE_GEMM:     [%6.1f]GFlop/s  (%6.4f)ms\\n" 612473.1 0.2244\n')
    cutlass = _script(tmp_path / "cutlass_gemm", 'echo "args: $*"\n'
                      'printf "CUTLASS_GEMM: [%.1f]GFlop/s  (%.4f)ms  rel_err %.3e  abs_ratio %.3e  samples %d\\n" '
                      '612473.1 0.2244 3.052e-4 48 576\n')
    nvcc = _script(tmp_path / "nvcc", f'for a; do out="$a"; done\n'
                   f'case "$*" in *-DLABKIT_GEMM_*) cp {cutlass} "$out";; *) cp {tutorial} "$out";; esac\n'
                   f'echo "{PTXAS_C7510}" >&2\n')
    monkeypatch.setattr(gemm_anchor, "nvcc_path", lambda: nvcc)
    root = _root(tmp_path)
    monkeypatch.setattr(gemm_anchor, "cutlass_dir", lambda source=None: root)
    found = gemm_anchor.anchors(90)
    assert [a.name for a in found] == [*TUTORIALS, *CUTLASS]
    for a in found:
        a.start()
        assert a.command[3] == gemm_anchor.ANCHORS[a.name].gencode(90)
    out = io.StringIO()
    rows = [r for a in found for r in bench._anchor_rows(a, 4096, out)]
    assert [r["step"] for r in rows] == ["CuTe sgemm_sm80 (nvcc)", "CuTe wgmma_sm90 (nvcc)",
                                         "CuTe wgmma_tma_sm90 (nvcc)", "CUTLASS sm90 cooperative f16 (nvcc)",
                                         "CUTLASS sm90 cooperative e4m3 (nvcc)"]
    assert [(r["tflops"], r["ms"], r["acc"], r["types"], r["size"]) for r in rows] == (
        [(pytest.approx(612.4731, rel=1e-12), 0.2244, "f16", "f16·f16→f16", "4096")] * 3
        + [(pytest.approx(612.4731, rel=1e-12), 0.2244, "f32", "f16·f16→f16", "4096"),
           (pytest.approx(612.4731, rel=1e-12), 0.2244, "f32", "e4m3·e4m3→bf16", "4096")])
    # the tutorials check nothing; CUTLASS's rows carry their check and cuBLAS's bound on the same types:
    # f16 out: f32 accumulation 2^-24 (2 + K/8) plus fp16's roundoff 2^-11; e4m3 in, bf16 out: the e4m3
    # wgmma's 2^-11 times abs_ratio (48) plus bf16's roundoff 2^-8
    assert all(r["ok"] and r["rel_err"] != r["rel_err"] for r in rows[:3])
    assert [(r["rel_err"], r["tol"], r["ok"]) for r in rows[3:]] == [
        (3.052e-4, pytest.approx(2.0**-24 * 514 + 2.0**-11, rel=1e-12), True),
        (3.052e-4, pytest.approx(2.0**-11 * 48 + 2.0**-8, rel=1e-12), True)]
    assert "args: 4096 4096 4096 T N" in found[1].run(4096, 4096, 4096)[2]
    assert "anchor: wgmma_tma_sm90 built" in out.getvalue()
    assert "anchor: cutlass_sm90_e4m3 built" in out.getvalue()
    assert "e4m3·e4m3→bf16 4096:" in out.getvalue() and "rel err 3.05e-04 (bound 2.7e-02) ok" in out.getvalue()
    # ptxas's performance warning is kept, without the mangled kernel name
    assert ("; nvcc: (C7510) Potential Performance Loss: wgmma.mma_async instructions are serialized "
            "due to wgmma pipeline crossing function boundary at a function call\n") in out.getvalue()
    # a problem of --shapes runs as M N K, and its row is labelled MxNxK
    shape_rows = [r for a in found for r in bench._anchor_rows(a, (4096, 14336, 2048), out)]
    assert [(r["size"], r["M"], r["N"], r["K"]) for r in shape_rows] == [("4096x14336x2048", 4096, 14336, 2048)] * 5
    assert "args: 4096 14336 2048 T N" in found[0].run(4096, 14336, 2048)[2]
    assert "args: 4096 14336 2048\n" in found[4].run(4096, 14336, 2048)[2]
    assert shape_rows[3]["tol"] == pytest.approx(2.0**-24 * (2 + 2048 / 8) + 2.0**-11, rel=1e-12)
    # a result outside the bound is kept in the table, marked wrong
    _script(Path(found[4].binary), 'echo "CUTLASS_GEMM: [612473.1]GFlop/s  (0.2244)ms  rel_err 5.000e-02  '
            'abs_ratio 4.800e+01  samples 576"\n')
    wrong = bench._anchor_rows(found[4], 4096, out)
    assert [(r["rel_err"], r["ok"]) for r in wrong] == [(0.05, False)]
    assert "rel err 5.00e-02 (bound 2.7e-02) FAIL" in out.getvalue()
    # on the GPU's side a waiver prints no figure: the run fails with the tutorial's words
    _script(Path(found[1].binary), f'echo "{HOPPER_WAIVER}"\n')
    with pytest.raises(RuntimeError, match="wgmma_sm90 4096 4096 4096 T N failed .0.: This example requires"):
        found[1].run(4096, 4096, 4096)
    # and CUTLASS's program, refusing a problem, prints no figure either: no row, its words printed
    _script(Path(found[3].binary),
            'echo "gemm.can_implement(arguments) failed: Error Misaligned Operand" >&2; exit 1\n')
    assert bench._anchor_rows(found[3], (4096, 4096, 4100), out) == []
    assert ("anchor: cutlass_sm90_f16 4096 4096 4100 failed (1): gemm.can_implement(arguments) failed: "
            "Error Misaligned Operand") in out.getvalue()


@pytest.mark.parametrize("name", CUTLASS)
def test_cutlass_refusals_say_why(name, tmp_path, monkeypatch):
    who = f"CUTLASS's {name}"
    monkeypatch.setattr(gemm_anchor, "nvcc_path", lambda: "/usr/bin/nvcc")
    root = _root(tmp_path, names=(), util=False)  # include/ alone: no tools/util/include, no examples
    monkeypatch.setattr(gemm_anchor, "cutlass_dir", lambda source=None: root)
    assert gemm_anchor.Anchor(90, name).reason == (
        f"tools/util/include/cutlass/util/packed_stride.hpp is not in the CUTLASS sources at {root}: "
        f"{who} is left out")

    full = _root(tmp_path / "full", names=())  # include/ and tools/util/include/, still no examples/
    monkeypatch.setattr(gemm_anchor, "cutlass_dir", lambda source=None: full)
    assert gemm_anchor.Anchor(90, name).reason is None
    assert not (Path(full) / "examples").exists()
    for sm in (80, 89, 100):  # wgmma and sm_90a code: Hopper alone
        assert gemm_anchor.Anchor(sm, name).reason == (
            f"{name} is built for sm_90a (wgmma; arch-specific code runs on sm_90 alone), "
            f"this GPU is sm_{sm}: {who} is left out")

    monkeypatch.setattr(gemm_anchor, "HERE", str(tmp_path / "elsewhere"))  # a package without the .cu
    assert gemm_anchor.Anchor(90, name).reason == (
        f"{tmp_path}/elsewhere/anchors/cutlass_sm90_gemm.cu is missing from labkit's package: {who} is left out")


def test_failed_build_is_reported_and_left_out(tmp_path, monkeypatch):
    nvcc = _script(tmp_path / "nvcc", 'echo "error: identifier wgmma is undefined" >&2; exit 2\n')
    monkeypatch.setattr(gemm_anchor, "nvcc_path", lambda: nvcc)
    root = _root(tmp_path)
    monkeypatch.setattr(gemm_anchor, "cutlass_dir", lambda source=None: root)
    a = gemm_anchor.Anchor(90, "wgmma_tma_sm90")
    a.start()
    out = io.StringIO()
    assert bench._anchor_rows(a, 4096, out) == []
    assert "anchor: nvcc failed (2) building wgmma_tma_sm90: error: identifier wgmma is undefined" in out.getvalue()


def test_a_failed_build_shows_its_first_error(tmp_path, monkeypatch):
    # a template error: nvcc's first error line matters, not the end of its instantiation trail
    log = ("cutlass/gemm/collective/builders/sm90_gmma_builder.inl(200): warning #177-D: unused\n"
           "cutlass_sm90_gemm.cu(112): error: incomplete type is not allowed\n"
           + "          detected during instantiation of ...\n" * 200)
    (tmp_path / "log").write_text(log)
    nvcc = _script(tmp_path / "nvcc", f'cat {tmp_path / "log"} >&2; exit 1\n')
    monkeypatch.setattr(gemm_anchor, "nvcc_path", lambda: nvcc)
    root = _root(tmp_path)
    monkeypatch.setattr(gemm_anchor, "cutlass_dir", lambda source=None: root)
    a = gemm_anchor.Anchor(90, "cutlass_sm90_e4m3")
    a.start()
    out = io.StringIO()
    assert bench._anchor_rows(a, 4096, out) == []
    said = out.getvalue()
    assert said.startswith("anchor: nvcc failed (1) building cutlass_sm90_e4m3: cutlass_sm90_gemm.cu(112): "
                           "error: incomplete type is not allowed\n          detected during")
    assert len(said) < 1600 and "warning #177-D" not in said


def _cutlass_toolchain():
    """(nvcc, CUTLASS folder) that can compile the CUTLASS anchor here, or a skip."""
    import shutil

    nvcc, root = gemm_anchor.nvcc_path(), gemm_anchor.cutlass_dir(None)
    if nvcc is None:
        pytest.skip("nvcc not found (PATH, $CUDA_HOME/bin)")
    if root is None or not all((Path(root) / f).is_file() for f in gemm_anchor.CUTLASS_NEEDS):
        pytest.skip("the CUTLASS headers (include/, tools/util/include/) are not installed")
    if not (shutil.which("g++") or shutil.which("c++")):
        pytest.skip("no host C++ compiler for nvcc")
    try:
        done = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        pytest.skip(f"{nvcc} does not run: {e}")
    if done.returncode != 0:
        pytest.skip(f"{nvcc} does not run: {(done.stdout + done.stderr).strip()[-300:]}")
    return nvcc, root


@pytest.mark.slow
def test_the_cutlass_source_compiles_for_both_variants(tmp_path):
    nvcc, root = _cutlass_toolchain()
    t0 = time.time()
    procs = {name: subprocess.Popen(gemm_anchor.build_command(nvcc, root, 90, str(tmp_path / name), name),
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
             for name in CUTLASS}
    for name, proc in procs.items():
        log, _ = proc.communicate(timeout=1800)
        assert proc.returncode == 0, gemm_anchor.first_error(log)
        assert (tmp_path / name).is_file()
        assert gemm_anchor.build_notes(log) == []  # no serialized wgmma, no warnings
    print(f"both variants built in {time.time() - t0:.0f} s")


def test_vs_cute_is_against_sgemm_sm80_whatever_the_order():
    def row(step, tflops):
        return dict(size=4096, acc="f16", step=step, tflops=tflops, ok=True, note="")

    rows = [row("CuTe wgmma_tma_sm90 (nvcc)", 600.0), row("CuTe sgemm_sm80 (nvcc)", 400.0),
            row("cuBLAS (torch)", 800.0)]
    assert bench._ratio(rows, rows[0], bench.CUTE_REF) == "1.500"
    assert bench._ratio(rows, rows[0], "cuBLAS") == "0.750"
    out = io.StringIO()
    bench._table(rows, out)
    line = [x for x in out.getvalue().splitlines() if "wgmma_tma_sm90" in x][0]
    assert "| 600.0 | 0.750 | 1.500 |" in line


def test_anchor_names_are_checked():
    with pytest.raises(DeviceError, match="anchor: 'sgemm' is not one of"):
        gemm_anchor.Anchor(90, "sgemm")
    assert os.path.basename(gemm_anchor.SOURCE) == "sgemm_sm80.cu"
