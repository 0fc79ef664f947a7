"""The wgmma step in one device session: check against float64, time beside cuBLAS, read the SASS.

For each configuration (names from ``gemm_wgmma.CONFIGS``): ``gemm.check`` on fresh random inputs
at awkward shapes and at the timed sizes (C poisoned with NaN first), then the median of
``--reps`` launches (CUDA events, 2 input sets alternated, after a warm-up) at each size, then
cuBLAS (torch.matmul, fp16 in, f32 accumulate) timed the same way on the same inputs.

    python benchmarks/gemm_wgmma_run.py --configs 128x256x64s4 --sizes 4096,8192 --json out.json
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from numba import cuda  # noqa: E402

from labkit.cuda.kernels.ladder import gemm, gemm_wgmma  # noqa: E402


def median_ms(launches, warmup, reps):
    for i in range(warmup):
        launches[i % len(launches)]()
    cuda.synchronize()
    # every launch queued behind the last (no synchronisation between them), as the ladder's
    # bench does: the host's launch overhead (tens of microseconds for a numba dispatch) then
    # overlaps the previous kernel instead of adding an idle gap inside the timed pair
    pairs = [(cuda.event(), cuda.event()) for _ in range(reps)]
    for i, (s, e) in enumerate(pairs):
        s.record()
        launches[i % len(launches)]()
        e.record()
    cuda.synchronize()
    times = [cuda.event_elapsed_time(s, e) for s, e in pairs]
    return float(np.median(times)), float(min(times))


def device_info(query="driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu"):
    """``(device, name, nvidia-smi's answer to query)`` of the current GPU."""
    dev = cuda.get_current_device()
    name = dev.name.decode() if isinstance(dev.name, bytes) else dev.name
    smi = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    return dev, name, smi


def time_torch(torch, tsets, reps, warmup=5, out_dtype=None):
    """``(median, best)`` ms of cuBLAS through torch on the input sets ``tsets`` (alternated, queued
    back to back after ``warmup`` launches): ``torch.matmul`` (f16 C), or with ``out_dtype="f32"``
    ``torch.mm(..., out_dtype=torch.float32)`` (f32 C); None if this torch has no ``out_dtype``."""
    if out_dtype:
        A, B = tsets[0]
        try:
            torch.mm(A, B.t(), out_dtype=torch.float32)
        except (TypeError, RuntimeError):
            return None
        calls = [lambda A=A, B=B: torch.mm(A, B.t(), out_dtype=torch.float32) for A, B in tsets]
    else:
        calls = [lambda A=A, B=B: torch.matmul(A, B.t()) for A, B in tsets]
    for i in range(warmup):
        calls[i % len(calls)]()
    torch.cuda.synchronize()
    pairs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for i, (s, e) in enumerate(pairs):
        s.record()
        calls[i % len(calls)]()
        e.record()
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in pairs]
    return float(np.median(times)), float(min(times))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--configs", default=gemm_wgmma.DEFAULT)
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--checks", default="256x512x64,1000x1000x1000,4096x4096x4096,300x2050x136")
    ap.add_argument("--no-cublas", action="store_true")
    ap.add_argument("--json", default="")
    ap.add_argument("--sass", default="")
    args = ap.parse_args()
    dev, name, smi = device_info()
    print(f"gpu: {name} sm_{dev.compute_capability[0]}{dev.compute_capability[1]}, {dev.MULTIPROCESSOR_COUNT} SMs; "
          f"nvidia-smi: {smi}", flush=True)
    result = dict(gpu=name, nvidia_smi=smi, runs=[], checks=[], reports={})
    sizes = [int(s) for s in args.sizes.split(",") if s]
    torch = None
    if not args.no_cublas:
        import torch
    for cname in args.configs.split(","):
        t0 = time.time()
        for shape in args.checks.split(","):
            M, N, K = (int(v) for v in shape.split("x"))
            err, tol = gemm.check("wgmma", M, N, K, seed=M + 7 * N + 13 * K, config=cname)
            ok = bool(err <= tol)
            result["checks"].append(dict(config=cname, shape=shape, rel_err=err, tol=tol, ok=ok))
            print(f"check {cname} {shape}: rel err {err:.2e} (tol {tol:.1e}) {'ok' if ok else 'FAIL'}", flush=True)
        print(f"  checks + compile {time.time() - t0:.1f} s", flush=True)
        rep = gemm.kernel_report("wgmma", "f32", 90, sass_path=(f"{args.sass}/{cname}.sass" if args.sass else None),
                                 config=cname)
        k = rep["per_ktile"]
        result["reports"][cname] = {x: rep[x] for x in ("regs", "local_bytes", "dynamic_smem", "threads",
                                                        "ctas_per_sm", "per_ktile", "sass_from")}
        result["reports"][cname]["mix"] = {o: rep["mix"].get(o, 0) for o in ("HGMMA", "HMMA", "LDSM", "UTMALDG",
                                                                              "SYNCS", "STG", "WARPGROUP")}
        print(f"  {cname}: {rep['regs']} regs, {rep['local_bytes']} B local; per k-tile (consumer warp): "
              + ", ".join(f"{o} {k.get(o, 0):g}" for o in ("HGMMA", "HMMA", "LDSM", "UTMALDG", "BAR"))
              + f", total {k.get('total', 0):g}; kernel: "
              + ", ".join(f"{o} {v}" for o, v in result['reports'][cname]['mix'].items()), flush=True)
    for size in sizes:
        M = N = K = size
        rng = np.random.default_rng(size)
        sets = [(rng.uniform(-1, 1, (M, K)).astype(np.float16), rng.uniform(-1, 1, (N, K)).astype(np.float16))
                for _ in range(2)]
        dsets = [(cuda.to_device(A), cuda.to_device(B)) for A, B in sets]
        flop = 2.0 * M * N * K
        C = cuda.device_array((M, N), np.float32)
        for cname in args.configs.split(","):
            launches = [gemm.prepare("wgmma", dA, dB, C, "f32", 90, config=cname)[1] for dA, dB in dsets]
            med, best = median_ms(launches, 5, args.reps)
            row = dict(step=f"wgmma[{cname}]", size=size, ms=med, best_ms=best, tflops=flop / med / 1e9)
            result["runs"].append(row)
            print(f"wgmma[{cname}] {size}: {row['tflops']:.1f} TFLOP/s (median {med:.3f} ms, best "
                  f"{flop / best / 1e9:.1f})", flush=True)
        if torch is not None:
            tsets = [(torch.from_numpy(A).cuda(), torch.from_numpy(B).cuda()) for A, B in sets]
            med, best = time_torch(torch, tsets, args.reps)
            row = dict(step="cuBLAS (torch.matmul, fp16 out)", size=size, ms=med, best_ms=best,
                       tflops=flop / med / 1e9)
            result["runs"].append(row)
            print(f"cuBLAS {size}: {row['tflops']:.1f} TFLOP/s (median {med:.3f} ms)", flush=True)
            del tsets
        del dsets, C
    print("\n".join(f"{r['step']:>34} {r['size']}: {r['tflops']:7.1f} TFLOP/s" for r in result["runs"]))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
