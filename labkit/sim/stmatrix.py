"""``stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16`` for one warp (or a batch), in numpy.

From the PTX ISA ("Warp-level matrix store instruction: stmatrix"), ldmatrix's reverse: each
8x8 matrix of 16-bit elements is stored as 8 rows of 16 contiguous, 16-byte-aligned bytes;
lanes ``8i..8i+7`` give the row addresses of matrix ``i`` (for ``.x1`` only lanes 0-7 count,
for ``.x2`` lanes 0-15), and source register ``i`` of every lane holds a piece of matrix ``i``.
Without ``.trans`` lane ``t`` stores row ``t // 4``, elements ``2*(t % 4)`` (its low half) and
``2*(t % 4) + 1`` (high half), four lanes to a row; with ``.trans`` the matrix is stored
column-major, so lane ``t``'s low and high halves land in element ``t // 4`` of rows
``2*(t % 4)`` and ``2*(t % 4) + 1``.

Each matrix is one phase of eight 16-byte writes; the access is recorded in the shared
memory's conflict account.

>>> import numpy as np
>>> from labkit.sim import SharedMemory, ldmatrix, stmatrix
>>> s = SharedMemory(512)
>>> lane = np.arange(32)
>>> regs = (lane[:, None] * 4 + np.arange(4)).astype(np.uint32)     # lane t, register r: 4t + r
>>> stmatrix(s, (lane % 16) * 32 + (lane // 16) * 16, regs, num=4)   # byte addresses
>>> s.read(0, 8).tolist()                       # row 0 of matrix 0: lanes 0-3, register 0
[0, 0, 4, 0, 8, 0, 12, 0]
>>> bool((ldmatrix(s, (lane % 16) * 32 + (lane // 16) * 16, num=4) == regs).all())
True
"""

from __future__ import annotations

import numpy as np

from labkit.atoms import WARP
from labkit.atoms.instructions import STMATRIX
from labkit.errors import DeviceError, InstructionError

__all__ = ["stmatrix", "stmatrix_op"]



def stmatrix_op(num: int, trans: bool = False) -> str:
    """The PTX text from the instruction registry, e.g. ``stmatrix.sync.aligned.m8n8.x4.shared.b16``."""
    ins = STMATRIX.get(f"stmatrix_x{num}" + ("_trans" if trans else ""))
    if ins is None:
        raise InstructionError(f"stmatrix: num must be 1, 2 or 4 (.x1, .x2, .x4); got {num!r}")
    return ins.ptx


def stmatrix(smem, addrs, regs, num: int = 4, trans: bool = False, warp=None) -> None:
    """Run stmatrix: ``addrs (..., 32)`` byte addresses (one per lane; lanes past ``8*num`` are
    ignored), ``regs (..., 32, num)`` each lane's source registers (uint32, two 16-bit halves)."""
    op = stmatrix_op(num, trans)
    a = np.asarray(addrs)
    if a.shape[-1:] != (WARP,):
        raise DeviceError(f"stmatrix: addrs must have 32 lanes on the last axis; got shape {a.shape}")
    r = np.asarray(regs)
    if r.shape != a.shape + (num,) or r.dtype.kind not in "iu":
        raise DeviceError(f"stmatrix: regs must be integers of shape {a.shape + (num,)} "
                          f"(lanes, one register per matrix); got {r.dtype} {r.shape}")
    used = smem.check(a[..., : 8 * num], 16, op)           # (..., 8*num) row addresses
    r = r.astype(np.uint64) & 0xFFFFFFFF
    lo = (r & 0xFFFF).astype(np.uint16)                     # (..., 32, num)
    hi = (r >> 16).astype(np.uint16)
    t = np.arange(WARP)
    rows = np.zeros(a.shape[:-1] + (num, 8, 8), np.uint16)  # (..., matrix, row, element)
    lo_m, hi_m = np.moveaxis(lo, -1, -2), np.moveaxis(hi, -1, -2)   # (..., num, 32)
    if trans:
        rows[..., 2 * (t % 4), t // 4] = lo_m
        rows[..., 2 * (t % 4) + 1, t // 4] = hi_m
    else:
        rows[..., t // 4, 2 * (t % 4)] = lo_m
        rows[..., t // 4, 2 * (t % 4) + 1] = hi_m
    raw = rows.reshape(a.shape[:-1] + (8 * num, 8)).view(np.uint8)   # (..., 8*num, 16) bytes
    smem.scatter(used, raw)
    smem.record(op, used, 16, warp=warp)
