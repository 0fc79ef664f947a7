"""The bank model of chapter 5 applied to the shared-memory accesses of the GEMM ladder's
kernels (``labkit.cuda.kernels``): the addresses warp 0 touches, and what they cost.

Step 2 (``gemm_smem``) stores its fp32 tiles k-major, ``sA[k, m]``: a 16x16 thread block reads
``sA[k, ty + 16 i]`` and ``sB[k, tx + 16 j]`` (4 + 4 loads per k), and its copy stores 32
consecutive k of one row of A down a column of the transposed tile. Steps 3 and 4 (``gemm_mma``,
``gemm_swizzle``) read their fp16 tiles with ``ldmatrix.x4`` (A: lane ``t`` gives row ``t % 16``,
16-byte chunk ``2 kk + t // 16`` of its 16-row atom; B: row ``t % 8 + 8 (t // 16)``, chunk
``2 kk + (t // 8) % 2`` of its pair of 8-row atoms) and fill them with 16-byte stores (thread
``tid`` stores chunk ``tid % 8`` of row ``tid // 8``), through ``gemm_tensorcore.plain_offset``
or ``swizzled_offset``.

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
        from labkit.cuda.kernels.gemm_smem import TILE as tile
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
    atoms), k-block ``kk`` (16 columns each)."""
    t = np.arange(32)
    if operand == "A":
        rows, chunks = 16 * atom + t % 16, 2 * kk + t // 16
    elif operand == "B":
        rows, chunks = 16 * atom + t % 8 + 8 * (t // 16), 2 * kk + (t // 8) % 2
    else:
        raise LabkitError(f"operand must be 'A' or 'B'; got {operand!r}")
    return np.stack([rows, 8 * chunks], axis=1)


def tensorcore_step_conflicts(config, swizzled: bool) -> dict[str, AccessSummary]:
    """Warp 0 of a tensor-core step with tile ``config`` (``gemm_mma.CONFIG``...), one k-tile:
    ``"ldmatrix"``, its ``ldmatrix.x4`` loads; ``"store"``, the copy's 16-byte stores."""
    from labkit.cuda.kernels import gemm_tensorcore as tc
    offset = tc.swizzled_offset if swizzled else tc.plain_offset
    mi_n, ni_n = config.atoms
    lds = []
    for kk in range(config.bk // 16):
        for operand, n in (("A", mi_n), ("B", ni_n // 2)):
            for atom in range(n):
                rows = ldmatrix_x4_rows(operand, kk, atom)
                lds.append(bank_conflicts([2 * offset(int(r), int(c), config.bk) for r, c in rows], 16))
    per_pass = config.threads // (config.bk // 8)          # rows one pass of the copy covers
    t = np.arange(32)
    stores = [bank_conflicts([2 * offset(int(per_pass * p + i // 8), int(8 * (i % 8)), config.bk) for i in t], 16)
              for rows in (config.bm, config.bn) for p in range(rows // per_pass)]
    return {"ldmatrix": AccessSummary.of(lds), "store": AccessSummary.of(stores)}
