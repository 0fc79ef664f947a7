"""The bank model of chapter 5 applied to the shared-memory accesses of the GEMM ladder's
kernels (``labkit.cuda.kernels``): the addresses warp 0 touches, and what they cost.

Step 2 (``gemm_smem``) stores its fp32 tiles k-major, ``sA[k, m]``: a 16x16 thread block reads
``sA[k, ty + 16 i]`` and ``sB[k, tx + 16 j]`` (4 + 4 loads per k), and its copy stores 32
consecutive k of one row of A down a column of the transposed tile. Steps 3 and 4 (``gemm_mma``,
``gemm_swizzle``) read their fp16 tiles with ``ldmatrix.x4``, each lane giving the row the
kernels give it (``gemm_layout.ldmatrix_lanes``, from the registry's ldmatrix and the MMA atom's
TV layouts), and fill them with 16-byte stores (thread ``tid`` stores chunk ``tid % (bk/8)`` of
row ``tid // (bk/8)``), through ``gemm_layout.plain_offset`` or ``swizzled_offset``.

>>> s = smem_step_conflicts()
>>> s["store"].wavefronts, s["store"].worst_degree            # 32 words in one bank
(32, 32)
>>> smem_step_conflicts(pad=1)["store"].wavefronts           # rows of 65 words
1
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from labkit.banks import bank_conflicts
from labkit.errors import LabkitError

__all__ = ["AccessSummary", "smem_step_conflicts", "ldmatrix_x4_rows", "tensorcore_step_conflicts"]


@dataclass(frozen=True)
class AccessSummary:
    """``count`` warp accesses of one kind and their total cost in wavefronts."""

    count: int
    wavefronts: int
    min_wavefronts: int
    worst_degree: int

    @classmethod
    def of(cls, results) -> "AccessSummary":
        results = list(results)
        return cls(len(results), sum(r.wavefronts for r in results), sum(r.min_wavefronts for r in results),
                   max(r.degree for r in results))


def smem_step_conflicts(tile=None, *, pad: int = 0, k: int = 0, row: int = 0) -> dict[str, AccessSummary]:
    """Warp 0 of step 2: ``"loads"``, the 8 fp32 loads of one k of the inner loop; ``"store"``, one
    store of the transposed copy into rows of ``BM + pad`` words (``tile`` = ``(BM, BN, BK)``,
    by default ``gemm_smem.TILE``)."""
    if tile is None:
        from labkit.cuda.kernels.ladder.gemm_smem import TILE as tile
    bm, bn, _ = (int(v) for v in tile)
    if not isinstance(pad, (int, np.integer)) or pad < 0:
        raise LabkitError(f"pad must be an int >= 0 (extra fp32 words per row); got {pad!r}")
    lane = np.arange(32)
    tx, ty = lane % 16, lane // 16
    loads = [bank_conflicts(4 * (k * bm + ty + 16 * i), 4) for i in range(4)]
    loads += [bank_conflicts(4 * (k * bn + tx + 16 * j), 4) for j in range(4)]
    store = bank_conflicts(4 * (lane * (bm + pad) + row), 4)
    return {"loads": AccessSummary.of(loads), "store": AccessSummary.of([store])}


def ldmatrix_x4_rows(operand: str, kk: int, atom: int = 0) -> np.ndarray:
    """``(32, 2)`` (row, first column) each lane addresses for one ``ldmatrix.x4`` of the
    tensor-core steps: operand ``"A"`` (16-row atom ``atom``) or ``"B"`` (pair ``atom`` of 8-row
    atoms), k-block ``kk`` (16 columns each).

    >>> ldmatrix_x4_rows("B", 1)[[0, 8, 16]].tolist()    # lanes 0, 8, 16: k 16, k 24, rows 8 on
    [[0, 16], [0, 24], [8, 16]]
    """
    from labkit.cuda.kernels.ladder.gemm_layout import ldmatrix_lanes

    if operand not in ("A", "B"):
        raise LabkitError(f"operand must be 'A' or 'B'; got {operand!r}")
    rows, cols = ldmatrix_lanes(operand)
    t = np.arange(32)
    mode = np.stack([t % 8, (t // 8) % 2, t // 16], axis=1)      # the lane as (8,2,2)
    return np.stack([16 * atom + mode @ np.array(rows), 16 * kk + mode @ np.array(cols)], axis=1)


def tensorcore_step_conflicts(config, swizzled: bool) -> dict[str, AccessSummary]:
    """Warp 0 of a tensor-core step with tile ``config`` (``gemm_mma.CONFIG``...), one k-tile:
    ``"ldmatrix"``, its ``ldmatrix.x4`` loads; ``"store"``, the copy's 16-byte stores."""
    from labkit.cuda.kernels.ladder.gemm_layout import plain_offset, swizzled_offset

    offset = swizzled_offset if swizzled else plain_offset
    mi_n, ni_n = config.atoms
    lds = []
    for kk in range(config.bk // 16):
        for operand, n in (("A", mi_n), ("B", ni_n // 2)):
            for atom in range(n):
                rows = ldmatrix_x4_rows(operand, kk, atom)
                lds.append(bank_conflicts([2 * offset(int(r), int(c), config.bk) for r, c in rows], 16))
    chunks = config.bk // 8                                 # 16-byte chunks of a row
    per_pass = config.threads // chunks                     # rows one pass of the copy covers
    t = np.arange(32)
    stores = [bank_conflicts([2 * offset(int(per_pass * p + i // chunks), int(8 * (i % chunks)), config.bk)
                              for i in t], 16)
              for rows in (config.bm, config.bn) for p in range(rows // per_pass)]
    return {"ldmatrix": AccessSummary.of(lds), "store": AccessSummary.of(stores)}
