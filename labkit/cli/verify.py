"""``python -m labkit verify``: the hardware (or its CPU twin) against labkit's two models.

For every ldmatrix and stmatrix variant and every MMA atom, many independent warps run the real
instruction (on a CUDA GPU, or under numba's CUDA simulator when there is none) and
their registers are compared bit for bit with

- labkit.sim, written from the PTX ISA's fragment rules, and
- the prediction of the atom's CuTe TV layout (labkit.atoms): for ldmatrix, destination
  value ``(t, v)`` holds source element ``(s, j)`` with ``layout_src(s, j) ==
  layout_dst(t, v)``; for stmatrix, the reverse (shared element ``(s, j)`` of the row lane ``s``
  addresses holds register value ``(t, v)`` with ``layout_dst(s, j) == layout_src(t, v)``,
  every other byte keeps its value); for MMA, register value ``(t, v)`` holds the matrix
  element at ``layout_A/B/C(t, v)``.

MMA inputs: half of the warps get small integers (every sum exact, so D must match the
float64 product bit for bit, and C is offset by 0.5 so no D is zero), half get random numbers
of the element type (floats: normal, and D must be within an fp tolerance of the float64
reference; how often the device's D bits equal labkit.sim's is reported, not required;
integers: the whole range of s8, and D, an exact s32 sum, must match bit for bit on every warp).
Elements are coded and packed by :mod:`labkit.atoms.elements`, so an f16, tf32 or s8 atom takes
the same path. A last check runs the
sgemm_sm80 CTA (cp.async, Swizzle<3,3,3>, ldmatrix.x4, 128 MMAs per k-block) against
labkit.sim and ``A @ B.T``.

Hopper's ``wgmma.mma_async`` (every entry of the ``GMMA`` table, SS and RS) is checked by
:mod:`labkit.cli.verify_wgmma`: one warpgroup on operands in CuTe's GMMA layouts (K- and MN-major,
every swizzle mode, N 8, 64, 128, 256, plus bf16 and f16-accumulate forms; A from registers in
the RS form) against the twin ``labkit.sim.wgmma``, exactly on small integers, mis-encoded
descriptors whose wrong D the twin predicts element for element, and the base offset of an
operand that starts off the swizzle pattern's 1024-byte boundary.

A table ends the report; the exit status is 0 only if every check holds. A check needing a
newer SM than the device's is skipped (stmatrix needs sm_90); under the CUDA simulator every
check runs, the simulated device being the newest SM the checks need, unless
``LABKIT_SIMULATED_SM`` sets it. The wgmma checks need sm_90a, which only an sm_90 GPU runs:
on any other device, and under the CUDA simulator, they are skipped with that reason, never
failed. ``--only`` matches part of a check's name, which holds the CuTe atom
(``ldmatrix x4.trans SM75_U16x8_LDSM_T``, ``stmatrix x4 SM90_U32x4_STSM_N``,
``SM80_16x8x16_F16F16F16F16_TN``, ``sgemm_sm80 CTA``, ``wgmma SM90_64x64x16_F32F16F16_SS A K-SW128
B K-SW128``; ``--only wgmma`` runs those).

>>> import numpy as np
>>> from labkit.cli import verify
>>> img = np.arange(512, dtype=np.uint16)[None]          # element i holds i
>>> regs = verify.ldmatrix_prediction("x4", img, (8 * np.arange(32))[None])
>>> [hex(int(r)) for r in regs[0, 0]]                   # lane 0: rows 0, 8, 16, 24, elements 0-1
['0x10000', '0x410040', '0x810080', '0xc100c0']
>>> regs = np.arange(32 * 4, dtype=np.uint32).reshape(1, 32, 4) * 0x10001   # both halves 4t + r
>>> out = verify.stmatrix_prediction("x4", np.zeros((1, 512), np.uint16), (8 * np.arange(32))[None], regs)
>>> out[0, :8].tolist()                                # row 0 of matrix 0: lanes 0-3, register 0
[0, 0, 4, 4, 8, 8, 12, 12]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
import time

import importlib.metadata as md

import numpy as np

from labkit.atoms import copy_atom, mma_atom
from labkit.atoms.elements import element, pack_registers, wrap
from labkit.atoms.gmma_instructions import GMMA_BY_ATOM
from labkit.atoms.instructions import LDMATRIX, MMA, STMATRIX, instruction, tv_coords
from labkit.cli import verify_wgmma
from labkit.driver import cuda_device_count
from labkit.errors import DeviceError
from labkit.layout import size
from labkit.sim import fragment_trace as st
from labkit.sim import SharedMemory, from_bits, mma_spec, pack_fragment, stmatrix, to_bits, unpack_fragment

# numba (labkit.cuda, labkit.lab and the kernels) is imported inside the functions that need it:
# main() first decides between the GPU and the CUDA simulator, which numba reads once, at import.

__all__ = ["main", "MMA_ATOMS", "LDMATRIX_ATOMS", "STMATRIX_ATOMS", "WGMMA_ATOMS", "ldmatrix_prediction",
           "stmatrix_prediction", "mma_prediction", "check_wgmma", "check_misencoded", "check_base_offset"]

MMA_ATOMS = tuple(atom for ins in MMA.values() for atom in ins.atoms)
"""The MMA atoms checked: every CuTe atom of the instruction registry."""

LDMATRIX_ATOMS = {f"x{ins.num}" + (".trans" if ins.trans else ""): ins.atom for ins in LDMATRIX.values()}
"""ldmatrix variant -> CuTe copy atom, from the instruction registry."""

STMATRIX_ATOMS = {f"x{ins.num}" + (".trans" if ins.trans else ""): ins.atom for ins in STMATRIX.values()}
"""stmatrix variant -> CuTe copy atom, from the instruction registry."""

WGMMA_ATOMS = tuple(sorted({case[0] for case in verify_wgmma.CASES}))
"""The GMMA atoms checked on an sm_90 GPU (every SS f16/bf16 form verify_wgmma's cases name)."""

REGION_ROWS = 64
"""Rows (of 16 bytes) of shared memory each warp's ldmatrix chooses its 8*num rows from."""


# ---------------------------------------------------------------------------------------------
# predictions from the CuTe TV layouts


def _tv_table(layout, threads, values):
    return np.array([[int(layout(t, v)) for v in range(values)] for t in range(threads)], np.int64)


def ldmatrix_prediction(variant: str, images, offsets) -> np.ndarray:
    """Registers ``(W, 32, num)`` that the copy atom's Src/Dst layouts predict for ldmatrix
    ``variant`` on ``images (W, region)`` (uint16) with row offsets ``offsets (W, 32)``."""
    atom = copy_atom(LDMATRIX_ATOMS[variant], "f16")
    src, dst = atom.layout_src, atom.layout_dst
    n_src_v = int(size(src[1]))
    n_dst_v = int(size(dst[1]))
    s_tab = _tv_table(src, 32, n_src_v)
    d_tab = _tv_table(dst, 32, n_dst_v)
    owner = {}
    for s in range(32):                       # the lowest lane that supplies element e
        for j in range(n_src_v):
            owner.setdefault(int(s_tab[s, j]), (s, j))
    lane = np.array([[owner[int(e)][0] for e in row] for row in d_tab])
    elem = np.array([[owner[int(e)][1] for e in row] for row in d_tab])
    img = np.asarray(images, np.uint16)
    off = np.asarray(offsets, np.int64)
    w = np.arange(img.shape[0])[:, None, None]
    vals = img[w, off[:, lane] + elem[None]].astype(np.uint32)        # (W, 32, values)
    return (vals[..., 0::2] | (vals[..., 1::2] << 16)).astype(np.uint32)


def stmatrix_prediction(variant: str, init, offsets, regs) -> np.ndarray:
    """Shared memory ``(W, region)`` that the copy atom's Src/Dst layouts predict after stmatrix
    ``variant`` on ``init (W, region)`` (uint16) with row offsets ``offsets (W, 32)`` (elements)
    and registers ``regs (W, 32, num)`` (uint32; value ``2r`` the low half of register ``r``,
    ``2r + 1`` the high half)."""
    atom = copy_atom(STMATRIX_ATOMS[variant], "f16")
    src, dst = atom.layout_src, atom.layout_dst
    n_src_v = int(size(src[1]))
    n_dst_v = int(size(dst[1]))
    s_tab = _tv_table(src, 32, n_src_v)
    d_tab = _tv_table(dst, 32, n_dst_v)
    value_of = {int(s_tab[t, v]): (t, v) for t in range(32) for v in range(n_src_v)}
    r = np.asarray(regs, np.uint32)
    vals = np.stack([r & 0xFFFF, r >> 16], axis=-1).reshape(r.shape[0], 32, -1).astype(np.uint16)
    out = np.array(init, np.uint16, copy=True)
    off = np.asarray(offsets, np.int64)
    w = np.arange(out.shape[0])
    done = set()
    for s in range(32):                       # the lowest lane that addresses element e writes it
        for j in range(n_dst_v):
            e = int(d_tab[s, j])
            if e in done:
                continue
            done.add(e)
            t, v = value_of[e]
            out[w, off[:, s] + j] = vals[:, t, v]
    return out


def mma_prediction(atom_name: str, operand: str, matrix_bits) -> np.ndarray:
    """Registers ``(W, 32, regs)`` the MMA atom's TV layout predicts for ``operand``
    (``"A"``, ``"B"`` or ``"C"``) holding ``matrix_bits`` (``(W, rows, cols)``, the bits of the
    operand's element type: uint16 for f16/bf16, uint8 for s8, uint32 for tf32/f32/s32), packed
    by the element width (``labkit.atoms.elements.pack_registers``)."""
    atom = mma_atom(atom_name)
    ins = instruction(atom.instruction, "mma")
    xy = tv_coords(str({"A": atom.layout_A, "B": atom.layout_B, "C": atom.layout_C}[operand]),
                   ins.matrix_shape(operand)[0], 32, ins.elements(operand))
    x = np.asarray(matrix_bits)
    kind = ins.element_type(operand)
    return pack_registers(x[:, xy[..., 0], xy[..., 1]], kind)


# ---------------------------------------------------------------------------------------------
# the checks


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


def _tolerance(acc):
    return (2.0 ** -16, 0.0) if acc == "f32" else (2.0 ** -9, 2.0 ** -14)


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
        rtol, atol = _tolerance(spec.acc_type)
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


# ---------------------------------------------------------------------------------------------
# the command


def _versions():
    import numba

    out = {"python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__}
    try:
        out["numba-cuda"] = md.version("numba-cuda")
    except Exception:
        pass
    return out


def _header(mode):
    from labkit.cuda import device_name

    lines = [f"date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
             f"backend: {mode}", f"device: {device_name()}"]
    if mode == "gpu":
        from labkit.cuda._numba import driver_version

        try:
            drv = driver_version()
            lines.append(f"CUDA driver API: {drv[0]}.{drv[1]}")
        except Exception:
            pass
        try:
            smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                                 capture_output=True, text=True, timeout=20)
            if smi.returncode == 0:
                lines.append(f"nvidia-smi: {smi.stdout.strip()}")
        except Exception:
            pass
    lines.append("versions: " + ", ".join(f"{k} {v}" for k, v in _versions().items()))
    return lines


def _table(results):
    head = ("check", "inputs", "result", "seconds", "details")
    rows = []
    for r in results:
        bad = [f"{name}: {detail}" for name, ok, detail in r.items if not ok]
        info = [f"{name}: {detail}" for name, ok, detail in r.items if ok and name.startswith("(info)")]
        rows.append((r.check, str(r.inputs), "PASS" if r.ok else "FAIL", f"{r.seconds:.2f}",
                     "; ".join(bad or info or [f"{len(r.items)} comparisons equal"])))
    widths = [max([len(h), *(len(row[i]) for row in rows)]) for i, h in enumerate(head[:-1])]
    fmt = " | ".join(f"{{:{w}}}" for w in widths) + " | {}"
    out = [fmt.format(*head), "-+-".join("-" * w for w in widths) + "-+-" + "-" * 7]
    out += [fmt.format(*row) for row in rows]
    return "\n".join(out)


def _parse(argv):
    p = argparse.ArgumentParser(prog="python -m labkit verify", description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=None,
                   help="random inputs (warps) per check; default 1024 on a GPU, 4 under the CUDA simulator")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--only", default=None, help="run only checks whose name contains this text")
    p.add_argument("--cta-k-blocks", type=int, default=None,
                   help="k-blocks of the CTA check (default 4 on a GPU, 1 under the simulator)")
    p.add_argument("--backend", choices=("auto", "gpu", "cudasim"), default="auto",
                   help="gpu, or numba's CUDA simulator; auto picks the GPU when there is one")
    p.add_argument("--details", action="store_true", help="print every comparison, not only the table")
    return p.parse_args(argv)


def main(argv=None) -> int:
    """Run the checks; print the report and a table; return 0 only if every check holds."""
    args = _parse(list(sys.argv[1:] if argv is None else argv))
    if args.n is not None and args.n < 2:
        print("verify: --n must be at least 2 (half exact, half random inputs)", file=sys.stderr)
        return 2
    want = args.backend
    if want == "auto":
        want = "gpu" if (cuda_device_count() > 0 and os.environ.get("NUMBA_ENABLE_CUDASIM", "0") in ("", "0")) else "cudasim"
    sim_on = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
    if want == "cudasim" and not sim_on:
        if "numba" in sys.modules:
            env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
            cmd = [sys.executable, "-m", "labkit", "verify", *(argv if argv is not None else sys.argv[1:])]
            return subprocess.call(cmd, env=env)
        os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
    elif want == "gpu" and sim_on:
        print("verify: --backend gpu needs NUMBA_ENABLE_CUDASIM unset", file=sys.stderr)
        return 2

    from labkit.lab import backend

    mode = backend()
    if mode != want:
        print(f"verify: wanted backend {want!r} but numba gives {mode!r}", file=sys.stderr)
        return 2
    n = args.n or (1024 if mode == "gpu" else 4)
    kbs = args.cta_k_blocks or (4 if mode == "gpu" else 1)
    rng = np.random.default_rng(args.seed)

    def run_device(fn, *a):
        return fn(*a)

    from labkit.cuda import device_sm, simulate_sm

    jobs = [(f"ldmatrix {v} {a}", lambda v=v: check_ldmatrix(v, n, rng, run_device), instruction(a).min_sm)
            for v, a in LDMATRIX_ATOMS.items()]
    jobs += [(f"stmatrix {v} {a}", lambda v=v: check_stmatrix(v, n, rng, run_device), instruction(a).min_sm)
             for v, a in STMATRIX_ATOMS.items()]
    jobs += [(a, lambda a=a: check_mma(a, n, rng, run_device), instruction(a).min_sm) for a in MMA_ATOMS]
    cta_sm = max(instruction(i).min_sm for i in ("cp_async_16", "ldmatrix_x4", "mma_m16n8k16_f16f16f16f16"))
    jobs.append(("sgemm_sm80 CTA", lambda: check_cta(rng, run_device, kbs), cta_sm))
    jobs = [(*job, "") for job in jobs]
    # wgmma: arch-specific (sm_90a), so a job also names the one target that runs it
    jobs += [(verify_wgmma.case_name(c), lambda c=c: check_wgmma(c, rng, run_device),
              GMMA_BY_ATOM[c[0]].min_sm, GMMA_BY_ATOM[c[0]].arch) for c in verify_wgmma.CASES]
    jobs += [(verify_wgmma.misencoded_name(c), lambda c=c: check_misencoded(c, rng, run_device),
              GMMA_BY_ATOM[c[0]].min_sm, GMMA_BY_ATOM[c[0]].arch) for c in verify_wgmma.MISENCODED]
    jobs += [(verify_wgmma.base_offset_name(c), lambda c=c: check_base_offset(c, rng, run_device),
              GMMA_BY_ATOM[c[0]].min_sm, GMMA_BY_ATOM[c[0]].arch) for c in verify_wgmma.BASE_OFFSET]
    if mode == "cudasim" and not os.environ.get("LABKIT_SIMULATED_SM"):
        # the simulator models any SM: let it be the newest one a check needs, so every check runs
        # (every check but the arch-specific ones, which the simulator cannot run)
        with simulate_sm(max(need for _, _, need, _ in jobs)):
            return _run_jobs(args, jobs, n, mode)
    return _run_jobs(args, jobs, n, mode)


def _arch_skip(arch, mode, sm):
    """Why a check of arch-specific PTX (``arch``, e.g. ``"sm_90a"``) cannot run here, or ``""``."""
    if not arch:
        return ""
    need = int(arch[len("sm_"):].rstrip("a"))
    if mode == "cudasim":
        return f"{arch} only: the CUDA simulator has no wgmma"
    if sm != need:
        return f"{arch} only: needs an sm_{need} GPU, this is sm_{sm}"
    return ""


def _run_jobs(args, jobs, n, mode) -> int:
    from labkit.cuda import device_sm

    sm = device_sm()
    print("labkit verify: device registers vs labkit.sim vs the CuTe atoms' TV layouts")
    for line in _header(mode):
        print("  " + line)
    results = []
    skipped = []
    arch_skipped = {}
    t_all = time.perf_counter()
    for name, job, need, arch in jobs:
        if args.only and args.only not in name:
            continue
        why = _arch_skip(arch, mode, sm)
        if why:
            arch_skipped[why] = arch_skipped.get(why, 0) + 1
            continue
        if sm < need:
            skipped.append(f"{name} (needs sm_{need})")
            continue
        t0 = time.perf_counter()
        try:
            r = job()
        except DeviceError as e:
            r = Result(name, "", n)
            r.add("ran", False, str(e))
        r.seconds = time.perf_counter() - t0
        results.append(r)
        if args.details:
            for item, ok, detail in r.items:
                print(f"  {'ok ' if ok else 'BAD'} {r.check}: {item} {detail}")
    total = time.perf_counter() - t_all
    print()
    print(_table(results))
    if skipped:
        print("skipped on this device: " + ", ".join(skipped))
    for why, count in arch_skipped.items():
        print(f"skipped on this device: {count} wgmma checks ({why})")
    checked = sum(r.inputs for r in results)
    failed = [r.check for r in results if not r.ok]
    verdict = "ALL PASS" if results and not failed else (f"FAILED: {failed}" if failed else "NOTHING CHECKED")
    print(f"\n{len(results)} checks, {checked} inputs, {total:.1f} s: " + verdict)
    return 0 if (results and not failed) else 1
