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
Elements are coded and packed by :mod:`labkit.elements`, so an f16, tf32 or s8 atom takes
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

The checks are :mod:`labkit.cli.verify_checks`; what the CuTe atoms predict,
:mod:`labkit.cli.verify_predictions`.
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

from labkit.atoms.instructions import instruction
from labkit.atoms.records import arch_sm
from labkit.cli import verify_wgmma
from labkit.cli.verify_checks import (Result, check_base_offset, check_cta, check_ldmatrix, check_misencoded,
                                      check_mma, check_stmatrix, check_wgmma)
from labkit.cli.verify_predictions import LDMATRIX_ATOMS, MMA_ATOMS, STMATRIX_ATOMS
from labkit.driver import cuda_device_count
from labkit.errors import DeviceError

# numba (labkit.cuda, labkit.lab and the kernels) is imported inside the functions that need it:
# main() first decides between the GPU and the CUDA simulator, which numba reads once, at import.

__all__ = ["main"]


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
              instruction(c[0]).min_sm, instruction(c[0]).arch) for c in verify_wgmma.CASES]
    jobs += [(verify_wgmma.misencoded_name(c), lambda c=c: check_misencoded(c, rng, run_device),
              instruction(c[0]).min_sm, instruction(c[0]).arch) for c in verify_wgmma.MISENCODED]
    jobs += [(verify_wgmma.base_offset_name(c), lambda c=c: check_base_offset(c, rng, run_device),
              instruction(c[0]).min_sm, instruction(c[0]).arch) for c in verify_wgmma.BASE_OFFSET]
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
    need = arch_sm(arch)
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
