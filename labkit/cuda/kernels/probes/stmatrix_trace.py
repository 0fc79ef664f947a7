"""One stmatrix per warp, on many warps: the shared memory it leaves behind (for verification).

Warp ``w`` fills its shared array with ``init[w]`` (so bytes stmatrix must not touch are
checked too), issues one ``stmatrix`` whose lane ``l`` gives the row offset ``off[w, l]``
(elements, a multiple of 8) and the registers ``regs[w, l, :]``, and copies the array out.
The kernel is a plain ``@cuda.jit`` function closing over the registry entry's bound intrinsic
and its register count, so it runs on a GPU (sm_90 or newer) and under the CUDA simulator; the
launch goes through :func:`labkit.cuda.jit`, which refuses an older GPU with
:class:`labkit.errors.InstructionError`.

>>> from labkit.cuda.kernels.probes import stmatrix_trace
>>> print(stmatrix_trace.stmatrix_kernel_source("x2.trans", 512).splitlines()[0])
# st = ptx.stmatrix_x2_trans
"""

from __future__ import annotations

import numpy as np
from numba import cuda, uint16, uint32

from labkit.atoms import WARP, instructions
from labkit.cuda import ptx
from labkit.cuda.kernels.probes.trace_kernels import ALIGN, MAX_REGS, _KERNELS, _kernel_source, _launch, parse_variant
from labkit.cuda.program import jit
from labkit.errors import DeviceError

__all__ = ["stmatrix_kernel_source", "run_stmatrix"]



def _st_name(num, trans):
    return f"stmatrix_x{num}" + ("_trans" if trans else "")


def _stmatrix_kernel(variant: str, region: int):
    """Kernel: warp ``w`` fills ``region`` 16-bit values of shared memory with ``init[w]``, issues
    one stmatrix ``variant`` and copies the memory to ``out[w]``."""
    key = ("st", variant, region, ptx.SIMULATED)
    if key in _KERNELS:
        return _KERNELS[key]
    num, trans = parse_variant(variant)
    entry = instructions.instruction(_st_name(num, trans), "stmatrix")
    st = getattr(ptx, entry.name)                       # the registry entry's intrinsic
    num = entry.num                                     # its register count

    def stmatrix_kernel(init, off, regs, out, bad):
        smem = cuda.shared.array(region, uint16, alignment=ALIGN)
        w = cuda.blockIdx.x
        lane = cuda.threadIdx.x
        for i in range(lane, region, 32):
            smem[i] = init[w, i]
        if ptx.smem_addr(smem, 0) % 16 != 0:
            bad[0] = 1
        rr = cuda.local.array(MAX_REGS, uint32)
        for i in range(num):
            rr[i] = regs[w, lane, i]
        cuda.syncthreads()
        st(ptx.smem_addr(smem, off[w, lane]), *(rr[0], rr[1], rr[2], rr[3])[:num])
        cuda.syncthreads()
        for i in range(lane, region, 32):
            out[w, i] = smem[i]

    kernel = jit(stmatrix_kernel)
    kernel.source = _kernel_source(kernel, st=f"ptx.{entry.name}", num=num, region=region)
    _KERNELS[key] = kernel
    return kernel


def stmatrix_kernel_source(variant: str, region: int) -> str:
    """Python source of the kernel in which warp ``w`` fills ``region`` 16-bit values of shared
    memory with ``init[w]``, issues one stmatrix ``variant`` (``"x4"``, ``"x2.trans"``, ...) and
    copies the memory to ``out[w]``, headed by the constants it closes over."""
    return _stmatrix_kernel(variant, region).source


def run_stmatrix(variant: str, init, offsets, regs) -> dict:
    """One stmatrix per warp: ``init (W, region)`` uint16 shared contents before it, ``offsets
    (W, 32)`` element offsets of the rows (multiples of 8), ``regs (W, 32, num)`` uint32.
    Returns ``{"smem": (W, region) uint16}``, the shared memory after it, and ``"kernel_source"``."""
    num, _ = parse_variant(variant)
    img = np.asarray(init)
    off = np.asarray(offsets)
    r = np.asarray(regs)
    if img.ndim != 2 or img.dtype != np.uint16 or img.shape[1] % 8 or img.shape[0] < 1:
        raise DeviceError(f"run_stmatrix: init must be uint16 (W, region) with region % 8 == 0; got {img.dtype} {img.shape}")
    W = img.shape[0]
    if off.shape != (W, WARP) or off.dtype.kind not in "iu":
        raise DeviceError(f"run_stmatrix: offsets must be integers of shape {(W, WARP)}; got {off.shape}")
    if (off % 8).any() or (off < 0).any() or (off + 8 > img.shape[1]).any():
        raise DeviceError("run_stmatrix: every offset must be a multiple of 8 elements (16 bytes) inside the region")
    if r.shape != (W, WARP, num) or r.dtype != np.uint32:
        raise DeviceError(f"run_stmatrix: regs must be uint32 of shape {(W, WARP, num)}; got {r.dtype} {r.shape}")
    kernel = _stmatrix_kernel(variant, int(img.shape[1]))
    source = kernel.source
    kernel.check()
    out = np.zeros_like(img)
    bad = np.zeros(1, np.int32)
    _launch(kernel, W, WARP, np.ascontiguousarray(img), np.ascontiguousarray(off, np.int32),
            np.ascontiguousarray(r), out, bad)
    if bad[0]:
        raise DeviceError("run_stmatrix: the shared array was not 16-byte aligned on this device")
    return {"smem": out, "kernel_source": source}
