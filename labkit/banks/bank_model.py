"""The bank model: which bank serves a byte, how a warp access splits into phases, and what a
single access costs in wavefronts (:func:`bank_conflicts`).

>>> r = bank_conflicts([128 * lane for lane in range(8)], 16)
>>> (r.wavefronts, r.degree)
(8, 8)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from labkit.errors import LayoutError
from ..threads import WARP

__all__ = ["NUM_BANKS", "BANK_BYTES", "ACCESS_BYTES", "bank_of", "slot_of", "lanes_per_phase",
           "BankConflicts", "bank_conflicts"]

"""Lanes in a warp."""
NUM_BANKS = 32
"""Shared-memory banks."""
BANK_BYTES = 4
"""Width of one bank in bytes (one 32-bit word per bank per wavefront)."""
ACCESS_BYTES = (1, 2, 4, 8, 16)
"""Access widths a lane can issue (``ld.shared.{u8,u16,u32,v2.u32,v4.u32}``)."""


# ----------------------------------------------------------------------------
# argument checks


def _check_int(value: Any, name: str, rule: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise LayoutError(f"{name} must be an integer ({rule}); got {value!r}")
    return int(value)


def _check_geometry(num_banks: Any, bank_bytes: Any) -> tuple[int, int]:
    nb = _check_int(num_banks, "num_banks", "a positive bank count")
    bb = _check_int(bank_bytes, "bank_bytes", "a power of two")
    if nb < 1:
        raise LayoutError(f"num_banks must be positive; got {nb}")
    if bb < 1 or bb & (bb - 1):
        raise LayoutError(f"bank_bytes must be a power of two (1, 2, 4, 8, ...); got {bb}")
    return nb, bb


def _check_access_bytes(access_bytes: Any) -> int:
    ab = _check_int(access_bytes, "access_bytes", f"one of {ACCESS_BYTES}")
    if ab not in ACCESS_BYTES:
        raise LayoutError(f"access_bytes must be one of {ACCESS_BYTES}; got {ab}")
    return ab


def _as_address_array(addresses: Any, access_bytes: int, batch: bool) -> tuple[np.ndarray, np.ndarray]:
    """Addresses as an int64 array ``(accesses, lanes)`` plus an activity mask.

    ``None`` marks an inactive lane (it issues nothing).
    """
    what = "addresses"
    if isinstance(addresses, np.ndarray) and addresses.dtype != object:
        arr = addresses
        if arr.dtype.kind == "f":
            if not np.all(np.isfinite(arr)) or not np.all(arr == np.floor(arr)):
                raise LayoutError(f"{what} must be whole byte addresses; got non-integers")
            arr = arr.astype(np.int64)
        elif arr.dtype.kind not in "iu":
            raise LayoutError(f"{what} must hold integer byte addresses; got dtype {arr.dtype}")
        arr = arr.astype(np.int64)
        active = np.ones(arr.shape, dtype=bool)
    else:
        try:
            rows = [list(a) for a in addresses] if batch else [list(addresses)]
        except TypeError:
            kind = "a sequence of per-lane sequences" if batch else "a sequence with one address per lane"
            raise LayoutError(f"{what} must be {kind}; got {addresses!r}") from None
        width = {len(r) for r in rows}
        if len(width) > 1:
            raise LayoutError(f"{what}: every access must list the same number of lanes; got {sorted(width)}")
        n_lanes = width.pop() if width else 0
        arr = np.zeros((len(rows), n_lanes), dtype=np.int64)
        active = np.ones((len(rows), n_lanes), dtype=bool)
        for i, row in enumerate(rows):
            for lane, a in enumerate(row):
                if a is None:
                    active[i, lane] = False
                    continue
                if isinstance(a, (float, np.floating)) and float(a).is_integer():
                    a = int(a)
                arr[i, lane] = _check_int(a, f"{what}[lane {lane}]", "a byte address")
    if not batch and arr.ndim == 1:
        arr = arr[None, :]
        active = active.reshape(arr.shape)
    if arr.ndim != 2:
        shape = "(lanes,)" if not batch else "(accesses, lanes)"
        raise LayoutError(f"{what} must have shape {shape}; got shape {arr.shape}")
    n_lanes = arr.shape[1]
    if n_lanes == 0 or n_lanes > WARP:
        raise LayoutError(f"{what}: a warp access has 1 to {WARP} lanes; got {n_lanes}")
    if arr.shape[0] == 0:
        raise LayoutError(f"{what}: need at least one access")
    if not np.all(active.any(axis=1)):
        raise LayoutError(f"{what}: every access needs at least one active lane (None marks an inactive lane)")
    bad = active & (arr < 0)
    if bad.any():
        i, lane = np.argwhere(bad)[0]
        raise LayoutError(f"{what}[lane {lane}] = {arr[i, lane]} is negative; shared-memory addresses are >= 0")
    bad = active & (arr % access_bytes != 0)
    if bad.any():
        i, lane = np.argwhere(bad)[0]
        raise LayoutError(
            f"{what}[lane {lane}] = {arr[i, lane]} is not aligned to access_bytes={access_bytes}; "
            f"an access of n bytes must start at a multiple of n"
        )
    return arr, active


# ----------------------------------------------------------------------------
# the model


def bank_of(address: Any, num_banks: int = NUM_BANKS, bank_bytes: int = BANK_BYTES) -> Any:
    """Bank holding byte ``address``: ``(address // bank_bytes) % num_banks``.

    Works on ints and on numpy arrays.

    >>> bank_of(0), bank_of(4), bank_of(128), bank_of(132)
    (0, 1, 0, 1)
    >>> bank_of(12, num_banks=8)
    3
    """
    nb, bb = _check_geometry(num_banks, bank_bytes)
    if isinstance(address, np.ndarray):
        if address.dtype.kind not in "iu":
            raise LayoutError(f"address must hold integers; got dtype {address.dtype}")
        if (address < 0).any():
            raise LayoutError("address must be >= 0")
        return (address // bb) % nb
    a = _check_int(address, "address", "a byte address")
    if a < 0:
        raise LayoutError(f"address must be >= 0; got {a}")
    return (a // bb) % nb


def slot_of(address: Any, access_bytes: int = 16, num_banks: int = NUM_BANKS, bank_bytes: int = BANK_BYTES) -> Any:
    """Which aligned ``access_bytes``-wide slot of a bank row (``num_banks * bank_bytes`` bytes)
    holds byte ``address``: its bank, ``access_bytes // bank_bytes`` banks to a slot. A phase of
    16-byte accesses (8 lanes) is one wavefront when its 8 addresses fill the 8 slots once each.

    Works on ints and on numpy arrays.

    >>> slot_of(0), slot_of(16), slot_of(31), slot_of(128 + 48)
    (0, 1, 1, 3)
    >>> slot_of(12, access_bytes=8)
    1
    """
    ab = _check_access_bytes(access_bytes)
    nb, bb = _check_geometry(num_banks, bank_bytes)
    return bank_of(address, nb, bb) // max(1, ab // bb)


def lanes_per_phase(access_bytes: int, num_banks: int = NUM_BANKS, bank_bytes: int = BANK_BYTES) -> int:
    """How many lanes share one phase: ``min(32, num_banks*bank_bytes // max(access_bytes, bank_bytes))``.

    >>> [lanes_per_phase(b) for b in (1, 2, 4, 8, 16)]
    [32, 32, 32, 16, 8]
    >>> lanes_per_phase(4, num_banks=8)
    8
    """
    ab = _check_access_bytes(access_bytes)
    nb, bb = _check_geometry(num_banks, bank_bytes)
    return max(1, min(WARP, (nb * bb) // max(ab, bb)))


def _analyse(arr: np.ndarray, active: np.ndarray, ab: int, nb: int, bb: int):
    """Core of the model, vectorised over accesses.

    Returns (ways[access, phase, bank], words[access, lane, k], banks[...], lpp).
    ``ways`` counts distinct words each bank delivers in each phase.
    """
    n_acc, n_lanes = arr.shape
    lpp = lanes_per_phase(ab, nb, bb)
    n_phases = -(-n_lanes // lpp)
    # words touched by each lane: an access of ab bytes covers ceil(ab / bb) words
    # when aligned (ab >= bb), or lies inside one word (ab < bb, aligned).
    wpl = max(1, ab // bb)
    words = (arr // bb)[:, :, None] + np.arange(wpl, dtype=np.int64)[None, None, :]
    banks = words % nb
    phase = (np.arange(n_lanes) // lpp)[None, :, None]
    group = (np.arange(n_acc, dtype=np.int64)[:, None, None] * n_phases + phase) * nb + banks
    mask = np.broadcast_to(active[:, :, None], words.shape)
    g = group[mask]
    w = words[mask]
    # distinct (group, word) pairs, then count per group
    pairs = np.unique(np.stack([g, w], axis=1), axis=0)
    counts = np.bincount(pairs[:, 0], minlength=n_acc * n_phases * nb)
    ways = counts.reshape(n_acc, n_phases, nb)
    return ways, words, banks, lpp


class _WavefrontCounts:
    """Totals shared by one access and a batch; ``ways[..., phase, bank]`` counts the distinct
    words each bank serves in each phase."""

    ways: np.ndarray

    @property
    def wavefronts(self) -> int:
        """Total wavefronts: the busiest bank's count, summed over phases (and accesses)."""
        return int(self.ways.max(axis=-1).sum())

    @property
    def min_wavefronts(self) -> int:
        """Wavefronts without conflicts: the phases with an active lane."""
        return int((self.ways.max(axis=-1) > 0).sum())

    @property
    def degree(self) -> int:
        """Worst phase's conflict degree: 1 is conflict-free, n is n-way."""
        return int(self.ways.max())

    @property
    def conflict_free(self) -> bool:
        """True when no phase needs more than one wavefront."""
        return self.degree <= 1


@dataclass(frozen=True)
class BankConflicts(_WavefrontCounts):
    """Bank analysis of one warp access (see :func:`bank_conflicts`).

    Attributes: ``addresses`` (per lane, ``None`` = inactive), ``access_bytes``,
    ``lanes_per_phase``, ``ways`` (``(phases, banks)`` array: distinct words
    each bank serves in each phase), ``table`` (per phase, ``{bank: ((lane,
    word_address), ...)}``), ``wavefronts``, ``min_wavefronts`` (phases with an
    active lane: the count without conflicts) and ``degree``.

    >>> r = bank_conflicts([0, 4, 8, 12], 4)
    >>> r.table[0][2]
    ((2, 8),)
    >>> r.conflict_free
    True
    """

    addresses: tuple
    access_bytes: int
    num_banks: int
    bank_bytes: int
    lanes_per_phase: int
    ways: np.ndarray
    table: tuple

    @property
    def phases(self) -> int:
        """Number of phases the lanes are split into."""
        return int(self.ways.shape[0])

    @property
    def phase_wavefronts(self) -> tuple:
        """Wavefronts each phase costs (its busiest bank's distinct words)."""
        return tuple(int(x) for x in self.ways.max(axis=1))

    def __str__(self) -> str:
        n_active = sum(a is not None for a in self.addresses)
        head = (
            f"{n_active} lanes x {self.access_bytes} B, {self.num_banks} banks of {self.bank_bytes} B: "
            f"{self.phases} phase(s) of {self.lanes_per_phase} lanes, {self.wavefronts} wavefront(s) "
            f"(conflict-free: {self.min_wavefronts}), "
            + ("no bank conflict" if self.conflict_free else f"{self.degree}-way bank conflict")
        )
        lines = [head]
        width = max(3, len(str(len(self.addresses) - 1)) + 2)
        for p, hits in enumerate(self.table):
            lo = p * self.lanes_per_phase
            hi = min(len(self.addresses), lo + self.lanes_per_phase) - 1
            depth = int(self.ways[p].max())
            lines.append(f"phase {p} (lanes {lo}-{hi}): {depth} wavefront(s)")
            if depth == 0:
                continue
            lines.append("  bank " + "".join(f"{b:>{width}}" for b in range(self.num_banks)))
            for level in range(depth):
                cells = []
                for b in range(self.num_banks):
                    entries = hits.get(b, ())
                    words = sorted({w for _, w in entries})
                    if level < len(words):
                        lanes = [ln for ln, w in entries if w == words[level]]
                        cell = str(lanes[0]) + ("+" if len(lanes) > 1 else "")
                    else:
                        cell = "."
                    cells.append(f"{cell:>{width}}")
                lines.append(f"  wf {level:<2}" + "".join(cells))
        lines.append("(cells: lowest lane reading that bank's word in that wavefront; + = broadcast to more lanes)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"BankConflicts(lanes={len(self.addresses)}, access_bytes={self.access_bytes}, "
            f"wavefronts={self.wavefronts}, degree={self.degree})"
        )


def bank_conflicts(
    addresses: Sequence[Any],
    access_bytes: int = 4,
    *,
    num_banks: int = NUM_BANKS,
    bank_bytes: int = BANK_BYTES,
) -> BankConflicts:
    """Bank conflicts of one warp access: lane ``i`` reads ``access_bytes`` at ``addresses[i]``.

    ``addresses`` lists byte addresses, one per lane (at most 32; ``None`` marks
    an inactive lane). Each must be ``>= 0`` and a multiple of ``access_bytes``.

    >>> bank_conflicts([4 * lane for lane in range(32)], 4).wavefronts    # consecutive words
    1
    >>> bank_conflicts([128 * lane for lane in range(32)], 4).degree      # one column of a 32-float row-major tile
    32
    >>> bank_conflicts([0] * 32, 4).degree                                # one address: broadcast
    1
    >>> r = bank_conflicts([16 * lane for lane in range(32)], 16)         # 512 contiguous bytes, 16 B per lane
    >>> (r.phases, r.wavefronts, r.degree)
    (4, 4, 1)
    """
    ab = _check_access_bytes(access_bytes)
    nb, bb = _check_geometry(num_banks, bank_bytes)
    arr, active = _as_address_array(addresses, ab, batch=False)
    ways, words, banks, lpp = _analyse(arr, active, ab, nb, bb)
    ways = ways[0]
    table = []
    n_lanes = arr.shape[1]
    for p in range(ways.shape[0]):
        hits: dict[int, list] = {}
        for lane in range(p * lpp, min(n_lanes, (p + 1) * lpp)):
            if not active[0, lane]:
                continue
            for k in range(words.shape[2]):
                hits.setdefault(int(banks[0, lane, k]), []).append((lane, int(words[0, lane, k]) * bb))
        table.append({b: tuple(v) for b, v in sorted(hits.items())})
    addrs = tuple(int(a) if ok else None for a, ok in zip(arr[0], active[0]))
    return BankConflicts(addrs, ab, nb, bb, lpp, ways, tuple(table))
