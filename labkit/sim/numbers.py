"""16-bit floats as bits, and 32-bit registers holding two of them.

A register of an f16/bf16 MMA operand holds two 16-bit values: the lower-indexed element
in bits 0-15, the next in bits 16-31 (PTX ``.f16x2``). bf16 is the top half of an IEEE
float32; rounding to it is round-to-nearest-even, as ``cvt.rn.bf16.f32`` does.

>>> import numpy as np
>>> from labkit.sim import numbers as nb
>>> nb.to_bits([1.0, -2.0], "f16").tolist()
[15360, 49152]
>>> nb.to_bits([1.0, 3.140625], "bf16").tolist()
[16256, 16457]
>>> hex(int(nb.pack_pairs(np.array([1, 2], np.uint16))[0]))
'0x20001'
>>> nb.unpack_pairs(np.array([0x20001], np.uint32)).tolist()
[1, 2]
"""

from __future__ import annotations

import numpy as np

from labkit.errors import DeviceError

__all__ = ["ELEMENT_TYPES", "to_bits", "from_bits", "pack_pairs", "unpack_pairs", "f32_bits", "bits_f32"]

ELEMENT_TYPES = ("f16", "bf16")
"""The 16-bit element types of the MMA operands."""


def _check_type(kind):
    if kind not in ELEMENT_TYPES:
        raise DeviceError(f"element type must be one of {ELEMENT_TYPES}; got {kind!r}")


def to_bits(values, kind: str = "f16") -> np.ndarray:
    """Round ``values`` to f16 or bf16 (nearest even) and return the bits as uint16."""
    _check_type(kind)
    x = np.asarray(values)
    if kind == "f16":
        with np.errstate(over="ignore"):
            return np.asarray(x, np.float64).astype(np.float16).view(np.uint16)
    f = np.asarray(x, np.float32)
    u = f.view(np.uint32).astype(np.uint64)
    nan = np.isnan(f)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    out = rounded.astype(np.uint16)
    out = np.where(nan, np.uint16(0x7FC0), out)
    return out.astype(np.uint16)


def from_bits(bits, kind: str = "f16") -> np.ndarray:
    """The float64 values of f16 or bf16 bit patterns."""
    _check_type(kind)
    b = np.asarray(bits).astype(np.uint16)
    if kind == "f16":
        return b.view(np.float16).astype(np.float64)
    return (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def pack_pairs(halves) -> np.ndarray:
    """Pack 16-bit values in pairs along the last axis into uint32 registers (low half first)."""
    h = np.asarray(halves).astype(np.uint32)
    if h.shape[-1] % 2:
        raise DeviceError(f"pack_pairs needs an even number of 16-bit values on the last axis; got {h.shape[-1]}")
    h = h.reshape(h.shape[:-1] + (h.shape[-1] // 2, 2))
    return (h[..., 0] | (h[..., 1] << 16)).astype(np.uint32)


def unpack_pairs(regs) -> np.ndarray:
    """Inverse of :func:`pack_pairs`: uint32 registers to 16-bit values (low half first)."""
    r = np.asarray(regs).astype(np.uint32)
    out = np.stack([r & 0xFFFF, r >> 16], axis=-1).astype(np.uint16)
    return out.reshape(r.shape[:-1] + (2 * r.shape[-1],))


def f32_bits(values) -> np.ndarray:
    """float32 bit patterns (uint32) of ``values`` (rounded to float32 first)."""
    return np.asarray(values, np.float32).view(np.uint32)


def bits_f32(bits) -> np.ndarray:
    """float32 values of uint32 bit patterns."""
    return np.asarray(bits).astype(np.uint32).view(np.float32)
