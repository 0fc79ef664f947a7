"""Many warp accesses analysed at once, vectorised with numpy (:func:`bank_conflicts_batch`).

>>> bank_conflicts_batch([[0, 128], [0, 4]], 4).per_access.tolist()
[2, 1]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from labkit.banks.bank_model import (BANK_BYTES, NUM_BANKS, _WavefrontCounts, _analyse, _as_address_array,
                                     _check_access_bytes, _check_geometry)

__all__ = ["BatchConflicts", "bank_conflicts_batch"]


@dataclass(frozen=True)
class BatchConflicts(_WavefrontCounts):
    """Bank analysis of many warp accesses at once (see :func:`bank_conflicts_batch`).

    ``ways`` has shape ``(accesses, phases, banks)``; ``per_access`` gives each
    access's wavefronts; totals and the worst ``degree`` summarise them.

    >>> b = bank_conflicts_batch([[0, 128], [0, 4]], 4)
    >>> b.per_access.tolist(), b.wavefronts, b.degree
    ([2, 1], 3, 2)
    """

    access_bytes: int
    lanes_per_phase: int
    ways: np.ndarray

    @property
    def accesses(self) -> int:
        """Number of warp accesses analysed."""
        return int(self.ways.shape[0])

    @property
    def per_access(self) -> np.ndarray:
        """Wavefronts of each access."""
        return self.ways.max(axis=2).sum(axis=1)

    @property
    def phase_degree(self) -> np.ndarray:
        """``(accesses, phases)`` array of each phase's conflict degree."""
        return self.ways.max(axis=2)

    def __str__(self) -> str:
        return (
            f"{self.accesses} warp accesses of {self.access_bytes} B per lane: {self.wavefronts} wavefronts "
            f"(conflict-free: {self.min_wavefronts}), worst phase "
            + ("conflict-free" if self.conflict_free else f"{self.degree}-way")
        )

    __repr__ = __str__


def bank_conflicts_batch(
    addresses: Any,
    access_bytes: int = 4,
    *,
    num_banks: int = NUM_BANKS,
    bank_bytes: int = BANK_BYTES,
) -> BatchConflicts:
    """Bank conflicts of many warp accesses: ``addresses`` has shape ``(accesses, lanes)``.

    Same rules as :func:`bank_conflicts`, vectorised with numpy.

    >>> import numpy as np
    >>> rows = np.arange(4)[:, None] * 4 + np.arange(32)[None, :] * 128   # four column reads
    >>> bank_conflicts_batch(rows, 4).per_access.tolist()
    [32, 32, 32, 32]
    """
    ab = _check_access_bytes(access_bytes)
    nb, bb = _check_geometry(num_banks, bank_bytes)
    arr, active = _as_address_array(addresses, ab, batch=True)
    ways, _, _, lpp = _analyse(arr, active, ab, nb, bb)
    return BatchConflicts(ab, lpp, ways)
