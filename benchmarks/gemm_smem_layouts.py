"""Steps 3-5 with other shared-memory layouts, in one device session: check, time, read the SASS.

For each step (``mma``, ``swizzle``, ``pipeline``) and each layout (``own``: the step's own;
``padded``: rows of 64 + 8 halves; ``xor``: ``Swizzle<3,3,3>`` on plain 128-byte rows), the config
is the step's with ``smem_layout=`` replaced (checked when made: 16-byte rows, constant row steps,
and, except for ``own``, ``conflict_free=True``); ``gemm.check`` at two awkward shapes, then the
median of ``--reps`` launches (CUDA events, two input sets alternated, after a warm-up) at each
size, and the kernel's registers, spills and SASS per k-tile (``gemm.kernel_report``). The bank
model's wavefronts for warp 0's k-tile (``gemm_smem_check.smem_conflicts``) print beside them.

    python benchmarks/gemm_smem_layouts.py --sizes 4096,8192 --json smem_layouts.json
"""

import argparse
import dataclasses
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402

import labkit as lk  # noqa: E402
from labkit.cuda.kernels.ladder import gemm  # noqa: E402
from labkit.cuda.kernels.ladder.gemm_smem_check import smem_conflicts  # noqa: E402

S = lk.S


def config(step, layout):
    """The step's config with ``layout`` (``own``, ``padded`` or ``xor``) for its tiles."""
    mod = gemm.step_module(step)
    own = mod.CONFIGS[mod.DEFAULT] if step == "pipeline" else mod.CONFIG
    rows = max(own.bm, own.bn)
    if layout == "own":
        return own
    L = {"padded": lk.make_layout((S(rows), S(own.bk)), (S(own.bk + 8), S(1))),
         "xor": lk.composition(lk.Swizzle(3, 3, 3), lk.make_layout((S(rows), S(own.bk)), (S(own.bk), S(1))))}[layout]
    return dataclasses.replace(own, smem_layout=L, conflict_free=True)


def median_ms(launches, warmup, reps):
    for i in range(warmup):
        launches[i % len(launches)]()
    cuda.synchronize()
    pairs = [(cuda.event(), cuda.event()) for _ in range(reps)]
    for i, (s, e) in enumerate(pairs):
        s.record()
        launches[i % len(launches)]()
        e.record()
    cuda.synchronize()
    times = [cuda.event_elapsed_time(s, e) for s, e in pairs]
    return float(np.median(times)), float(min(times))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", default="mma,swizzle,pipeline")
    ap.add_argument("--layouts", default="own,padded,xor")
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--checks", default="257x263x136,1000x776x1032")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    dev = cuda.get_current_device()
    name = dev.name.decode() if isinstance(dev.name, bytes) else dev.name
    sm = 10 * dev.compute_capability[0] + dev.compute_capability[1]
    print(f"gpu: {name} sm_{sm}", flush=True)
    result = dict(gpu=name, sm=sm, runs=[], checks=[], reports={})
    cases = [(s, lay) for s in args.steps.split(",") for lay in args.layouts.split(",")]
    for step, lay in cases:
        cfg = config(step, lay)
        key = f"{step}[{lay}]"
        for shape in args.checks.split(","):
            M, N, K = (int(v) for v in shape.split("x"))
            err, tol = gemm.check(step, M, N, K, acc="f32", seed=M + N + K, config=cfg)
            result["checks"].append(dict(case=key, shape=shape, rel_err=err, tol=tol, ok=bool(err <= tol)))
            print(f"check {key} {shape}: rel err {err:.2e} (tol {tol:.1e}) {'ok' if err <= tol else 'FAIL'}",
                  flush=True)
        rep = gemm.kernel_report(step, "f32", sm, config=cfg)
        banks = smem_conflicts(cfg)
        result["reports"][key] = dict(regs=rep["regs"], local_bytes=rep["local_bytes"], per_ktile=rep["per_ktile"],
                                      smem_bytes=cfg.smem_bytes(sm), wavefronts=banks)
        print(f"  {key}: {rep['regs']} regs, {rep['local_bytes']} B local, {cfg.smem_bytes(sm)} B shared; "
              f"bank model (used, least) {banks}; per k-tile {rep['per_ktile']}", flush=True)
    for size in (int(s) for s in args.sizes.split(",") if s):
        rng = np.random.default_rng(size)
        sets = [(rng.uniform(-1, 1, (size, size)).astype(np.float16),
                 rng.uniform(-1, 1, (size, size)).astype(np.float16)) for _ in range(2)]
        dsets = [(cuda.to_device(A), cuda.to_device(B)) for A, B in sets]
        C = cuda.device_array((size, size), np.float32)
        for step, lay in cases:
            cfg = config(step, lay)
            launches = [gemm.prepare(step, dA, dB, C, "f32", sm, config=cfg)[1] for dA, dB in dsets]
            med, best = median_ms(launches, 3, args.reps)
            tflops = 2.0 * size ** 3 / med / 1e9
            result["runs"].append(dict(case=f"{step}[{lay}]", size=size, ms=med, best_ms=best, tflops=tflops))
            print(f"{step}[{lay}] {size}: {tflops:.1f} TFLOP/s (median {med:.3f} ms)", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
