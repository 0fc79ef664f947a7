"""Matrix transpose, naive and through shared-memory tiles: ``dst(j, i) = src(i, j)``.

``src`` is ``(M, N)`` and ``dst`` ``(N, M)``, both described by layouts; the tiled kernel gets
its tiles from ``zipped_divide(layout, (32, 32))`` = ``((32,32),(M/32,N/32)) :
((r, c),(R, C))``: the four strides are everything it needs (``r``, ``c`` step inside a
tile, ``R``, ``C`` from tile to tile). A block of 32x8 threads moves one 32x32 tile: it reads
rows of the source tile (a warp per row, coalesced), stores them in a shared tile whose rows
are ``pitch`` words apart, and writes rows of the destination tile, which are columns of
the shared one. ``pitch = 32`` puts a shared column in one bank (32-way conflicts),
``pitch = 33`` spreads it over all 32.

The naive kernel lets thread ``(i, j)`` read ``src(i, j)`` and write ``dst(j, i)``: its reads
are coalesced, its writes touch 32 sectors per warp.

With ``trace`` (an int64 array, only for small runs) every thread records the element offsets
it read and wrote and, in the tiled kernel, the shared-memory word indices it stored and
loaded: ``trace[block, step, thread, :]`` = (global read, global write, shared store, shared
load), ``-1`` where a kernel has none.

>>> from labkit.cuda.kernels.experiments import exp_transpose
>>> exp_transpose.KINDS
('naive', 'tiled', 'tiled_padded')
"""

from __future__ import annotations

import numpy as np
from numba import cuda, float32

from labkit.cuda.program import jit
from labkit.errors import DeviceError

__all__ = ["KINDS", "TILE", "launch", "check_args"]

KINDS = ("naive", "tiled", "tiled_padded")
TILE = 32
ROWS = 8
STEPS = TILE // ROWS


@jit
def transpose_naive_kernel(src, dst, ss0, ss1, ds0, ds1, trace):
    j = cuda.blockIdx.x * 32 + cuda.threadIdx.x
    i0 = cuda.blockIdx.y * 32 + cuda.threadIdx.y
    for k in range(4):
        i = i0 + 8 * k
        p = i * ss0 + j * ss1
        q = j * ds0 + i * ds1
        dst[q] = src[p]
        if trace.shape[0] > 1:
            b = cuda.blockIdx.y * cuda.gridDim.x + cuda.blockIdx.x
            t = cuda.threadIdx.y * 32 + cuda.threadIdx.x
            trace[b, k, t, 0] = p
            trace[b, k, t, 1] = q


@jit
def transpose_tiled_kernel(src, dst, s_in, s_out, pitch, trace):
    # s_in / s_out: the strides of zipped_divide(layout, (32, 32)): (r, c, R, C)
    tile = cuda.shared.array(1056, float32)          # 32 rows of up to 33 words
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    ti = cuda.blockIdx.y
    tj = cuda.blockIdx.x
    base = ti * s_in[2] + tj * s_in[3]
    for k in range(4):
        r = ty + 8 * k
        p = base + r * s_in[0] + tx * s_in[1]
        tile[r * pitch + tx] = src[p]
        if trace.shape[0] > 1:
            b = ti * cuda.gridDim.x + tj
            trace[b, k, ty * 32 + tx, 0] = p
            trace[b, k, ty * 32 + tx, 2] = r * pitch + tx
    cuda.syncthreads()
    obase = tj * s_out[2] + ti * s_out[3]
    for k in range(4):
        r = ty + 8 * k
        q = obase + r * s_out[0] + tx * s_out[1]
        dst[q] = tile[tx * pitch + r]
        if trace.shape[0] > 1:
            b = ti * cuda.gridDim.x + tj
            trace[b, k, ty * 32 + tx, 1] = q
            trace[b, k, ty * 32 + tx, 3] = tx * pitch + r


def _strides(layout, what):
    shape, stride = layout.shape, layout.stride
    if not (isinstance(shape, tuple) and len(shape) == 2 and not any(isinstance(s, tuple) for s in shape)):
        raise DeviceError(f"{what} must be a rank-2 layout with integer modes (rows, columns); got {layout}")
    return tuple(int(s) for s in shape), tuple(int(d) for d in stride)


def _tile_strides(zipped, what):
    """(r, c, R, C) of a zipped_divide ((32,32),(tiles_r, tiles_c))."""
    shp, std = zipped.shape, zipped.stride
    ok = (isinstance(shp, tuple) and len(shp) == 2 and all(isinstance(s, tuple) and len(s) == 2 for s in shp)
          and tuple(int(x) for x in shp[0]) == (TILE, TILE))
    if not ok:
        raise DeviceError(f"{what} must be zipped_divide(layout, (32, 32)) = ((32,32),(R,C)):(...); got {zipped}")
    return tuple(int(x) for x in (std[0][0], std[0][1], std[1][0], std[1][1]))


def check_args(kind, src, dst, src_layout, dst_layout):
    """Validate before launch; return ``(M, N)``."""
    from labkit.layout import cosize

    if kind not in KINDS:
        raise DeviceError(f"kind must be one of {KINDS}; got {kind!r}")
    (m, n), _ = _strides(src_layout, "src_layout")
    (n2, m2), _ = _strides(dst_layout, "dst_layout")
    if (n2, m2) != (n, m):
        raise DeviceError(f"dst_layout must have shape ({n}, {m}), the transpose of src_layout's; got ({n2}, {m2})")
    if m % TILE or n % TILE:
        raise DeviceError(f"the matrix ({m}, {n}) must be a whole number of 32x32 tiles")
    for name, arr, lay in (("src", src, src_layout), ("dst", dst, dst_layout)):
        dims = getattr(arr, "shape", None)
        if dims is None or len(dims) != 1 or np.dtype(arr.dtype) != np.float32 and np.dtype(arr.dtype) != np.int32:
            raise DeviceError(f"{name} must be a 1-D float32 or int32 array; got {dims} {getattr(arr, 'dtype', None)}")
        if int(cosize(lay)) > dims[0]:
            raise DeviceError(f"{name} holds {dims[0]} elements; its layout needs {cosize(lay)}")
    if np.dtype(src.dtype) != np.dtype(dst.dtype):
        raise DeviceError(f"src and dst must have one dtype; got {src.dtype} and {dst.dtype}")
    return m, n


def launch(kind, src, dst, src_layout, dst_layout, trace=None):
    """Check the operands and return a function that launches ``kind`` once.

    ``trace``: ``None`` or an int64 device/numpy array of shape ``(blocks, 4, 256, 4)``."""
    from labkit.layout import zipped_divide

    m, n = check_args(kind, src, dst, src_layout, dst_layout)
    blocks = (m // TILE) * (n // TILE)
    if trace is None:
        trace = cuda.to_device(np.zeros((1, 1, 1, 4), np.int64))
    elif tuple(trace.shape) != (blocks, STEPS, TILE * ROWS, 4):
        raise DeviceError(f"trace must have shape {(blocks, STEPS, TILE * ROWS, 4)}; got {trace.shape}")
    grid = (n // TILE, m // TILE)
    block = (TILE, ROWS)
    if kind == "naive":
        (_, (ss0, ss1)), (_, (ds0, ds1)) = _strides(src_layout, "src_layout"), _strides(dst_layout, "dst_layout")
        transpose_naive_kernel.check()

        def run():
            transpose_naive_kernel[grid, block](src, dst, ss0, ss1, ds0, ds1, trace)

        return run
    s_in = np.array(_tile_strides(zipped_divide(src_layout, (TILE, TILE)), "src tiles"), np.int64)
    s_out = np.array(_tile_strides(zipped_divide(dst_layout, (TILE, TILE)), "dst tiles"), np.int64)
    pitch = TILE + (kind == "tiled_padded")
    transpose_tiled_kernel.check()
    d_in, d_out = cuda.to_device(s_in), cuda.to_device(s_out)

    def run():
        transpose_tiled_kernel[grid, block](src, dst, d_in, d_out, np.int32(pitch), trace)

    return run
