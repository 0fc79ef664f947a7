"""GEMM ladder, step 1: one thread per element of C.

Thread (m, n) walks the whole K axis, reading row m of A and row n of B from global memory
and accumulating in a scalar. Every element of A is read N times and every element of B
M times: the kernel moves ``2*M*N*K`` fp16 values for ``2*M*N*K`` flops, so memory traffic,
not arithmetic, sets its speed.

>>> from labkit.cuda.kernels.ladder import gemm_naive
>>> gemm_naive.RULES["min_sm"]
53
"""

import functools

from numba import cuda

from labkit.cuda import _numba
from labkit.cuda.program import jit

from labkit.cuda.kernels.ladder.gemm_common import check_operands, grid_2d
from labkit.errors import ConfigError

__all__ = ["STEP", "RULES", "BLOCK", "check_config", "launch"]

STEP = "naive"
#: 16x16 threads, one element of C each
BLOCK = (16, 16)
#: any M, N, K; fp16 arithmetic needs sm_53
RULES = dict(min_sm=53, k_multiple=1, align_bytes=2)


@functools.lru_cache(maxsize=None)
def _kernel(acc):
    acc_t = _numba.types.float32 if acc == "f32" else _numba.types.float16

    @jit(fastmath=False)
    def gemm_naive(A, B, C):
        n = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
        m = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y
        if m < C.shape[0] and n < C.shape[1]:
            s = acc_t(0.0)
            for k in range(A.shape[1]):
                s += acc_t(A[m, k]) * acc_t(B[n, k])
            C[m, n] = s

    return gemm_naive


def check_config(config):
    """The thread block ``(x, y)`` of ``config`` (None: :data:`BLOCK`); x threads walk N, y walk M.

    >>> check_config((32, 8))
    (32, 8)
    """
    if config is None:
        return BLOCK
    if (not isinstance(config, tuple) or len(config) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in config)):
        raise ConfigError(f"config: step 'naive' takes a thread block (x, y) of positive ints; got {config!r}")
    if config[0] * config[1] > 1024:
        raise ConfigError(f"config: a block has at most 1024 threads; (x, y) = {config} has {config[0] * config[1]}")
    return config


def launch(A, B, C, acc, sm, config=None):
    """Check the operands and the block (``config``: ``(x, y)`` threads, default :data:`BLOCK`) and
    return a no-argument function that launches the kernel once."""
    block = check_config(config)
    M, N, K = check_operands(STEP, A, B, C, acc, sm, **RULES)
    grid = grid_2d(STEP, M, N, block[1], block[0])
    kernel = _kernel(acc)[grid, block]
    return lambda: kernel(A, B, C)
