"""Layouts to byte addresses: thread -> coordinate -> offset (``labkit.layout.layout_offsets``)
-> byte address, and what such an access costs (:func:`access_conflicts`).

>>> import labkit as lk
>>> access_addresses(lk.make_layout((8, 8), (8, 1)), [(0, 3), (1, 3)], 4).tolist()
[12, 44]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from labkit.banks.bank_model import ACCESS_BYTES, BANK_BYTES, NUM_BANKS, BankConflicts, _check_int, bank_conflicts
from labkit.errors import LayoutError
from labkit.layout.offsets import check_layout, flat_index, mode_sizes

__all__ = ["access_addresses", "access_conflicts"]


def _check_elem_bytes(elem_bytes: Any) -> int:
    eb = _check_int(elem_bytes, "elem_bytes", "bytes per element: 1, 2, 4, 8 or 16")
    if eb not in ACCESS_BYTES:
        raise LayoutError(f"elem_bytes must be one of {ACCESS_BYTES} (bytes per element); got {eb}")
    return eb


def _vector_addresses(layout, coords, eb: int, vector: int, along: int, what: str) -> np.ndarray:
    """Byte addresses of ``vector``-element accesses starting at ``coords``; checks contiguity."""
    table = np.asarray(layout.offsets(), dtype=np.int64)
    sizes = mode_sizes(layout)
    if not -len(sizes) <= along < len(sizes):
        raise LayoutError(f"along={along} is not a mode of a rank-{len(sizes)} layout")
    along %= len(sizes)
    idx = flat_index(layout, coords, what)
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
    check_layout(layout)
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
