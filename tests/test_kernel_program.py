"""One kernel program object: every kernel labkit writes as text becomes a kernel through
labkit.cuda.program.KernelProgram, the one place labkit runs ``exec``; numba's @intrinsic typers
get their fixed argument lists from an ``inspect.Signature``, not from generated source."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from labkit.cuda import _numba, ptx
from labkit.cuda.program import KernelProgram
from labkit.errors import DeviceError

REPO = Path(__file__).resolve().parents[1]


def _exec_calls(path):
    tree = ast.parse(path.read_text())
    return [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name) and n.func.id in ("exec", "eval")]


def test_exec_appears_once_in_labkit_in_the_kernel_program():
    found = {}
    for path in sorted((REPO / "labkit").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if _exec_calls(path):
            found[rel] = _exec_calls(path)
    assert list(found) == ["labkit/cuda/program.py"] and len(found["labkit/cuda/program.py"]) == 1, found


def test_every_text_kernel_is_built_by_the_program():
    # the modules that write kernels as text build them through KernelProgram, none by hand
    writers = ["labkit/cuda/kernels/ladder/gemm_launch.py", "labkit/cuda/kernels/ladder/gemm_wgmma.py",
               "labkit/cuda/kernels/ladder/gemm_sass.py", "labkit/cuda/kernels/probes/wgmma_probe.py",
               "labkit/cuda/kernels/experiments/exp_epilogue.py", "labkit/lab/ladder_trace.py",
               "labkit/cuda/offset_function.py", "labkit/cuda/kernels/ladder/gemm_layout.py"]
    for rel in writers:
        text = (REPO / rel).read_text()
        assert "KernelProgram" in text or "offset_program" in text or "program(" in text, rel
        assert '"exec"' not in text and "linecache" not in text, rel      # no compile(..., "exec") of its own


def test_a_program_runs_its_function_and_reports_a_missing_one():
    p = KernelProgram("axpy", "def axpy(a, x, y):\n    return a * x + y\n", {"unused": 0})
    assert p.function()(2, 3, 4) == 10 and p.function() is p.function()
    q = p.with_namespace(scale=3)
    assert q.source == p.source and q.namespace["scale"] == 3 and "scale" not in p.namespace
    with pytest.raises(DeviceError, match="source: the program defines no function 'f'"):
        KernelProgram("f", "def g():\n    pass\n", {}).function()
    with pytest.raises(DeviceError, match="name: must be a Python identifier"):
        KernelProgram("not a name", "", {})


def test_a_traceback_shows_the_generated_line():
    p = KernelProgram("boom", "def boom(x):\n    y = x + 1\n    return y // 0\n", {}, label="boom test")
    with pytest.raises(ZeroDivisionError) as e:
        p.function()(1)
    assert "return y // 0" in str(e.traceback[-1].statement)


def test_fixed_arity_gives_numba_an_exact_argument_list():
    seen = []
    f = _numba.fixed_arity("op", ["dst", "index", "v0"], lambda ctx, *a: seen.append((ctx, a)) or "typed")
    assert str(inspect.signature(f)) == "(typingctx, dst, index, v0)"
    assert f("ctx", 1, 2, 3) == "typed" and seen == [("ctx", (1, 2, 3))]
    with pytest.raises(TypeError):
        f("ctx", 1, 2)                                  # one argument short: Python's own error


def test_the_generated_intrinsics_keep_their_arity():
    if ptx.SIMULATED:
        pytest.skip("the GPU binding is not imported under the CUDA simulator")
    from labkit.atoms.instructions import instruction
    from labkit.cuda.kernels.ladder import gemm_ptx

    mma = instruction("mma_m16n8k16_f32f16f16f32")
    n = mma.registers("A") + mma.registers("B") + mma.registers("C")            # 4 + 2 + 4
    assert len(inspect.signature(ptx.mma_m16n8k16_f32f16f16f32._defn).parameters) == 1 + n == 11
    assert list(inspect.signature(ptx.stmatrix_x4._defn).parameters) == ["typingctx", "addr", "r0", "r1", "r2", "r3"]
    assert list(inspect.signature(gemm_ptx.st_global_v2_f32._defn).parameters) == ["typingctx", "dst", "index", "v0", "v1"]
    assert list(inspect.signature(gemm_ptx.fence_mbarrier_init._defn).parameters) == ["typingctx"]


@pytest.mark.slow
def test_the_ladders_program_compiles_to_ptx_on_the_cpu():
    if ptx.SIMULATED:
        pytest.skip("compile_ptx is the GPU path")
    from labkit.cuda.kernels.ladder import gemm_codegen, gemm_launch
    from labkit.cuda.kernels.ladder.gemm_config import TileConfig
    from labkit.cuda.kernels.ladder.gemm_sass import _signature

    cfg = TileConfig(bm=64, bn=64, bk=32, warps_m=2, warps_n=2, stages=2, double_buffer=False)
    prog = gemm_launch.program(cfg, "f32", 80, "gemm_tc")
    assert prog.source == gemm_codegen.kernel_source(cfg, "f32", 80, "gemm_tc")
    text = prog.compile_ptx(_signature("f32", cfg), cc=(8, 0), fastmath=True)
    # 64x64 over 2x2 warps: 32x32 a warp = 2x4 atoms; bk 32 = 2 k-blocks: 16 mma per k-tile, in the
    # source once and in the PTX once per copy of the loop body the compiler made
    assert sum(s.op == "mma" for s in prog.statements) == 16
    assert text.count("mma.sync.aligned.m16n8k16") % 16 == 0 and text.count("mma.sync.aligned.m16n8k16") >= 16


def test_statement_ops_come_from_the_registry():
    from labkit.atoms.records import OPS
    from labkit.cuda.kernels.ladder import gemm_pipeline, gemm_tma, gemm_wgmma
    from labkit.cuda.kernels.ladder.gemm_statements import NO_INSTRUCTION, Writer

    sts = (list(gemm_pipeline.statements("f32", 80)) + list(gemm_tma.statements("f32", 90))
           + list(gemm_wgmma.statements(gemm_wgmma._pick(gemm_wgmma.DEFAULT))))
    ops = {s.op for s in sts if s.call}
    assert ops <= set(OPS) | {"barrier", NO_INSTRUCTION}
    # the PTX ISA's opcodes of what the steps issue
    assert {"mma", "ldmatrix", "cp.async", "cp.async.bulk.tensor", "wgmma.mma_async", "mbarrier.try_wait"} <= ops
    w = Writer()
    w.code("x = cp_async_cg_16(a, b, c)", call="cp_async_cg_16")
    assert w.statements[-1].op == "cp.async"
    with pytest.raises(DeviceError, match="op comes from the registry"):
        w.code("x = cp_async_cg_16(a, b, c)", call="cp_async_cg_16", op="ldmatrix")


def _calls(path, attr):
    tree = ast.parse(path.read_text())
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            f = n.func.func if isinstance(n.func, ast.Call) else n.func      # cuda.jit(**o)(fn)
            if (isinstance(f, ast.Attribute) and f.attr == attr) or (isinstance(f, ast.Name) and f.id == attr):
                out.append(n.lineno)
        elif isinstance(n, (ast.FunctionDef,)):
            for d in n.decorator_list:
                d = d.func if isinstance(d, ast.Call) else d
                if isinstance(d, ast.Attribute) and d.attr == attr and getattr(d.value, "id", "") == "cuda":
                    out.append(n.lineno)
    return out


def test_every_kernel_is_made_by_the_program():
    # numba's cuda.jit is reached from labkit.cuda.program only (and the Kernel it makes); every
    # kernel of labkit, hand-written ones included, is a program's (@labkit.cuda.jit)
    jits, kernels = {}, {}
    for path in sorted((REPO / "labkit").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        if [ln for ln in _calls(path, "jit") if "cuda.jit" in path.read_text().splitlines()[ln - 1]]:
            jits[rel] = True
        if _calls(path, "Kernel") and rel != "labkit/cuda/launch.py":
            kernels[rel] = True
    assert set(jits) == {"labkit/cuda/program.py", "labkit/cuda/launch.py"}, jits
    assert set(kernels) == {"labkit/cuda/program.py"}, kernels


def test_jit_builds_through_the_program():
    import labkit.cuda as lc
    from labkit.cuda.kernels.experiments import exp_copy
    from labkit.cuda.kernels.ladder import gemm_naive

    assert lc.jit is __import__("labkit.cuda.program", fromlist=["jit"]).jit
    k = gemm_naive._kernel("f32")
    assert k.py_func.__name__ == "gemm_naive" and "def gemm_naive(A, B, C):" in KernelProgram.of(k.py_func).source
    kernels = [v for v in vars(exp_copy).values() if type(v).__name__ == "Kernel"]
    assert kernels, "exp_copy's kernels are labkit Kernels made by the program"
