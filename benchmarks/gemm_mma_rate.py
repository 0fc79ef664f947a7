"""How fast can mma.sync issue with as few warps as a GEMM kernel has? Register-only chains.

Each warp runs ``chains`` independent ``mma.sync.m16n8k16`` accumulator chains (f32
accumulate, like the ladder's 64x64 warp tiles: 32 chains) on operands held in registers, no
memory traffic; CTAs of 128 threads (one warp per SM sub-partition), ``ctas`` of them per SM.
The figure for 8 warps per SM with 32 chains is the ceiling of a kernel whose every SM holds
8 such warps (the ladder's pipeline step) if nothing but the MMAs cost time.

    python benchmarks/gemm_mma_rate.py
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
from numba import cuda, float32, uint32  # noqa: E402

from labkit.cuda import ptx  # noqa: E402
from labkit.cuda.program import KernelProgram  # noqa: E402


def build(chains):
    lines = ["def kern(inp, out, iters):", "    t = cuda.grid(1)",
             "    a0 = inp[0]; a1 = inp[1]; a2 = inp[2]; a3 = inp[3]; b0 = inp[4]; b1 = inp[5]"]
    for c in range(chains):
        lines.append(f"    c{c}_0 = c{c}_1 = c{c}_2 = c{c}_3 = float32(0.0)")
    lines.append("    for i in range(iters):")
    for c in range(chains):
        cs = ", ".join(f"c{c}_{j}" for j in range(4))
        lines.append(f"        {cs} = MMA(a0, a1, a2, a3, b0, b1, {cs})")
    lines.append("    out[t] = " + " + ".join(f"c{c}_0" for c in range(chains)))
    scope = {"cuda": cuda, "float32": float32, "uint32": uint32, "MMA": ptx.mma_m16n8k16_f32f16f16f32}
    return KernelProgram("kern", "\n".join(lines) + "\n", scope).dispatcher()


def main():
    sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
    inp = cuda.to_device(np.full(8, 0x3C003C00, dtype=np.uint32))
    for chains in (8, 16, 32):
        k = build(chains)
        for ctas in (1, 2, 3, 4, 8):
            blocks, threads = sms * ctas, 128
            out = cuda.device_array(blocks * threads, dtype=np.float32)
            iters = max(256, 2**20 // (chains * ctas))
            k[blocks, threads](inp, out, 16)
            cuda.synchronize()
            best = 1e9
            for _ in range(3):
                s, e = cuda.event(), cuda.event()
                s.record()
                k[blocks, threads](inp, out, iters)
                e.record()
                e.synchronize()
                best = min(best, cuda.event_elapsed_time(s, e) / 1e3)
            mmas = blocks * threads // 32 * iters * chains
            print(f"mma_rate chains={chains:2d} warps/SM={4 * ctas:2d}: {mmas * 4096 / best / 1e12:6.1f} TFLOP/s "
                  f"({best * 1e3:.2f} ms)", flush=True)


if __name__ == "__main__":
    main()
