"""GEMM ladder, step 3: ``ldmatrix`` + ``mma.sync`` on row-major shared memory.

A CTA of 2x2 warps owns a 64x64 tile of C; each warp owns one 32x32 warp tile, a 2x4 grid
of 16x8 MMA atoms whose accumulators stay in registers for the whole K loop. Per 64-wide
k-tile the CTA copies A and B into shared memory with 16-byte loads and stores, then each
warp, per 16-deep k-block, loads its A fragments (two ``ldmatrix.x4``: a 16x16 block each)
and B fragments (two ``ldmatrix.x4``: two 8x16 blocks each) and issues 8 ``mma.sync``.
On sm_80+ the MMA is m16n8k16; on sm_75 each is two m16n8k8.

The tiles are stored row-major, 64 halves (128 bytes) a row, so the eight rows one
ldmatrix phase reads all start in the same bank group: every ldmatrix costs 8 times
the shared-memory wavefronts it needs. Step 4 removes exactly that.

>>> from labkit.cuda.kernels.ladder import gemm_mma
>>> gemm_mma.CONFIG.swizzle, gemm_mma.CONFIG.warp_tile, gemm_mma.CONFIG.stages
(False, (32, 32), 1)
"""

from labkit.cuda.kernels.ladder.gemm_config import TileConfig
from labkit.cuda.kernels.ladder.gemm_launch import RULES, step_functions

__all__ = ["STEP", "CONFIG", "RULES", "launch", "statements", "source", "kernel_config"]

STEP = "mma"
CONFIG = TileConfig(bm=64, bn=64, bk=64, warps_m=2, warps_n=2, stages=1, swizzle=False,
                    double_buffer=False, group_m=1)


statements, source, launch, kernel_config = step_functions(STEP, "gemm_mma", CONFIG)
