"""Time many tile configurations of the GEMM ladder's tensor-core kernels in one GPU session.

Each configuration compiles in its own process (numba's compile of one generated kernel takes
tens of seconds, so they compile side by side on the CPU cores); the GPU work of each
(check against a float64 reference on fresh inputs, then timing) runs under a file lock, one
configuration at a time. cuBLAS (torch) runs in the parent, on the same sizes. One JSON line
per result goes to stdout and, with ``--out``, to a file.

    python benchmarks/gemm_sweep.py --step pipeline --configs 128x128x64s3ca,256x128x64s4ca \
        --sizes 4096,8192 --out sweep.jsonl
"""

from __future__ import annotations

import argparse
import fcntl
import json
import multiprocessing as mp
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _time(fn, reps=20, warmup=5):
    import torch

    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        ts.append((a, b))
    torch.cuda.synchronize()
    return statistics.median(a.elapsed_time(b) for a, b in ts)


def _operands(M, N, K, seed, sets=4):
    import torch

    g = torch.Generator(device="cuda").manual_seed(seed)
    out = []
    for _ in range(sets):
        A = torch.empty((M, K), dtype=torch.float16, device="cuda").uniform_(-1, 1, generator=g)
        B = torch.empty((N, K), dtype=torch.float16, device="cuda").uniform_(-1, 1, generator=g)
        out.append((A, B))
    return out


def worker(step, config, acc, sizes, lock_path, queue):
    try:
        import torch
        from numba import cuda

        from labkit.cuda.kernels.ladder import gemm
        from labkit.cuda.kernels.ladder.gemm_common import output_dtype, tolerance
        from labkit.cuda.launch import device_sm

        sm = device_sm()
        opts = {"config": config} if config else {}
        t0 = time.time()
        # compile (CPU) before taking the lock
        small = [(cuda.as_cuda_array(A), cuda.as_cuda_array(B)) for A, B in _operands(256, 256, 256, 1, 1)]
        _, launch = gemm.prepare(step, *small[0], None, acc, sm, **opts)
        launch()
        cuda.synchronize()
        compile_s = time.time() - t0
        rep = gemm.kernel_report(step, acc, sm, **opts)
        rep.pop("sass", None)
        with open(lock_path, "w") as lk:
            fcntl.flock(lk, fcntl.LOCK_EX)
            for size in sizes:
                sets = _operands(size, size, size, 7 * size)
                views = [(cuda.as_cuda_array(A), cuda.as_cuda_array(B)) for A, B in sets]
                C = cuda.device_array((size, size), output_dtype(acc))
                C[:] = float("nan")
                launches = [gemm.prepare(step, A, B, C, acc, sm, **opts)[1] for A, B in views]
                launches[0]()
                cuda.synchronize()
                ref = sets[0][0].double() @ sets[0][1].double().T
                Ct = torch.as_tensor(C, device="cuda").double()
                err = float(torch.linalg.norm(Ct - ref) / torch.linalg.norm(ref)) if bool(torch.isfinite(Ct).all()) else float("inf")
                del ref, Ct
                i = [0]

                def run():
                    launches[i[0] % len(launches)]()
                    i[0] += 1

                ms = _time(run)
                queue.put(dict(step=step, config=config, acc=acc, size=size, ms=ms,
                               tflops=2 * size**3 / ms / 1e9, rel_err=err, ok=err <= tolerance(acc, size),
                               compile_s=compile_s, regs=rep["regs"], local=rep["local_bytes"],
                               ctas_per_sm=rep["ctas_per_sm"], per_ktile=rep["per_ktile"]))
                del sets, views, C, launches
                torch.cuda.empty_cache()
    except Exception as e:  # reported, the sweep goes on
        import traceback

        queue.put(dict(step=step, config=config, acc=acc, error=f"{type(e).__name__}: {e}",
                       trace=traceback.format_exc()[-3000:]))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--step", action="append", default=None,
                   help="STEP or STEP:CONFIG (repeatable); CONFIG 'all' = every config of the step")
    p.add_argument("--sizes", default="4096,8192")
    p.add_argument("--acc", default="f32")
    p.add_argument("--jobs", type=int, default=min(12, os.cpu_count() or 1))
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    from labkit.cuda.kernels.ladder import gemm

    jobs = []
    for item in args.step or ["pipeline:all"]:
        step, _, config = item.partition(":")
        mod = gemm.step_module(step)
        if config == "all":
            jobs += [(step, c) for c in mod.CONFIGS]
        else:
            jobs.append((step, config or None))
    sizes = [int(s) for s in args.sizes.split(",")]
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    lock_path = os.path.join(tempfile.mkdtemp(), "gpu.lock")
    out = open(args.out, "w") if args.out else None

    def emit(r):
        line = json.dumps(r)
        print(line, flush=True)
        if out:
            out.write(line + "\n")
            out.flush()

    # cuBLAS first, alone on the GPU
    import torch

    with open(lock_path, "w") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        for size in sizes:
            sets = _operands(size, size, size, 11 * size)
            outs = torch.empty((size, size), dtype=torch.float16, device="cuda")
            i = [0]

            def run():
                A, B = sets[i[0] % len(sets)]
                torch.matmul(A, B.T, out=outs)
                i[0] += 1

            ms = _time(run)
            emit(dict(step="cuBLAS", size=size, ms=ms, tflops=2 * size**3 / ms / 1e9))
        procs, pending = [], list(jobs)
        while pending and len(procs) < args.jobs:
            step, config = pending.pop(0)
            pr = ctx.Process(target=worker, args=(step, config, args.acc, sizes, lock_path, queue))
            pr.start()
            procs.append(pr)
    # the lock is released: workers take turns on the GPU
    expected = sum(len(sizes) for _ in jobs)
    got = 0
    while got < expected:
        r = queue.get(timeout=1200)
        emit(r)
        got += len(sizes) if "error" in r else 1
        while pending and sum(pr.is_alive() for pr in procs) < args.jobs:
            step, config = pending.pop(0)
            pr = ctx.Process(target=worker, args=(step, config, args.acc, sizes, lock_path, queue))
            pr.start()
            procs.append(pr)
    for pr in procs:
        pr.join()


if __name__ == "__main__":
    main()
