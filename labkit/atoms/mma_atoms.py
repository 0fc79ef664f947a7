"""MMA atoms as data: CuTe's ``MMA_Atom`` of every MMA of the registry, ``mma.sync`` and ``wgmma``.

Every atom is built from its entry in the instruction registry (:mod:`labkit.atoms.instructions`),
which holds the facts; this module gives them CuTe's shape (``MMA_Atom``) and coordinates.

Each atom is a table: the instruction's shape (M, N, K), the threads that issue it (``ThrID``:
32 for ``mma.sync``, 128 for a warpgroup's ``wgmma``), and three TV layouts mapping
``(thread, value)`` to the column-major index of an element in the A (M x K), B (N x K) and C
(M x N) tiles, as in ``include/cute/atom/mma_traits_sm80.hpp`` and ``mma_traits_sm90_gmma.hpp``.
A GMMA atom's A (SS form) and B are read from shared memory through descriptors: its operand
kind is ``"descriptor"`` and :meth:`~labkit.tiled.ThrMMA.make_fragment_A` makes a tensor of
descriptors, as CuTe's ``GMMA::smem_desc<Major>`` fragment type does.

Names are CuTe's. The 16-bit GMMA atoms take the majors of A and B as C++ writes them
(``SM90_64x128x16_F32F16F16_SS<GMMA::Major::K, GMMA::Major::MN>``, or ``<K,MN>``; ``<K,K>``
when omitted); the others (``_TN``) are K-major only.

>>> import labkit as lk
>>> atom = lk.mma_atom("SM80_16x8x16_F16F16F16F16_TN")
>>> print(atom.layout_A)
((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))
>>> atom.shape_mnk, atom.registers("A"), atom.min_sm
((_16, _8, _16), 4, 80)
>>> atom.coord_A(0, 5)      # lane 0, value 5 holds A(m=0, k=9)
(0, 9)
>>> g = lk.mma_atom("SM90_64x128x16_F32F16F16_SS<K,MN>")
>>> g.name, g.major_A, g.major_B, g.operand_kind("B"), str(g.thr_id)
('SM90_64x128x16_F32F16F16_SS<GMMA::Major::K,GMMA::Major::MN>', 'K', 'MN', 'descriptor', '_128:_1')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import InstructionError, LayoutError
from ..layout import Layout, parse_layout, product, S
from .instructions import GMMA, MMA, MmaInstruction, operand

__all__ = ["MMAAtom", "mma_atom", "MMA_ATOMS"]


@dataclass(frozen=True)
class MMAAtom:
    """One MMA instruction described as layouts.

    ``layout_A(t, v)`` is ``m + M*k`` for the element of A that thread ``t`` holds (or, for a
    descriptor operand, sees) in value slot ``v``; likewise ``layout_B`` gives ``n + N*k`` and
    ``layout_C`` gives ``m + M*n``. ``major_A``/``major_B``: ``"K"`` or ``"MN"`` (a GMMA
    atom's template arguments; an ``mma.sync`` atom reads both K-major, ``TN``).
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
    entry: MmaInstruction
    major_A: str = "K"
    major_B: str = "K"

    d_type = property(lambda self: self.types[0], doc="Element type of D.")
    a_type = property(lambda self: self.types[1], doc="Element type of A.")
    b_type = property(lambda self: self.types[2], doc="Element type of B.")
    c_type = property(lambda self: self.types[3], doc="Element type of C.")
    instruction = property(lambda self: self.entry.name, doc="The registry entry's name (its labkit.cuda.ptx name).")

    def operand_kind(self, op: str) -> str:
        """``"registers"`` or ``"descriptor"`` (GMMA: B, and A in the SS form)."""
        return self.entry.operand_kind(op)

    def registers(self, op: str) -> int:
        """Registers per thread of operand ``op`` (A, B, C or D): 32-bit ones, or one 64-bit
        descriptor (the registry entry's count)."""
        return self.entry.registers(op)

    def register_type(self, op: str) -> str:
        """PTX type of one register of ``op``: ``"u32"``, ``"f32"``, ``"s32"`` or ``"u64"``."""
        return self.entry.register_type(op)

    def values_per_thread(self, op: str) -> int:
        """Size of the value mode of ``op``'s TV layout."""
        return int(product(self._layout(op)[1].shape))

    def _layout(self, op):
        return {"A": self.layout_A, "B": self.layout_B, "C": self.layout_C}[operand(op)]

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

    def owner(self, op: str, row: int, col: int):
        """``(thread, value)`` holding element ``(row, col)`` of operand A, B or C (the first
        such pair: a descriptor operand is seen by every thread).

        >>> mma_atom("SM80_16x8x16_F16F16F16F16_TN").owner("A", 0, 9)
        (0, 5)
        """
        op = operand(op)
        lay = self._layout(op)
        rows = int(self.shape_mnk[1] if op == "B" else self.shape_mnk[0])
        cols = int(self.shape_mnk[1] if op == "C" else self.shape_mnk[2])
        if not (0 <= row < rows and 0 <= col < cols):
            raise LayoutError(f"{self.name}.owner({op!r}, {row}, {col}): element outside the "
                              f"{rows}x{cols} operand tile")
        target = row + rows * col
        nt, nv = int(product(lay[0].shape)), int(product(lay[1].shape))
        for t in range(nt):
            for v in range(nv):
                if lay(t, v) == target:
                    return t, v
        raise LayoutError(f"{self.name}: no thread holds {op}({row},{col})")

    def __str__(self):
        return (f"MMA_Atom {self.name}\n  ThrID:     {self.thr_id}\n  Shape_MNK: "
                f"({','.join(str(x) for x in self.shape_mnk)})\n  LayoutA_TV: {self.layout_A}\n"
                f"  LayoutB_TV: {self.layout_B}\n  LayoutC_TV: {self.layout_C}\n  PTX: {self.ptx}")


def _check_tv(atom, lay, t, v):
    nt, nv = int(product(lay[0].shape)), int(product(lay[1].shape))
    if not (isinstance(t, int) and 0 <= t < nt):
        raise LayoutError(f"{atom.name}: thread {t!r} outside [0, {nt})")
    if not (isinstance(v, int) and 0 <= v < nv):
        raise LayoutError(f"{atom.name}: value {v!r} outside [0, {nv})")


def _atom(name, ins, major_a="K", major_b="K"):
    return MMAAtom(name=name, shape_mnk=tuple(S(x) for x in ins.shape_mnk),
                   thr_id=parse_layout(ins.thr_id), layout_A=parse_layout(ins.layout_A),
                   layout_B=parse_layout(ins.layout_B), layout_C=parse_layout(ins.layout_C),
                   types=ins.types, ptx=ins.ptx, min_sm=ins.min_sm, entry=ins,
                   major_A=major_a, major_B=major_b)


# One atom per CuTe name of every mma.sync entry (SM75_ and SM80_16x8x8_F32F16F16F32_TN share one).
MMA_ATOMS = {name: _atom(name, ins) for ins in MMA.values() for name in ins.atoms}
_GMMA_BY_ATOM = {a: g for g in GMMA.values() for a in g.atoms}

_NAME = re.compile(r"^\s*(?:cute::)?(?:SM90::GMMA::)?(?P<base>SM\w+?)\s*(?:<(?P<args>[^<>]*)>)?\s*$")
_MAJOR = re.compile(r"^(?:(?:cute::)?(?:SM90::)?(?:GMMA::)?Major::)?(K|MN)$")
_SCALE = re.compile(r"^(?:(?:cute::)?(?:SM90::)?(?:GMMA::)?ScaleIn::)?(One|Neg)$")


def _gmma_atom(text, base, args):
    ins = _GMMA_BY_ATOM[base]
    parts = [a.strip() for a in args.split(",")] if args and args.strip() else []
    tn = base.endswith("_TN")
    n_major = 0 if tn else 2
    n_scale = 0 if ins.acc_type == "s32" else 2          # CuTe's integer atoms are no templates
    if len(parts) > n_major + n_scale or (parts and not tn and len(parts) < 2):
        want = ("no template arguments" if not n_scale else "<scaleA, scaleB> (both optional)") if tn \
            else "<tnspA, tnspB> or <tnspA, tnspB, scaleA, scaleB>"
        raise InstructionError(f"mma_atom: {text!r}: {base} takes {want}")
    majors = []
    for p in parts[:n_major]:
        m = _MAJOR.match(p)
        if not m:
            raise InstructionError(f"mma_atom: {text!r}: {p!r} is not a GMMA::Major (K or MN)")
        majors.append(m.group(1))
    for p in parts[n_major:]:
        if not _SCALE.match(p):
            raise InstructionError(f"mma_atom: {text!r}: {p!r} is not a GMMA::ScaleIn (One or Neg)")
    major_a, major_b = majors if majors else ("K", "K")
    if ins.form == "RS" and major_a != "K":
        raise InstructionError(f"mma_atom: {text!r}: Register source operand A must have K major "
                               "layout. (CuTe: static_assert in the RS atom)")
    name = base if tn else f"{base}<GMMA::Major::{major_a},GMMA::Major::{major_b}>"
    return _atom(name, ins, major_a, major_b)


def mma_atom(name) -> MMAAtom:
    """The MMA atom called ``name`` (CuTe's spelling, template arguments included for GMMA).

    >>> mma_atom("SM75_16x8x8_F32F16F16F32_TN").ptx
    'mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32'
    >>> mma_atom("SM90_64x64x32_F32E4M3E4M3_SS_TN").shape_mnk
    (_64, _64, _32)
    >>> mma_atom("SM90_64x64x16_F16F16F16_RS<MN,K>")
    Traceback (most recent call last):
      ...
    labkit.errors.InstructionError: mma_atom: 'SM90_64x64x16_F16F16F16_RS<MN,K>': Register source operand A must have K major layout. (CuTe: static_assert in the RS atom)
    """
    if isinstance(name, MMAAtom):
        return name
    m = _NAME.match(name) if isinstance(name, str) else None
    if m and m.group("base") in MMA_ATOMS and not m.group("args"):
        return MMA_ATOMS[m.group("base")]
    if m and m.group("base") in _GMMA_BY_ATOM:
        return _gmma_atom(name, m.group("base"), m.group("args"))
    raise InstructionError(f"mma_atom: unknown atom {name!r}; known: {', '.join(MMA_ATOMS)} and "
                           "CuTe's SM90 GMMA atoms, SM90_64x{N}x{K}_{D}{A}{B}_{SS|RS}[_TN]"
                           "[<tnspA,tnspB>] (e.g. SM90_64x128x16_F32F16F16_SS<K,MN>, "
                           "SM90_64x256x32_F32E4M3E4M3_SS_TN)")
