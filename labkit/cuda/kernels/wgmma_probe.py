"""One warpgroup issues ``wgmma.mma_async`` m64nNk16 f32.f16.f16 ("TN": A and B K-major).

The 128 threads copy A (64 x K f16) and B (N x K f16) from global into shared memory in one of
two canonical K-major layouts, build the two 64-bit matrix descriptors, issue ``wgmma.fence``,
``K/16`` mma_async steps, ``commit_group`` and ``wait_group 0``, and write each thread's ``N/2``
f32 accumulator registers out as they are (``regs[thread, i]``): which element of D register
``i`` of thread ``t`` holds is the PTX ISA's fragment rule (:func:`d_coords`), applied on the
host by :func:`wgmma_matmul`.

The layouts (byte offsets inside the operand's shared array; the PTX ISA's "Shared Memory Matrix
Layout", K-major):

- ``"INTERLEAVE"`` (no swizzle, K = 16, layout type 0): 8 x 16-byte core matrices, 128
  contiguous bytes each; the two core matrices of a row group along K are ``LBO = 128`` bytes
  apart, successive groups of 8 rows ``SBO = 256`` bytes apart.
- ``"B128"`` (128-byte swizzle, K = 64, layout type 1): a row is 128 bytes; the 16-byte chunk
  ``c`` of row ``r`` lies at chunk ``c ^ (r % 8)``; 8-row groups are ``SBO = 1024`` bytes apart
  (LBO is unused: 1). The array is 1024-byte aligned, so the base offset is 0. The four k16
  steps advance the descriptors' start address by 32 bytes each.

The descriptor (:func:`matrix_descriptor`) is the PTX ISA's "Matrix Descriptor Format": start
address >> 4 in bits 0-13, LBO >> 4 in bits 16-29, SBO >> 4 in bits 32-45, base offset in bits
49-51, the layout type in bits 62-63 (0 interleave, 1 128B, 2 64B, 3 32B swizzle).

>>> from labkit.cuda.kernels import wgmma_probe as wp
>>> hex(wp.matrix_descriptor(0x400, 128, 256, wp.LAYOUT_TYPE["INTERLEAVE"], 0))
'0x1000080040'
>>> wp.d_coords(37, 6)      # thread 37 (warp 1, lane 5: group 1, thread 1 in group), register 6
(25, 10)
>>> wp.smem_offset("B128", 9, 17)  # row 9, k 17: chunk 2 of row 9 lies at chunk 2 ^ 1 = 3
1202
"""

from __future__ import annotations

import numpy as np
import numba
from numba import cuda

from labkit.atoms.wgmma_ptx import WARPGROUP, WGMMA_N
from labkit.cuda import ptx
from labkit.cuda.launch import jit
from labkit.errors import LayoutError

__all__ = ["LAYOUT_TYPE", "LAYOUTS", "matrix_descriptor", "smem_offset", "d_coords", "wgmma_registers",
           "wgmma_matmul"]

LAYOUT_TYPE = {"INTERLEAVE": 0, "B128": 1, "B64": 2, "B32": 3}
"""The descriptor's layout-type field (bits 62-63) by CuTe's ``GMMA::LayoutType`` name."""

LAYOUTS = {  # name -> (K of the tile, LBO bytes, SBO bytes)
    "INTERLEAVE": (16, 128, 256),
    "B128": (64, 16, 1024),
}
"""The two layouts the probe writes: K of the tile, leading and stride byte offsets."""


def matrix_descriptor(start, lbo, sbo, layout_type, base_offset):
    """The 64-bit wgmma matrix descriptor (PTX ISA "Matrix Descriptor Format"); ``start``, ``lbo``
    and ``sbo`` in bytes (multiples of 16; each field keeps bits 4-17)."""
    return ((start & 0x3FFFF) >> 4) | (((lbo & 0x3FFFF) >> 4) << 16) | (((sbo & 0x3FFFF) >> 4) << 32) \
        | ((base_offset & 0x7) << 49) | ((layout_type & 0x3) << 62)


def _interleave_offset(row, k):
    return (row // 8) * 256 + (k // 8) * 128 + (row % 8) * 16 + (k % 8) * 2


def _b128_offset(row, k):
    return (row // 8) * 1024 + (row % 8) * 128 + (((k // 8) ^ (row % 8)) * 16) + (k % 8) * 2


def smem_offset(layout: str, row: int, k: int) -> int:
    """Byte offset of element (row, k) of a K-major operand in ``layout`` (see the module)."""
    if layout not in LAYOUTS:
        raise LayoutError(f"layout must be one of {sorted(LAYOUTS)}; got {layout!r}")
    return (_interleave_offset if layout == "INTERLEAVE" else _b128_offset)(row, k)


def d_coords(thread: int, i: int):
    """(m, n) of D held by register ``i`` of warpgroup thread ``thread`` (PTX ISA, wgmma D
    fragment of m64nNk16: warp ``w`` holds rows 16w..16w+15; in the warp, mma.sync m16n8's C
    fragment repeated over N/8 column blocks)."""
    warp, lane = divmod(thread, 32)
    group, tig = divmod(lane, 4)
    return 16 * warp + group + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * tig + (i % 2)


_desc = cuda.jit(device=True, inline=True)(matrix_descriptor)
_off_interleave = cuda.jit(device=True, inline=True)(_interleave_offset)
_off_b128 = cuda.jit(device=True, inline=True)(_b128_offset)
_KERNELS: dict = {}


def _kernel(n: int, layout: str):
    key = (n, layout)
    if key in _KERNELS:
        return _KERNELS[key]
    mma = getattr(ptx, f"wgmma_m64n{n}k16_f32f16f16")
    r = n // 2
    kk, lbo, sbo = LAYOUTS[layout]
    ltype = LAYOUT_TYPE[layout]
    a_elems, b_elems, ksteps = 64 * kk, n * kk, kk // 16
    offset = _off_interleave if layout == "INTERLEAVE" else _off_b128

    def wgmma_probe(A, B, regs, addrs):
        sA = cuda.shared.array(a_elems, numba.uint16, alignment=1024)
        sB = cuda.shared.array(b_elems, numba.uint16, alignment=1024)
        t = cuda.threadIdx.x
        for e in range(t, a_elems, WARPGROUP):
            sA[offset(e // kk, e % kk) // 2] = A[e // kk, e % kk]
        for e in range(t, b_elems, WARPGROUP):
            sB[offset(e // kk, e % kk) // 2] = B[e // kk, e % kk]
        ptx.fence_proxy_async_shared_cta()        # generic-proxy stores, read next by the async proxy
        cuda.syncthreads()
        a0 = ptx.smem_addr(sA, 0)
        b0 = ptx.smem_addr(sB, 0)
        acc = ptx.wgmma_zeros(r)
        ptx.wgmma_fence()
        for s in range(ksteps):                   # scale-d 0 on the first step: D = A*B
            da = _desc(a0 + 32 * s, lbo, sbo, ltype, 0)
            db = _desc(b0 + 32 * s, lbo, sbo, ltype, 0)
            acc = mma(da, db, acc, s, 1, 1, 0, 0)
        ptx.wgmma_commit_group()
        ptx.wgmma_wait_group(0)
        acc = ptx.wgmma_fence_operand(acc)
        for i in range(r):
            regs[t, i] = acc[i]
        if t == 0:
            addrs[0] = a0
            addrs[1] = b0

    wgmma_probe.__name__ = f"wgmma_probe_m64n{n}k16_{layout}"
    _KERNELS[key] = jit(wgmma_probe)
    return _KERNELS[key]


def _check(A, B, layout):
    if layout not in LAYOUTS:
        raise LayoutError(f"layout must be one of {sorted(LAYOUTS)}; got {layout!r}")
    kk = LAYOUTS[layout][0]
    A = np.asarray(A)
    B = np.asarray(B)
    if A.shape != (64, kk):
        raise LayoutError(f"A must be 64 x {kk} (M x K) for layout {layout!r}; got shape {A.shape}")
    if B.ndim != 2 or B.shape[1] != kk or B.shape[0] not in WGMMA_N:
        raise LayoutError(f"B must be N x {kk} (N x K, K-major) with N in {WGMMA_N} for layout {layout!r}; "
                          f"got shape {B.shape}")
    return np.ascontiguousarray(A, np.float16), np.ascontiguousarray(B, np.float16)


def wgmma_registers(A, B, layout: str = "INTERLEAVE"):
    """Run the probe: ``(regs, addrs)``, ``regs[t, i]`` register ``i`` (float32) of thread ``t``,
    ``addrs`` the shared addresses of A and B. ``A``: 64 x K, ``B``: N x K (K = 16 for
    ``"INTERLEAVE"``, 64 for ``"B128"``), converted to float16."""
    A, B = _check(A, B, layout)
    n = B.shape[0]
    regs = np.full((WARPGROUP, n // 2), np.nan, np.float32)
    addrs = np.zeros(2, np.uint32)
    d_regs, d_addrs = cuda.to_device(regs), cuda.to_device(addrs)
    _kernel(n, layout)[1, WARPGROUP](cuda.to_device(A.view(np.uint16)), cuda.to_device(B.view(np.uint16)),
                                     d_regs, d_addrs)
    cuda.synchronize()
    return d_regs.copy_to_host(), d_addrs.copy_to_host()


def wgmma_matmul(A, B, layout: str = "INTERLEAVE"):
    """D = A @ B.T (64 x N, float32) through one warpgroup's wgmma, registers placed by :func:`d_coords`;
    unwritten elements stay NaN."""
    regs, _ = wgmma_registers(A, B, layout)
    D = np.full((64, regs.shape[1] * 2), np.nan, np.float32)
    for t in range(WARPGROUP):
        for i in range(regs.shape[1]):
            D[d_coords(t, i)] = regs[t, i]
    return D
