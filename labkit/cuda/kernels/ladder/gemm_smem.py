"""GEMM ladder, step 2: shared-memory tiles and a 4x4 register tile per thread.

A CTA of 16x16 threads owns a 64x64 tile of C. For each slab of ``BK`` columns of K it
copies the 64xBK pieces of A and B into shared memory (converted to the accumulator type,
stored k-major so a warp reads consecutive words), waits at a barrier, and every thread
multiplies 4 values of A by 4 values of B for each k: 16 multiply-adds per 8 shared loads.
Global traffic drops by the tile width: each element of A is read N/64 times, not N.
Out-of-range rows and columns are filled with zeros, so any M, N, K works.

>>> from labkit.cuda.kernels.ladder import gemm_smem
>>> gemm_smem.TILE
(64, 64, 32)
"""

import functools

from numba import cuda

from labkit.cuda import _numba
from labkit.cuda.program import jit

from labkit.cuda.kernels.ladder.gemm_common import check_operands, grid_2d
from labkit.errors import ConfigError

__all__ = ["STEP", "RULES", "TILE", "check_config", "launch"]

STEP = "smem"
#: (BM, BN, BK): the CTA tile of C and the K slab staged in shared memory
TILE = (64, 64, 32)
RULES = dict(min_sm=53, k_multiple=1, align_bytes=2)


def check_config(config):
    """The tile ``(BM, BN, BK)`` of ``config`` (None: :data:`TILE`): 16x16 threads each own 4 rows
    (so BM = 64) and BN/16 columns of C; each thread copies BM*BK/256 and BN*BK/256 elements.

    >>> check_config((64, 128, 16))
    (64, 128, 16)
    """
    if config is None:
        return TILE
    if (not isinstance(config, tuple) or len(config) != 3
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in config)):
        raise ConfigError(f"config: step 'smem' takes a tile (BM, BN, BK) of positive ints; got {config!r}")
    bm, bn, bk = config
    if bm != 64 or bn % 16 or bk % 4 or (bn * bk) % 256:
        raise ConfigError(f"config: step 'smem' needs BM = 64 (16 thread rows x 4), BN a multiple of 16 and "
                          f"BK a multiple of 4 with BN * BK a multiple of 256 (256 threads copy whole tiles); "
                          f"got {config}")
    if (bm + bn) * bk * 4 > 48 * 1024:
        raise ConfigError(f"config: (BM + BN) * BK * 4 bytes of static shared memory must be at most 48 KB; "
                          f"{config} needs {(bm + bn) * bk * 4}")
    return config


@functools.lru_cache(maxsize=None)
def _kernel(acc, tile=TILE):
    acc_t = _numba.types.float32 if acc == "f32" else _numba.types.float16
    BM, BN, BK = tile
    TX = 16  # threads along N (and along M)
    RM = BM // TX  # 4 rows of C per thread
    RN = BN // TX  # 4 columns of C per thread
    NT = TX * TX
    LOADS_A = BM * BK // NT
    LOADS_B = BN * BK // NT

    @jit(fastmath=False)
    def gemm_smem(A, B, C):
        M = C.shape[0]
        N = C.shape[1]
        K = A.shape[1]
        sA = cuda.shared.array((BK, BM), acc_t)  # sA[k, m]
        sB = cuda.shared.array((BK, BN), acc_t)  # sB[k, n]
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        tid = ty * TX + tx
        n0 = cuda.blockIdx.x * BN
        m0 = cuda.blockIdx.y * BM
        acc = cuda.local.array((RM, RN), acc_t)
        for i in range(RM):
            for j in range(RN):
                acc[i, j] = acc_t(0.0)
        for k0 in range(0, K, BK):
            # consecutive threads read consecutive k of one row: coalesced. B (N x K) is staged
            # exactly as A (M x K) is; the two loops stay written out so the kernel reads as one page
            for r in range(LOADS_A):
                e = tid + r * NT
                row = e // BK
                col = e % BK
                v = acc_t(0.0)
                if m0 + row < M and k0 + col < K:
                    v = acc_t(A[m0 + row, k0 + col])
                sA[col, row] = v
            for r in range(LOADS_B):
                e = tid + r * NT
                row = e // BK
                col = e % BK
                v = acc_t(0.0)
                if n0 + row < N and k0 + col < K:
                    v = acc_t(B[n0 + row, k0 + col])
                sB[col, row] = v
            cuda.syncthreads()
            for k in range(BK):
                a0 = sA[k, ty]
                a1 = sA[k, ty + TX]
                a2 = sA[k, ty + 2 * TX]
                a3 = sA[k, ty + 3 * TX]
                for j in range(RN):
                    b = sB[k, tx + j * TX]
                    acc[0, j] += a0 * b
                    acc[1, j] += a1 * b
                    acc[2, j] += a2 * b
                    acc[3, j] += a3 * b
            cuda.syncthreads()
        for i in range(RM):
            m = m0 + ty + i * TX
            for j in range(RN):
                n = n0 + tx + j * TX
                if m < M and n < N:
                    C[m, n] = acc[i, j]

    return gemm_smem


def launch(A, B, C, acc, sm, config=None):
    """Check the operands and the tile (``config``: ``(BM, BN, BK)``, default :data:`TILE`) and
    return a no-argument function that launches the kernel once."""
    tile = check_config(config)
    M, N, K = check_operands(STEP, A, B, C, acc, sm, **RULES)
    grid = grid_2d(STEP, M, N, tile[0], tile[1])
    kernel = _kernel(acc, tile)[grid, (16, 16)]
    return lambda: kernel(A, B, C)
