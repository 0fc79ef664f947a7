"""The benchmark's anchors (labkit.cuda.kernels.ladder.gemm_anchor): CuTe's tutorial GEMMs built with nvcc.

Expected values come from the tutorials' own sources (their ``printf`` format, their
arguments), nvcc's ``-gencode`` syntax for an arch-specific target (``compute_90a`` /
``sm_90a``, the form the wgmma tutorials need) and the rule that arch-specific code runs on
its own SM alone. The CPU tests build and run stand-ins: a fake ``nvcc`` that writes a script
printing the tutorials' line with the shell's ``printf`` and the same format.
"""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

import pytest

from labkit.cli import bench
from labkit.cuda.kernels.ladder import gemm_anchor
from labkit.errors import DeviceError

HOPPER = ("wgmma_sm90", "wgmma_tma_sm90")

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
    with pytest.raises(DeviceError, match="anchor: 'cublas' is not one of sgemm_sm80, wgmma_sm90"):
        gemm_anchor.build_command("nvcc", root, 90, "/t/x", "cublas")


def test_each_tutorial_runs_t_n_at_m_n_k():
    for name in gemm_anchor.ANCHORS:
        assert gemm_anchor.ANCHORS[name].argv(4096, 2048, 1024) == ["4096", "2048", "1024", "T", "N"]


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


def _root(tmp_path, names=("sgemm_sm80", *HOPPER)):
    """A CUTLASS-like folder holding the tutorials in ``names``."""
    (tmp_path / "cutlass" / "include" / "cute").mkdir(parents=True)
    for n in names:
        src = tmp_path / "cutlass" / gemm_anchor.ANCHORS[n].source
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text("// stand-in\n")
    return str(tmp_path / "cutlass")


def _script(path, body):
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.mark.parametrize("name", HOPPER)
def test_refusals_say_why(name, tmp_path, monkeypatch):
    monkeypatch.setattr(gemm_anchor, "nvcc_path", lambda: None)
    a = gemm_anchor.Anchor(90, name)
    a.start()
    assert not a.wait() and a.reason == f"nvcc not found (PATH, $CUDA_HOME/bin): CuTe's {name} is left out"

    monkeypatch.setattr(gemm_anchor, "nvcc_path", lambda: "/usr/bin/nvcc")
    monkeypatch.setattr(gemm_anchor, "cutlass_dir", lambda source=None: None)
    assert gemm_anchor.Anchor(90, name).reason.startswith("CUTLASS sources not found (pip install nvidia-cutlass")

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
    # the fake nvcc copies, as the "binary", a script printing its arguments and the tutorial's line
    tutorial = _script(tmp_path / "tutorial", 'echo "args: $*"\n'
                       'printf "CUTE_GEMM:     [%6.1f]GFlop/s  (%6.4f)ms\\n" 612473.1 0.2244\n')
    nvcc = _script(tmp_path / "nvcc", f'for a; do out="$a"; done\ncp {tutorial} "$out"\necho "{PTXAS_C7510}" >&2\n')
    monkeypatch.setattr(gemm_anchor, "nvcc_path", lambda: nvcc)
    root = _root(tmp_path)
    monkeypatch.setattr(gemm_anchor, "cutlass_dir", lambda source=None: root)
    found = gemm_anchor.anchors(90)
    assert [a.name for a in found] == ["sgemm_sm80", "wgmma_sm90", "wgmma_tma_sm90"]
    for a in found:
        a.start()
        assert a.command[3] == gemm_anchor.ANCHORS[a.name].gencode(90)
    out = io.StringIO()
    rows = [r for a in found for r in bench._anchor_rows(a, 4096, out)]
    assert [r["step"] for r in rows] == ["CuTe sgemm_sm80 (nvcc)", "CuTe wgmma_sm90 (nvcc)",
                                         "CuTe wgmma_tma_sm90 (nvcc)"]
    assert [(r["tflops"], r["ms"], r["acc"]) for r in rows] == [(pytest.approx(612.4731, rel=1e-12), 0.2244, "f16")] * 3
    assert "args: 4096 4096 4096 T N" in found[1].run(4096, 4096, 4096)[2]
    assert "anchor: wgmma_tma_sm90 built" in out.getvalue()
    # ptxas's performance warning is kept, without the mangled kernel name
    assert ("; nvcc: (C7510) Potential Performance Loss: wgmma.mma_async instructions are serialized "
            "due to wgmma pipeline crossing function boundary at a function call\n") in out.getvalue()
    # on the GPU's side a waiver prints no figure: the run fails with the tutorial's words
    _script(Path(found[1].binary), f'echo "{HOPPER_WAIVER}"\n')
    with pytest.raises(RuntimeError, match="wgmma_sm90 4096 4096 4096 T N failed .0.: This example requires"):
        found[1].run(4096, 4096, 4096)


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
