"""A copy through a layout: ``dst[i, j] = src[offset + i*s0 + j*s1]`` for a rank-2 layout.

The 32 lanes of a warp take 32 neighbouring columns ``j`` of one row ``i`` (a block is 32x8
threads and copies a 32x32 tile, each thread the rows ``i``, ``i+8``, ``i+16``, ``i+24``, so four
loads are in flight per thread), so the layout's strides decide which bytes a warp request
touches: ``(M,N):(N,1)`` (row-major) reads 128 contiguous bytes per request, ``(M,N):(1,M)``
(column-major) one word from each of 32 columns, a stride of 0 the same word again and again.
``dst`` is a dense row-major ``(M, N)`` array, so the stores are always contiguous.

Chapter 1's experiment (row-major, column-major, padded rows) and chapter 4's (a stride-0
broadcast and an offset selecting a sub-tile) run this kernel.

>>> import numpy as np
>>> from labkit.cuda.kernels.experiments import exp_copy
>>> try:
...     exp_copy.check_args(np.zeros(10, np.int32), (32, 30), (30, 1), 0)
... except ValueError as e:
...     print(e)
shape: the columns (30) must be a multiple of 32 (one warp per row segment)
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from labkit.cuda.program import jit
from labkit.errors import DeviceError

__all__ = ["BLOCK", "check_args", "launch", "copy"]

BLOCK = (32, 8)
"""Threads per block: 32 columns (one warp) by 8 rows; a block copies 32x32 elements."""
TILE_ROWS = 32
"""Rows a block copies (4 per thread)."""


@jit
def layout_copy_kernel(src, dst, n_cols, s0, s1, offset):
    j = cuda.blockIdx.x * 32 + cuda.threadIdx.x
    i = cuda.blockIdx.y * 32 + cuda.threadIdx.y
    v0 = src[offset + i * s0 + j * s1]
    v1 = src[offset + (i + 8) * s0 + j * s1]
    v2 = src[offset + (i + 16) * s0 + j * s1]
    v3 = src[offset + (i + 24) * s0 + j * s1]
    dst[i * n_cols + j] = v0
    dst[(i + 8) * n_cols + j] = v1
    dst[(i + 16) * n_cols + j] = v2
    dst[(i + 24) * n_cols + j] = v3


def _int(v, name):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise DeviceError(f"{name} must be an integer; got {v!r}")
    return int(v)


def check_args(src, shape, stride, offset):
    """Validate a launch before it runs: ``(M, N)`` with ``M % 32 == 0`` and ``N % 32 == 0``,
    non-negative integer strides and offset, ``src`` a 1-D 4-byte array holding every offset
    the layout reaches. Returns ``(M, N, s0, s1, offset)``."""
    if not (isinstance(shape, tuple) and len(shape) == 2):
        raise DeviceError(f"shape must be a pair (rows, columns); got {shape!r}")
    if not (isinstance(stride, tuple) and len(stride) == 2):
        raise DeviceError(f"stride must be a pair (row stride, column stride); got {stride!r}")
    m, n = (_int(v, "shape") for v in shape)
    s0, s1 = (_int(v, "stride") for v in stride)
    off = _int(offset, "offset")
    if m <= 0 or m % TILE_ROWS:
        raise DeviceError(f"shape: the rows ({m}) must be a positive multiple of {TILE_ROWS} (one block copies 32 rows)")
    if n <= 0 or n % BLOCK[0]:
        raise DeviceError(f"shape: the columns ({n}) must be a multiple of 32 (one warp per row segment)")
    if s0 < 0 or s1 < 0 or off < 0:
        raise DeviceError(f"stride and offset must be >= 0; got stride {stride}, offset {off}")
    last = off + (m - 1) * s0 + (n - 1) * s1
    dims = getattr(src, "shape", None)
    dtype = getattr(src, "dtype", None)
    if dims is None or len(dims) != 1 or np.dtype(dtype).itemsize != 4:
        raise DeviceError(f"src must be a 1-D array of 4-byte elements; got shape {dims}, dtype {dtype}")
    if last >= dims[0]:
        raise DeviceError(f"src holds {dims[0]} elements but the layout reaches offset {last}")
    if last >= 2 ** 31:
        raise DeviceError(f"the layout reaches offset {last}; this kernel indexes with 32-bit offsets")
    return m, n, s0, s1, off


def launch(src, dst, shape, stride, offset=0):
    """Check the operands (device arrays or numpy) and return a function that launches once."""
    m, n, s0, s1, off = check_args(src, shape, stride, offset)
    if getattr(dst, "shape", None) != (m * n,) or np.dtype(dst.dtype) != np.dtype(src.dtype):
        raise DeviceError(f"dst must be a 1-D array of {m * n} elements of {src.dtype}; got "
                          f"{getattr(dst, 'shape', None)} {getattr(dst, 'dtype', None)}")
    layout_copy_kernel.check()
    grid = (n // BLOCK[0], m // TILE_ROWS)

    def run():
        layout_copy_kernel[grid, BLOCK](src, dst, np.int64(n), np.int64(s0), np.int64(s1), np.int64(off))

    return run


def copy(shape, stride, offset=0):
    """Run once on numpy data: ``src[k] = k`` (int32), so ``dst[i, j]`` is the offset the thread
    of ``(i, j)`` read. Returns ``dst`` as ``(M, N)``.

    >>> from labkit.cuda.kernels.experiments import exp_copy
    >>> exp_copy.copy((32, 32), (1, 32))[1, :4].tolist()      # doctest: +SKIP
    [1, 33, 65, 97]
    """
    m, n = shape
    last = offset + (m - 1) * stride[0] + (n - 1) * stride[1]
    src = cuda.to_device(np.arange(last + 1, dtype=np.int32))
    dst = cuda.to_device(np.full(m * n, -1, np.int32))       # poisoned
    launch(src, dst, tuple(shape), tuple(stride), offset)()
    return dst.copy_to_host().reshape(m, n)
