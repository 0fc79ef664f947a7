"""Step 7 with block scales: fp8 operands scaled per 1 x 128 block of A and per 128 x 128 block of B
(the recipe fp8 training uses), applied to the accumulators after each k-tile.

A k-tile of an 8-bit configuration is 128 of K, one scale block. The consumer multiplies it into a
fresh partial accumulator (the first ``wgmma`` of the k-tile with ``scale-d`` 0), waits for it
(``wgmma.wait_group 0``: the partial must be read before the next k-tile overwrites it), frees the
stage, and adds ``partial x scale_a(row) x scale_b(block)`` to its f32 total: 64 fused
multiply-adds a thread a k-tile on the CUDA cores, and a wait that keeps a warpgroup's next
``wgmma`` from overlapping this one's. Each thread applies two rows' scales (its D fragment holds
rows ``16 w + lane / 4`` and that + 8) and one scale of B (a tile of 128 columns is one B block).

>>> from labkit.cuda.kernels.ladder.gemm_wgmma_config import CONFIGS
>>> cfg = CONFIGS["128x128x128s6-e4m3-bs"]
>>> cfg.block_scales, cfg.bn, cfg.bk
(True, 128, 128)
"""

from __future__ import annotations

import numpy as np

from labkit.cuda.kernels.ladder.gemm_statements import NO_INSTRUCTION
from labkit.errors import DeviceError

__all__ = ["rows", "load", "promote", "arguments"]

FENCE_OPERAND = "wgmma_fence_operand"


def rows(w):
    """Block scales: the two rows of A whose scales this thread applies (its D rows; a row past M
    reads the last row's scales, its results are never stored) and the tile's 128-column block of B."""
    with w.concept("tCrC"):
        w.code("rr = int32(m0 + 64 * c + 16 * warp + lane // 4)")
        w.code("ra0 = int32(min(rr, M - 1) * ktiles)")
        w.code("ra1 = int32(min(rr + 8, M - 1) * ktiles)")
        w.code("nb = int32((n0 // 128) * ktiles)")


def load(w):
    """The k-tile's three scales, read while its wgmmas run (before the wait): their latency from
    L2 then overlaps the tensor cores' work instead of following it."""
    with w.concept("axpby"):
        w.comment("this k-tile's scales, loaded while its wgmmas run")
        w.code("sbv = scale_b[nb + kt]")
        w.code("s0 = scale_a[ra0 + kt] * sbv")
        w.code("s1 = scale_a[ra1 + kt] * sbv")


def promote(w, R):
    """Block scales, after a k-tile's wgmmas (128 of K: one scale block): wait for them, free the
    stage, and add the partial products times scale_a(row) * scale_b(block) to the f32 total."""
    with w.concept("tCrC"):
        w.code(f"part = {FENCE_OPERAND}(part)", call=FENCE_OPERAND, op=NO_INSTRUCTION)
    with w.concept("mbarrier"), w.block("if t == 0:"):
        w.code("mbarrier_arrive(empty0 + 8 * stage)", call="mbarrier_arrive")
    with w.concept("axpby"):
        w.comment("scale promotion: D fragment value 4j, 4j+1 in row rr, 4j+2, 4j+3 in row rr + 8")
        # a tuple of R sums, built 16 at a time (numba reads a long tuple display as a list)
        parts = [", ".join(f"total[{i}] + part[{i}] * s{(i % 4) // 2}" for i in range(j, min(j + 16, R)))
                 for j in range(0, R, 16)]
        w.code("total = " + " + ".join(f"({p},)" for p in parts))


def arguments(cfg, scales, M, N, K):
    """The block scales as kernel arguments (flattened), checked: shapes, float32, a device array."""
    if not cfg.block_scales:
        if scales is not None:
            raise DeviceError("scales: this configuration has no block scales (block_scales=False)")
        return ()
    if not isinstance(scales, tuple) or len(scales) != 2:
        raise DeviceError("scales: a block-scaled configuration needs scales=(scale_a, scale_b)")
    kb = -(-K // 128)
    out = []
    for name, x, rows in (("scale_a", scales[0], M), ("scale_b", scales[1], -(-N // 128))):
        cai = getattr(x, "__cuda_array_interface__", None)
        if cai is None:
            raise DeviceError(f"scales: {name} must be a device array (numba or torch), got {type(x).__name__}")
        if np.dtype(cai["typestr"]) != np.float32 or tuple(cai["shape"]) != (rows, kb) or cai.get("strides"):
            raise DeviceError(f"scales: {name} must be a contiguous float32 ({rows}, {kb}) array (one scale a "
                              f"{'row' if name == 'scale_a' else '128 rows'} and 128 of K); got "
                              f"{np.dtype(cai['typestr'])} {tuple(cai['shape'])}")
        out.append(x.reshape(rows * kb) if hasattr(x, "reshape") else x)
    return tuple(out)
