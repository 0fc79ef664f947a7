"""How fast can wgmma issue? Chains of ``wgmma.mma_async.m64n256k16.f32.f16.f16`` from shared memory.

Each CTA copies one A tile (64 x 64 f16) and one B tile (256 x 64 f16) into shared memory once,
in CuTe's K-major SW128 GMMA layout (``wgmma_probe.make_plan``, descriptors from
``make_gmma_desc``), and then each of its ``wg`` warpgroups runs ``iters``
groups of ``steps`` wgmma m64n256k16 into its 128 f32 accumulator registers per thread (the
k16 steps cycle through the tile's four 32-byte K slices by the descriptors' start address):
``wgmma.fence``, ``steps`` MMAs, ``commit_group``, ``wait_group 1`` (one group left in flight).
No global memory in the loop. One CTA per SM. Timed with CUDA events (median of 5 runs after a
warm-up); each wgmma is 2 * 64 * 256 * 16 = 524,288 floating-point operations.

The operands are small integers (-2, -1, 1, 2), so every partial sum is an integer below 2**24
and each warpgroup's D is exactly ``iters * steps / 4 * (A @ B.T)`` (each k16 step adds one of
the four K slices): the first and last CTA of each run are checked exactly against numpy.

    python benchmarks/wgmma_peak.py [--json PATH]
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import numba  # noqa: E402
from numba import cuda  # noqa: E402

from labkit.cuda import ptx  # noqa: E402
from labkit.cuda.kernels.probes import wgmma_probe as wp  # noqa: E402
from labkit.cuda.program import KernelProgram  # noqa: E402

FLOP_PER_WGMMA = 2 * 64 * 256 * 16
KK = 64           # K of the tile: one 128-byte row
R = 128           # f32 accumulators per thread of m64n256k16

PLAN = wp.make_plan("wgmma_m64n256k16_f32f16f16_ss", "K", "SW128", "K", "SW128")
# the k16 step s starts 32 bytes (2 descriptor units) after step s - 1 in a K-major SW128 row
assert [int(d) - int(PLAN.descs[0, 0]) for d in PLAN.descs[:, 0]] == [0, 2, 4, 6]
assert [int(d) - int(PLAN.descs[0, 1]) for d in PLAN.descs[:, 1]] == [0, 2, 4, 6]
SMEM_WORDS = wp.SMEM_BYTES // 4

_SOURCE = """
def {name}(image, descs, out, iters):
    smem = cuda.shared.array(SMEM_WORDS, numba.uint32, alignment=1024)
    t = cuda.threadIdx.x
    for w in range(t, SMEM_WORDS, {threads}):
        smem[w] = image[w]
    ptx.fence_proxy_async_shared_cta()
    cuda.syncthreads()
    unit = numba.uint64(ptx.smem_addr(smem, 0) >> 4)
    da = descs[0] + unit
    db = descs[1] + unit
    acc = ptx.wgmma_zeros(R)
    for _ in range(iters):
        ptx.wgmma_fence()
{body}
        ptx.wgmma_commit_group()
        ptx.wgmma_wait_group(1)
    ptx.wgmma_wait_group(0)
    acc = ptx.wgmma_fence_operand(acc)
    g = cuda.blockIdx.x * {threads} + t
    for i in range(R):
        out[g, i] = acc[i]
"""


def build(wg: int, steps: int, **options):
    """The kernel for ``wg`` warpgroups per CTA and ``steps`` wgmma per group (written out, so
    the accumulator tuple flows straight from one wgmma to the next), and its threads per CTA."""
    threads = 128 * wg
    name = f"wgmma_peak_wg{wg}_s{steps}"
    # k16 step s reads the K slice s % 4: + 32 bytes = 2 in the descriptor's 16-byte units
    body = "\n".join(f"        acc = ptx.wgmma_m64n256k16_f32f16f16_ss(da + {2 * (s % 4)}, db + {2 * (s % 4)}, "
                      f"acc, 1, 1, 1, 0, 0)" for s in range(steps))
    scope = {"cuda": cuda, "numba": numba, "ptx": ptx, "R": R, "SMEM_WORDS": SMEM_WORDS}
    return KernelProgram(name, _SOURCE.format(name=name, threads=threads, body=body), scope).kernel(**options), threads


def _median_ms(fn, reps=5):
    times = []
    for _ in range(reps):
        s, e = cuda.event(), cuda.event()
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(cuda.event_elapsed_time(s, e))
    return float(np.median(times)), times


def _smi():
    q = "name,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu,driver_version"
    try:
        line = subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=20).stdout.strip().splitlines()[0]
        return dict(zip(q.split(","), [x.strip() for x in line.split(",")]))
    except Exception as e:                       # no nvidia-smi: record why
        return {"error": str(e)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", default="")
    ap.add_argument("--sass", default="", help="write the SASS of the first kernel here (needs nvdisasm)")
    args = ap.parse_args()
    dev = cuda.get_current_device()
    sms = dev.MULTIPROCESSOR_COUNT
    rng = np.random.default_rng(2026)
    vals = np.array([-2, -1, 1, 2], np.float16)
    A = rng.choice(vals, (64, KK))
    B = rng.choice(vals, (256, KK))
    ref = A.astype(np.float64) @ B.astype(np.float64).T
    image = PLAN.image(A.view(np.uint16), B.view(np.uint16))       # CuTe's K-major SW128 layout
    dA, dB = cuda.to_device(image.view(np.uint32)), cuda.to_device(PLAN.descs.reshape(-1))
    before = _smi()
    rows = []
    for wg, steps, opts in ((1, 8, {}), (2, 8, {}), (2, 16, {}), (3, 8, {"max_registers": 168})):
        kern, threads = build(wg, steps, **opts)
        blocks = sms
        iters = 8192 // wg
        out = cuda.device_array((blocks * threads, R), np.float32)
        kern[blocks, threads](dA, dB, out, 4)               # compile + warm up
        cuda.synchronize()
        ms, times = _median_ms(lambda: kern[blocks, threads](dA, dB, out, iters))
        got = out.copy_to_host()
        want = ref * (iters * steps / 4)                     # each k16 step is a quarter of A @ B.T
        D = np.empty((64, 256))
        bad = 0
        for cta in (0, blocks - 1):
            for w in range(wg):
                base = (cta * wg + w) * 128
                for t in range(128):
                    for i in range(R):
                        D[wp.d_coords(t, i)] = got[base + t, i]
                bad += int(np.count_nonzero(D != want))
        tflops = blocks * wg * iters * steps * FLOP_PER_WGMMA / (ms * 1e-3) / 1e12
        regs = None
        try:
            got_regs = kern.dispatcher.get_regs_per_thread()          # a dict by signature, or an int
            regs = int(next(iter(got_regs.values())) if isinstance(got_regs, dict) else got_regs)
        except Exception as e:
            print("no register count:", type(e).__name__, str(e)[:200])
        row = dict(warpgroups_per_cta=wg, wgmma_per_group=steps, ctas=blocks, threads=threads, iters=iters,
                   registers=regs, median_ms=round(ms, 4), runs_ms=[round(x, 4) for x in times],
                   tflops=round(tflops, 1), mismatches=bad, options=opts)
        rows.append(row)
        print(f"wgmma m64n256k16 wg/CTA={wg} wgmma/group={steps:2d} CTAs={blocks} regs={regs}: "
              f"{tflops:6.1f} TFLOP/s ({ms:.2f} ms, exact: {bad == 0})", flush=True)
        if args.sass and len(rows) == 1:
            try:
                sass = kern.dispatcher.inspect_sass()
                Path(args.sass).write_text("\n".join(sass.values()) if isinstance(sass, dict) else sass)
            except Exception as e:
                print("no SASS:", type(e).__name__, str(e)[:200])
    import importlib.metadata as md
    result = {
        "date": "2026-12-02",
        "what": "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 chains from shared memory "
                "(128B swizzle, K-major), no global traffic in the loop, numba.cuda inline PTX",
        "gpu": dev.name.decode() if isinstance(dev.name, bytes) else dev.name,
        "compute_capability": list(dev.compute_capability),
        "sms": sms,
        "nvidia_smi_before": before,
        "nvidia_smi_after": _smi(),
        "numba": numba.__version__,
        "numba_cuda": md.version("numba-cuda"),
        "flop_per_wgmma": FLOP_PER_WGMMA,
        "runs": rows,
        "best_tflops": max(r["tflops"] for r in rows),
    }
    print(json.dumps({k: result[k] for k in ("gpu", "best_tflops", "nvidia_smi_before")}))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
