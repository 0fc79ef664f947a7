"""The instruction registry as the one home of each fact, and labkit.cuda._numba as the one numba
boundary.

- every registry entry has a simulator rule, a twin, an intrinsic and a verify check (a GMMA
  entry: the twin labkit.sim.wgmma, SS or RS, an intrinsic, a verify check);
- the intrinsics compile to the registry's PTX (numba-cuda's ``compile_ptx`` runs on a CPU when
  NVVM is installed);
- the ldmatrix/stmatrix lane rule and the element coding against the PTX ISA's text;
- no module but ``labkit/cuda/_numba.py`` reaches numba beyond its documented API, and only it
  decides ``SIMULATED``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from labkit.errors import DeviceError, LayoutError
import pytest

from labkit import sim
from labkit import elements as el
from labkit.atoms import instructions as isa
from labkit.cli import verify_checks, verify_predictions
from labkit.cuda import _numba, _twins, ptx

REPO = Path(__file__).resolve().parents[1]


# --- every entry has every part ------------------------------------------------------------------

def _intrinsics():
    if ptx.SIMULATED:
        pytest.skip("the GPU binding is not imported under the CUDA simulator")
    from labkit.cuda import _intrinsics

    return _intrinsics


@pytest.mark.parametrize("name", sorted(isa.MMA))
def test_every_mma_entry_has_a_rule_a_twin_an_intrinsic_and_a_check(name):
    ins = isa.MMA[name]
    assert sim.mma_spec(name) is ins                                   # the PTX ISA's fragment rule
    assert callable(getattr(_twins, name)) and getattr(_twins, name).__name__ == name   # the twin
    intrinsics = _intrinsics()
    assert intrinsics.ASM[name].startswith(ins.ptx + " {")             # the intrinsic
    assert getattr(ptx, name) is getattr(intrinsics, name)
    assert all(a in verify_predictions.MMA_ATOMS for a in ins.atoms)                # the verify check
    for op in "ABC":                                                    # sim and CuTe agree
        assert np.array_equal(sim.fragment_coords(ins, op), ins.coords(op))


@pytest.mark.parametrize("table,checks", [(isa.LDMATRIX, verify_predictions.LDMATRIX_ATOMS),
                                          (isa.STMATRIX, verify_predictions.STMATRIX_ATOMS)])
def test_every_copy_entry_has_a_twin_an_intrinsic_and_a_check(table, checks):
    intrinsics = _intrinsics()
    for name, ins in table.items():
        assert getattr(_twins, name).__name__ == name
        assert intrinsics.ASM[name].startswith(ins.ptx)
        assert ins.atom in checks.values()


def _verified_families():
    from labkit.cli import verify_wgmma

    return {(isa.instruction(c[0]).types, isa.instruction(c[0]).form) for c in verify_wgmma.CASES}


@pytest.mark.parametrize("name", sorted(isa.GMMA))
def test_every_gmma_entry_has_a_twin_an_intrinsic_and_a_check(name):
    # A wgmma entry: the twin is labkit.sim.wgmma (wgmma_ss or wgmma_rs, its operand addressing
    # written from the PTX ISA, one model for every form: it takes the entry itself), the
    # intrinsic is bound in labkit.cuda.ptx under the entry's name, and verify checks its family
    # (types and form) on an sm_90 GPU. wgmma has no CUDA-simulator twin (sm_90a only).
    from labkit.atoms.gmma_desc import GmmaDescriptor
    from labkit.atoms.gmma_fragment import a_registers
    from labkit.sim.wgmma import wgmma_rs, wgmma_ss

    g = isa.GMMA[name]
    assert isa.instruction(name) is g and isa.instruction(g.atoms[0]) is g
    n = g.shape_mnk[1]
    smem = np.zeros(1 << 16, np.uint8)
    da = GmmaDescriptor(leading_byte_offset=8, stride_byte_offset=16).encode()
    db = GmmaDescriptor(start_address=256, leading_byte_offset=8, stride_byte_offset=16).encode()
    if g.form == "SS":                                                           # the twin
        assert wgmma_ss(g, smem, da, db).shape == (64, n)
    else:
        a = a_registers(np.zeros((64, g.k)), g.a_type)
        assert wgmma_rs(g, a, smem, db).shape == (64, n)
    assert ptx.instruction_of(getattr(ptx, g.name)) is g                        # the intrinsic
    if not ptx.SIMULATED:
        assert _intrinsics().ASM[name] == g.asm and g.asm.split("; ")[1].startswith("setp")
    assert (g.types, g.form) in _verified_families()                            # the verify check


def test_every_entry_is_a_verify_job():
    names = [ins.name for ins in isa.MMA.values()]
    assert sorted(set(isa.instruction(a).name for a in verify_predictions.MMA_ATOMS)) == sorted(names)


def _compile(kernel, argtypes):
    from numba import cuda

    try:
        return cuda.compile_ptx(kernel, argtypes, cc=(9, 0))[0]
    except Exception as e:                       # no NVVM in this environment
        if "NVVM" in str(e) or "libnvvm" in str(e).lower():
            pytest.skip(f"numba-cuda cannot find NVVM: {e}")
        raise


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(isa.MMA))
def test_each_mma_intrinsic_compiles_to_the_registry_ptx(name):
    _intrinsics()
    import numba

    ins = isa.MMA[name]
    kind = el.register_kind(ins.acc_type)
    acc = {"f32": numba.float32, "s32": numba.int32, "u32": numba.uint32}[kind]
    na, nb, nc = ins.registers("A"), ins.registers("B"), ins.registers("C")
    args = ", ".join([f"r[{i}]" for i in range(na + nb)] + [f"c[{i}]" for i in range(nc)])
    scope = {"ptx": ptx}
    exec(f"def kernel(out, r, c):\n    d = ptx.{name}({args})\n    out[0] = d[0]\n", scope)
    text = _compile(scope["kernel"], (acc[:], numba.uint32[:], acc[:]))
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith("mma.")]
    assert len(lines) == 1 and lines[0].startswith(ins.ptx + " {")
    assert lines[0].count("%") == 2 * nc + na + nb


# --- the rules, against the PTX ISA's text ---------------------------------------------------------

def test_ldmatrix_lane_rule_is_the_isas():
    # PTX ISA, ldmatrix: "threads 0-7 give the addresses of the rows of the first matrix, 8-15 the
    # second, ..."; each thread receives row (laneid / 4), elements 2*(laneid % 4) and +1
    for lane in range(32):
        assert isa.lane_row(lane, 4) == (lane // 8, lane % 8)
        assert isa.matrix_row_lane(*isa.lane_row(lane, 4)) == lane
        for half in (0, 1):
            assert isa.matrix_element(lane, half) == (lane // 4, 2 * (lane % 4) + half)
            assert isa.matrix_element(lane, half, True) == (2 * (lane % 4) + half, lane // 4)
    assert isa.lane_row(np.arange(32), 2)[1].tolist() == (np.arange(32) % 8).tolist()


def test_element_coding():
    # f16 / bf16 / tf32 bit patterns from IEEE 754 and the PTX ISA (cvt.rna.tf32.f32: nearest,
    # ties away from zero, low 13 bits clear); s8 two's complement
    assert el.to_bits([1.0, -2.0, 65504.0], "f16").tolist() == [0x3C00, 0xC000, 0x7BFF]
    assert el.to_bits([1.0, 1 + 2 ** -8], "bf16").tolist() == [0x3F80, 0x3F80]       # ties to even
    assert el.to_bits([1 + 2 ** -11, -(1 + 2 ** -11), 1 + 2 ** -12], "tf32").tolist() == \
        [0x3F802000, 0xBF802000, 0x3F800000]
    assert el.to_bits([-128, -1, 0, 127], "s8").tolist() == [0x80, 0xFF, 0, 0x7F]
    assert el.wrap([2 ** 31, -1], "s32").tolist() == [0x80000000, 0xFFFFFFFF]
    regs = el.pack_registers(np.array([0x01, 0x02, 0x03, 0x04, 0xFF, 0, 0, 0x80], np.uint8), "s8")
    assert [hex(int(r)) for r in regs] == ["0x4030201", "0x800000ff"]
    assert el.unpack_registers(regs, "s8").tolist() == [1, 2, 3, 4, 255, 0, 0, 128]
    # OCP 8-bit floats (the PTX ISA's .e4m3 and .e5m2): e4m3 bias 7, max 448 = 0x7E, no infinity,
    # S.1111.111 NaN; e5m2 bias 15, max 57344 = 0x7B; cvt.rn.satfinite clamps to the max
    assert el.to_bits([1.0, -2.0, 448.0, 1e6, 2.0 ** -9, 0.0], "e4m3").tolist() == \
        [0x38, 0xC0, 0x7E, 0x7E, 0x01, 0x00]
    assert el.to_bits([1.0, 57344.0, 2.0 ** -16, 1.125], "e5m2").tolist() == [0x3C, 0x7B, 0x01, 0x3C]
    assert el.from_bits(np.array([0x7F, 0x7C], np.uint8), "e5m2").tolist()[1] == np.inf
    assert np.isnan(el.from_bits(0x7F, "e4m3"))
    for kind, e in el.ELEMENTS.items():
        if e.bits <= 32:
            assert el.per_register(kind) * e.bits == 32
    for spelling in ("half_t", "float16", np.float16, "f16"):
        assert el.element(spelling).name == "f16"
    assert [el.element(c).name for c in ("bfloat16_t", "tfloat32_t", "float_e4m3_t", "float_e5m2_t",
                                         "int8_t", "uint8_t")] == ["bf16", "tf32", "e4m3", "e5m2", "s8", "u8"]
    with pytest.raises(LayoutError, match="s8 must be integers in -128..127"):
        el.to_bits([128], "s8")
    with pytest.raises(LayoutError, match="element_type='fp7' is not an element type"):
        el.to_bits([1], "fp7")


def test_register_counts_are_element_width_arithmetic():
    for ins in isa.MMA.values():
        for op in "ABC":
            bits = el.ELEMENT_BITS[ins.element_type(op)]
            assert ins.registers(op) * 32 == ins.elements(op) * bits


# --- one numba boundary ----------------------------------------------------------------------------

# Modules still reaching numba internals themselves (the driver version, numba-cuda's version):
# each moves to labkit.cuda._numba.driver_version() / NUMBA_CUDA_VERSION with the work on its file.
# A smaller set is progress; a longer one fails.
NOT_YET_MOVED: set = set()
PUBLIC = {"numba", "numba.cuda", "numba.types"}        # numba's documented modules


def _numba_uses(path):
    tree = ast.parse(path.read_text())
    uses = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            uses |= {a.name for a in node.names if (a.name.split(".")[0] in ("numba", "numba_cuda", "llvmlite")
                                                    or a.name.startswith("cuda.bindings")) and a.name not in PUBLIC}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] in ("numba", "numba_cuda", "llvmlite") and node.module not in PUBLIC:
                uses.add(node.module)
            if node.module.startswith("cuda.bindings") or node.module in ("cuda.cuda", "cuda.cudart"):
                uses.add(node.module)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):  # resolve("numba.cuda.cudadrv...", ...), import_module
            name = node.args[0].value
            func = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if func in ("resolve", "import_module", "__import__") and name.split(".")[0] in (
                    "numba", "numba_cuda", "llvmlite", "cuda") and name not in PUBLIC:
                uses.add(name)
        elif isinstance(node, ast.Attribute):           # numba.types..., numba.core...
            chain = []
            cur = node
            while isinstance(cur, ast.Attribute):
                chain.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name) and cur.id == "numba" and chain[-1] in ("core", "np", "misc"):
                uses.add("numba." + chain[-1])
            if (isinstance(cur, ast.Name) and cur.id == "cuda" and chain[-1] in ("cudadrv", "simulator", "core")):
                uses.add("numba.cuda." + chain[-1])
    return uses


def test_numba_beyond_the_public_api_only_in_the_boundary():
    offenders = {}
    for path in sorted((REPO / "labkit").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        uses = _numba_uses(path)
        if uses and rel != "labkit/cuda/_numba.py":
            offenders[rel] = sorted(uses)
    assert set(offenders) <= NOT_YET_MOVED, {k: v for k, v in offenders.items() if k not in NOT_YET_MOVED}


def test_the_boundary_check_catches_lookups_by_string(tmp_path):
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text("from labkit.cuda import _numba\n"
                      "drv = _numba.resolve('numba.cuda.cudadrv.driver', 'driver')\n"
                      "import importlib\nm = importlib.import_module('numba.core.config')\n"
                      "from cuda.bindings import driver\n")
    assert _numba_uses(sneaky) == {"numba.cuda.cudadrv.driver", "numba.core.config", "cuda.bindings"}


def test_one_simulated_constant():
    import labkit.cuda as lc
    from labkit.cuda import probe

    assert lc.SIMULATED is ptx.SIMULATED is probe.SIMULATED is _numba.SIMULATED
    for path in (REPO / "labkit").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for t in targets if isinstance(t, ast.Name)]
                if "SIMULATED" in names:
                    assert path.name == "_numba.py", f"{path} decides SIMULATED itself"


def test_a_moved_name_fails_loudly_naming_the_version():
    with pytest.raises(_numba.NumbaBoundaryError) as e:
        _numba.resolve("numba.cuda.extending", "no_such_name")
    msg = str(e.value)
    assert _numba.NUMBA_CUDA_VERSION in msg and "numba.cuda.extending.no_such_name" in msg
    assert isinstance(e.value, ImportError) and isinstance(e.value, DeviceError)


def test_the_boundary_uses_numba_cudas_own_extending_api():
    import numba.cuda.extending

    assert _numba.intrinsic is numba.cuda.extending.intrinsic
    assert _numba.types.__name__ == "numba.cuda.types"


@pytest.mark.slow
def test_the_inline_ptx_entries_compile_to_their_registry_text():
    # labkit.cuda.probe and kernels/ladder/gemm_ptx (and gemm_cluster) bind the registry's PROBE and GEMM_PTX entries
    _intrinsics()
    import numba
    from numba import cuda

    from labkit.cuda import probe
    from labkit.cuda.kernels.ladder import gemm_cluster as cl
    from labkit.cuda.kernels.ladder import gemm_wgmma_streamk as streamk
    from labkit.cuda.kernels.ladder import gemm_ptx as g

    regs = g.setmaxnreg_calls(40, 232)
    setmaxnreg_dec, setmaxnreg_inc = regs["setmaxnreg_dec_40"], regs["setmaxnreg_inc_232"]

    def kernel(out, src, maps):
        s = cuda.shared.array(256, numba.uint32)
        bar = cuda.shared.array(1, numba.uint64)
        t0 = probe.clock64()
        v = probe.ld_volatile_shared_u32(s, 3)
        a, b, c, d = g.ld_global_v4(src, 0, 1)
        addr = ptx.smem_addr(s, 0)
        g.st_shared_v4(addr, a, b, c, d)
        g.cp_async_cg_16_zfill(addr, src, 4, 8)
        g.st_global_u32(out, 0, v)
        g.st_global_v2_f32(out, 2, numba.float32(1), numba.float32(2))
        baddr = ptx.smem_addr(bar, 0)
        g.mbarrier_init(baddr, 1)
        g.fence_mbarrier_init()
        g.mbarrier_arrive_expect_tx(baddr, 16)
        w = g.mbarrier_try_wait(baddr, 0)
        g.mbarrier_arrive(baddr)
        setmaxnreg_dec()
        setmaxnreg_inc()
        g.tma_load_2d(addr, maps, 0, 0, 0, baddr)
        g.st_shared_u32(addr, v, 0)
        g.bar_sync_named(1, 128)
        g.tma_store_2d(maps, 16, 0, 0, addr)
        g.cp_async_bulk_commit_group()
        g.cp_async_bulk_wait_group_read(0)
        g.cp_async_bulk_wait_group()
        cl.tma_load_2d_multicast(addr, maps, 0, 0, 0, baddr, 3)
        cl.mbarrier_arrive_cluster(baddr, cl.cluster_ctarank())
        cl.barrier_cluster_sync()
        streamk.red_release_gpu(out, 0, 1)
        out[2] = streamk.ld_acquire_gpu(out, 1)
        out[1] = numba.uint32(probe.clock64() - t0) + w
        out[3] = g.cvt_rn_f16x2_f32(numba.float32(out[4]), numba.float32(2)) ^ \
            g.cvt_rn_bf16x2_f32(numba.float32(out[5]), numba.float32(3))

    text = _compile(kernel, (numba.uint32[:], numba.uint32[:], numba.uint64[:]))
    for ins in isa.INLINE.values():
        assert ins.ptx.split()[0].rstrip(";") in text, ins.name        # the opcode with its qualifiers
    assert "%clock64" in text


def test_the_packing_conversions_twins_round_as_ieee_says():
    """cvt.rn.{f16,bf16}x2.f32 (PTX ISA: ``a`` to the upper half, ``b`` to the lower, round to
    nearest even). Bit patterns from IEEE 754: 1 = 0x3C00 (f16), 0x3F80 (bf16); -2 = 0xC000;
    1/3 = 0x3555 (f16) and 0x3EAB (bf16: 0x3EAAAAAB rounds up); 1 + 2^-8 and 1 + 3 * 2^-8 lie
    halfway between bf16 neighbours and go to the even one, 0x3F80 and 0x3F82."""
    import os
    import subprocess
    import sys

    code = ("from labkit.cuda.kernels.ladder import gemm_ptx as g\n"
            "print(hex(g.cvt_rn_f16x2_f32(1.0, -2.0)), hex(g.cvt_rn_f16x2_f32(1 / 3, 1.0)),\n"
            "      hex(g.cvt_rn_bf16x2_f32(1 / 3, 1 + 2 ** -8)), hex(g.cvt_rn_bf16x2_f32(1 + 3 * 2 ** -8, -2.0)))\n")
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["0x3c00c000", "0x35553c00", "0x3eab3f80", "0x3f82c000"]
