"""The checks of ``python -m labkit verify``: each runs one instruction on the device (a GPU or
numba's CUDA simulator, through ``run_device``), in :mod:`labkit.sim` and as the CuTe atom
predicts (:mod:`labkit.cli.verify_predictions`), and returns a :class:`Result` of comparisons.
The wgmma checks are :mod:`labkit.cli.verify_wgmma`'s.
"""

from __future__ import annotations

import numpy as np

from labkit.elements import element, wrap
from labkit.atoms.instructions import instruction
from labkit.cli import verify_wgmma
from labkit.cli.verify_predictions import (LDMATRIX_ATOMS, STMATRIX_ATOMS, ldmatrix_prediction,
                                           mma_prediction, stmatrix_prediction)
from labkit.sim import fragment_trace as st
from labkit.sim import SharedMemory, from_bits, mma_spec, pack_fragment, stmatrix, to_bits, unpack_fragment

# numba (the kernels) is imported inside the checks that need it: verify's main() first decides
# between the GPU and the CUDA simulator, which numba reads once, at import.

__all__ = ["WGMMA_ATOMS", "check_wgmma", "check_misencoded", "check_base_offset", "Result", "REGION_ROWS",
           "check_ldmatrix", "sim_stmatrix", "check_stmatrix", "check_mma", "check_cta"]

WGMMA_ATOMS = tuple(sorted({case[0] for case in verify_wgmma.CASES}))
"""The GMMA atoms checked on an sm_90 GPU (every SS f16/bf16 form verify_wgmma's cases name)."""

REGION_ROWS = 64
"""Rows (of 16 bytes) of shared memory each warp's ldmatrix chooses its 8*num rows from."""


class Result:
    def __init__(self, check, what, inputs):
        self.check = check
        self.what = what
        self.inputs = inputs
        self.items = []       # (name, ok, detail)
        self.seconds = 0.0

    def add(self, name, ok, detail=""):
        self.items.append((name, bool(ok), detail))

    @property
    def ok(self):
        return all(ok for _, ok, _ in self.items)


def _mismatch(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return a.size
    return int(np.count_nonzero(a != b))


def check_ldmatrix(variant, n, rng, run_device):
    from labkit.cuda.kernels.probes import trace_kernels as kt

    num, trans = kt.parse_variant(variant)
    res = Result(f"ldmatrix {variant} {LDMATRIX_ATOMS[variant]}", instruction(LDMATRIX_ATOMS[variant]).ptx, n)
    images = rng.integers(0, 1 << 16, (n, REGION_ROWS * 8), dtype=np.uint16)
    rows = np.argsort(rng.random((n, REGION_ROWS)), axis=1)[:, :32]
    offsets = (8 * rows).astype(np.int32)
    dev = run_device(kt.run_ldmatrix, variant, images, offsets)["regs"]
    sim = st.run_ldmatrix(variant, images, offsets)["regs"]
    pred = ldmatrix_prediction(variant, images, offsets)
    words = dev.size
    res.add("device == sim", _mismatch(dev, sim) == 0, f"{_mismatch(dev, sim)}/{words} words differ")
    res.add("device == atom", _mismatch(dev, pred) == 0, f"{_mismatch(dev, pred)}/{words} words differ")
    res.add("sim == atom", _mismatch(sim, pred) == 0, f"{_mismatch(sim, pred)}/{words} words differ")
    return res


def sim_stmatrix(variant, init, offsets, regs) -> np.ndarray:
    """labkit.sim's stmatrix on ``W`` warps, each with its own shared memory ``init[w]``."""
    num, trans = int(variant[1]), variant.endswith(".trans")
    img = np.asarray(init, np.uint16)
    W, count = img.shape
    smem = SharedMemory(W * 2 * count)
    smem.fill(0, img)
    base = np.arange(W) * 2 * count
    stmatrix(smem, base[:, None] + 2 * np.asarray(offsets, np.int64), regs, num, trans, warp=np.arange(W))
    return smem.view(np.uint16).reshape(W, count).copy()


def check_stmatrix(variant, n, rng, run_device):
    from labkit.cuda.kernels.probes import stmatrix_trace as kst

    num = int(variant[1])
    atom = STMATRIX_ATOMS[variant]
    res = Result(f"stmatrix {variant} {atom}", instruction(atom).ptx, n)
    init = rng.integers(0, 1 << 16, (n, REGION_ROWS * 8), dtype=np.uint16)
    rows = np.argsort(rng.random((n, REGION_ROWS)), axis=1)[:, :32]
    offsets = (8 * rows).astype(np.int32)
    regs = rng.integers(0, 1 << 32, (n, 32, num), dtype=np.uint32)
    dev = run_device(kst.run_stmatrix, variant, init, offsets, regs)["smem"]
    sim = sim_stmatrix(variant, init, offsets, regs)
    pred = stmatrix_prediction(variant, init, offsets, regs)
    words = dev.size
    res.add("device == sim", _mismatch(dev, sim) == 0, f"{_mismatch(dev, sim)}/{words} halves differ")
    res.add("device == atom", _mismatch(dev, pred) == 0, f"{_mismatch(dev, pred)}/{words} halves differ")
    res.add("sim == atom", _mismatch(sim, pred) == 0, f"{_mismatch(sim, pred)}/{words} halves differ")
    written = int(np.count_nonzero(sim != init))
    res.add("(info) halves changed", True, f"{written} of {8 * 8 * num * n} stored")
    return res


def _inputs(spec, n, rng):
    """A, B, C (float64) for ``n`` warps: the first half small integers (every sum exact), the
    rest random over the types' range (normal for floats: D is then compared within a
    tolerance; integers stay exact)."""
    M, N, K = spec.shape_mnk
    exact = np.arange(n) < n // 2
    ab, acc = element(spec.ab_type), element(spec.acc_type)

    def rand(shape, e):
        if e.kind == "int":
            hi = 1 << (e.bits - 1) if e.bits < 32 else 1 << 24
            return rng.integers(-hi, hi, shape)
        return rng.standard_normal(shape)

    A = np.where(exact[:, None, None], rng.integers(-4, 5, (n, M, K)), rand((n, M, K), ab))
    B = np.where(exact[:, None, None], rng.integers(-4, 5, (n, N, K)), rand((n, N, K), ab))
    offset = 0.5 if acc.kind == "float" else 0          # no exact D is zero (floats)
    C = np.where(exact[:, None, None], rng.integers(-8, 9, (n, M, N)) + offset, rand((n, M, N), acc))
    return A, B, C, exact


def check_mma(atom, n, rng, run_device):
    from labkit.cuda.kernels.probes import trace_kernels as kt

    spec = mma_spec(atom)
    res = Result(atom, spec.ptx, n)
    A, B, C, exact = _inputs(spec, n, rng)
    a_bits, b_bits = to_bits(A, spec.ab_type), to_bits(B, spec.ab_type)
    c_regs = pack_fragment(spec, "C", C)
    plan = kt.mma_plan(spec.name)
    dev = run_device(kt.run_mma, plan, a_bits, b_bits, c_regs)
    sim = st.run_mma(plan, a_bits, b_bits, c_regs)
    Af, Bf = from_bits(a_bits, spec.ab_type), from_bits(b_bits, spec.ab_type)
    Cf = unpack_fragment(spec, "C", c_regs)
    ref = np.matmul(Af, np.swapaxes(Bf, 1, 2)) + Cf
    for op, bits in (("A", a_bits), ("B", b_bits)):
        pred = mma_prediction(atom, op, bits)
        words = dev[op].size
        bad = _mismatch(dev[op], sim[op]) + _mismatch(dev[op], pred)
        res.add(f"{op} regs device == sim == atom", bad == 0 and _mismatch(sim[op], pred) == 0,
                f"{_mismatch(dev[op], sim[op])}, {_mismatch(dev[op], pred)} of {words} words differ")
    acc = element(spec.acc_type)
    if acc.kind == "int":                               # every integer input is exact
        exact = np.ones(n, bool)
    d_bits = to_bits(ref[exact], acc.name) if acc.kind == "float" else wrap(ref, acc.name)
    pred_d = mma_prediction(atom, "C", d_bits)
    de, se = dev["D"][exact], sim["D"][exact]
    what = "D exact inputs" if acc.kind == "float" else "D (integers: every input)"
    res.add(f"{what}: device == sim == atom", _mismatch(de, se) == 0 and _mismatch(de, pred_d) == 0,
            f"{_mismatch(de, se)}, {_mismatch(de, pred_d)} of {de.size} words differ")
    if acc.kind == "float":
        rtol, atol = instruction(spec.name).tolerance()
        bound = rtol * (np.matmul(np.abs(Af), np.swapaxes(np.abs(Bf), 1, 2)) + np.abs(Cf)) + atol
        for who, regs in (("device", dev["D"]), ("sim", sim["D"])):
            got = unpack_fragment(spec, "C", regs)
            err = np.abs(got - ref)
            res.add(f"D {who} vs float64", bool(np.all(err <= bound)),
                    f"max |err|/bound = {float(np.max(err / bound)):.3g}")
        rand = ~exact
        same = int(np.count_nonzero(np.all(dev["D"][rand] == sim["D"][rand], axis=(1, 2))))
        res.add("(info) random inputs: device D bits == sim", True, f"{same}/{int(rand.sum())} warps")
    return res


def check_wgmma(case, rng, run_device):
    """One wgmma case of :data:`labkit.cli.verify_wgmma.CASES` (see that module)."""
    return verify_wgmma.check_wgmma(case, rng, run_device, Result)


def check_misencoded(case, rng, run_device):
    """One mis-encoded descriptor of :data:`labkit.cli.verify_wgmma.MISENCODED`."""
    return verify_wgmma.check_misencoded(case, rng, run_device, Result)


def check_base_offset(case, rng, run_device):
    """One base-offset case of :data:`labkit.cli.verify_wgmma.BASE_OFFSET`."""
    return verify_wgmma.check_base_offset(case, rng, run_device, Result)


def check_cta(rng, run_device, k_blocks):
    from labkit.cuda.kernels.probes import trace_kernels as kt

    res = Result("sgemm_sm80 CTA", "cp.async + ldmatrix.x4 + mma m16n8k16 (Swizzle<3,3,3>)", 1)
    plan = kt.cta_plan()
    a_bits = to_bits(rng.integers(-2, 3, (128, 64)), "f16")
    b_bits = to_bits(rng.integers(-2, 3, (128, 64)), "f16")
    dev = run_device(kt.run_cta, plan, a_bits, b_bits, k_blocks)
    sim = st.run_cta(plan, a_bits, b_bits, k_blocks)
    for op in ("A", "B", "D"):
        res.add(f"{op} regs device == sim", _mismatch(dev[op], sim[op]) == 0,
                f"{_mismatch(dev[op], sim[op])}/{dev[op].size} words differ")
    A, B = from_bits(a_bits, "f16"), from_bits(b_bits, "f16")
    kk = 16 * k_blocks
    ref = A[:, :kk] @ B[:, :kk].T
    got = np.zeros((128, 128))
    for w in range(4):
        for i in range(4):
            for nn in range(8):
                got[np.ix_(plan.a_rows(w, i), plan.b_rows(w, nn))] = unpack_fragment(
                    "mma_m16n8k16_f16f16f16f16", "C", dev["D"][-1, w, i, nn])
    res.add(f"D == A @ B.T ({kk} of 64 k)", np.array_equal(got, ref), "")
    return res
