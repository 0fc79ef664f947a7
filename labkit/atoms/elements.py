"""The element types the instructions name, as bits: the one home of each type's width and coding.

An MMA operand is a run of elements packed into 32-bit registers: ``32 // bits`` to a register,
the lower-indexed element in the low bits (PTX ``.f16x2``; four ``.s8`` in a ``.b32``).
:func:`to_bits` rounds values to a type and gives their bit patterns, :func:`from_bits` gives the
values back as float64 (exact for every type here), :func:`pack_registers` and
:func:`unpack_registers` move between elements and registers by the type's width alone.

Rounding: f16, bf16 and f32 round to nearest even (``cvt.rn``); tf32 rounds to nearest with ties
away from zero and clears the low 13 mantissa bits (``cvt.rna.tf32.f32``: the form an ``.tf32``
mma operand takes); integers must already be integers in the type's range (anything else is a
:class:`~labkit.errors.DeviceError`); :func:`wrap` reduces an integer sum modulo ``2**bits`` as
an ``.s32`` accumulator does.

>>> import numpy as np
>>> from labkit.atoms import elements as el
>>> el.to_bits([1.0, -2.0], "f16").tolist(), el.to_bits([1.0, 3.140625], "bf16").tolist()
([15360, 49152], [16256, 16457])
>>> hex(int(el.to_bits(1 + 2**-11, "tf32")))      # ties away: 1 + 2**-10
'0x3f802000'
>>> el.to_bits([-1, 2], "s8").tolist(), el.from_bits(np.uint8(255), "s8").tolist()
([255, 2], -1.0)
>>> [hex(int(r)) for r in el.pack_registers(np.array([1, 2, 3, 4], np.uint8), "s8")]
['0x4030201']
>>> el.unpack_registers(np.array([0x20001], np.uint32), "f16").tolist()
[1, 2]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from labkit.errors import DeviceError

__all__ = ["Element", "ELEMENTS", "ELEMENT_BITS", "element", "to_bits", "from_bits", "wrap",
           "pack_registers", "unpack_registers", "per_register", "register_kind"]


@dataclass(frozen=True)
class Element:
    """One element type: its PTX name, width in bits, ``kind`` (``"float"``, ``"int"`` or
    ``"bits"``) and whether it is signed."""

    name: str
    bits: int
    kind: str
    signed: bool = True

    @property
    def dtype(self) -> np.dtype:
        """The numpy unsigned integer type holding one element's bits."""
        return np.dtype(f"uint{self.bits}")


ELEMENTS: dict = {e.name: e for e in (
    Element("f16", 16, "float"), Element("bf16", 16, "float"), Element("tf32", 32, "float"),
    Element("f32", 32, "float"), Element("s8", 8, "int"), Element("u8", 8, "int", False),
    Element("s32", 32, "int"), Element("u16", 16, "bits", False), Element("u32", 32, "bits", False),
)}
"""Every element type an instruction of the registry names."""

ELEMENT_BITS = {name: e.bits for name, e in ELEMENTS.items()}
"""Bits of each element type."""


def element(kind) -> Element:
    """The :class:`Element` called ``kind``; an unknown name is a :class:`DeviceError`."""
    if isinstance(kind, Element):
        return kind
    e = ELEMENTS.get(kind) if isinstance(kind, str) else None
    if e is None:
        raise DeviceError(f"element type must be one of {tuple(ELEMENTS)}; got {kind!r}")
    return e


def per_register(kind) -> int:
    """Elements of ``kind`` in one 32-bit register (``"s8"``: 4, ``"f16"``: 2, ``"f32"``: 1)."""
    return 32 // element(kind).bits


def register_kind(kind) -> str:
    """How a kernel holds a 32-bit register of ``kind`` elements: ``"f32"`` (one float32),
    ``"s32"`` (one int32) or ``"u32"`` (raw bits: packed narrower elements, tf32, u32).

    >>> register_kind("f32"), register_kind("s32"), register_kind("f16"), register_kind("tf32")
    ('f32', 's32', 'u32', 'u32')
    """
    e = element(kind)
    if e.bits == 32 and e.name in ("f32", "s32"):
        return e.name
    return "u32"


def _round_f32_to(u, keep_bits, ties_away):
    """Round float32 bit patterns ``u`` (uint64) to ``keep_bits`` high bits; NaN stays NaN."""
    drop = 32 - keep_bits
    half = np.uint64(1) << np.uint64(drop - 1)
    if ties_away:
        r = u + half
    else:
        r = u + (half - np.uint64(1)) + ((u >> np.uint64(drop)) & np.uint64(1))
    return (r >> np.uint64(drop)) << np.uint64(drop)


def to_bits(values, kind: str = "f16") -> np.ndarray:
    """``values`` rounded to ``kind`` (see the module's rounding rules), as its bit patterns."""
    e = element(kind)
    x = np.asarray(values)
    if e.kind == "float":
        if e.name == "f16":
            with np.errstate(over="ignore"):
                return np.asarray(x, np.float64).astype(np.float16).view(np.uint16)
        with np.errstate(over="ignore", invalid="ignore"):
            f = np.asarray(x, np.float32)
        if e.name == "f32":
            return f.view(np.uint32).copy()
        u = f.view(np.uint32).astype(np.uint64)
        nan = np.isnan(f)
        if e.name == "bf16":
            out = (_round_f32_to(u, 16, False) >> np.uint64(16)).astype(np.uint16)
            return np.where(nan, np.uint16(0x7FC0), out).astype(np.uint16)
        out = _round_f32_to(u, 19, True).astype(np.uint32)                      # tf32
        return np.where(nan, np.uint32(0x7FC00000), out).astype(np.uint32)
    xf = np.asarray(x, np.float64)
    lo, hi = (-(1 << (e.bits - 1)), (1 << (e.bits - 1)) - 1) if e.signed else (0, (1 << e.bits) - 1)
    if xf.size and (not np.all(np.isfinite(xf)) or np.any(xf != np.round(xf))
                    or xf.min() < lo or xf.max() > hi):
        raise DeviceError(f"values for {e.name} must be integers in {lo}..{hi}")
    return np.asarray(xf, np.int64).astype(e.dtype)


def from_bits(bits, kind: str = "f16") -> np.ndarray:
    """The float64 values of ``kind`` bit patterns (integers exactly)."""
    e = element(kind)
    b = np.asarray(bits).astype(e.dtype)
    if e.name == "f16":
        return b.view(np.float16).astype(np.float64)
    if e.name == "bf16":
        return (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if e.kind == "float":
        return b.view(np.float32).astype(np.float64)
    if e.signed:
        return b.view(f"int{e.bits}").astype(np.float64)
    return b.astype(np.float64)


def wrap(values, kind: str) -> np.ndarray:
    """Bits of the integer ``values`` reduced modulo ``2**bits`` (an ``.s32`` sum's overflow)."""
    e = element(kind)
    return (np.asarray(np.round(values), np.int64) & ((1 << e.bits) - 1)).astype(e.dtype)


def pack_registers(bits, kind) -> np.ndarray:
    """Element bits ``(..., n)`` of ``kind`` into ``(..., n * bits / 32)`` uint32 registers,
    the lower-indexed element in the low bits."""
    e = element(kind)
    b = np.asarray(bits).astype(np.uint64)
    per = 32 // e.bits
    if b.shape[-1] % per:
        raise DeviceError(f"{e.name} packs {per} elements to a register; got {b.shape[-1]} on the last axis")
    b = b.reshape(b.shape[:-1] + (b.shape[-1] // per, per))
    shifts = (np.arange(per, dtype=np.uint64) * np.uint64(e.bits))
    return np.bitwise_or.reduce(b << shifts, axis=-1).astype(np.uint32)


def unpack_registers(regs, kind) -> np.ndarray:
    """Inverse of :func:`pack_registers`: uint32 registers ``(..., r)`` to element bits
    ``(..., r * 32 / bits)`` (numpy ``uint{bits}``)."""
    e = element(kind)
    r = np.asarray(regs).astype(np.uint64)
    per = 32 // e.bits
    shifts = (np.arange(per, dtype=np.uint64) * np.uint64(e.bits))
    out = (r[..., None] >> shifts) & np.uint64((1 << e.bits) - 1)
    return out.reshape(r.shape[:-1] + (r.shape[-1] * per,)).astype(e.dtype)
