"""``mma.sync.aligned.m16n8k{8,16,32}.row.col`` (f16/bf16, tf32, s8 inputs), one warp, in numpy.

The fragment rules are the PTX ISA's ("Matrix Fragments for mma.m16n8k8", "... for
mma.m16n8k16 with floating point type", "... for mma.m16n8k32"), one function per table, keyed
by ``(m, n, k, bits of an A/B element)``. For 16-bit A/B, with ``g = lane >> 2`` (groupID) and
``q = lane % 4`` (threadID_in_group), element ``i`` of a lane's fragment is

- A (M x K, "row"):  row ``g + 8*((i//2) % 2)``, column ``2q + i%2 + 8*(i//4)``
- B (K x N, "col"):  row ``2q + i%2 + 8*(i//2)``, column ``g``
- C, D (M x N):      row ``g + 8*(i//2)``,       column ``2q + i%2``

and elements ``2j, 2j+1`` share 32-bit register ``j`` (low half first); in general a register
holds ``32 // bits`` elements, the lower-indexed in the low bits (``labkit.elements``).
f32 and s32 accumulators are one element per register. labkit indexes B as CuTe does, ``(n, k)``, so the PTX
``B[k, n]`` is ``b[n, k]`` here.

Arithmetic: every product of two f16/bf16 values is exact in float64; the sum over K
plus C is formed in float64 and rounded once, to nearest even, to the accumulator type
(f16 or f32); tf32 products are exact in float64 too; s8 sums are exact and wrap modulo 2**32
into the s32 accumulator. The GPU's tensor cores need not round this way: for inputs whose terms
cancel or span many binades the last bits can differ, so labkit compares D with a
float64 reference within a tolerance and demands bit-equality only for inputs whose sums
are exact (small integers).

Which forms exist, their types and minimum SMs come from the instruction registry
(:mod:`labkit.atoms.instructions`); the fragment rules below are this module's own, written
from the PTX ISA and looked up by the registry entry's shape, so that ``verify`` compares two
independent models.

>>> import numpy as np
>>> from labkit.sim import mma_fragments as sm
>>> spec = sm.mma_spec("SM80_16x8x16_F16F16F16F16_TN")
>>> spec.ptx
'mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16'
>>> sm.fragment_coords(spec, "A")[0].tolist()   # lane 0: (m, k) of a0..a7
[[0, 0], [0, 1], [8, 0], [8, 1], [0, 8], [0, 9], [8, 8], [8, 9]]
>>> a = np.arange(256).reshape(16, 16) % 5 - 2.0; b = np.ones((8, 16))
>>> d = sm.mma_sync(spec, sm.pack_fragment(spec, "A", a), sm.pack_fragment(spec, "B", b),
...                 sm.pack_fragment(spec, "C", np.zeros((16, 8))))
>>> np.array_equal(sm.unpack_fragment(spec, "C", d), a @ b.T)
True
"""

from __future__ import annotations

import numpy as np

from labkit.atoms import WARP
from labkit.atoms.instructions import ELEMENT_BITS, MMA, MmaInstruction, instruction, operand
from labkit.errors import DeviceError, InstructionError
from labkit.sim import numbers as nb

__all__ = ["MmaSpec", "MMA_SPECS", "mma_spec", "fragment_coords", "pack_fragment", "unpack_fragment", "mma_sync"]



MmaSpec = MmaInstruction
"""An ``mma.sync`` form is its instruction-registry entry (:mod:`labkit.atoms.instructions`)."""


def _m16n8_16bit(op, lane, i):
    """PTX ISA, "Matrix Fragments for mma.m16n8k8" and "... mma.m16n8k16 with floating point
    type" (f16/bf16 A and B): the ``(first, second)`` coordinate of element ``i`` of ``lane``."""
    g, q = lane >> 2, lane % 4
    if op == "A":
        return g + 8 * ((i // 2) % 2), 2 * q + i % 2 + 8 * (i // 4)
    if op == "B":
        return g, 2 * q + i % 2 + 8 * (i // 2)          # (n, k): CuTe's order
    return g + 8 * (i // 2), 2 * q + i % 2


def _m16n8k8_32bit(op, lane, i):
    """PTX ISA, "Matrix Fragments for mma.m16n8k8" with ``.tf32`` A and B (one element per
    register): A ``a0, a2`` in row groupID, ``a1, a3`` in row groupID+8, ``a0, a1`` in column
    threadID_in_group, ``a2, a3`` in column threadID_in_group+4; B ``b0`` in row (k)
    threadID_in_group, ``b1`` in row threadID_in_group+4, column (n) groupID; C as f32."""
    g, q = lane >> 2, lane % 4
    if op == "A":
        return g + 8 * (i % 2), q + 4 * (i // 2)
    if op == "B":
        return g, q + 4 * i                              # (n, k): CuTe's order
    return g + 8 * (i // 2), 2 * q + i % 2


def _m16n8k32_8bit(op, lane, i):
    """PTX ISA, "Matrix Fragments for mma.m16n8k32" with ``.s8``/``.u8`` A and B (four to a
    register): A ``ai`` in row groupID for ``i < 4`` or ``8 <= i < 12`` (else groupID+8), column
    ``threadID_in_group*4 + (i & 3)`` (+16 for ``i >= 8``); B ``bi`` in row (k)
    ``threadID_in_group*4 + (i & 3)`` (+16 for ``i >= 4``), column (n) groupID; C (.s32) row
    groupID (+8 for ``i >= 2``), column ``threadID_in_group*2 + (i & 1)``."""
    g, q = lane >> 2, lane % 4
    if op == "A":
        return g + 8 * ((i // 4) % 2), 4 * q + (i & 3) + 16 * (i // 8)
    if op == "B":
        return g, 4 * q + (i & 3) + 16 * (i // 4)        # (n, k): CuTe's order
    return g + 8 * (i // 2), 2 * q + (i & 1)


_FRAGMENT_RULES = {
    # (m, n, k, bits of an A/B element): the PTX ISA's fragment rule for that family
    (16, 8, 8, 16): _m16n8_16bit,
    (16, 8, 16, 16): _m16n8_16bit,
    (16, 8, 8, 32): _m16n8k8_32bit,
    (16, 8, 32, 8): _m16n8k32_8bit,
}


def _rule_key(ins):
    return (*ins.shape_mnk, ELEMENT_BITS[ins.ab_type])


MMA_SPECS: dict = {name: ins for name, ins in MMA.items() if _rule_key(ins) in _FRAGMENT_RULES}
"""The registry's mma forms this model has fragment rules for, by labkit.cuda.ptx name."""


def mma_spec(name) -> MmaSpec:
    """The registry entry of a CuTe atom name (``"SM80_16x8x16_F32BF16BF16F32_TN"``) or a
    labkit.cuda.ptx name (``"mma_m16n8k16_f32bf16bf16f32"``), checked to have a fragment rule
    here; an entry is returned as is. Unknown names raise :class:`InstructionError`."""
    ins = instruction(name, "mma")
    if _rule_key(ins) not in _FRAGMENT_RULES:
        raise InstructionError(f"labkit.sim has no PTX ISA fragment rule for {ins.ptx}")
    return ins


_operand = operand


def fragment_coords(spec, operand: str) -> np.ndarray:
    """``(32, elements, 2)`` int array: the matrix coordinate of each lane's element.

    A gives ``(m, k)``, B gives ``(n, k)`` (CuTe's order), C/D give ``(m, n)``.
    """
    spec = mma_spec(spec)
    op = _operand(operand)
    lane = np.arange(WARP)[:, None]
    i = np.arange(spec.elements(op))[None, :]
    first, second = _FRAGMENT_RULES[_rule_key(spec)](op, lane, i)
    return np.stack(np.broadcast_arrays(first, second), axis=-1)


def _matrix_shape(spec, op):
    return {"A": (spec.m, spec.k), "B": (spec.n, spec.k), "C": (spec.m, spec.n)}[op]


def _rounded_bits(values, kind):
    """Bits of ``values`` in element type ``kind``: floats round to nearest even (tf32: as
    ``cvt.rna``), integers must be exact (inputs) -- sums wrap as ``.s32`` does (see mma_sync)."""
    return nb.to_bits(values, kind)


def pack_fragment(spec, operand: str, matrix) -> np.ndarray:
    """Registers ``(..., 32, regs)`` (uint32) holding ``matrix`` (``(..., rows, cols)``, float)
    as the MMA operand ``operand``, elements rounded to the operand's type (f16/bf16/f32 to
    nearest even, tf32 as ``cvt.rna.tf32.f32``, integers exactly) and packed by its width."""
    spec = mma_spec(spec)
    op = _operand(operand)
    x = np.asarray(matrix, np.float64)
    shape = _matrix_shape(spec, op)
    if x.shape[-2:] != shape:
        raise DeviceError(f"{op} of {spec.ptx} must have shape {shape}; got {x.shape[-2:]}")
    c = fragment_coords(spec, op)
    kind = spec.element_type(op)
    return nb.pack_registers(_rounded_bits(x[..., c[..., 0], c[..., 1]], kind), kind)


def unpack_fragment(spec, operand: str, regs) -> np.ndarray:
    """Inverse of :func:`pack_fragment`: registers ``(..., 32, regs)`` to the float64 matrix."""
    spec = mma_spec(spec)
    op = _operand(operand)
    r = np.asarray(regs)
    want = spec.registers(op)
    if r.shape[-2:] != (WARP, want):
        raise DeviceError(f"{op} registers of {spec.ptx} must have shape (..., 32, {want}); got {r.shape}")
    kind = spec.element_type(op)
    vals = nb.from_bits(nb.unpack_registers(r.astype(np.uint32), kind), kind)
    c = fragment_coords(spec, op)
    out = np.zeros(r.shape[:-2] + _matrix_shape(spec, op))
    out[..., c[..., 0], c[..., 1]] = vals
    return out


def mma_sync(spec, a, b, c) -> np.ndarray:
    """``D = A * B + C`` on registers: ``a (..., 32, A regs)``, ``b (..., 32, B regs)``,
    ``c (..., 32, C regs)`` (uint32; f32 accumulators as their bits). Returns D's registers.

    Leading axes are batches (many warps, or many MMAs of one warp) and broadcast.
    """
    spec = mma_spec(spec)
    A = unpack_fragment(spec, "A", np.asarray(a, np.uint32))
    B = unpack_fragment(spec, "B", np.asarray(b, np.uint32))
    C = unpack_fragment(spec, "C", np.asarray(c, np.uint32))
    D = np.matmul(A, np.swapaxes(B, -1, -2)) + C
    if nb.ELEMENTS[spec.acc_type].kind == "int":          # .s32: exact, modulo 2**32
        c = fragment_coords(spec, "C")
        return nb.pack_registers(nb.wrap(D[..., c[..., 0], c[..., 1]], spec.acc_type), spec.acc_type)
    return pack_fragment(spec, "C", D)
