"""A predicated tiled copy of a ragged matrix: one block per 128x128 tile, every thread copying
the elements a :class:`labkit.TiledCopy` gives it, and skipping those outside the matrix.

The matrix is 16-bit (halves, copied as raw ``uint16``) with the layout ``(M,N):(s0,s1)``. The
block's tile is ``(bm, bn)`` = ``(blockIdx.x, blockIdx.y)``; the grid is ``ceil_div(M, 128)`` by
``ceil_div(N, 128)``. ``coords[t, v]`` is the ``(m, n)`` coordinate inside the tile of value ``v``
of thread ``t`` (the host takes it from the tiled copy's partition of an identity tensor), so
the kernel's addresses come from labkit's layouts. A value is copied only when its global
coordinate ``(bm*128 + m, bn*128 + n)`` is inside ``(M, N)``, CuTe's ``elem_less``.

Two kinds:

- ``"scalar"``: one 2-byte load and one 2-byte store per value (``UniversalCopy`` of a half);
- ``"vector"``: one value is 8 halves down a column: a 16-byte ``ld.global.v4.u32``
  (predicated, :func:`labkit.cuda.kernels.ladder.gemm_ptx.ld_global_v4`) and four 4-byte stores. It
  needs the column mode contiguous (``s0 == 1``), ``M`` a multiple of 8 and ``s1`` a multiple of
  8, so that every vector starts on a 16-byte boundary and lies wholly inside or outside.

``trace`` (the simulator's witness; a 1-element array switches it off) gets, for every
``(block, thread, value)``, the element offset the thread read, or -1 where the value was masked.

>>> import numpy as np
>>> from labkit.cuda.kernels.experiments import exp_predicated_copy as k
>>> try:
...     k.check_args("vector", np.zeros(1001 * 8, np.uint16), np.zeros(1001 * 8, np.uint16),
...                  (1001, 8), (1, 1001), np.zeros((256, 8, 2), np.int32))
... except Exception as e:
...     print(e)
vector: M (1001) must be a multiple of 8: a 16-byte vector of 8 halves is copied or masked as a whole
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from labkit.cuda.kernels.ladder.gemm_ptx import ld_global_v4
from labkit.cuda.program import jit
from labkit.errors import DeviceError

__all__ = ["TILE", "THREADS", "KINDS", "VECTOR", "check_args", "launch"]

TILE = (128, 128)
"""The block's tile ``(rows, columns)``."""
THREADS = 256
"""Threads per block."""
KINDS = ("scalar", "vector")
VECTOR = 8
"""Halves per 16-byte vector."""


@jit
def predicated_copy_scalar(src, dst, m, n, s0, s1, coords, trace):
    t = cuda.threadIdx.x
    b = cuda.blockIdx.y * cuda.gridDim.x + cuda.blockIdx.x
    m0 = cuda.blockIdx.x * 128
    n0 = cuda.blockIdx.y * 128
    for v in range(coords.shape[1]):
        i = m0 + coords[t, v, 0]
        j = n0 + coords[t, v, 1]
        if i < m and j < n:
            off = i * s0 + j * s1
            dst[off] = src[off]
            if trace.size > 1:
                trace[b, t, v] = off


# The two kernels share their predicate on purpose: they differ only in what one value is (a half,
# or a 16-byte vector), and each reads as the copy it is.
@jit
def predicated_copy_vector(src, dst32, m, n, s0, s1, coords, trace):
    t = cuda.threadIdx.x
    b = cuda.blockIdx.y * cuda.gridDim.x + cuda.blockIdx.x
    m0 = cuda.blockIdx.x * 128
    n0 = cuda.blockIdx.y * 128
    for v in range(coords.shape[1]):
        i = m0 + coords[t, v, 0]
        j = n0 + coords[t, v, 1]
        ok = i < m and j < n
        off = i * s0 + j * s1 if ok else 0        # a masked vector reads nothing, at a valid address
        w0, w1, w2, w3 = ld_global_v4(src, off, ok)
        if ok:
            w = off // 2
            dst32[w] = w0
            dst32[w + 1] = w1
            dst32[w + 2] = w2
            dst32[w + 3] = w3
            if trace.size > 1:
                trace[b, t, v] = off


def _int(v, name):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise DeviceError(f"{name} must be an integer; got {v!r}")
    return int(v)


def _pair(v, name):
    if not (isinstance(v, tuple) and len(v) == 2):
        raise DeviceError(f"{name} must be a pair of integers; got {v!r}")
    return tuple(_int(x, name) for x in v)


def _address(a):
    """The data pointer of a device or host array (None when unknown)."""
    iface = getattr(a, "__cuda_array_interface__", None) or getattr(a, "__array_interface__", None)
    return None if iface is None else iface["data"][0]


def check_args(kind, src, dst, shape, stride, coords):
    """Validate a launch before it runs. ``shape`` ``(M, N)``, ``stride`` ``(s0, s1)`` (elements,
    non-negative), ``src``/``dst`` 1-D 2-byte arrays holding every offset the layout reaches,
    ``coords`` an int32 ``(256, V, 2)`` array of tile coordinates inside ``[0, 128)``; for
    ``"vector"`` also the 16-byte alignment rules. Returns ``(M, N, s0, s1)``."""
    if kind not in KINDS:
        raise DeviceError(f"kind must be one of {KINDS}; got {kind!r}")
    m, n = _pair(shape, "shape")
    s0, s1 = _pair(stride, "stride")
    if m <= 0 or n <= 0:
        raise DeviceError(f"shape must be positive; got {shape}")
    if s0 < 0 or s1 < 0:
        raise DeviceError(f"stride must be >= 0; got {stride}")
    last = (m - 1) * s0 + (n - 1) * s1
    if last >= 2 ** 31:
        raise DeviceError(f"the layout reaches offset {last}; this kernel indexes with 32-bit offsets")
    for name, a in (("src", src), ("dst", dst)):
        dims, dtype = getattr(a, "shape", None), getattr(a, "dtype", None)
        if dims is None or len(dims) != 1 or dtype is None or np.dtype(dtype).itemsize != 2:
            raise DeviceError(f"{name} must be a 1-D array of 2-byte elements (halves); got shape {dims}, dtype {dtype}")
        if last >= dims[0]:
            raise DeviceError(f"{name} holds {dims[0]} elements but the layout reaches offset {last}")
    c = coords
    if getattr(c, "dtype", None) != np.int32 or getattr(c, "shape", (0,))[:1] != (THREADS,) or \
            len(c.shape) != 3 or c.shape[2] != 2:
        raise DeviceError(f"coords must be an int32 array of shape ({THREADS}, values, 2); got "
                          f"{getattr(c, 'shape', None)} {getattr(c, 'dtype', None)}")
    host = c.copy_to_host() if hasattr(c, "copy_to_host") else np.asarray(c)
    if host.min() < 0 or host.max() >= TILE[0]:
        raise DeviceError("coords must lie inside the 128x128 tile")
    if kind == "vector":
        if s0 != 1:
            raise DeviceError(f"vector: the column mode must be contiguous (s0 == 1); got s0 = {s0}")
        if m % VECTOR:
            raise DeviceError(f"vector: M ({m}) must be a multiple of 8: a 16-byte vector of 8 halves "
                              "is copied or masked as a whole")
        if s1 % VECTOR:
            raise DeviceError(f"vector: the column stride ({s1}) must be a multiple of 8: every column "
                              "must start on a 16-byte boundary")
        if np.any(host[:, :, 0] % VECTOR):
            raise DeviceError("vector: every value's row coordinate must be a multiple of 8")
        for name, a in (("src", src), ("dst", dst)):
            p = _address(a)
            if p is not None and p % 16:
                raise DeviceError(f"vector: {name} must start on a 16-byte boundary; it starts at {p:#x}")
    return m, n, s0, s1


def grid(shape):
    """Blocks per dimension: ``(ceil_div(M, 128), ceil_div(N, 128))``."""
    m, n = _pair(shape, "shape")
    return (-(-m // TILE[0]), -(-n // TILE[1]))


def launch(kind, src, dst, shape, stride, coords, trace=None):
    """Check the operands (device arrays) and return a function that launches once."""
    m, n, s0, s1 = check_args(kind, src, dst, shape, stride, coords)
    g = grid((m, n))
    if trace is None:
        trace = cuda.to_device(np.zeros((1, 1, 1), np.int64))   # the same 3-D type: one compiled kernel
    elif getattr(trace, "shape", None) != (g[0] * g[1], THREADS, coords.shape[1]):
        raise DeviceError(f"trace must have shape {(g[0] * g[1], THREADS, coords.shape[1])}; got "
                          f"{getattr(trace, 'shape', None)}")
    kernel = predicated_copy_scalar if kind == "scalar" else predicated_copy_vector
    kernel.check()
    out = dst if kind == "scalar" else dst.view(np.uint32)
    args = (np.int64(m), np.int64(n), np.int64(s0), np.int64(s1))

    def run():
        kernel[g, THREADS](src, out, *args, coords, trace)

    return run
