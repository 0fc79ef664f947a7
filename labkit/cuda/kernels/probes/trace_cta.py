"""The sgemm_sm80 CTA trace kernel: every warp's A/B fragments and accumulators per k-block.

128 threads (2x2 warps, ``SM80_16x8x16_F16F16F16F16_TN`` tiled 32x32x16) fill A and B tiles
(128x64, K-major, ``Swizzle<3,3,3>``) with 128-bit ``cp.async`` at the offsets of
:func:`labkit.cuda.kernels.probes.trace_plans.cta_plan`, load them with ``ldmatrix.x4`` and record the
registers; the kernel is a plain ``@cuda.jit`` function, so it also runs under the CUDA simulator.

>>> from labkit.cuda.kernels.probes import trace_cta
>>> print(trace_cta.cta_kernel_source(1).splitlines()[0])
# ld = ptx.ldmatrix_x4
"""

from __future__ import annotations

import numpy as np
from numba import cuda, uint16, uint32

from labkit.atoms import WARP, instructions
from labkit.cuda import ptx
from labkit.cuda.kernels.probes.trace_launch import ALIGN, _KERNELS, _kernel_source, _launch
from labkit.cuda.kernels.probes.trace_plans import CtaPlan
from labkit.cuda.program import jit
from labkit.errors import DeviceError

__all__ = ["cta_kernel_source", "run_cta"]


def _cta_kernel(k_blocks: int = 4):
    """The sgemm_sm80 CTA trace kernel (128 threads, one k-tile, ``k_blocks`` k-blocks)."""
    key = ("cta", k_blocks, ptx.SIMULATED)
    if key in _KERNELS:
        return _KERNELS[key]
    ld = getattr(ptx, instructions.instruction("ldmatrix_x4", "ldmatrix").name)
    mma = getattr(ptx, instructions.instruction("mma_m16n8k16_f16f16f16f16", "mma").name)
    n = 128 * 64
    size = 2 * n

    def trace_cta_kernel(ga, gb, cp_src, cp_dst, a_off, b_off, out_a, out_b, out_d, bad):
        smem = cuda.shared.array(size, uint16, alignment=ALIGN)
        tid = cuda.threadIdx.x
        warp = tid // 32
        lane = tid % 32
        if ptx.smem_addr(smem, 0) % 16 != 0:
            bad[0] = 1
        for r in range(8):
            ptx.cp_async_16(ptx.smem_addr(smem, cp_dst[tid, r]), ga, cp_src[tid, r])
            ptx.cp_async_16(ptx.smem_addr(smem, n + cp_dst[tid, r]), gb, cp_src[tid, r])
        ptx.cp_async_commit_group()
        ptx.cp_async_wait_group(0)
        cuda.syncthreads()
        fa = cuda.local.array((4, 4), uint32)
        fb = cuda.local.array((4, 4), uint32)
        acc = cuda.local.array((4, 8, 2), uint32)
        for i in range(4):
            for j in range(8):
                acc[i, j, 0] = 0
                acc[i, j, 1] = 0
        for kb in range(k_blocks):
            for i in range(4):
                x0, x1, x2, x3 = ld(ptx.smem_addr(smem, a_off[kb, warp, i, lane]))
                fa[i, 0] = x0
                fa[i, 1] = x1
                fa[i, 2] = x2
                fa[i, 3] = x3
                y0, y1, y2, y3 = ld(ptx.smem_addr(smem, n + b_off[kb, warp, i, lane]))
                fb[i, 0] = y0
                fb[i, 1] = y1
                fb[i, 2] = y2
                fb[i, 3] = y3
            for i in range(4):
                for j in range(8):
                    d0, d1 = mma(fa[i, 0], fa[i, 1], fa[i, 2], fa[i, 3],
                                 fb[j // 2, 2 * (j % 2)], fb[j // 2, 2 * (j % 2) + 1],
                                 acc[i, j, 0], acc[i, j, 1])
                    acc[i, j, 0] = d0
                    acc[i, j, 1] = d1
            for i in range(4):
                for r in range(4):
                    out_a[kb, warp, i, lane, r] = fa[i, r]
                    out_b[kb, warp, i, lane, r] = fb[i, r]
                for j in range(8):
                    out_d[kb, warp, i, j, lane, 0] = acc[i, j, 0]
                    out_d[kb, warp, i, j, lane, 1] = acc[i, j, 1]

    kernel = jit(trace_cta_kernel)
    kernel.source = _kernel_source(kernel, ld="ptx.ldmatrix_x4", mma="ptx.mma_m16n8k16_f16f16f16f16",
                                   k_blocks=k_blocks, n=n, size=size)
    _KERNELS[key] = kernel
    return kernel


def cta_kernel_source(k_blocks: int = 4) -> str:
    """Python source of the sgemm_sm80 CTA trace kernel (128 threads, one k-tile)."""
    return _cta_kernel(k_blocks).source


def run_cta(plan: CtaPlan, a_bits, b_bits, k_blocks: int | None = None) -> dict:
    """Run the CTA plan on one 128x64 A tile and one 128x64 B tile (f16 bits, K-major).

    Returns ``{"A": (kb, 4 warps, 4, 32, 4), "B": (kb, 4, 4, 32, 4), "D": (kb, 4, 4, 8, 32, 2)}``
    (uint32; B load ``j`` holds fragments ``2j`` and ``2j+1``; D after each k-block).
    """
    kbs = plan.k_blocks if k_blocks is None else k_blocks
    if isinstance(kbs, bool) or not isinstance(kbs, (int, np.integer)) or not 1 <= kbs <= plan.k_blocks:
        raise DeviceError(f"k_blocks must be an integer in 1..{plan.k_blocks}; got {k_blocks!r}")
    kbs = int(kbs)
    for name, x in (("a_bits", a_bits), ("b_bits", b_bits)):
        x = np.asarray(x)
        if x.shape != (plan.bm, plan.bk) or x.dtype != np.uint16:
            raise DeviceError(f"run_cta: {name} must be uint16 f16 bits of shape {(plan.bm, plan.bk)}; got {x.dtype} {x.shape}")
    kernel = _cta_kernel(kbs)
    source = kernel.source
    kernel.check()
    ga = _aligned_copy(np.asarray(a_bits).reshape(-1))
    gb = _aligned_copy(np.asarray(b_bits).reshape(-1))
    out_a = np.zeros((kbs, 4, 4, WARP, 4), np.uint32)
    out_b = np.zeros((kbs, 4, 4, WARP, 4), np.uint32)
    out_d = np.zeros((kbs, 4, 4, 8, WARP, 2), np.uint32)
    bad = np.zeros(1, np.int32)
    _launch(kernel, 1, 128, ga, gb, plan.cp_src, plan.cp_dst, plan.a_offsets[:kbs].copy(),
            plan.b_offsets[:kbs].copy(), out_a, out_b, out_d, bad)
    if bad[0]:
        raise DeviceError("run_cta: the shared array was not 16-byte aligned on this device")
    return {"A": out_a, "B": out_b, "D": out_d, "kernel_source": source}


def _aligned_copy(x: np.ndarray, align: int = 128) -> np.ndarray:
    """A copy of ``x`` whose data starts on an ``align``-byte boundary (cp.async sources)."""
    raw = np.empty(x.nbytes + align, np.uint8)
    start = (-raw.ctypes.data) % align
    out = raw[start:start + x.nbytes].view(x.dtype)
    out[...] = x.reshape(-1)
    return out
