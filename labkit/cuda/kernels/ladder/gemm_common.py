"""What every step of the GEMM ladder shares: operand checks, launch helpers, the reference.

The ladder computes ``C = A @ B.T`` for fp16 ``A`` (M, K) and ``B`` (N, K), both K-major
(row-major, the "TN" case of BLAS and CuTe's ``gemm_tn``). ``acc`` picks the accumulator:
``"f32"`` (C is float32) or ``"f16"`` (C is float16, as in CuTe's
``SM80_16x8x16_F16F16F16F16_TN``).

>>> import numpy as np
>>> A = np.ones((4, 8), np.float16); B = np.ones((3, 8), np.float16)
>>> ref = reference(A, B); ref.shape, float(ref[0, 0])
((4, 3), 8.0)
>>> relative_error(ref.astype(np.float32), ref)
0.0
"""

import math

import numpy as np

from labkit.cuda.kernels.ladder.gemm_config import check_sm
from labkit.errors import DeviceError

__all__ = [
    "ACCUMULATORS",
    "simulated",
    "check_operands",
    "output_dtype",
    "reference",
    "relative_error",
    "tolerance",
    "random_operands",
    "set_dynamic_shared",
    "ceil_div",
    "grid_2d",
]

#: accumulator name -> dtype of C
ACCUMULATORS = {"f32": np.float32, "f16": np.float16}

_INT32_MAX = 2**31 - 1


def ceil_div(a, b):
    """Number of ``b``-sized tiles that cover ``a``.

    >>> ceil_div(129, 128)
    2
    """
    return -(-a // b)


def grid_2d(step, M, N, tile_m, tile_n):
    """``(blocks over N, blocks over M)`` for ``tile_m x tile_n`` tiles of C; the grid's y
    extent is at most 65535, so M is limited (:class:`DeviceError` past it).

    >>> grid_2d("naive", 100, 40, 16, 16)
    (3, 7)
    """
    grid = (ceil_div(N, tile_n), ceil_div(M, tile_m))
    if grid[1] > 65535:
        raise DeviceError(f"M: step {step!r} supports M <= {65535 * tile_m}, got M={M}")
    return grid


def simulated():
    """True when numba's CUDA simulator stands in for a GPU (``NUMBA_ENABLE_CUDASIM=1``)."""
    from labkit.cuda import ptx

    return ptx.SIMULATED


def output_dtype(acc):
    """dtype of C for accumulator ``acc`` ("f32" -> float32, "f16" -> float16)."""
    if acc not in ACCUMULATORS:
        raise DeviceError(f"acc: must be one of {sorted(ACCUMULATORS)}, got {acc!r}")
    return np.dtype(ACCUMULATORS[acc])


def _describe(x, name):
    """(shape, dtype, strides in bytes, data pointer or None) of a host or device array."""
    cai = getattr(x, "__cuda_array_interface__", None)
    if cai is not None:
        shape = tuple(cai["shape"])
        dtype = np.dtype(cai["typestr"])
        strides = cai.get("strides")
        if strides is None:  # C-contiguous by the interface's rule
            strides = tuple(
                int(np.prod(shape[i + 1:], dtype=np.int64)) * dtype.itemsize
                for i in range(len(shape))
            )
        return shape, dtype, tuple(strides), int(cai["data"][0])
    if all(hasattr(x, a) for a in ("shape", "dtype", "strides")):
        # numpy arrays (copied to the device before a launch) and the simulator's arrays
        return tuple(x.shape), np.dtype(x.dtype), tuple(x.strides), None
    raise DeviceError(
        f"{name}: must be a numpy array or a device array "
        f"(__cuda_array_interface__), got {type(x).__name__}"
    )


def check_operands(step, A, B, C, acc, sm, *, min_sm, k_multiple=1, align_bytes=2, ab_dtype=np.float16,
                   c_dtype=None):
    """Check A, B, C and the GPU for ``step`` before a launch; return ``(M, N, K)``.

    Rules: A is (M, K) and B is (N, K), both float16 (``ab_dtype``; fp8 operands travel as uint8)
    and row-major (K-major); C is (M, N), row-major, float32 for ``acc="f32"`` and float16 for
    ``acc="f16"`` unless ``c_dtype`` says otherwise (bf16 travels as uint16), or None;
    M, N, K >= 1 and every operand under 2**31 elements (the kernels index in int32);
    ``K % k_multiple == 0`` (steps that copy 16 bytes at a time need ``k_multiple=8``,
    so every row starts on a 16-byte boundary); device pointers aligned to ``align_bytes``;
    the GPU's SM version ``sm >= min_sm`` (ints: 75 for sm_75).

    >>> import numpy as np
    >>> A = np.zeros((64, 40), np.float16); B = np.zeros((32, 40), np.float16)
    >>> check_operands("naive", A, B, None, "f32", 90, min_sm=53)
    (64, 32, 40)
    >>> try:
    ...     check_operands("mma", A, B, None, "f32", 90, min_sm=75, k_multiple=16)
    ... except DeviceError as e:
    ...     print(e)
    K: step 'mma' needs K to be a multiple of 16, got K=40
    """
    sm = check_sm(sm)
    out_dtype = output_dtype(acc) if c_dtype is None else np.dtype(c_dtype)
    ab_dtype = np.dtype(ab_dtype)
    a_shape, a_dtype, a_strides, a_ptr = _describe(A, "A")
    b_shape, b_dtype, b_strides, b_ptr = _describe(B, "B")
    for name, shape, dtype in (("A", a_shape, a_dtype), ("B", b_shape, b_dtype)):
        if len(shape) != 2:
            raise DeviceError(f"{name}: must be 2-D, got shape {shape}")
        if dtype != ab_dtype:
            raise DeviceError(f"{name}: must be {ab_dtype}, got {dtype}")
    (M, K), (N, KB) = a_shape, b_shape
    if KB != K:
        raise DeviceError(
            f"B: must be (N, K) with the K of A (TN: C = A @ B.T); A is {a_shape}, B is {b_shape}"
        )
    for name, v in (("M", M), ("N", N), ("K", K)):
        if v < 1:
            raise DeviceError(f"{name}: must be >= 1, got {name}={v}")
    for name, strides in (("A", a_strides), ("B", b_strides)):
        e = ab_dtype.itemsize
        if tuple(strides) != (K * e, e):
            raise DeviceError(
                f"{name}: must be row-major (K-major, strides ({K * e}, {e}) bytes), got strides {strides}"
            )
    for name, count in (("A", M * K), ("B", N * K), ("C", M * N)):
        if count > _INT32_MAX:
            raise DeviceError(f"{name}: {count} elements is over the int32 index range (2**31 - 1)")
    if C is not None:
        c_shape, c_got, c_strides, c_ptr = _describe(C, "C")
        if tuple(c_shape) != (M, N):
            raise DeviceError(f"C: must be (M, N) = ({M}, {N}), got shape {tuple(c_shape)}")
        if c_got != out_dtype:
            who = f"acc={acc!r}" if c_dtype is None else f"step {step!r} with this configuration"
            raise DeviceError(f"C: {who} writes {out_dtype}, got a {c_got} array")
        if tuple(c_strides) != (N * c_got.itemsize, c_got.itemsize):
            raise DeviceError(f"C: must be row-major, got strides {c_strides}")
        pointers = (("A", a_ptr), ("B", b_ptr), ("C", c_ptr))
    else:
        pointers = (("A", a_ptr), ("B", b_ptr))
    if K % k_multiple:
        raise DeviceError(
            f"K: step {step!r} needs K to be a multiple of {k_multiple}, got K={K}"
        )
    for name, ptr in pointers:
        if ptr is not None and ptr % align_bytes:
            raise DeviceError(
                f"{name}: step {step!r} needs its data pointer aligned to {align_bytes} bytes, "
                f"got address {ptr:#x}"
            )
    if sm < min_sm:
        raise DeviceError(f"sm: step {step!r} needs sm_{min_sm} or newer, this GPU is sm_{sm}")
    return M, N, K


def reference(A, B):
    """``A @ B.T`` in float64: the answer every step is checked against."""
    return np.asarray(A, np.float64) @ np.asarray(B, np.float64).T


def relative_error(C, ref):
    """Relative Frobenius error ``||C - ref|| / ||ref||`` (NaN or Inf anywhere gives inf)."""
    C = np.asarray(C, np.float64)
    if not np.all(np.isfinite(C)):
        return math.inf
    denom = np.linalg.norm(ref)
    return float(np.linalg.norm(C - ref) / (denom if denom else 1.0))


def tolerance(acc, K):
    """Largest relative Frobenius error accepted for accumulator ``acc`` and depth ``K``.

    A rounding model, not a measurement. Products of fp16 values are exact in both
    accumulators. f16 (u = 2**-11): each addition rounds a partial sum of size ~sqrt(k) to
    nearest, so for random zero-mean inputs the error grows like ``u * sqrt(K / 6)``; the
    bound allows three times that plus the rounding of C. f32 (u = 2**-24): the tensor
    cores align the terms of each MMA to the largest exponent and drop the bits below, a
    rounding that does not cancel on average, so the bound grows linearly, ``u * K / 8``.
    A lost k-tile of 64 columns at K = 4096 already gives an error of about 0.12.

    >>> round(tolerance("f16", 4096), 4)
    0.0392
    >>> tolerance("f32", 4096) == 2.0**-24 * 514
    True
    """
    if acc == "f16":
        return 2.0**-11 * (2.0 + 3.0 * math.sqrt(K / 6.0))
    return 2.0**-24 * (2.0 + K / 8.0)


def random_operands(M, N, K, seed=None):
    """Fresh fp16 A (M, K) and B (N, K), uniform in [-1, 1] (never zeros)."""
    rng = np.random.default_rng(seed)
    A = rng.uniform(-1.0, 1.0, (M, K)).astype(np.float16)
    B = rng.uniform(-1.0, 1.0, (N, K)).astype(np.float16)
    return A, B


def set_dynamic_shared(dispatcher, nbytes):
    """Let every compiled kernel of ``dispatcher`` take ``nbytes`` of dynamic shared memory.

    A kernel gets more than 48 KB of dynamic shared memory only after its
    ``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`` is raised (``cuKernelSetAttribute``).
    The preferred carveout is set to all-shared, so as many CTAs as the shared memory
    allows stay resident on a multiprocessor. The simulator has no such limits.
    The handle comes through numba-cuda's public API: each compiled overload's ``library``
    property and its ``get_cufunc()`` (numba-cuda 0.30.4 has no launch option for the
    attribute itself); the driver through labkit's numba boundary (``labkit.cuda._numba``).
    """
    if simulated():
        return
    from numba import cuda

    from labkit.cuda import _numba

    dev = cuda.get_current_device()
    limit = dev.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    if nbytes > limit:
        raise DeviceError(
            f"shared memory: the kernel needs {nbytes} bytes per block, this GPU allows {limit}"
        )
    if nbytes > 48 * 1024:
        _numba.kernel_set_attribute(dispatcher, "MAX_DYNAMIC_SHARED_SIZE_BYTES", nbytes, dev.id)
    _numba.kernel_set_attribute(dispatcher, "PREFERRED_SHARED_MEMORY_CARVEOUT", 100, dev.id)
