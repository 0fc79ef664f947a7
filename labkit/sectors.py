"""Global-memory sectors: how many 32-byte pieces of memory a warp's request touches.

A load or store of a warp reaches the memory system as the set of *sectors* its active lanes
touch: aligned 32-byte pieces of global memory (an L1/L2 cache line of 128 bytes holds four).
The cost of a request grows with that count, not with the bytes the lanes asked for. Thirty-two
lanes reading 32 consecutive 4-byte words, starting at a 32-byte boundary, touch 4 sectors (128
bytes, all of them used); the same lanes reading one word from each of 32 rows of a row-major
matrix touch 32 sectors, of which they use 4 bytes each (an eighth).

>>> sector_count([4 * lane for lane in range(32)], 4).per_request.tolist()        # one row: coalesced
[4]
>>> sector_count([4 * 1024 * lane for lane in range(32)], 4).per_request.tolist() # one column
[32]
>>> sector_count([4 + 4 * lane for lane in range(32)], 4).per_request.tolist()    # off a boundary by 4 B
[5]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from labkit.errors import LayoutError

__all__ = ["SECTOR_BYTES", "SectorCount", "sector_count", "sectors_of"]

SECTOR_BYTES = 32
"""Bytes in one sector of global memory (the unit the L1 and L2 caches move)."""

_WIDTHS = (1, 2, 4, 8, 16)


def sectors_of(address, access_bytes: int = 4) -> np.ndarray:
    """Index of the first sector each access touches (``address // 32``); an aligned access
    of at most 16 bytes never straddles two sectors.

    >>> sectors_of([0, 28, 32, 100]).tolist()
    [0, 0, 1, 3]
    """
    ab = _check_width(access_bytes)
    a = _check_addresses(address, ab)
    return a // SECTOR_BYTES


@dataclass(frozen=True)
class SectorCount:
    """The sectors of many warp requests (see :func:`sector_count`).

    ``per_request``: sectors each request touches; ``requested_bytes``: bytes each asked for
    (active lanes x access width); ``distinct``: different sectors over all requests (what
    memory must deliver at least once if nothing is evicted).
    """

    access_bytes: int
    per_request: np.ndarray
    requested_bytes: np.ndarray
    distinct: int

    @property
    def requests(self) -> int:
        return int(self.per_request.size)

    @property
    def sectors(self) -> int:
        """Sectors summed over all requests."""
        return int(self.per_request.sum())

    @property
    def mean_per_request(self) -> float:
        return float(self.per_request.mean())

    @property
    def efficiency(self) -> float:
        """Requested bytes over the bytes of the sectors touched (1.0: every byte used)."""
        return float(self.requested_bytes.sum()) / (SECTOR_BYTES * self.sectors)

    def __str__(self) -> str:
        return (f"{self.requests} request(s) of {self.access_bytes} B per lane: {self.mean_per_request:g} "
                f"sectors per request, {self.distinct} distinct sectors, {100 * self.efficiency:.1f}% of the "
                "bytes moved are used")


def sector_count(addresses, access_bytes: int = 4) -> SectorCount:
    """Sectors touched by warp requests: ``addresses`` is ``(lanes,)`` for one request or
    ``(requests, lanes)`` byte addresses (aligned to ``access_bytes``; a negative address marks
    an inactive lane).

    >>> import numpy as np
    >>> rows = np.arange(4)[:, None] * 4096 + 4 * np.arange(32)        # four rows of a matrix
    >>> c = sector_count(rows, 4)
    >>> c.per_request.tolist(), c.distinct, c.efficiency
    ([4, 4, 4, 4], 16, 1.0)
    """
    ab = _check_width(access_bytes)
    arr = np.asarray(addresses)
    if arr.dtype.kind not in "iu":
        raise LayoutError(f"addresses must be integer byte addresses; got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] == 0 or arr.shape[1] > 32 or arr.shape[0] == 0:
        raise LayoutError(f"addresses must have shape (lanes,) or (requests, lanes) with 1 to 32 lanes; got {arr.shape}")
    active = arr >= 0
    if (active & (arr % ab != 0)).any():
        bad = arr[active & (arr % ab != 0)][0]
        raise LayoutError(f"addresses: {bad} is not aligned to access_bytes={ab}")
    sec = np.where(active, arr // SECTOR_BYTES, -1)
    srt = np.sort(sec, axis=1)
    new = np.ones_like(srt, dtype=bool)
    new[:, 1:] = srt[:, 1:] != srt[:, :-1]
    per = (new & (srt >= 0)).sum(axis=1)
    distinct = int(np.unique(sec[active]).size)
    return SectorCount(ab, per, active.sum(axis=1) * ab, distinct)


def _check_width(access_bytes) -> int:
    if isinstance(access_bytes, bool) or not isinstance(access_bytes, (int, np.integer)) or access_bytes not in _WIDTHS:
        raise LayoutError(f"access_bytes must be one of {_WIDTHS}; got {access_bytes!r}")
    return int(access_bytes)


def _check_addresses(address, ab) -> np.ndarray:
    a = np.asarray(address)
    if a.dtype.kind not in "iu":
        raise LayoutError(f"address must hold integer byte addresses; got dtype {a.dtype}")
    a = a.astype(np.int64)
    if (a < 0).any():
        raise LayoutError("address must be >= 0")
    if (a % ab).any():
        raise LayoutError(f"address must be aligned to access_bytes={ab}")
    return a
