"""``python -m labkit verify``: it passes on the CPU twin, and it fails when the device disagrees."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from labkit.atoms import instructions as isa
import pytest

from labkit.cli import verify, verify_checks, verify_predictions, verify_wgmma
from labkit.driver import cuda_device_count
from labkit.sim import fragment_trace as sim_trace

REPO = Path(__file__).resolve().parents[1]


def _cli(*args, simulated=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    if simulated is not None:
        env["NUMBA_ENABLE_CUDASIM"] = "1" if simulated else "0"
    return subprocess.run([sys.executable, "-m", "labkit", "verify", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def cpu_run():
    if cuda_device_count() > 0:
        pytest.skip("a GPU is present: the automatic run would use it")
    return _cli("--n", "2")


def test_verify_passes_on_the_cuda_simulator(cpu_run):
    assert cpu_run.returncode == 0, cpu_run.stdout[-4000:] + cpu_run.stderr[-4000:]
    out = cpu_run.stdout
    assert "backend: cudasim" in out and "ALL PASS" in out
    for name in [*verify_predictions.LDMATRIX_ATOMS, *verify_predictions.MMA_ATOMS, "sgemm_sm80 CTA"]:
        assert name in out
    # stmatrix needs sm_90: the simulated device is the newest SM a check needs, so they run too
    for variant, atom in verify_predictions.STMATRIX_ATOMS.items():
        assert f"stmatrix {variant} {atom}" in out
    assert "CUDA simulator (sm_90)" in out
    checks = len(verify_predictions.LDMATRIX_ATOMS) + len(verify_predictions.STMATRIX_ATOMS) + len(verify_predictions.MMA_ATOMS) + 1
    assert checks == 22 and out.count("| PASS ") == checks and "FAIL" not in out
    # wgmma is sm_90a only: the simulator has none, so its checks are skipped with the reason
    wgmma = len(verify_wgmma.CASES) + len(verify_wgmma.MISENCODED) + len(verify_wgmma.BASE_OFFSET)
    assert wgmma == 141
    skipped = [line for line in out.splitlines() if line.startswith("skipped")]
    assert skipped == [f"skipped on this device: {wgmma} wgmma checks (sm_90a only: the CUDA simulator has no wgmma)"]
    assert "| wgmma" not in out and f"{checks} checks" in out


@pytest.mark.slow
def test_verify_only_wgmma_on_the_simulator_is_skipped_not_failed():
    done = _cli("--n", "2", "--only", "wgmma", simulated=True)
    assert "skipped on this device: 141 wgmma checks (sm_90a only: the CUDA simulator has no wgmma)" in done.stdout
    assert "FAIL" not in done.stdout and "NOTHING CHECKED" in done.stdout


def test_a_gpu_other_than_sm_90_skips_wgmma_with_the_reason():
    assert verify._arch_skip("sm_90a", "gpu", 100) == "sm_90a only: needs an sm_90 GPU, this is sm_100"
    assert verify._arch_skip("sm_90a", "gpu", 80) == "sm_90a only: needs an sm_90 GPU, this is sm_80"
    assert verify._arch_skip("sm_90a", "gpu", 90) == ""
    assert verify._arch_skip("", "cudasim", 75) == ""


# --- the wgmma checks, with labkit.sim.wgmma standing in for the device ------------------------

def _twin_device(fn, plan, image, descs, a_regs):
    return verify_wgmma._twin(plan, image, plan.descs if descs is None else descs, a_regs)


def _right_device(fn, plan, image, descs, a_regs):
    """A device that reads the right operands whatever the descriptors say."""
    return _twin_device(fn, plan, image, None, a_regs)


def _swapped_halves_device(fn, plan, image, descs, a_regs):
    """A device that reads each A register's two halves the other way round."""
    swapped = (a_regs >> 16) | (a_regs << 16)
    return _twin_device(fn, plan, image, descs, swapped.astype(np.uint32))


_SOME = [verify_wgmma.CASES[i] for i in (0, 13, 31, 33, 36)] + \
    [c for c in verify_wgmma.CASES if c[0].endswith("_RS")][:: 20]


@pytest.mark.parametrize("case", _SOME, ids=lambda c: verify_wgmma.case_name(c))
def test_the_wgmma_check_passes_on_the_twin_and_fails_on_a_wrong_element(case):
    assert verify_checks.check_wgmma(case, np.random.default_rng(0), _twin_device).ok

    def broken(fn, plan, image, descs, a_regs):
        d = _twin_device(fn, plan, image, descs, a_regs)
        d[5, 3] += 1
        return d

    r = verify_checks.check_wgmma(case, np.random.default_rng(0), broken)
    assert [name for name, ok, _ in r.items if not ok] == ["D exact inputs: device == twin",
                                                           "D random device vs float64"]


def test_an_rs_device_reading_a_registers_otherwise_fails_the_wgmma_check():
    rs = next(c for c in verify_wgmma.CASES if c[0] == "SM90_64x64x16_F32F16F16_RS")
    r = verify_checks.check_wgmma(rs, np.random.default_rng(0), _swapped_halves_device)
    assert "D exact inputs: device == twin" in [name for name, ok, _ in r.items if not ok]


def test_an_unwritten_accumulator_fails_the_wgmma_check():
    def unwritten(fn, plan, image, descs, a_regs):
        d = _twin_device(fn, plan, image, descs, a_regs)
        d[63, 7] = np.nan
        return d

    r = verify_checks.check_wgmma(verify_wgmma.CASES[0], np.random.default_rng(0), unwritten)
    assert not r.ok and "D random device vs float64" in [name for name, ok, _ in r.items if not ok]


def test_the_cases_cover_both_majors_every_swizzle_and_every_type():
    from labkit.atoms.gmma_smem import fits
    from labkit.atoms.instructions import GMMA

    grid = {(c[0], c[1], c[2]) for c in verify_wgmma.CASES}
    b_grid = {(c[0], c[3], c[4]) for c in verify_wgmma.CASES}
    for n in (8, 64, 128, 256):
        for major in ("K", "MN"):
            for sw in ("INTER", "SW32", "SW64", "SW128"):
                assert (f"SM90_64x{n}x16_F32F16F16_SS", major, sw) in grid
                if fits(major, sw, n, 64):      # an MN-major atom wider than N cannot hold B
                    assert (f"SM90_64x{n}x16_F32F16F16_RS", major, sw) in b_grid
    assert all(c[1:3] == ("K", "REG") for c in verify_wgmma.CASES if c[0].endswith("_RS"))
    # every form of every type (PTX's .dtype.atype.btype), SS and RS, at N 64 and 256 at least
    families = {(g.types, g.form) for g in GMMA.values()}
    checked = {(isa.instruction(c[0]).types, isa.instruction(c[0]).form, isa.instruction(c[0]).n)
               for c in verify_wgmma.CASES}
    for types, form in families:
        assert {(types, form, 64), (types, form, 256)} <= checked, (types, form)
    assert set(verify_checks.WGMMA_ATOMS) == {c[0] for c in verify_wgmma.CASES}


@pytest.mark.parametrize("mis", verify_wgmma.MISENCODED, ids=lambda m: m[6])
def test_a_misencoded_descriptor_is_predicted_and_a_device_ignoring_it_fails(mis):
    assert verify_checks.check_misencoded(mis, np.random.default_rng(2), _twin_device).ok
    r = verify_checks.check_misencoded(mis, np.random.default_rng(2), _right_device)
    assert [name for name, ok, _ in r.items if not ok] == ["D device == twin (the garbage predicted)"]


def _base_offset_blind_device(fn, plan, image, descs, a_regs):
    """A device that ignores A's base offset."""
    return _twin_device(fn, plan, image, verify_wgmma.with_base_offset(descs, 0), a_regs)


@pytest.mark.parametrize("case", verify_wgmma.BASE_OFFSET, ids=lambda c: verify_wgmma.base_offset_name(c))
def test_the_base_offset_check_passes_on_the_twin_and_fails_on_a_device_ignoring_it(case):
    r = verify_checks.check_base_offset(case, np.random.default_rng(3), _twin_device)
    assert r.ok, r.items
    r = verify_checks.check_base_offset(case, np.random.default_rng(3), _base_offset_blind_device)
    assert [name for name, ok, _ in r.items if not ok] == ["D device == twin (all four)"]


def test_the_base_offset_rule_against_the_ptx_isa_and_cute():
    # PTX ISA, matrix descriptor: "base offset = (start address >> 0x7) & 0x7" for a start off the
    # pattern's boundary; with base offset 0 the read is CuTe's Sw<3,4,3> on the absolute address
    from labkit.atoms.gmma_desc import LayoutType
    from labkit.layout import Swizzle
    from labkit.sim.wgmma import swizzled

    a = np.arange(0, 1 << 14, 2)
    assert np.array_equal(swizzled(a, LayoutType.B128), [Swizzle(3, 4, 3)(int(x)) for x in a])
    assert np.array_equal(swizzled(a, LayoutType.B32), [Swizzle(1, 4, 3)(int(x)) for x in a])
    start = 16384 + 5 * 128
    off = np.arange(0, 8192, 2)
    # a tile whose pattern restarts at ``start`` reads right with base offset (start >> 7) & 7
    assert np.array_equal(swizzled(start + off, LayoutType.B128, (start >> 7) & 7),
                          start + np.array([Swizzle(3, 4, 3)(int(x)) for x in off]))
    assert np.array_equal(swizzled(off, LayoutType.INTERLEAVE, 5), off)


def test_mis_encode_changes_only_the_named_field():
    from labkit.atoms.gmma_desc import decode

    wp_plan = pytest.importorskip("labkit.cuda.kernels.probes.wgmma_probe").make_plan("SM90_64x64x16_F32F16F16_SS")
    sbo = verify_wgmma.mis_encode(wp_plan.descs, "A", "SBO halved")
    lt = verify_wgmma.mis_encode(wp_plan.descs, "B", "layout type B64 for B128")
    for s in range(4):
        a, b = decode(int(wp_plan.descs[s, 0])), decode(int(wp_plan.descs[s, 1]))
        assert decode(int(sbo[s, 0])).stride_bytes == a.stride_bytes // 2 == 512      # SBO 1024 -> 512
        assert int(sbo[s, 1]) == int(wp_plan.descs[s, 1])
        assert int(lt[s, 1]) == int(wp_plan.descs[s, 1]) ^ (3 << 62)      # layout type 1 (B128) -> 2 (B64)
        assert b.layout_type.name == "B128" and int(lt[s, 0]) == int(wp_plan.descs[s, 0])


@pytest.mark.slow
def test_verify_only_selects_checks():
    done = _cli("--n", "2", "--only", "x4.trans", simulated=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ldmatrix x4.trans" in done.stdout and "SM80_16x8x16" not in done.stdout


@pytest.mark.slow
def test_verify_only_selects_a_stmatrix_atom_by_its_cute_name():
    done = _cli("--n", "2", "--only", "SM90_U32x4_STSM_N", simulated=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "stmatrix x4 SM90_U32x4_STSM_N" in done.stdout and "1 checks" in done.stdout


@pytest.mark.slow
def test_verify_skips_stmatrix_on_an_older_simulated_sm():
    env = dict(os.environ, LABKIT_SIMULATED_SM="80")
    done = subprocess.run([sys.executable, "-m", "labkit", "verify", "--n", "2", "--only", "stmatrix x1"],
                          cwd=REPO, env={**env, "NUMBA_ENABLE_CUDASIM": "1",
                                         "PYTHONPATH": str(REPO) + os.pathsep + env.get("PYTHONPATH", "")},
                          capture_output=True, text=True, timeout=600)
    assert "skipped on this device: stmatrix x1 SM90_U32x1_STSM_N (needs sm_90)" in done.stdout
    assert done.returncode == 1 and "NOTHING CHECKED" in done.stdout


def test_verify_rejects_too_few_inputs():
    assert verify.main(["--n", "1"]) == 2


def _flip_one_bit(result, key):
    out = dict(result)
    bad = out[key].copy()
    bad.reshape(-1)[3] ^= 1
    out[key] = bad
    return out


def test_a_wrong_device_register_fails_the_ldmatrix_check():
    def honest(fn, variant, images, offsets):
        return sim_trace.run_ldmatrix(variant, images, offsets)

    def broken(fn, variant, images, offsets):
        return _flip_one_bit(sim_trace.run_ldmatrix(variant, images, offsets), "regs")

    assert verify_checks.check_ldmatrix("x2.trans", 4, np.random.default_rng(0), honest).ok
    r = verify_checks.check_ldmatrix("x2.trans", 4, np.random.default_rng(0), broken)
    assert not r.ok
    failed = [name for name, ok, _ in r.items if not ok]
    assert failed == ["device == sim", "device == atom"]


def test_a_wrong_shared_half_fails_the_stmatrix_check():
    def honest(fn, variant, init, offsets, regs):
        return {"smem": verify_checks.sim_stmatrix(variant, init, offsets, regs)}

    def broken(fn, variant, init, offsets, regs):
        return _flip_one_bit(honest(fn, variant, init, offsets, regs), "smem")

    assert verify_checks.check_stmatrix("x4.trans", 4, np.random.default_rng(0), honest).ok
    r = verify_checks.check_stmatrix("x4.trans", 4, np.random.default_rng(0), broken)
    assert not r.ok
    assert [name for name, ok, _ in r.items if not ok] == ["device == sim", "device == atom"]


def test_stmatrix_prediction_follows_the_ptx_isa():
    # PTX ISA stmatrix (no .trans): lane t's register r goes to row t//4 of matrix r, elements
    # 2*(t%4) (low half) and 2*(t%4)+1 (high half); lane 8r + i addresses row i of matrix r
    rng = np.random.default_rng(1)
    regs = rng.integers(0, 1 << 32, (1, 32, 2), dtype=np.uint32)
    offsets = (8 * rng.permutation(64)[:32])[None]
    init = np.zeros((1, 512), np.uint16)
    out = verify_predictions.stmatrix_prediction("x2", init, offsets, regs)
    for t in range(32):
        for r in range(2):
            row = offsets[0, 8 * r + t // 4] + 2 * (t % 4)
            assert out[0, row] == regs[0, t, r] & 0xFFFF and out[0, row + 1] == regs[0, t, r] >> 16
    assert np.count_nonzero(out) <= 2 * 8 * 8


def test_a_wrong_accumulator_fails_the_mma_check():
    def honest(fn, plan, a, b, c):
        return sim_trace.run_mma(plan, a, b, c)

    def broken(fn, plan, a, b, c):
        return _flip_one_bit(sim_trace.run_mma(plan, a, b, c), "D")

    atom = "SM80_16x8x16_F32BF16BF16F32_TN"
    assert verify_checks.check_mma(atom, 4, np.random.default_rng(0), honest).ok
    r = verify_checks.check_mma(atom, 4, np.random.default_rng(0), broken)
    assert not r.ok
    assert any(name.startswith("D exact inputs") and not ok for name, ok, _ in r.items)


@pytest.mark.parametrize("atom,check", [("SM80_16x8x32_S32S8S8S32_TN", "D (integers: every input)"),
                                        ("SM80_16x8x8_F32TF32TF32F32_TN", "D exact inputs")])
def test_a_wrong_accumulator_fails_the_new_atoms_checks(atom, check):
    def honest(fn, plan, a, b, c):
        return sim_trace.run_mma(plan, a, b, c)

    def broken(fn, plan, a, b, c):
        return _flip_one_bit(sim_trace.run_mma(plan, a, b, c), "D")

    assert verify_checks.check_mma(atom, 4, np.random.default_rng(1), honest).ok
    r = verify_checks.check_mma(atom, 4, np.random.default_rng(1), broken)
    assert any(name.startswith(check) and not ok for name, ok, _ in r.items)


def test_mma_prediction_packs_four_s8_to_a_register():
    # PTX ISA m16n8k32 .s8: lane 0's a0..a3 are A(0, 0..3), low byte first
    a = (np.arange(16 * 32).reshape(16, 32) % 256).astype(np.uint8)[None]
    regs = verify_predictions.mma_prediction("SM80_16x8x32_S32S8S8S32_TN", "A", a)
    assert hex(int(regs[0, 0, 0])) == "0x3020100" and hex(int(regs[0, 1, 0])) == "0x7060504"


def test_ldmatrix_prediction_follows_seed_000():
    # shared memory (16,16):(16,1) holding its own offsets; x4 addresses as in seed 000:
    # lane 0 then holds offsets 0,1 | 128,129 | 8,9 | 136,137
    img = np.arange(512, dtype=np.uint16)[None]
    lane = np.arange(32)
    regs = verify_predictions.ldmatrix_prediction("x4", img, ((lane % 16) * 16 + (lane // 16) * 8)[None])
    lo, hi = regs & 0xFFFF, regs >> 16
    assert np.stack([lo[0, 0], hi[0, 0]], axis=-1).reshape(-1).tolist() == [0, 1, 128, 129, 8, 9, 136, 137]


def test_mma_prediction_of_c_follows_facts():
    # FACTS.md: C/D element (t, v) is row t//4 + 8*(v//2), column 2*(t%4) + v%2
    mat = (np.arange(16)[:, None] * 8 + np.arange(8)[None, :]).astype(np.uint32)[None]
    regs = verify_predictions.mma_prediction("SM80_16x8x16_F32F16F16F32_TN", "C", mat)
    for t in range(32):
        for v in range(4):
            assert regs[0, t, v] == 8 * (t // 4 + 8 * (v // 2)) + 2 * (t % 4) + v % 2
