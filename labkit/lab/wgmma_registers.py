"""Who holds what in a warpgroup: the accumulators of ``wgmma`` (CuTe's ``CLayout_64xN``) and A of
the RS form (``ALayout_64x16``), each warp's share beside ``mma.sync``'s layouts, and the registers
a thread holds, all read from the instruction registry's GMMA entries (:mod:`labkit.atoms.instructions`).

>>> owner(25, 10, 16)                                    # thread 37 (warp 1), value 6
(37, 6)
"""

from __future__ import annotations

import functools

import numpy as np

from labkit.atoms.instructions import GMMA, WARPGROUP, instruction
from labkit.errors import LayoutError
from labkit.layout import S, make_layout, parse_layout

__all__ = ["c_layout", "owner", "owner_grid", "warp_layout", "warp_layout_matches", "a_layout", "a_owner",
           "a_warp_layout", "a_warp_layout_matches", "registers_text"]


def c_layout(n: int = 64):
    """CuTe's ``CLayout_64xN`` of ``SM90_64x{n}x16_F32F16F16_SS`` (the registry's text, parsed):
    ``(thread, value) -> m + 64 n``."""
    name = f"wgmma_m64n{n}k16_f32f16f16_ss"
    if not isinstance(n, int) or name not in GMMA:
        raise LayoutError(f"n={n!r}: wgmma's N is a multiple of 8 from 8 to 256")
    return parse_layout(GMMA[name].layout_C)


@functools.lru_cache(maxsize=8)
def _owners(n: int):
    L = c_layout(n)
    thr = np.full((64, n), -1, np.int64)
    val = np.full((64, n), -1, np.int64)
    for t in range(WARPGROUP):
        for v in range(n // 2):
            idx = int(L(t, v))
            thr[idx % 64, idx // 64], val[idx % 64, idx // 64] = t, v
    return thr, val


def owner(m: int, n: int, N: int = 64) -> tuple[int, int]:
    """``(thread, value)`` of the warpgroup that holds D(m, n) of an m64nNk16 accumulator."""
    thr, val = _owners(N)
    if not (0 <= m < 64 and 0 <= n < N):
        raise LayoutError(f"(m, n)=({m}, {n}) is outside the 64 x {N} accumulator")
    return int(thr[m, n]), int(val[m, n])


def owner_grid(N: int = 8, rows=range(0, 64, 4)) -> str:
    """Which thread holds each element of D (``t.v``: thread t, value v), for some rows.

    >>> print(owner_grid(8, rows=[0]))
    m\\n      0      1      2      3      4      5      6      7
    0      0.0    0.1    1.0    1.1    2.0    2.1    3.0    3.1
    """
    thr, val = _owners(N)
    lines = ["m\\n " + "".join(f"{j:>7}" for j in range(N))]
    for i in rows:
        lines.append(f"{i:<4}" + "".join(f"{f'{thr[i, j]}.{val[i, j]}':>7}" for j in range(N)))
    return "\n".join(lines)


def warp_layout(n: int = 16, warp: int = 0):
    """Warp ``warp``'s share of the accumulators as a TV layout of its own 16 x ``n`` rows: 32
    lanes, ``n / 2`` values, ``(lane, value) -> m' + 16 n`` with ``m = 16 warp + m'``. Built
    from the registry's C layout and checked against it on every (lane, value)."""
    if warp not in range(4):
        raise LayoutError(f"warp must be 0..3 (a warpgroup has four warps), got {warp!r}")
    L = c_layout(n)
    mine = make_layout(((S(4), S(8)), (S(2), S(2), S(n // 8))),
                       ((S(32), S(1)), (S(16), S(8), S(128))))
    for lane in range(32):
        for v in range(n // 2):
            idx = int(L(32 * warp + lane, v))
            if (idx % 64 - 16 * warp) + 16 * (idx // 64) != int(mine(lane, v)):
                raise LayoutError(f"warp {warp}: lane {lane}, value {v} of {L} is not {mine}")
    return mine


def warp_layout_matches(n: int = 16) -> bool:
    """Each warp's share, cut into 16 x 8 column blocks, is ``mma.sync``'s m16n8 C layout
    (``SM80_16x8x16_F32F16F16F32_TN``): values ``4j .. 4j + 3`` are that layout's four values
    in column block ``j``."""
    from labkit.atoms.mma_atoms import mma_atom
    c16 = mma_atom("SM80_16x8x16_F32F16F16F32_TN").layout_C
    for warp in range(4):
        mine = warp_layout(n, warp)
        for lane in range(32):
            for v in range(n // 2):
                if int(mine(lane, v)) != int(c16(lane, v % 4)) + 128 * (v // 4):
                    return False
    return True


def a_layout():
    """CuTe's ``ALayout_64x16`` of the RS entries (A in registers, the registry's text, parsed):
    ``(thread, value) -> m + 64 k`` over the 64 x 16 A of one k16 step."""
    return parse_layout(instruction("SM90_64x64x16_F32F16F16_RS").layout_A)


def a_owner(m: int, k: int) -> tuple[int, int, int]:
    """``(thread, register, half)`` of the warpgroup holding A(m, k) in the RS form: register
    ``i`` of the four holds values ``2i`` (half 0, the low 16 bits) and ``2i + 1`` (half 1).

    >>> a_owner(25, 10)          # warp 1, lane 4 * 1 + 1 = 5; row 9 of the warp and k >= 8: a3
    (37, 3, 0)
    """
    if not (0 <= m < 64 and 0 <= k < 16):
        raise LayoutError(f"(m, k)=({m}, {k}) is outside the 64 x 16 A of one k16 step")
    t, v = _a_owners()[m + 64 * k]
    return t, v // 2, v % 2


@functools.lru_cache(maxsize=1)
def _a_owners() -> dict:
    L = a_layout()
    return {int(L(t, v)): (t, v) for t in range(WARPGROUP) for v in range(8)}


def a_warp_layout(warp: int = 0):
    """Warp ``warp``'s share of the RS form's A as a TV layout of its own 16 x 16: 32 lanes, 8
    values, ``(lane, value) -> m' + 16 k`` with ``m = 16 warp + m'``. Built from the registry's A
    layout and checked against it on every (lane, value).

    >>> print(a_warp_layout(1))
    ((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))
    """
    if warp not in range(4):
        raise LayoutError(f"warp must be 0..3 (a warpgroup has four warps), got {warp!r}")
    L = a_layout()
    mine = make_layout(((S(4), S(8)), (S(2), S(2), S(2))), ((S(32), S(1)), (S(16), S(8), S(128))))
    for lane in range(32):
        for v in range(8):
            idx = int(L(32 * warp + lane, v))
            if (idx % 64 - 16 * warp) + 16 * (idx // 64) != int(mine(lane, v)):
                raise LayoutError(f"warp {warp}: lane {lane}, value {v} of {L} is not {mine}")
    return mine


def a_warp_layout_matches() -> bool:
    """Warp ``w``'s share of the RS form's A is ``mma.sync``'s m16n8k16 A layout
    (``SM80_16x8x16_F32F16F16F32_TN``) on rows ``16w .. 16w + 15``: the same registers, the same
    halves, the same elements of its 16 rows."""
    from labkit.atoms.mma_atoms import mma_atom

    a16 = mma_atom("SM80_16x8x16_F32F16F16F32_TN").layout_A          # (lane, v) -> m + 16 k
    shares = [a_warp_layout(warp) for warp in range(4)]
    return all(int(mine(lane, v)) == int(a16(lane, v)) for mine in shares for lane in range(32) for v in range(8))


def registers_text(ns=(8, 64, 128, 256)) -> str:
    """Accumulator registers a thread holds, per N, from the GMMA registry.

    >>> print(registers_text((64,)))
    m64n64k16: 32 f32 registers a thread (f16 accumulators: 16 u32); 64 x 64 = 4096 elements over 128 threads
    """
    out = []
    for n in ns:
        f32, f16 = (instruction(f"SM90_64x{n}x16_{t}_SS") for t in ("F32F16F16", "F16F16F16"))
        out.append(f"m64n{n}k16: {f32.registers('C')} {f32.register_type('C')} registers a thread (f16 "
                   f"accumulators: {f16.registers('C')} {f16.register_type('C')}); "
                   f"64 x {n} = {64 * n} elements over {WARPGROUP} threads")
    return "\n".join(out)
