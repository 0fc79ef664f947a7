"""The trace kernels (``labkit.cuda.kernels.probes.trace_kernels``, ``stmatrix_trace``) are plain
``@cuda.jit`` functions: no ``exec``/``compile`` of generated source, and each compiles on the CPU
to PTX that issues the registry entry's instruction the number of times the PTX ISA's register
counts demand (an A operand of ``n`` registers loaded by ``ldmatrix.xk`` takes ``n / k`` loads;
one ``mma.sync``; one ``stmatrix``). Expected counts come from the registry entries, never from
compiling or running the kernels.

The PTX tests compile with numba-cuda on the CPU (no GPU needed) and are skipped under the CUDA
simulator, where the ``ptx`` names are Python twins.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from labkit.atoms import instructions as isa
from labkit.cuda import ptx
from labkit.cuda.kernels.probes import stmatrix_trace as kst
from labkit.cuda.kernels.probes import trace_kernels as kt

REPO = Path(__file__).resolve().parents[1]
KERNEL_MODULES = ("labkit/cuda/kernels/probes/trace_kernels.py", "labkit/cuda/kernels/probes/stmatrix_trace.py")


# --- no generated source --------------------------------------------------------------------------

def _dynamic_code_calls(path: Path) -> list:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name in ("exec", "eval", "compile"):
                found.append(f"{path.name}:{node.lineno} {name}()")
    return found


@pytest.mark.parametrize("rel", KERNEL_MODULES)
def test_trace_kernel_modules_run_no_generated_source(rel):
    assert _dynamic_code_calls(REPO / rel) == []


def test_the_ast_check_sees_exec_and_compile(tmp_path):
    # the check above must be able to fail: a module that execs generated source is caught
    probe = tmp_path / "probe.py"
    probe.write_text("def f(s):\n    code = compile(s, 'x', 'exec')\n    exec(code, {})\n    builtins.eval('1')\n")
    assert sorted(c.split()[1] for c in _dynamic_code_calls(probe)) == ["compile()", "eval()", "exec()"]


# --- the kernels, from the registry ---------------------------------------------------------------

def _mma_cases():
    cases = []
    for name, ins in sorted(isa.MMA.items()):
        na, nb = ins.registers("A"), ins.registers("B")
        cases.append((name, None, None))                                 # widest loads
        cases.append((name, "x1", "x1"))                                 # one load per register
        if na % 2 == 0:
            cases.append((name, "x2", "x1"))
        if ins.ab_bits == 16:
            cases.append((name, f"x{na}.trans", f"x{nb}.trans"))
    return cases


MMA_CASES = _mma_cases()


def _expected_mma(name, variant, b_variant) -> dict:
    """{PTX mnemonic: count}: the registry's register counts over each ldmatrix's matrix count."""
    ins = isa.MMA[name]
    na, nb = ins.registers("A"), ins.registers("B")
    want = {ins.ptx: 1}
    for regs, v in ((na, variant or f"x{na}"), (nb, b_variant or f"x{nb}")):
        ld = isa.LDMATRIX["ldmatrix_" + v.replace(".", "_")]
        want[ld.ptx] = want.get(ld.ptx, 0) + regs // ld.num
    return want


@pytest.mark.parametrize("name,variant,b_variant", MMA_CASES)
def test_mma_trace_kernel_uses_the_entries_it_runs(name, variant, b_variant):
    plan = kt.mma_plan(name, variant, b_variant)
    kernel = kt._mma_kernel(plan)
    ins = isa.MMA[name]
    used = {u.name for u in kernel.uses}
    lds = {isa.LDMATRIX["ldmatrix_" + v.replace(".", "_")].name for v in (plan.a_variant, plan.b_variant)}
    assert used == {ins.name, "smem_addr"} | lds
    assert kernel.min_sm == max([ins.min_sm] + [isa.LDMATRIX[n].min_sm for n in lds])
    assert kernel.py_func.__code__.co_filename == kt.__file__        # a function of the module
    assert kt._mma_kernel(plan) is kernel                              # built once


def test_copy_and_cta_kernels_use_the_entries_they_run():
    for v in kt.LDMATRIX_VARIANTS:
        entry = isa.LDMATRIX["ldmatrix_" + v.replace(".", "_")]
        k = kt._ldmatrix_kernel(v, 512)
        assert {u.name for u in k.uses} == {entry.name, "smem_addr"} and k.min_sm == entry.min_sm == 75
        entry = isa.STMATRIX["stmatrix_" + v.replace(".", "_")]
        k = kst._stmatrix_kernel(v, 512)
        assert {u.name for u in k.uses} == {entry.name, "smem_addr"} and k.min_sm == entry.min_sm == 90
        assert k.py_func.__code__.co_filename == kst.__file__
    k = kt._cta_kernel(1)
    assert {u.name for u in k.uses} >= {"ldmatrix_x4", "mma_m16n8k16_f16f16f16f16", "cp_async_16"}
    assert k.min_sm == 80


def test_kernel_source_is_the_running_function():
    plan = kt.mma_plan("mma_m16n8k16_f16f16f16f16")
    src = kt.mma_kernel_source(plan)
    assert "# mma = ptx.mma_m16n8k16_f16f16f16f16\n" in src and "# na = 4\n" in src
    assert "def trace_mma_kernel(sa_img, sb_img, a_off, b_off, c_in, out_a, out_b, out_d, bad):" in src
    assert "def stmatrix_kernel(init, off, regs, out, bad):" in kst.stmatrix_kernel_source("x4", 512)
    assert "# ld = ptx.ldmatrix_x2_trans\n" in kt.ldmatrix_kernel_source("x2.trans", 512)
    assert "def trace_cta_kernel(" in kt.cta_kernel_source(1)


# --- PTX on the CPU -------------------------------------------------------------------------------

def _gpu_binding():
    if ptx.SIMULATED:
        pytest.skip("PTX is compiled from the GPU binding, not imported under the CUDA simulator")


def _ptx(fn, sig, cc):
    from numba import cuda

    try:
        return cuda.compile_ptx(fn, sig, cc=cc)[0]
    except Exception as e:                       # no NVVM in this environment
        if "NVVM" in str(e) or "libnvvm" in str(e).lower():
            pytest.skip(f"numba-cuda cannot find NVVM: {e}")
        raise


def _counts(text: str) -> dict:
    """{mnemonic: lines} of every ldmatrix / stmatrix / mma instruction in PTX ``text``."""
    out = {}
    for line in text.splitlines():
        words = line.split()
        if words and words[0].startswith(("ldmatrix.", "stmatrix.", "mma.")):
            out[words[0]] = out.get(words[0], 0) + 1
    return out


def _ccs(min_sm):
    return [cc for cc in ((9, 0), (8, 0), (7, 5)) if 10 * cc[0] + cc[1] >= min_sm]


# every case for sm_90; the default loads also for each older SM the entry runs on (kept short: CI
# compiles each on the CPU)
MMA_PTX_CASES = [(n, v, b, cc) for n, v, b in MMA_CASES
                 for cc in (_ccs(isa.MMA[n].min_sm) if v is None else [(9, 0)])]


@pytest.mark.slow
@pytest.mark.parametrize("name,variant,b_variant,cc", MMA_PTX_CASES)
def test_mma_trace_kernel_ptx_has_the_entries_instructions(name, variant, b_variant, cc):
    _gpu_binding()
    import numba

    from labkit import elements

    plan = kt.mma_plan(name, variant, b_variant)
    reg = {"f32": numba.float32, "s32": numba.int32, "u32": numba.uint32}[elements.register_kind(plan.acc_type)]
    u16, u32, i32 = numba.uint16, numba.uint32, numba.int32
    sig = (u16[:, ::1], u16[:, ::1], i32[:, ::1], i32[:, ::1], reg[:, :, ::1], u32[:, :, ::1], u32[:, :, ::1],
           reg[:, :, ::1], i32[::1])
    text = _ptx(kt._mma_kernel(plan).py_func, sig, cc)
    assert _counts(text) == _expected_mma(name, variant, b_variant)


@pytest.mark.slow
@pytest.mark.parametrize("variant", kt.LDMATRIX_VARIANTS)
def test_copy_trace_kernels_ptx_has_one_instruction(variant):
    _gpu_binding()
    import numba

    u16, u32, i32 = numba.uint16, numba.uint32, numba.int32
    ld = isa.LDMATRIX["ldmatrix_" + variant.replace(".", "_")]
    for cc in _ccs(ld.min_sm):
        text = _ptx(kt._ldmatrix_kernel(variant, 1024).py_func, (u16[:, ::1], i32[:, ::1], u32[:, :, ::1], i32[::1]), cc)
        assert _counts(text) == {ld.ptx: 1}, cc
    st = isa.STMATRIX["stmatrix_" + variant.replace(".", "_")]
    for cc in _ccs(st.min_sm):
        text = _ptx(kst._stmatrix_kernel(variant, 1024).py_func,
                    (u16[:, ::1], i32[:, ::1], u32[:, :, ::1], u16[:, ::1], i32[::1]), cc)
        assert _counts(text) == {st.ptx: 1}, cc


@pytest.mark.slow
@pytest.mark.parametrize("cc", [(9, 0), (8, 0)])
def test_cta_trace_kernel_ptx(cc):
    _gpu_binding()
    import numba

    u16, u32, i32 = numba.uint16, numba.uint32, numba.int32
    sig = (u16[::1], u16[::1], i32[:, ::1], i32[:, ::1], i32[:, :, :, ::1], i32[:, :, :, ::1],
           u32[:, :, :, :, ::1], u32[:, :, :, :, ::1], u32[:, :, :, :, :, ::1], i32[::1])
    text = _ptx(kt._cta_kernel(1).py_func, sig, cc)
    # one k-block of sgemm_sm80's warp: 4 A fragments (32x16 of the 2x2-warp 32x32 tile, x4 each)
    # and 4 B loads (x4 = two n8 fragments), then 4 x 8 m16n8k16 (a 64x64 warp tile of 16x8 atoms)
    ld, mma = isa.LDMATRIX["ldmatrix_x4"], isa.MMA["mma_m16n8k16_f16f16f16f16"]
    assert _counts(text) == {ld.ptx: 4 + 4, mma.ptx: (64 // mma.shape[0]) * (64 // mma.shape[1])}
