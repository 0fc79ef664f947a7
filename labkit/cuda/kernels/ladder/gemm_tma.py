"""GEMM ladder, step 6: the Tensor Memory Accelerator fills shared memory (sm_90).

Step 5 spends most of its shared-memory bandwidth twice: every k-tile is copied by all
threads with ``cp.async.ca``, each 16-byte chunk first allocated in L1 and then written to
shared memory, beside the ``ldmatrix`` reads the MMAs need. On an H200 the L1/shared data
path is what runs out first (``ncu``: L1 throughput 78 % while the tensor pipe is at 63 %).

Here one thread asks Hopper's copy engine for each whole A and B tile
(``cp.async.bulk.tensor.2d``, through a tensor map made on the host): the box lands in
shared memory already swizzled (the 128-byte TMA swizzle, CuTe's ``Swizzle<3,3,3> o
(8,64):(64,1)``, which keeps ``ldmatrix`` conflict-free), with no per-thread copy
instructions and no trip through L1; an mbarrier per stage counts the bytes in, and every
thread waits on its phase before reading. Tiles past the edges of A and B arrive as zeros,
so the kernel needs no clamping. The MMA side is step 5's: ldmatrix + mma.sync, 64x64 warp
tiles, fragments double-buffered. The default tile is 256x128 with 8 warps and 4 stages
(one CTA of 193 KB per SM).

Needs sm_90 (TMA and mbarrier transaction counts); older GPUs are refused before launch.

>>> from labkit.cuda.kernels.ladder import gemm_tma
>>> cfg = gemm_tma.CONFIGS[gemm_tma.DEFAULT]
>>> cfg.loader, (cfg.bm, cfg.bn, cfg.bk), cfg.stages, cfg.threads
('tma', (256, 128, 64), 4, 256)
"""

from labkit.cuda.kernels.ladder.gemm_config import TileConfig
from labkit.cuda.kernels.ladder.gemm_launch import RULES as _TENSOR_CORE_RULES
from labkit.cuda.kernels.ladder.gemm_launch import step_functions

__all__ = ["STEP", "CONFIGS", "DEFAULT", "SIMULATOR", "RULES", "launch", "statements", "source",
           "kernel_config"]

STEP = "tma"
CONFIGS = {
    "256x128x64s4": TileConfig(bm=256, bn=128, bk=64, warps_m=4, warps_n=2, stages=4, loader="tma"),
    "128x256x64s4": TileConfig(bm=128, bn=256, bk=64, warps_m=2, warps_n=4, stages=4, loader="tma"),
    "256x128x64s3": TileConfig(bm=256, bn=128, bk=64, warps_m=4, warps_n=2, stages=3, loader="tma"),
    "128x128x64s3": TileConfig(bm=128, bn=128, bk=64, warps_m=2, warps_n=2, stages=3, loader="tma"),
    "256x128x64s4g16": TileConfig(bm=256, bn=128, bk=64, warps_m=4, warps_n=2, stages=4, loader="tma",
                                  group_m=16),
    # one warp of 32x32: the same code at a size numba's CUDA simulator runs in seconds
    "32x32x64s3": TileConfig(bm=32, bn=32, bk=64, warps_m=1, warps_n=1, stages=3, group_m=2, loader="tma"),
}
DEFAULT = "256x128x64s4"
#: the configuration lab 7 and the tests run under the CUDA simulator (one warp, 32x32x64, 3 stages)
SIMULATOR = "32x32x64s3"
#: sm_90 (TMA); K % 8 == 0 (the tensor map's row pitch is a multiple of 16 bytes); 16-byte pointers
RULES = dict(_TENSOR_CORE_RULES, min_sm=90)


statements, source, launch, kernel_config = step_functions(STEP, "gemm_tma", CONFIGS, DEFAULT,
                                                            default_sm=90, loader="tma")
