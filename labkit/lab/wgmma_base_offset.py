"""The descriptor's base offset: a 128-byte-swizzled tile that does not start on a 1024-byte
boundary, stored on the absolute address (CuTe's way) or with the pattern restarted at its start,
and which base offset reads it right.
"""

from __future__ import annotations

import numpy as np

from labkit.atoms.gmma_desc import GmmaDescriptor, LayoutType
from labkit.errors import LayoutError
from labkit.lab.wgmma_descriptors import descriptor, operand_layout, stage
from labkit.layout import Swizzle
from labkit.sim.wgmma import swizzled, wgmma_ss

__all__ = ["base_offset_reads", "base_offset_wrong", "right_base_offset", "stored_chunk"]


def base_offset_reads(start: int = 17024, rows: int = 8) -> str:
    """Chunk 0 of the first ``rows`` rows of a K-major 128-byte-swizzled tile at byte ``start``:
    in which 16-byte chunk of its row CuTe's swizzle of the absolute address stores it, in which a
    pattern restarted at ``start`` stores it, and which chunk the tensor core reads with base
    offset 0 and with ``(start >> 7) % 8``.

    >>> print(base_offset_reads(17024, rows=2))
    tile at byte 17024 = 16 x 1024 + 5 x 128: (start >> 7) % 8 = 5
    row  stored: absolute  stored: restarted  read, base 0  read, base 5
    0                   5                  0             5             0
    1                   6                  1             6             1
    """
    if start < 0 or start % 128:
        raise LayoutError(f"start={start!r} must be a non-negative multiple of 128 (a row of the 128-byte swizzle)")
    b = (start >> 7) % 8
    lines = [f"tile at byte {start} = {start // 1024} x 1024 + {(start % 1024) // 128} x 128: (start >> 7) % 8 = {b}",
             f"row  stored: absolute  stored: restarted  read, base 0  read, base {b}"]
    for r in range(rows):
        row = start + 128 * r
        absolute, restarted = stored_chunk(start, r), stored_chunk(0, r)      # restarted: as if at byte 0
        read0 = (swizzled(row, LayoutType.B128, 0) - row) // 16
        read_b = (swizzled(row, LayoutType.B128, b) - row) // 16
        lines.append(f"{r:<3}{absolute:>18}{restarted:>19}{read0:>14}{read_b:>14}")
    return "\n".join(lines)


def stored_chunk(start: int, row: int = 0) -> int:
    """The 16-byte chunk of row ``row`` (128 bytes each) of a K-major 128-byte-swizzled tile at
    byte ``start`` that holds the row's K-chunk 0, as CuTe's swizzle of the absolute address
    stores it.

    >>> stored_chunk(17024, 3)
    0
    """
    if start < 0 or start % 128 or not 0 <= row < 8:
        raise LayoutError(f"(start, row)=({start!r}, {row!r}): start a non-negative multiple of 128, row 0..7")
    address = start + 128 * row
    return (Swizzle(3, 4, 3)(address) - address) // 16


def right_base_offset(start: int, restarted: bool) -> int:
    """The base offset with which the tensor core reads a K-major 128-byte-swizzled tile at byte
    ``start`` right: stored by the swizzle of the absolute address (``restarted`` False, CuTe's
    way) or with the pattern restarted at ``start``. Found by trying 0..7 on the tile's 8 rows of
    8 chunks through :func:`labkit.sim.wgmma.swizzled`.

    >>> right_base_offset(17024, restarted=False), right_base_offset(17024, restarted=True)
    (0, 5)
    """
    if start < 0 or start % 128:
        raise LayoutError(f"start={start!r} must be a non-negative multiple of 128 (a row of the 128-byte swizzle)")
    plain = np.array([start + 128 * r + 16 * c for r in range(8) for c in range(8)])
    if restarted:
        stored = start + np.array([Swizzle(3, 4, 3)(int(a - start)) for a in plain])
    else:
        stored = np.array([Swizzle(3, 4, 3)(int(a)) for a in plain])
    for b in range(8):
        if np.array_equal(swizzled(plain, LayoutType.B128, b), stored):
            return b
    raise LayoutError(f"no base offset reads the tile at {start} right")     # unreachable


def base_offset_wrong(start: int = 17024, seed: int = 0) -> str:
    """Wrong elements of D (64 x 64, K = 64) through the twin when A (K-major, 128-byte swizzle)
    starts at byte ``start``: laid out on the absolute address or restarted at ``start``, read
    with base offset 0 and ``(start >> 7) % 8``.

    >>> print(base_offset_wrong(16384).splitlines()[1])
    A on the absolute address, base offset 0: 0 of 4096 elements of D wrong
    """
    if start < 0 or start % 128:
        raise LayoutError(f"start={start!r} must be a non-negative multiple of 128 (a row of the 128-byte swizzle)")
    rng = np.random.default_rng(seed)
    A, B = rng.integers(-3, 4, (64, 64)).astype(np.float16), rng.integers(-3, 4, (64, 64)).astype(np.float16)
    b0 = (start + 8192 + 1023) // 1024 * 1024                  # B after A, on a 1024-byte boundary
    phase = (start >> 7) % 8
    lines = [f"A at byte {start}, B at byte {b0}: (start >> 7) % 8 = {phase}"]
    sA, sB = operand_layout("K", "SW128", 64, 64), operand_layout("K", "SW128", 64, 64)
    for restarted in (False, True):
        smem = np.zeros(b0 + 8192, np.uint8)
        if restarted:
            tmp = np.zeros(8192, np.uint8)
            stage(tmp, A, sA, 0)
            smem[start:start + 8192] = tmp
        else:
            stage(smem, A, sA, start)
        stage(smem, B, sB, b0)
        for base in sorted({0, phase}):
            d = np.zeros((64, 64), np.float32)
            for s in range(4):
                da = GmmaDescriptor(**{**descriptor("K", "SW128", 64, 64, s, start).__dict__, "base_offset": base})
                d = wgmma_ss("SM90_64x64x16_F32F16F16_SS", smem, da.encode(), descriptor("K", "SW128", 64, 64, s, b0).encode(), d=d)
            wrong = int(np.count_nonzero(d != A.astype(np.float64) @ B.astype(np.float64).T))
            where = "restarted at the start" if restarted else "on the absolute address"
            lines.append(f"A {where}, base offset {base}: {wrong} of 4096 elements of D wrong")
    return "\n".join(lines)
