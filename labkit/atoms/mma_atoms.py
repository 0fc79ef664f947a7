"""MMA atoms as data: CuTe's ``MMA_Traits`` for the ``mma.sync`` instructions of sm_75/sm_80.

Every atom is built from its entry in the instruction registry (:mod:`labkit.atoms.instructions`),
which holds the facts; this module gives them CuTe's shape (``MMA_Atom``) and coordinates.

Each atom is a table: the instruction's shape (M, N, K), the 32 threads that issue it, and
three TV layouts mapping ``(thread, value)`` to the column-major index of an element in the
A (M x K), B (N x K) and C (M x N) tiles, as in ``include/cute/atom/mma_traits_sm80.hpp``.

>>> import labkit as lk
>>> atom = lk.mma_atom("SM80_16x8x16_F16F16F16F16_TN")
>>> print(atom.layout_A)
((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))
>>> atom.shape_mnk, atom.registers["A"], atom.min_sm
((_16, _8, _16), (4, 'u32'), 80)
>>> atom.coord_A(0, 5)      # lane 0, value 5 holds A(m=0, k=9)
(0, 9)
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InstructionError, LayoutError
from ..layout import Layout, parse_layout, product, S
from .instructions import ELEMENT_BITS, MMA, operand

__all__ = ["MMAAtom", "mma_atom", "MMA_ATOMS", "ELEMENT_BITS"]

@dataclass(frozen=True)
class MMAAtom:
    """One ``mma.sync`` instruction described as layouts.

    ``layout_A(t, v)`` is ``m + M*k`` for the element of A that thread ``t`` holds in value
    slot ``v``; likewise ``layout_B`` gives ``n + N*k`` and ``layout_C`` gives ``m + M*n``.
    """

    name: str
    shape_mnk: tuple
    thr_id: Layout
    layout_A: Layout
    layout_B: Layout
    layout_C: Layout
    types: tuple          # (D, A, B, C) element types
    ptx: str
    min_sm: int
    instruction: str      # the registry entry (labkit.cuda.ptx name)

    d_type = property(lambda self: self.types[0], doc="Element type of D.")
    a_type = property(lambda self: self.types[1], doc="Element type of A.")
    b_type = property(lambda self: self.types[2], doc="Element type of B.")
    c_type = property(lambda self: self.types[3], doc="Element type of C.")

    @property
    def registers(self) -> dict:
        """Registers per thread and their PTX type, e.g. ``{"A": (4, "u32"), ...}``."""
        out = {}
        for op, lay, ty in (("A", self.layout_A, self.a_type), ("B", self.layout_B, self.b_type),
                            ("C", self.layout_C, self.c_type), ("D", self.layout_C, self.d_type)):
            vals = int(product(lay[1].shape))
            bits = ELEMENT_BITS[ty] * vals
            out[op] = (bits // 32, "u32") if ELEMENT_BITS[ty] < 32 else (vals, ty)
        return out

    def values_per_thread(self, operand: str) -> int:
        lay = {"A": self.layout_A, "B": self.layout_B, "C": self.layout_C}[_op(operand)]
        return int(product(lay[1].shape))

    def _coord(self, lay, rows, t, v):
        _check_tv(self, lay, t, v)
        idx = lay(t, v)
        return idx % rows, idx // rows

    def coord_A(self, t: int, v: int):
        """``(m, k)`` of the A element in thread ``t``, value ``v``."""
        return self._coord(self.layout_A, int(self.shape_mnk[0]), t, v)

    def coord_B(self, t: int, v: int):
        """``(n, k)`` of the B element in thread ``t``, value ``v``."""
        return self._coord(self.layout_B, int(self.shape_mnk[1]), t, v)

    def coord_C(self, t: int, v: int):
        """``(m, n)`` of the C/D element in thread ``t``, value ``v``."""
        return self._coord(self.layout_C, int(self.shape_mnk[0]), t, v)

    def owner(self, operand: str, row: int, col: int):
        """``(thread, value)`` holding element ``(row, col)`` of operand A, B or C.

        >>> mma_atom("SM80_16x8x16_F16F16F16F16_TN").owner("A", 0, 9)
        (0, 5)
        """
        op = _op(operand)
        lay = {"A": self.layout_A, "B": self.layout_B, "C": self.layout_C}[op]
        rows = int(self.shape_mnk[1] if op == "B" else self.shape_mnk[0])
        cols = int(self.shape_mnk[1] if op == "C" else self.shape_mnk[2])
        if not (0 <= row < rows and 0 <= col < cols):
            raise LayoutError(f"{self.name}.owner({operand!r}, {row}, {col}): element outside the "
                              f"{rows}x{cols} operand tile")
        target = row + rows * col
        nt, nv = int(product(lay[0].shape)), int(product(lay[1].shape))
        for t in range(nt):
            for v in range(nv):
                if lay(t, v) == target:
                    return t, v
        raise LayoutError(f"{self.name}: no thread holds {operand}({row},{col})")

    def __str__(self):
        return (f"MMA_Atom {self.name}\n  ThrID:     {self.thr_id}\n  Shape_MNK: "
                f"({','.join(str(x) for x in self.shape_mnk)})\n  LayoutA_TV: {self.layout_A}\n"
                f"  LayoutB_TV: {self.layout_B}\n  LayoutC_TV: {self.layout_C}\n  PTX: {self.ptx}")


_op = operand


def _check_tv(atom, lay, t, v):
    nt, nv = int(product(lay[0].shape)), int(product(lay[1].shape))
    if not (isinstance(t, int) and 0 <= t < nt):
        raise LayoutError(f"{atom.name}: thread {t!r} outside [0, {nt})")
    if not (isinstance(v, int) and 0 <= v < nv):
        raise LayoutError(f"{atom.name}: value {v!r} outside [0, {nv})")


def _atom(name, ins):
    return MMAAtom(name=name, shape_mnk=tuple(S(x) for x in ins.shape_mnk), thr_id=Layout(S(32), S(1)),
                   layout_A=parse_layout(ins.layout_A), layout_B=parse_layout(ins.layout_B),
                   layout_C=parse_layout(ins.layout_C), types=ins.types, ptx=ins.ptx,
                   min_sm=ins.min_sm, instruction=ins.name)


# One atom per CuTe name of every registry entry (SM75_ and SM80_16x8x8_F32F16F16F32_TN share one).
MMA_ATOMS = {name: _atom(name, ins) for ins in MMA.values() for name in ins.atoms}


def mma_atom(name: str) -> MMAAtom:
    """The MMA atom called ``name`` (CuTe's spelling).

    >>> mma_atom("SM75_16x8x8_F32F16F16F32_TN").ptx
    'mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32'
    """
    if isinstance(name, MMAAtom):
        return name
    if isinstance(name, str) and name in MMA_ATOMS:
        return MMA_ATOMS[name]
    raise InstructionError(f"mma_atom: unknown atom {name!r}; known: {', '.join(MMA_ATOMS)}")
