"""How much of step 7's time does not grow with K? Step 7 (wgmma) and cuBLAS at M = N = 4096 and
K from 512 to 8192.

The number of output tiles (128 x 256: 512 of them over the GPU's persistent CTAs) does not
depend on K, nor does what each tile does besides its k-tiles: the epilogue that stores its
accumulators (during which the tensor cores of that CTA are idle), the wait for the first k-tile
of the next tile, and the launch. A least-squares line through the times, ``T(K) = fixed +
per_k * K``, separates the two: ``fixed`` bounds what overlapping the epilogue with the next tile's
mainloop could save. After 2 s of cuBLAS work (the clock ramps up from idle), each shape is first
checked against float64 on fresh inputs (``gemm.check``, C poisoned with NaN), then timed: the
median of ``--reps`` launches between CUDA events after 20 warm-up launches, two input sets
alternated; cuBLAS (torch.matmul: f16 in, f32 accumulate, f16 out, as
the ladder's runs time it) on the same inputs the same way, and once more writing C in f32 as
step 7 does (``torch.mm(..., out_dtype=torch.float32)``, where this torch has it), checked against
float64 first.

    python benchmarks/gemm_wgmma_fixed_cost.py --json benchmarks/results/wgmma_fixed_cost_h200_DATE.json
"""

import argparse
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402


def fit(ks, ms):
    """Least squares ``ms = fixed + per_k * K``: ``(fixed_ms, per_k_ms)``."""
    per_k, fixed = np.polyfit(np.asarray(ks, float), np.asarray(ms, float), 1)
    return float(fixed), float(per_k)


def main():
    from numba import cuda

    from labkit.cuda.kernels.ladder import gemm, gemm_wgmma
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from gemm_wgmma_run import device_info, median_ms, time_torch

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mn", type=int, default=4096)
    ap.add_argument("--ks", default="512,1024,2048,4096,8192")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    import torch

    _, name, smi = device_info("driver_version,clocks.sm,clocks.max.sm")
    M = N = args.mn
    ks = [int(k) for k in args.ks.split(",")]
    runs = []
    # the GPU idles at a low clock: keep it busy for 2 s first, so the first shape is not timed
    # while the clock ramps up
    X = torch.ones((8192, 8192), dtype=torch.float16, device="cuda")
    t0 = time.time()
    while time.time() - t0 < 2.0:
        for _ in range(20):
            torch.matmul(X, X)
        torch.cuda.synchronize()
    del X
    for K in ks:
        err, tol = gemm.check("wgmma", M, N, K, seed=M + 13 * K)
        if not err <= tol:
            raise SystemExit(f"step 7 at {M}x{N}x{K}: relative error {err:.2e} above {tol:.1e}")
        rng = np.random.default_rng(K)
        sets = [(rng.uniform(-1, 1, (M, K)).astype(np.float16), rng.uniform(-1, 1, (N, K)).astype(np.float16))
                for _ in range(2)]
        C = cuda.device_array((M, N), np.float32)
        launches = [gemm.prepare("wgmma", cuda.to_device(A), cuda.to_device(B), C, "f32", 90)[1] for A, B in sets]
        med, _ = median_ms(launches, 20, args.reps)
        runs.append(dict(variant=f"wgmma, K {K}", step="wgmma", K=K, ms=med, tflops=2.0 * M * N * K / med / 1e9, rel_err=err))
        tsets = [(torch.from_numpy(A).cuda(), torch.from_numpy(B).cuda()) for A, B in sets]
        for label, step, out_dtype in (("cuBLAS", "cuBLAS (torch)", None), ("cuBLAS f32 out", "cuBLAS f32 out", "f32")):
            timed = time_torch(torch, tsets, args.reps, warmup=20, out_dtype=out_dtype)
            if timed is None:
                print(f"{step}: this torch has no mm(..., out_dtype=float32)", flush=True)
                continue
            if out_dtype:
                A, B = tsets[0]
                got = torch.mm(A, B.t(), out_dtype=torch.float32)
                ref = A.double() @ B.double().t()
                cerr = float((got.double() - ref).norm() / ref.norm())
                if got.dtype != torch.float32 or not cerr < 1e-4:
                    raise SystemExit(f"{step} at {M}x{N}x{K}: {got.dtype}, relative error {cerr:.2e}")
            cm = timed[0]
            runs.append(dict(variant=f"{label}, K {K}", step=step, K=K, ms=cm, tflops=2.0 * M * N * K / cm / 1e9))
        for r in [r for r in runs if r["K"] == K]:
            print(f"{r['step']:>15} {M}x{N}x{K}: {r['ms']:.4f} ms, {r['tflops']:.1f} TFLOP/s", flush=True)
    fits = []
    for step in ("wgmma", "cuBLAS (torch)", "cuBLAS f32 out"):
        rows = [r for r in runs if r["step"] == step]
        if not rows:
            continue
        fixed, per_k = fit([r["K"] for r in rows], [r["ms"] for r in rows])
        at = {r["K"]: r["ms"] for r in rows}
        k0 = 4096 if 4096 in at else ks[-1]
        fits.append(dict(variant={"cuBLAS (torch)": "cuBLAS"}.get(step, step), step=step, fixed_us=fixed * 1e3, per_k64_us=per_k * 64 * 1e3,
                         fixed_share_at_4096=fixed / at[k0],
                         tflops_without_fixed_4096=2.0 * M * N * k0 / (at[k0] - fixed) / 1e9))
        print(fits[-1], flush=True)
    result = {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "gpu": name, "nvidia-smi": smi,
              "config": gemm_wgmma.DEFAULT, "m": M, "n": N,
              "description": (f"Step 7 (wgmma, {gemm_wgmma.DEFAULT}) and cuBLAS at M = N = {M}, K from {ks[0]} to "
                              f"{ks[-1]}: each shape checked against float64, then the median of {args.reps} "
                              "launches; a least-squares line T(K) = fixed + per_k64 * K / 64 through each."),
              "runs": runs, "fit": fits}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
