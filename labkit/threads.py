"""How many threads issue an instruction together: the one home of ``WARP`` and ``WARPGROUP``.

>>> WARP, WARPGROUP, WARPGROUP // WARP
(32, 128, 4)
"""

__all__ = ["WARP", "WARPGROUP"]

WARP = 32
"""Threads of a warp: the threads that issue ``mma.sync``, ``ldmatrix`` and one memory request."""

WARPGROUP = 128
"""Threads of a warpgroup: four consecutive warps, the first one's index a multiple of 4; the
threads that issue one ``wgmma.mma_async``."""
