"""``ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16`` for one warp (or a batch), in numpy.

From the PTX ISA ("Warp-level matrix load instruction: ldmatrix"): each 8x8 matrix of
16-bit elements has 8 rows of 16 contiguous, 16-byte-aligned bytes; lanes ``8i..8i+7``
give the row addresses of matrix ``i`` (for ``.x1`` only lanes 0-7 count, for ``.x2``
lanes 0-15). Destination register ``i`` of every lane holds a piece of matrix ``i``:
without ``.trans`` lane ``t`` gets row ``t // 4``, elements ``2*(t % 4)`` (low half) and
``2*(t % 4) + 1`` (high half); with ``.trans`` the matrix is read column-major, so lane
``t`` gets element ``t // 4`` of rows ``2*(t % 4)`` (low) and ``2*(t % 4) + 1`` (high).

Each matrix is one phase of eight 16-byte reads; the access is recorded in the shared
memory's conflict account.

>>> import numpy as np
>>> from labkit.sim import SharedMemory, ldmatrix
>>> s = SharedMemory(512)
>>> s.fill(0, np.arange(256, dtype=np.uint16))      # a 16x16 row-major matrix of its offsets
>>> lane = np.arange(32)
>>> r = ldmatrix(s, (lane % 16) * 32 + (lane // 16) * 16, num=4)   # byte addresses
>>> [hex(int(x)) for x in r[0]]                        # lane 0: (0,1) (128,129) (8,9) (136,137)
['0x10000', '0x810080', '0x90008', '0x890088']
>>> s.log[-1].degree                                   # rows 32 bytes apart: 2-way conflicts
2
"""

from __future__ import annotations

import numpy as np

from labkit.atoms import WARP
from labkit.atoms.instructions import LDMATRIX
from labkit.errors import DeviceError, InstructionError

__all__ = ["ldmatrix", "ldmatrix_op"]



def ldmatrix_op(num: int, trans: bool = False) -> str:
    """The PTX text from the instruction registry, e.g. ``ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16``."""
    ins = LDMATRIX.get(f"ldmatrix_x{num}" + ("_trans" if trans else ""))
    if ins is None:
        raise InstructionError(f"ldmatrix: num must be 1, 2 or 4 (.x1, .x2, .x4); got {num!r}")
    return ins.ptx


def ldmatrix(smem, addrs, num: int = 4, trans: bool = False, warp=None) -> np.ndarray:
    """Run ldmatrix: ``addrs (..., 32)`` byte addresses (one per lane; lanes past ``8*num``
    are ignored). Returns registers ``(..., 32, num)`` uint32."""
    op = ldmatrix_op(num, trans)
    a = np.asarray(addrs)
    if a.shape[-1:] != (WARP,):
        raise DeviceError(f"ldmatrix: addrs must have 32 lanes on the last axis; got shape {a.shape}")
    used = a[..., : 8 * num]
    used = smem.check(used, 16, op)
    rows = smem.gather(used, 16).view(np.uint16)          # (..., 8*num, 8) elements
    rows = rows.reshape(a.shape[:-1] + (num, 8, 8))        # (..., matrix, row, element)
    t = np.arange(WARP)
    if trans:
        lo = rows[..., 2 * (t % 4), t // 4]                 # (..., num, 32)
        hi = rows[..., 2 * (t % 4) + 1, t // 4]
    else:
        lo = rows[..., t // 4, 2 * (t % 4)]
        hi = rows[..., t // 4, 2 * (t % 4) + 1]
    regs = lo.astype(np.uint32) | (hi.astype(np.uint32) << 16)   # (..., num, 32)
    smem.record(op, used, 16, warp=warp)
    return np.swapaxes(regs, -1, -2).astype(np.uint32)
