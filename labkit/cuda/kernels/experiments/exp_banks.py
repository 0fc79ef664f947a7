"""Time one shared-memory access pattern with ``clock64``: cycles per warp access.

Every warp of one block (``warps`` x 32 threads) reads, ``reps`` x 8 times, the 4-byte
shared word ``words[lane]``: the same pattern for all warps, each load a
``ld.volatile.shared.u32`` the compiler must keep. Thread 0 reads ``%clock64`` after a
barrier before the loop and after a barrier behind it; the warps' sums are stored first, so
every load has returned by then. With many warps in flight the shared-memory pipeline is the
bottleneck, and the cycles per warp access are the wavefronts each access needs times the
cost of one wavefront.

``out[thread]`` is the thread's sum, ``8 * reps * words[lane]`` (the shared array holds
``word[i] = i``): the kernel reports which words it read. ``cycles[0]`` is the block's count.

>>> from labkit.cuda.kernels.experiments import exp_banks
>>> exp_banks.SMEM_WORDS, exp_banks.UNROLL
(2048, 8)
"""

from __future__ import annotations

import numpy as np
from numba import cuda, uint32

from labkit.cuda import probe
from labkit.cuda.program import jit
from labkit.errors import DeviceError

__all__ = ["SMEM_WORDS", "UNROLL", "check_args", "launch"]

SMEM_WORDS = 2048
"""Words of shared memory the pattern may address (8 KiB)."""
UNROLL = 8
"""Loads per loop trip."""


@jit
def bank_probe_kernel(words, reps, out, cycles):
    sm = cuda.shared.array(2048, uint32)
    tid = cuda.threadIdx.x
    for i in range(tid, 2048, cuda.blockDim.x):
        sm[i] = i
    a = words[tid % 32]
    acc = uint32(0)
    cuda.syncthreads()
    t0 = probe.clock64()
    for _ in range(reps):
        acc += probe.ld_volatile_shared_u32(sm, a)
        acc += probe.ld_volatile_shared_u32(sm, a)
        acc += probe.ld_volatile_shared_u32(sm, a)
        acc += probe.ld_volatile_shared_u32(sm, a)
        acc += probe.ld_volatile_shared_u32(sm, a)
        acc += probe.ld_volatile_shared_u32(sm, a)
        acc += probe.ld_volatile_shared_u32(sm, a)
        acc += probe.ld_volatile_shared_u32(sm, a)
    out[tid] = acc
    cuda.syncthreads()
    t1 = probe.clock64()
    if tid == 0:
        cycles[0] = t1 - t0


def check_args(words, warps, reps):
    """Validate: 32 word indices in ``[0, 2048)``, 1 to 32 warps, ``reps >= 1``."""
    w = np.asarray(words)
    if w.shape != (32,) or w.dtype.kind not in "iu":
        raise DeviceError(f"words must be 32 integer word indices, one per lane; got shape {w.shape}, dtype {w.dtype}")
    if (w < 0).any() or (w >= SMEM_WORDS).any():
        raise DeviceError(f"words must lie in [0, {SMEM_WORDS}) (the probe's shared array); got {w.min()}..{w.max()}")
    for name, v, lo, hi in (("warps", warps, 1, 32), ("reps", reps, 1, 1 << 20)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
            raise DeviceError(f"{name} must be an integer in [{lo}, {hi}]; got {v!r}")
    return w.astype(np.int32)


def launch(words, warps=32, reps=256):
    """Check the pattern and return ``(run, out, cycles)``: ``run()`` launches once (one block)."""
    w = check_args(words, warps, reps)
    bank_probe_kernel.check()
    d_words = cuda.to_device(w)
    out = cuda.to_device(np.zeros(32 * warps, np.uint32))
    cycles = cuda.to_device(np.zeros(1, np.uint64))

    def run():
        bank_probe_kernel[1, 32 * warps](d_words, np.int32(reps), out, cycles)

    return run, out, cycles
