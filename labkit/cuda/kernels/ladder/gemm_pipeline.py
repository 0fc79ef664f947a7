"""GEMM ladder, step 5: a cp.async pipeline, 64x64 warp tiles, double-buffered fragments.

What changes from step 4:

- k-tiles flow through a ring of shared-memory stages filled by ``cp.async.ca`` (16 bytes
  a thread, allocating in L1 as CUTLASS's ``SM80_CP_ASYNC_CACHEALWAYS`` does; the L1-bypassing
  ``cp.async.cg`` left the same kernel at 40% of this speed, bound by L2 throughput): while
  the warps multiply k-tile ``kt``, the copies of k-tiles ``kt+1 .. kt+stages-1`` are in
  flight, and one barrier per k-tile suffices;
- each warp owns a 64x64 warp tile (4x8 atoms, 32 ``mma.sync`` per k-block for 8
  ``ldmatrix.x4``), twice the arithmetic per shared-memory byte of step 4;
- the fragments of k-block ``kk+1`` are loaded before the MMAs of ``kk`` run;
- CTAs are rastered in groups of ``group_m`` tile rows so CTAs resident together reuse
  the same A and B tiles from L2;
- more than 48 KB of dynamic shared memory (``cuKernelSetAttribute``).

On sm_75 (no cp.async) the same tiles run with plain 16-byte loads and one stage.

>>> from labkit.cuda.kernels.ladder import gemm_pipeline
>>> cfg = gemm_pipeline.CONFIGS[gemm_pipeline.DEFAULT]
>>> cfg.warp_tile, cfg.stages, cfg.cache, cfg.smem_bytes(90) // 1024
((64, 64), 3, 'ca', 96)
"""

from labkit.cuda.kernels.ladder.gemm_config import TileConfig
from labkit.cuda.kernels.ladder.gemm_launch import RULES, step_functions

__all__ = ["STEP", "CONFIGS", "DEFAULT", "SIMULATOR", "RULES", "launch", "statements", "source",
           "kernel_config"]

STEP = "pipeline"
#: named configurations (the bench can time several; ``DEFAULT`` is the ladder's step 5)
CONFIGS = {
    # CUTLASS sgemm_sm80's shape: 128x128x64, 2x2 warps, 3 stages (96 KB, 2 CTAs per SM),
    # copies through L1 (cp.async.ca): the ladder's step 5
    "128x128x64s3ca": TileConfig(bm=128, bn=128, bk=64, warps_m=2, warps_n=2, stages=3, cache="ca"),
    "256x128x64s3ca": TileConfig(bm=256, bn=128, bk=64, warps_m=4, warps_n=2, stages=3, cache="ca"),
    # the same and other shapes with L1-bypassing copies (cp.async.cg)
    "128x128x64s3": TileConfig(bm=128, bn=128, bk=64, warps_m=2, warps_n=2, stages=3),
    "128x128x32s4": TileConfig(bm=128, bn=128, bk=32, warps_m=2, warps_n=2, stages=4),
    "128x256x64s3": TileConfig(bm=128, bn=256, bk=64, warps_m=2, warps_n=4, stages=3),
    "256x128x64s3": TileConfig(bm=256, bn=128, bk=64, warps_m=4, warps_n=2, stages=3),
    "128x256x32s4": TileConfig(bm=128, bn=256, bk=32, warps_m=2, warps_n=4, stages=4),
    "128x128x64s4": TileConfig(bm=128, bn=128, bk=64, warps_m=2, warps_n=2, stages=4),
    "128x128x64s3g32": TileConfig(bm=128, bn=128, bk=64, warps_m=2, warps_n=2, stages=3, group_m=32),
    # eight warps of 64x64 in one CTA (one CTA per SM), cp.async.ca
    "256x128x64s4ca": TileConfig(bm=256, bn=128, bk=64, warps_m=4, warps_n=2, stages=4, cache="ca"),
    "128x256x64s3ca": TileConfig(bm=128, bn=256, bk=64, warps_m=2, warps_n=4, stages=3, cache="ca"),
    "256x128x32s4ca": TileConfig(bm=256, bn=128, bk=32, warps_m=4, warps_n=2, stages=4, cache="ca"),
    "128x128x32s4ca": TileConfig(bm=128, bn=128, bk=32, warps_m=2, warps_n=2, stages=4, cache="ca"),
    # one warp of 32x32: the same code at a size numba's CUDA simulator runs in seconds
    "32x32x32s3ca": TileConfig(bm=32, bn=32, bk=32, warps_m=1, warps_n=1, stages=3, group_m=2, cache="ca"),
}
DEFAULT = "128x128x64s3ca"
#: the configuration lab 7 and the tests run under the CUDA simulator (one warp, 32x32x32, 3 stages)
SIMULATOR = "32x32x32s3ca"


statements, source, launch, kernel_config = step_functions(STEP, "gemm_pipeline", CONFIGS, DEFAULT)
