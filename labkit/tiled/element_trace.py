"""Follow one A or B element from shared memory to its ``mma.sync`` operand register.

>>> import labkit as lk
>>> p = lk.trace_element("A", (0, 9))
>>> print(p)
A(0,9): shared-memory offset 9 -> source lane 16, row element 1 -> copy element e=129 -> reference TV index 160 -> matrix index q=144 -> destination lane 0, slot 5 -> tCrA(5,0,0) -> operand a2, high 16 bits
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import LayoutError
from ..layout import (Layout, Tensor, S, compact_major, crd2idx, make_tensor, parse_layout,
                      right_inverse, size, idx2crd)
from ..atoms import copy_atom, ELEMENT_BITS
from .tiled_mma import TiledMMA, make_tiled_mma
from .tiled_copy import TiledCopy, make_tiled_copy_A, make_tiled_copy_B

__all__ = ["ElementPath", "trace_element"]


@dataclass(frozen=True)
class ElementPath:
    """Every number on the way of one element: smem -> ldmatrix -> fragment -> mma operand."""

    operand: str
    coord: tuple
    smem_offset: int
    src_thread: int
    src_value: int
    copy_element: int
    ref_tv: int
    ref_thread: int
    ref_value: int
    matrix_index: int
    dst_thread: int
    dst_value: int
    fragment_coord: tuple
    fragment_slot: int
    register: int
    half: str

    def __str__(self):
        c = ",".join(str(x) for x in self.coord)
        f = ",".join(str(x) for x in self.fragment_coord)
        name = f"tCr{self.operand}"
        reg = f"{self.operand.lower()}{self.register}"
        return (f"{self.operand}({c}): shared-memory offset {self.smem_offset} -> source lane "
                f"{self.src_thread}, row element {self.src_value} -> copy element "
                f"e={self.copy_element} -> reference TV index {self.ref_tv} -> matrix index "
                f"q={self.matrix_index} -> destination lane {self.dst_thread}, slot "
                f"{self.dst_value} -> {name}({f}) -> operand {reg}, {self.half} 16 bits")


def _default_smem(operand, mma):
    m = int(mma.tile_size(0 if operand == "A" else 1))
    k = int(mma.tile_size(2))
    return make_tensor(None, Layout((S(m), S(k)), (S(k), S(1))))


def trace_element(operand="A", coord=(0, 9), mma=None, copy="SM75_U32x4_LDSM_N", smem=None):
    """The path of element ``operand(coord)`` through ``copy`` (an ldmatrix atom) into ``mma``.

    Defaults are seed 000's single-warp example: one ``SM80_16x8x16_F16F16F16F16_TN``, A in a
    K-major ``(16,16):(16,1)`` tile read by ``ldmatrix.x4`` (B: ``(8,16):(16,1)``, ``.x2``).
    """
    operand = str(operand).upper()
    if operand not in ("A", "B"):
        raise LayoutError(f"trace_element: operand must be 'A' or 'B', got {operand!r}")
    if mma is None:
        mma = make_tiled_mma("SM80_16x8x16_F16F16F16F16_TN")
    elif not isinstance(mma, TiledMMA):
        mma = make_tiled_mma(mma)
    if operand == "B" and copy == "SM75_U32x4_LDSM_N" and int(size(mma.atom_layout_mnk)) == 1:
        copy = "SM75_U32x2_LDSM_N"
    atom = copy if not isinstance(copy, str) else copy_atom(copy, mma.atom.a_type)
    tc = (make_tiled_copy_A if operand == "A" else make_tiled_copy_B)(atom, mma)
    if smem is None:
        smem = _default_smem(operand, mma)
    elif not isinstance(smem, Tensor):
        smem = make_tensor(None, smem if isinstance(smem, Layout) else parse_layout(smem))
    if not (isinstance(coord, tuple) and len(coord) == 2):
        raise LayoutError(f"trace_element: coord must be (row, k), got {coord!r}")
    rows, cols = int(size(smem.layout[0])), int(size(smem.layout[1]))
    if not (0 <= coord[0] < rows and 0 <= coord[1] < cols):
        raise LayoutError(f"trace_element: {operand}{coord} is outside the {rows}x{cols} tile")
    off = int(smem(*coord))

    # source: which thread's partition_S holds this offset, and where
    n_thr, a_thr, a_val = int(tc.num_threads), int(tc.atom.num_threads), int(tc.atom.num_values)
    # every thread's source offsets at once: tidfrg_S is (thread, values...) colexicographic
    table = _source_table(tc, smem)
    hits = np.argwhere(table == off)
    if not hits.size:
        raise LayoutError(f"trace_element: no thread's source partition covers offset {off}")
    t_s, flat = (int(x) for x in hits[np.lexsort((hits[:, 1], hits[:, 0]))][0])
    # a source thread supplies whole rows: the atom's SrcLayout has its own value count
    # (8 halves for every ldmatrix), which need not be the reference's AtomNumVal
    n_src = int(size(tc.atom.layout_src[1]))
    v_s = flat % n_src
    rest_v = (flat // n_src) % max(1, int(tc.num_values) // a_val)
    e = int(tc.atom.layout_src(t_s % a_thr, v_s))
    ref_tv = int(right_inverse(tc.atom.layout_ref)(e))
    t_ref, v_ref = ref_tv % a_thr, ref_tv // a_thr
    # destination: the (thread, value) of the atom's DstLayout carrying the same element
    dst_inv = right_inverse(tc.atom.layout_dst)
    dst_tv = int(dst_inv(e))
    t_d_atom, v_d_atom = dst_tv % a_thr, dst_tv // a_thr
    rest_thr = t_s // a_thr
    t_d = t_d_atom + a_thr * rest_thr
    # global value index: the atom-value plus this source value's rest group
    q = int(tc.layout_tv(t_ref + a_thr * rest_thr, v_ref + a_val * rest_v))
    m_rows = int(mma.tile_size(0 if operand == "A" else 1))
    if (q % m_rows, q // m_rows) != _tile_coord(coord, tc, mma, operand):
        raise LayoutError("trace_element: the copy and the MMA disagree on this element "
                          f"(q={q} but {operand}{coord}); the copy is not tiled from this MMA")
    # fragment of the destination thread, seen through the copy (retile_D) and the MMA
    thr_mma = mma.get_slice(t_d)
    frag = (thr_mma.partition_fragment_A if operand == "A" else thr_mma.partition_fragment_B)(
        smem)
    part = (thr_mma.partition_A if operand == "A" else thr_mma.partition_B)(smem)
    hit = np.nonzero(part.offsets() == off)[0]
    slot = None
    if hit.size:
        v = int(hit[0])
        slot = (v, idx2crd(v, frag.layout.shape))
    if slot is None:
        raise LayoutError(f"trace_element: thread {t_d}'s fragment does not hold {operand}{coord}")
    v_flat, crd = slot
    slot_off = int(frag.layout(crd))
    mma_v = _flat_mode0(crd, frag.layout)
    bits = ELEMENT_BITS[mma.atom.a_type]
    per_reg = 32 // bits
    frag_coord = (mma_v,) + tuple(_flat(c, frag.layout[i + 1].shape) for i, c in
                                   enumerate(crd[1:]))
    return ElementPath(operand, tuple(coord), off, t_s, v_s, e, ref_tv, t_ref, v_ref, q, t_d,
                       slot_off, frag_coord, slot_off, mma_v // per_reg,
                       "low" if mma_v % per_reg == 0 else "high")


def _source_table(tc, smem):
    """(threads, values) array of the shared-memory offsets each source thread reads."""
    key = (str(smem.layout), int(smem.offset))
    cache = tc.__dict__.setdefault("_source_tables", {})
    if key not in cache:
        frg = tc.tidfrg_S(smem.layout)
        n = int(tc.num_threads)
        cache[key] = (frg.offsets() + int(smem.offset)).reshape(n, -1, order="F")
    return cache[key]


def _flat(c, shape):
    return int(crd2idx(c, shape, compact_major(shape, "left")))


def _flat_mode0(crd, layout):
    return _flat(crd[0], layout[0].shape)


def _tile_coord(coord, tc, mma, operand):
    m_rows = int(mma.tile_size(0 if operand == "A" else 1))
    k = int(mma.tile_size(2))
    return (coord[0] % m_rows, coord[1] % k)
