"""The TMA tensor maps of step 6: how the Tensor Memory Accelerator sees A and B.

Each map describes a row-major ``(rows, K)`` matrix (fp16, or an 8-bit type as uint8) with boxes
of ``bm`` (``bn``) rows by 128 bytes (64 fp16 or 128 8-bit columns), the 128-byte swizzle (CuTe's ``Swizzle<3,3,3> o (8,64):(64,1)``, which
``gemm_layout.tma_offset`` evaluates) and zeros outside the matrix. On a GPU the driver encodes
them (``cuTensorMapEncodeTiled``, through ``cuda.bindings``); under the simulator a map is a key
into the TMA twin's table (``gemm_ptx.sim_tensor_map``).

>>> BOX_COLUMNS * 2      # bytes of one box row: the 128-byte swizzle's span
128
"""

from __future__ import annotations

import numpy as np
from numba import cuda

from labkit.cuda import ptx
from labkit.cuda.kernels.ladder import gemm_ptx
from labkit.errors import DeviceError

__all__ = ["BOX_COLUMNS", "tensor_maps"]

#: fp16 columns of one TMA box: one 128-byte swizzled row
BOX_COLUMNS = 64


def _encode(X, rows, K, box_rows):
    """The 16 words of the tensor map of a row-major (rows, K) device array of fp16 or uint8."""
    from labkit.cuda import _numba

    drv = _numba.driver_api()

    cai = X.__cuda_array_interface__
    size = np.dtype(cai["typestr"]).itemsize
    kind = {2: drv.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
            1: drv.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_UINT8}[size]
    ptr = int(cai["data"][0])
    err, tmap = drv.cuTensorMapEncodeTiled(
        kind, 2, ptr,
        [drv.cuuint64_t(K), drv.cuuint64_t(rows)], [drv.cuuint64_t(size * K)],
        [drv.cuuint32_t(128 // size), drv.cuuint32_t(box_rows)], [drv.cuuint32_t(1), drv.cuuint32_t(1)],
        drv.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        drv.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B,
        drv.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    if err != drv.CUresult.CUDA_SUCCESS:
        raise DeviceError(f"tensor map: cuTensorMapEncodeTiled failed ({err}) for a ({rows}, {K}) operand")
    return np.array([int(v) for v in tmap.opaque], np.uint64)


def tensor_maps(cfg, A, B, M, N, K, C=None):
    """Device array holding the TMA tensor maps of A (words 0-15) and B (words 16-31) for
    ``cfg``'s boxes of ``bm`` and ``bn`` rows of 128 bytes (``bn / cluster`` for B: each CTA of a
    cluster loads its share of B's rows; the kernel's ``maps`` argument), and
    with ``C`` (16-bit, M x N, 1-D) the map of C (words 32-47) in boxes of 64 rows of 128 bytes
    for a TMA-store epilogue."""
    if ptx.SIMULATED:
        cols = 128 // np.dtype(A.dtype).itemsize             # one 128-byte swizzled row
        words = [gemm_ptx.sim_tensor_map(A, M, K, cfg.bm, cols),
                 gemm_ptx.sim_tensor_map(B, N, K, cfg.bn, cols)]
    else:
        words = [_encode(A, M, K, cfg.bm), _encode(B, N, K, cfg.bn // getattr(cfg, "cluster", 1))]
        if C is not None:
            words.append(_encode(C, M, N, 64))
    return cuda.to_device(np.concatenate(words))
