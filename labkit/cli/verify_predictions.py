"""What the CuTe atoms' TV layouts predict for ``python -m labkit verify``: an ldmatrix's registers,
an stmatrix's shared memory, an MMA operand's registers, each from the atom's layouts alone
(:mod:`labkit.atoms`), never from :mod:`labkit.sim`.

>>> import numpy as np
>>> from labkit.cli import verify_predictions as vp
>>> img = np.arange(512, dtype=np.uint16)[None]          # element i holds i
>>> regs = vp.ldmatrix_prediction("x4", img, (8 * np.arange(32))[None])
>>> [hex(int(r)) for r in regs[0, 0]]                   # lane 0: rows 0, 8, 16, 24, elements 0-1
['0x10000', '0x410040', '0x810080', '0xc100c0']
>>> regs = np.arange(32 * 4, dtype=np.uint32).reshape(1, 32, 4) * 0x10001   # both halves 4t + r
>>> out = vp.stmatrix_prediction("x4", np.zeros((1, 512), np.uint16), (8 * np.arange(32))[None], regs)
>>> out[0, :8].tolist()                                # row 0 of matrix 0: lanes 0-3, register 0
[0, 0, 4, 4, 8, 8, 12, 12]
"""

from __future__ import annotations

import numpy as np

from labkit.atoms import copy_atom, mma_atom
from labkit.elements import pack_registers
from labkit.atoms.instructions import LDMATRIX, MMA, STMATRIX, instruction, tv_coords
from labkit.layout import size

__all__ = ["MMA_ATOMS", "LDMATRIX_ATOMS", "STMATRIX_ATOMS", "ldmatrix_prediction", "stmatrix_prediction",
           "mma_prediction"]

MMA_ATOMS = tuple(atom for ins in MMA.values() for atom in ins.atoms)
"""The MMA atoms checked: every CuTe atom of the instruction registry."""

LDMATRIX_ATOMS = {f"x{ins.num}" + (".trans" if ins.trans else ""): ins.atom for ins in LDMATRIX.values()}
"""ldmatrix variant -> CuTe copy atom, from the instruction registry."""

STMATRIX_ATOMS = {f"x{ins.num}" + (".trans" if ins.trans else ""): ins.atom for ins in STMATRIX.values()}
"""stmatrix variant -> CuTe copy atom, from the instruction registry."""


def _tv_table(layout, threads, values):
    return np.array([[int(layout(t, v)) for v in range(values)] for t in range(threads)], np.int64)


def ldmatrix_prediction(variant: str, images, offsets) -> np.ndarray:
    """Registers ``(W, 32, num)`` that the copy atom's Src/Dst layouts predict for ldmatrix
    ``variant`` on ``images (W, region)`` (uint16) with row offsets ``offsets (W, 32)``."""
    atom = copy_atom(LDMATRIX_ATOMS[variant], "f16")
    src, dst = atom.layout_src, atom.layout_dst
    n_src_v = int(size(src[1]))
    n_dst_v = int(size(dst[1]))
    s_tab = _tv_table(src, 32, n_src_v)
    d_tab = _tv_table(dst, 32, n_dst_v)
    owner = {}
    for s in range(32):                       # the lowest lane that supplies element e
        for j in range(n_src_v):
            owner.setdefault(int(s_tab[s, j]), (s, j))
    lane = np.array([[owner[int(e)][0] for e in row] for row in d_tab])
    elem = np.array([[owner[int(e)][1] for e in row] for row in d_tab])
    img = np.asarray(images, np.uint16)
    off = np.asarray(offsets, np.int64)
    w = np.arange(img.shape[0])[:, None, None]
    vals = img[w, off[:, lane] + elem[None]].astype(np.uint32)        # (W, 32, values)
    return (vals[..., 0::2] | (vals[..., 1::2] << 16)).astype(np.uint32)


def stmatrix_prediction(variant: str, init, offsets, regs) -> np.ndarray:
    """Shared memory ``(W, region)`` that the copy atom's Src/Dst layouts predict after stmatrix
    ``variant`` on ``init (W, region)`` (uint16) with row offsets ``offsets (W, 32)`` (elements)
    and registers ``regs (W, 32, num)`` (uint32; value ``2r`` the low half of register ``r``,
    ``2r + 1`` the high half)."""
    atom = copy_atom(STMATRIX_ATOMS[variant], "f16")
    src, dst = atom.layout_src, atom.layout_dst
    n_src_v = int(size(src[1]))
    n_dst_v = int(size(dst[1]))
    s_tab = _tv_table(src, 32, n_src_v)
    d_tab = _tv_table(dst, 32, n_dst_v)
    value_of = {int(s_tab[t, v]): (t, v) for t in range(32) for v in range(n_src_v)}
    r = np.asarray(regs, np.uint32)
    vals = np.stack([r & 0xFFFF, r >> 16], axis=-1).reshape(r.shape[0], 32, -1).astype(np.uint16)
    out = np.array(init, np.uint16, copy=True)
    off = np.asarray(offsets, np.int64)
    w = np.arange(out.shape[0])
    done = set()
    for s in range(32):                       # the lowest lane that addresses element e writes it
        for j in range(n_dst_v):
            e = int(d_tab[s, j])
            if e in done:
                continue
            done.add(e)
            t, v = value_of[e]
            out[w, off[:, s] + j] = vals[:, t, v]
    return out


def mma_prediction(atom_name: str, operand: str, matrix_bits) -> np.ndarray:
    """Registers ``(W, 32, regs)`` the MMA atom's TV layout predicts for ``operand``
    (``"A"``, ``"B"`` or ``"C"``) holding ``matrix_bits`` (``(W, rows, cols)``, the bits of the
    operand's element type: uint16 for f16/bf16, uint8 for s8, uint32 for tf32/f32/s32), packed
    by the element width (``labkit.elements.pack_registers``)."""
    atom = mma_atom(atom_name)
    ins = instruction(atom.instruction, "mma")
    xy = tv_coords(str({"A": atom.layout_A, "B": atom.layout_B, "C": atom.layout_C}[operand]),
                   ins.matrix_shape(operand)[0], 32, ins.elements(operand))
    x = np.asarray(matrix_bits)
    kind = ins.element_type(operand)
    return pack_registers(x[:, xy[..., 0], xy[..., 1]], kind)
