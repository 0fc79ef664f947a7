"""Element bits for the numpy model: the coding of :mod:`labkit.elements`, plus the 16-bit
pair helpers the labs use.

A register of an MMA operand holds ``32 // bits`` elements, the lower-indexed one in the low
bits (PTX ``.f16x2``; four ``.s8`` to a ``.b32``; one ``.tf32``/``.f32``/``.s32``). bf16 is the
top half of an IEEE float32, tf32 a float32 with the low 13 mantissa bits clear.

>>> import numpy as np
>>> from labkit.sim import numbers as nb
>>> nb.to_bits([1.0, -2.0], "f16").tolist()
[15360, 49152]
>>> nb.to_bits([1.0, 3.140625], "bf16").tolist()
[16256, 16457]
>>> nb.to_bits([-3, 7], "s8").tolist(), nb.from_bits(nb.to_bits(1.5, "tf32"), "tf32").tolist()
([253, 7], 1.5)
>>> hex(int(nb.pack_pairs(np.array([1, 2], np.uint16))[0]))
'0x20001'
>>> nb.unpack_pairs(np.array([0x20001], np.uint32)).tolist()
[1, 2]
"""

from __future__ import annotations

import numpy as np

from labkit.elements import (ELEMENTS, from_bits, pack_registers, to_bits, unpack_registers,
                                   wrap)

__all__ = ["ELEMENT_TYPES", "to_bits", "from_bits", "wrap", "pack_registers", "unpack_registers",
           "pack_pairs", "unpack_pairs", "f32_bits", "bits_f32"]

ELEMENT_TYPES = tuple(n for n, e in ELEMENTS.items() if e.kind != "bits")
"""The element types of the MMA operands and accumulators."""


def pack_pairs(halves) -> np.ndarray:
    """Pack 16-bit values in pairs along the last axis into uint32 registers (low half first)."""
    return pack_registers(np.asarray(halves).astype(np.uint16), "u16")


def unpack_pairs(regs) -> np.ndarray:
    """Inverse of :func:`pack_pairs`: uint32 registers to 16-bit values (low half first)."""
    return unpack_registers(regs, "u16")


def f32_bits(values) -> np.ndarray:
    """float32 bit patterns (uint32) of ``values`` (rounded to float32 first)."""
    return to_bits(values, "f32")


def bits_f32(bits) -> np.ndarray:
    """float32 values of uint32 bit patterns."""
    return np.asarray(bits).astype(np.uint32).view(np.float32)
