"""One stmatrix per warp, on many warps: the shared memory it leaves behind (for verification).

Warp ``w`` fills its shared array with ``init[w]`` (so bytes stmatrix must not touch are
checked too), issues one ``stmatrix`` whose lane ``l`` gives the row offset ``off[w, l]``
(elements, a multiple of 8) and the registers ``regs[w, l, :]``, and copies the array out.
The kernel is generated as Python source, so the same text runs on a GPU (sm_90 or newer)
and under the CUDA simulator; the launch goes through :func:`labkit.cuda.jit`, which refuses an
older GPU with :class:`labkit.errors.InstructionError`.

>>> from labkit.cuda.kernels import stmatrix_trace
>>> print(stmatrix_trace.stmatrix_kernel_source("x2.trans", 512).splitlines()[-4])
    ptx.stmatrix_x2_trans(ptx.smem_addr(smem, off[w, lane]), regs[w, lane, 0], regs[w, lane, 1])
"""

from __future__ import annotations

import numpy as np

from labkit.cuda import ptx
from labkit.cuda.kernels.trace_kernels import _build, _launch, _shared_decl, parse_variant
from labkit.errors import DeviceError

__all__ = ["stmatrix_kernel_source", "run_stmatrix"]

WARP = 32


def _st_name(num, trans):
    return f"stmatrix_x{num}" + ("_trans" if trans else "")


def stmatrix_kernel_source(variant: str, region: int) -> str:
    """Kernel: warp ``w`` fills ``region`` 16-bit values of shared memory with ``init[w]``, issues
    one stmatrix ``variant`` (``"x4"``, ``"x2.trans"``, ...) and copies the memory to ``out[w]``."""
    num, trans = parse_variant(variant)
    regs = ", ".join(f"regs[w, lane, {i}]" for i in range(num))
    return "\n".join([
        "def stmatrix_kernel(init, off, regs, out, bad):",
        _shared_decl("smem", region),
        "    w = cuda.blockIdx.x",
        "    lane = cuda.threadIdx.x",
        f"    for i in range(lane, {region}, 32):",
        "        smem[i] = init[w, i]",
        "    if ptx.smem_addr(smem, 0) % 16 != 0:",
        "        bad[0] = 1",
        "    cuda.syncthreads()",
        f"    ptx.{_st_name(num, trans)}(ptx.smem_addr(smem, off[w, lane]), {regs})",
        "    cuda.syncthreads()",
        f"    for i in range(lane, {region}, 32):",
        "        out[w, i] = smem[i]",
    ]) + "\n"


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
    source = stmatrix_kernel_source(variant, img.shape[1])
    kernel = _build(("st", variant, img.shape[1], ptx.SIMULATED), source, "stmatrix_kernel")
    kernel.check()
    out = np.zeros_like(img)
    bad = np.zeros(1, np.int32)
    _launch(kernel, W, WARP, np.ascontiguousarray(img), np.ascontiguousarray(off, np.int32),
            np.ascontiguousarray(r), out, bad)
    if bad[0]:
        raise DeviceError("run_stmatrix: the shared array was not 16-byte aligned on this device")
    return {"smem": out, "kernel_source": source}
