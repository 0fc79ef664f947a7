"""Shared-memory banks, wavefronts and bank conflicts.

Shared memory is modelled as ``num_banks`` banks (32 on every NVIDIA GPU since
Fermi) of ``bank_bytes`` bytes (4): the byte at address ``a`` lives in bank
``(a // 4) % 32``. A warp instruction is served in *phases*: groups of lanes
whose requests together cover at most one full row of banks (128 bytes), so
4-byte accesses put all 32 lanes in one phase, 8-byte accesses 16 lanes and
16-byte accesses 8 lanes. Inside a phase, lanes that touch the same 4-byte word
share it (broadcast); lanes that touch *different* words of the same bank are
served one after another. A phase therefore costs as many wavefronts as the
largest number of distinct words any one bank must deliver, and a warp access
costs the sum over its phases. ``degree`` is the worst phase's count: 1 means
conflict-free, ``n`` means an ``n``-way bank conflict.

Seed 001 ("swizzle, banks and wavefronts") teaches this model; "wavefront" is
Nsight Compute's name for one such pass over the banks.

``ldmatrix`` (PTX ``ldmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16``) reads
8x8 matrices whose rows are 16 contiguous bytes; each lane of a group of 8
supplies one row address, so each matrix is one 8-lane phase of 16-byte reads.

>>> r = bank_conflicts([128 * lane for lane in range(8)], 16)
>>> (r.wavefronts, r.degree)
(8, 8)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from labkit.errors import LayoutError

__all__ = [
    "bank_of",
    "lanes_per_phase",
    "BankConflicts",
    "BatchConflicts",
    "bank_conflicts",
    "bank_conflicts_batch",
    "layout_offsets",
    "access_addresses",
    "access_conflicts",
    "ldmatrix_rows",
    "ldmatrix_phases",
    "ldmatrix_conflicts",
    "ldmatrix_tile_conflicts",
]

WARP_SIZE = 32
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
    if n_lanes == 0 or n_lanes > WARP_SIZE:
        raise LayoutError(f"{what}: a warp access has 1 to {WARP_SIZE} lanes; got {n_lanes}")
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


def lanes_per_phase(access_bytes: int, num_banks: int = NUM_BANKS, bank_bytes: int = BANK_BYTES) -> int:
    """How many lanes share one phase: ``min(32, num_banks*bank_bytes // max(access_bytes, bank_bytes))``.

    >>> [lanes_per_phase(b) for b in (1, 2, 4, 8, 16)]
    [32, 32, 32, 16, 8]
    >>> lanes_per_phase(4, num_banks=8)
    8
    """
    ab = _check_access_bytes(access_bytes)
    nb, bb = _check_geometry(num_banks, bank_bytes)
    return max(1, min(WARP_SIZE, (nb * bb) // max(ab, bb)))


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


@dataclass(frozen=True)
class BankConflicts:
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

    @property
    def wavefronts(self) -> int:
        """Total wavefronts of the access (sum over phases)."""
        return int(self.ways.max(axis=1).sum())

    @property
    def min_wavefronts(self) -> int:
        """Wavefronts the same access would need with no conflict."""
        return int((self.ways.max(axis=1) > 0).sum())

    @property
    def degree(self) -> int:
        """Worst phase's conflict degree: 1 is conflict-free, n is n-way."""
        return int(self.ways.max())

    @property
    def conflict_free(self) -> bool:
        """True when no phase needs more than one wavefront."""
        return self.degree <= 1

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


@dataclass(frozen=True)
class BatchConflicts:
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

    @property
    def wavefronts(self) -> int:
        """Total wavefronts over all accesses."""
        return int(self.per_access.sum())

    @property
    def min_wavefronts(self) -> int:
        """Total wavefronts without conflicts."""
        return int((self.ways.max(axis=2) > 0).sum())

    @property
    def degree(self) -> int:
        """Worst conflict degree over all phases of all accesses."""
        return int(self.ways.max())

    @property
    def conflict_free(self) -> bool:
        """True when every phase of every access is one wavefront."""
        return self.degree <= 1

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


# ----------------------------------------------------------------------------
# layouts: thread -> coordinate -> offset -> byte address


def _check_layout(layout: Any) -> Any:
    if not (hasattr(layout, "offsets") and hasattr(layout, "shape")):
        raise LayoutError(
            f"layout must be a labkit Layout or ComposedLayout (e.g. a swizzled atom); got {layout!r}"
        )
    return layout


def _mode_sizes(layout: Any) -> tuple[int, ...]:
    from labkit.layout import product

    shp = layout.shape
    if not isinstance(shp, tuple):
        return (int(shp),)
    return tuple(int(product(s)) for s in shp)


def _has_nested_tuple(coords: Any) -> bool:
    """True for a list of hierarchical coordinates such as ``[((1, 2), 3)]``."""
    if isinstance(coords, np.ndarray) or not isinstance(coords, (list, tuple)):
        return False
    return any(isinstance(c, tuple) and any(isinstance(x, tuple) for x in c) for c in coords)


def _flat_index(layout: Any, coords: Any, what: str = "coords") -> np.ndarray:
    """Colexicographic flat indices of ``coords`` (see :func:`layout_offsets`)."""
    sizes = _mode_sizes(layout)
    total = int(np.prod(sizes))
    if hasattr(coords, "offsets") and hasattr(coords, "shape") and not isinstance(coords, np.ndarray):
        idx = np.asarray(coords.offsets(), dtype=np.int64)  # a pattern layout: lane -> flat index
    else:
        arr = None
        if not _has_nested_tuple(coords):
            try:
                arr = np.asarray(coords)
            except ValueError:
                arr = None
        if arr is None or arr.dtype == object:
            # nested (hierarchical) coordinates: convert one by one through the compact
            # colexicographic layout of the same shape, which checks every mode's range
            from labkit.layout import make_layout
            from labkit.layout.layout import check_in_domain

            colex = make_layout(layout.shape)
            flat = []
            for c in coords:
                try:
                    check_in_domain(c, layout.shape)
                    flat.append(int(colex(c)))
                except LayoutError as e:
                    raise LayoutError(f"{what}: {e}") from None
            return np.asarray(flat, dtype=np.int64)
        if arr.dtype.kind not in "iu":
            raise LayoutError(f"{what} must hold integer coordinates; got {arr.dtype} values")
        arr = arr.astype(np.int64)
        if arr.ndim >= 2 and len(sizes) > 1:
            if arr.shape[-1] != len(sizes):
                raise LayoutError(
                    f"{what}: each coordinate needs one entry per mode (rank {len(sizes)}); "
                    f"got {arr.shape[-1]} entries"
                )
            for k, n in enumerate(sizes):
                bad = (arr[..., k] < 0) | (arr[..., k] >= n)
                if bad.any():
                    v = arr[..., k][bad].ravel()[0]
                    raise LayoutError(f"{what}: mode {k} coordinate {v} is out of range [0, {n})")
            mult = np.cumprod((1,) + sizes[:-1])
            idx = (arr * mult).sum(axis=-1)
        else:
            idx = arr
    bad = (idx < 0) | (idx >= total)
    if bad.any():
        raise LayoutError(f"{what}: flat index {idx[bad].ravel()[0]} is out of range [0, {total})")
    return idx


def layout_offsets(layout: Any, coords: Any = None) -> np.ndarray:
    """Offsets (in elements) of ``layout`` at ``coords``, vectorised with numpy.

    ``layout`` is a Layout or a swizzled ComposedLayout. ``coords`` is ``None``
    (every flat index, colexicographic order as ``L(i)``), an integer array of
    flat indices, an integer array whose last axis holds one coordinate per
    top-level mode (``(..., rank)``), a list of nested coordinate tuples, or a
    pattern Layout mapping lane to flat index.

    >>> import labkit as lk
    >>> L = lk.make_layout((8, 8), (8, 1))
    >>> layout_offsets(L, [(0, 3), (1, 3), (2, 3)]).tolist()
    [3, 11, 19]
    >>> sw = lk.composition(lk.Swizzle(3, 0, 3), L)
    >>> layout_offsets(sw, [(0, 3), (1, 3), (2, 3)]).tolist()
    [3, 10, 17]
    """
    _check_layout(layout)
    table = np.asarray(layout.offsets(), dtype=np.int64)
    if coords is None:
        return table
    return table[_flat_index(layout, coords)]


def _check_elem_bytes(elem_bytes: Any) -> int:
    eb = _check_int(elem_bytes, "elem_bytes", "bytes per element: 1, 2, 4, 8 or 16")
    if eb not in ACCESS_BYTES:
        raise LayoutError(f"elem_bytes must be one of {ACCESS_BYTES} (bytes per element); got {eb}")
    return eb


def _vector_addresses(layout, coords, eb: int, vector: int, along: int, what: str) -> np.ndarray:
    """Byte addresses of ``vector``-element accesses starting at ``coords``; checks contiguity."""
    table = np.asarray(layout.offsets(), dtype=np.int64)
    sizes = _mode_sizes(layout)
    if not -len(sizes) <= along < len(sizes):
        raise LayoutError(f"along={along} is not a mode of a rank-{len(sizes)} layout")
    along %= len(sizes)
    idx = _flat_index(layout, coords, what)
    offs = table[idx]
    if vector > 1:
        stride = int(np.prod(sizes[:along]))
        coord_along = (idx // stride) % sizes[along]
        if (coord_along + vector > sizes[along]).any():
            bad = np.argwhere((coord_along + vector > sizes[along]).ravel())[0][0]
            raise LayoutError(
                f"{what}[{bad}]: a {vector}-element access along mode {along} runs past its extent {sizes[along]}"
            )
        steps = idx[..., None] + stride * np.arange(vector)
        got = table[steps] - offs[..., None]
        ok = (got == np.arange(vector)).all(axis=-1)
        if not ok.all():
            bad = int(np.argwhere(~ok.ravel())[0][0])
            raise LayoutError(
                f"{what}[{bad}]: the {vector} elements along mode {along} are not contiguous in memory "
                f"(offset steps {got.reshape(-1, vector)[bad].tolist()}); a vector access needs "
                "consecutive elements"
            )
    return offs * eb


def access_addresses(layout: Any, coords: Any, elem_bytes: int, vector: int = 1, along: int = -1) -> np.ndarray:
    """Byte addresses of lanes reading ``vector`` elements each, starting at ``coords``.

    The ``vector`` elements run along mode ``along`` (default: the last mode,
    the contiguous K of a K-major ``(M, K)`` tile) and must be contiguous in
    memory. The tile starts at byte 0 (aligned to its swizzle's period).

    >>> import labkit as lk
    >>> L = lk.make_layout((8, 64), (64, 1))                 # 8 rows of 64 halves
    >>> access_addresses(L, [(r, 0) for r in range(4)], 2, vector=8).tolist()
    [0, 128, 256, 384]
    """
    _check_layout(layout)
    eb = _check_elem_bytes(elem_bytes)
    v = _check_int(vector, "vector", "elements per lane")
    if v < 1 or v * eb not in ACCESS_BYTES:
        raise LayoutError(
            f"vector={v} with elem_bytes={eb} gives {v * eb}-byte accesses; a lane reads one of {ACCESS_BYTES} bytes"
        )
    al = _check_int(along, "along", "a mode index")
    return _vector_addresses(layout, coords, eb, v, al, "coords")


def access_conflicts(
    layout: Any,
    coords: Any,
    elem_bytes: int,
    vector: int = 1,
    along: int = -1,
    *,
    num_banks: int = NUM_BANKS,
    bank_bytes: int = BANK_BYTES,
) -> BankConflicts:
    """Bank conflicts when lane ``i`` reads ``vector`` elements of ``layout`` at ``coords[i]``.

    >>> import labkit as lk
    >>> L = lk.make_layout((8, 8), (8, 1))                           # seed 001's 8x8 toy, row-major
    >>> column = [(r, 3) for r in range(8)]
    >>> access_conflicts(L, column, 4, num_banks=8).wavefronts
    8
    >>> sw = lk.composition(lk.Swizzle(3, 0, 3), L)                   # mapped_col = col ^ row
    >>> access_conflicts(sw, column, 4, num_banks=8).wavefronts
    1
    """
    addrs = access_addresses(layout, coords, elem_bytes, vector, along)
    if addrs.ndim != 1:
        raise LayoutError(
            f"coords describe {addrs.shape[:-1]} accesses; access_conflicts takes one warp access "
            "(use bank_conflicts_batch(access_addresses(...)) for many)"
        )
    return bank_conflicts(addrs, int(elem_bytes) * int(vector), num_banks=num_banks, bank_bytes=bank_bytes)


# ----------------------------------------------------------------------------
# ldmatrix


def _check_ldmatrix_num(num: Any) -> int:
    n = _check_int(num, "num", "ldmatrix .x1, .x2 or .x4: 1, 2 or 4")
    if n not in (1, 2, 4):
        raise LayoutError(f"num must be 1, 2 or 4 (ldmatrix .x1/.x2/.x4); got {n}")
    return n


def ldmatrix_rows(num: int = 4, origin: Sequence[int] = (0, 0), elem_bytes: int = 2) -> np.ndarray:
    """Row coordinates the lanes give ``ldmatrix.x{num}``: array ``(8*num, 2)``.

    Lane ``t`` supplies row ``t % 8`` of matrix ``t // 8``; each row is 16 bytes
    (``16 // elem_bytes`` elements). The matrices are placed as the A operand of
    ``mma.m16n8k16`` uses them: ``.x2`` stacks two along the rows, ``.x4``
    fills a 2x2 grid rows-first (top-left, bottom-left, top-right, bottom-right).

    >>> ldmatrix_rows(4)[[0, 7, 8, 16, 31]].tolist()
    [[0, 0], [7, 0], [8, 0], [0, 8], [15, 8]]
    """
    n = _check_ldmatrix_num(num)
    eb = _check_elem_bytes(elem_bytes)
    try:
        r0, c0 = (int(_check_int(v, "origin", "a (row, col) pair of ints")) for v in origin)
    except (TypeError, ValueError) as e:
        if isinstance(e, LayoutError):
            raise
        raise LayoutError(f"origin must be a (row, col) pair of ints; got {origin!r}") from None
    if r0 < 0 or c0 < 0:
        raise LayoutError(f"origin must be non-negative; got {origin!r}")
    cols = 16 // eb
    t = np.arange(8 * n)
    q = t // 8
    rows = r0 + t % 8 + 8 * (q % 2)
    colv = c0 + cols * (q // 2)
    return np.stack([rows, colv], axis=1)


def ldmatrix_phases(layout: Any, rows: Any, elem_bytes: int) -> np.ndarray:
    """Byte addresses ``ldmatrix`` reads, one row of 8 per phase: array ``(num, 8)``.

    ``rows`` holds the 8, 16 or 32 row coordinates lanes supply (``.x1/.x2/.x4``);
    each row must be 16 contiguous bytes along the layout's last mode, starting
    at a 16-byte-aligned address. ``.trans`` reads the same rows (it only
    changes which lane receives which element), so it has the same phases.

    >>> import labkit as lk
    >>> plain = lk.make_layout((16, 64), (64, 1))         # K-major fp16, 128-byte rows
    >>> ldmatrix_phases(plain, ldmatrix_rows(2), 2).tolist()
    [[0, 128, 256, 384, 512, 640, 768, 896], [1024, 1152, 1280, 1408, 1536, 1664, 1792, 1920]]
    """
    _check_layout(layout)
    eb = _check_elem_bytes(elem_bytes)
    addrs = _vector_addresses(layout, rows, eb, 16 // eb, -1, "rows")
    if addrs.ndim != 1 or addrs.size not in (8, 16, 32):
        raise LayoutError(
            f"rows: ldmatrix takes 8, 16 or 32 row coordinates (.x1/.x2/.x4); got {addrs.shape[0] if addrs.ndim else 0}"
            + ("" if addrs.ndim == 1 else f" groups of shape {addrs.shape}")
        )
    if (addrs % 16).any():
        bad = int(np.argwhere(addrs % 16)[0][0])
        raise LayoutError(f"rows[{bad}]: byte address {int(addrs[bad])} is not 16-byte aligned; ldmatrix rows must be")
    return addrs.reshape(addrs.size // 8, 8)


def ldmatrix_conflicts(layout: Any, rows: Any, elem_bytes: int) -> BankConflicts:
    """Bank conflicts of one ``ldmatrix`` (8 rows of 16 bytes per phase).

    >>> import labkit as lk
    >>> plain = lk.make_layout((16, 16), (64, 1))          # rows 128 bytes apart
    >>> r = ldmatrix_conflicts(plain, ldmatrix_rows(4), 2)
    >>> r.phase_wavefronts
    (8, 8, 8, 8)
    """
    return bank_conflicts(ldmatrix_phases(layout, rows, elem_bytes).ravel(), 16)


def ldmatrix_tile_conflicts(layout: Any, elem_bytes: int, num: int = 4) -> BatchConflicts:
    """Bank conflicts of reading a whole ``(M, K)`` tile with ``ldmatrix.x{num}``.

    The tile is covered by blocks of ``8*min(num,2)`` rows x ``16*max(num//2,1)``
    bytes (``.x4`` on fp16: 16x16), each read by one ldmatrix as in
    :func:`ldmatrix_rows`; accesses are listed block-row by block-row.

    >>> import labkit as lk
    >>> b = ldmatrix_tile_conflicts(lk.make_layout((128, 64), (64, 1)), 2)
    >>> b.accesses, b.degree
    (32, 8)
    """
    _check_layout(layout)
    n = _check_ldmatrix_num(num)
    eb = _check_elem_bytes(elem_bytes)
    sizes = _mode_sizes(layout)
    if len(sizes) != 2:
        raise LayoutError(f"layout must have rank 2 (rows, contiguous columns); got rank {len(sizes)}")
    bm = 8 * min(n, 2)
    bk = (16 // eb) * max(n // 2, 1)
    if sizes[0] % bm or sizes[1] % bk:
        raise LayoutError(
            f"layout shape ({sizes[0]}, {sizes[1]}) is not a whole number of {bm}x{bk} ldmatrix.x{n} blocks"
        )
    lanes = ldmatrix_rows(n, (0, 0), eb)
    om, ok = np.meshgrid(np.arange(0, sizes[0], bm), np.arange(0, sizes[1], bk), indexing="ij")
    origins = np.stack([om.ravel(), ok.ravel()], axis=1)
    coords = origins[:, None, :] + lanes[None, :, :]
    addrs = _vector_addresses(layout, coords, eb, 16 // eb, -1, "rows")
    if (addrs % 16).any():
        raise LayoutError("layout: some ldmatrix row starts are not 16-byte aligned")
    return bank_conflicts_batch(addrs, 16)
