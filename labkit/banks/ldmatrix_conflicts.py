"""Bank conflicts of ``ldmatrix``: the row addresses of its 8x8 matrices, one 8-lane phase of
16-byte reads per matrix.

``ldmatrix`` (PTX ``ldmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16``) reads 8x8 matrices whose
rows are 16 contiguous bytes; each lane of a group of 8 supplies one row address.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from labkit.banks.bank_model import BankConflicts, _check_int, bank_conflicts
from labkit.banks.batch_conflicts import BatchConflicts, bank_conflicts_batch
from labkit.banks.layout_access import _check_elem_bytes, _vector_addresses
from labkit.errors import LayoutError
from labkit.layout.offsets import check_layout, mode_sizes

__all__ = ["ldmatrix_rows", "ldmatrix_phases", "ldmatrix_conflicts", "ldmatrix_tile_conflicts"]


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
    check_layout(layout)
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
    check_layout(layout)
    n = _check_ldmatrix_num(num)
    eb = _check_elem_bytes(elem_bytes)
    sizes = mode_sizes(layout)
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
