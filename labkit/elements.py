"""Element types: the one home of each type's names, width and coding as bits.

Every labkit function that takes an element type takes it here, spelled as CuTe spells it
(``half_t``, ``bfloat16_t``, ``tfloat32_t``, ``float``, ``float_e4m3_t``, ``float_e5m2_t``,
``int8_t``, ``uint8_t``, ``int32_t``), as PTX does (``f16``, ``bf16``, ``tf32``, ``f32``,
``e4m3``, ``e5m2``, ``s8``, ``u8``, ``s32``), as a numpy dtype, or by a common alias (``fp16``,
``float16``, ``fp8_e4m3`` ...); :func:`element` turns any of them into one :class:`Element`,
whose ``name`` is the PTX name and ``cute`` CuTe's.

An MMA operand is a run of elements packed into 32-bit registers: ``32 // bits`` to a register,
the lower-indexed element in the low bits (PTX ``.f16x2``; four ``.s8`` or ``.e4m3`` in a
``.b32``). :func:`to_bits` rounds values to a type and gives their bit patterns, :func:`from_bits`
gives the values back as float64 (exact for every type here), :func:`pack_registers` and
:func:`unpack_registers` move between elements and registers by the type's width alone.

Rounding: f16, bf16, f32 and the fp8 types round to nearest even (``cvt.rn``; e4m3 and e5m2
saturate to their largest finite value, as ``cvt.rn.satfinite`` does); tf32 rounds to nearest
with ties away from zero and clears the low 13 mantissa bits (``cvt.rna.tf32.f32``: the form an
``.tf32`` mma operand takes); integers must already be integers in the type's range (anything
else is a :class:`~labkit.errors.LayoutError` naming the type); :func:`wrap` reduces an integer
sum modulo ``2**bits`` as an ``.s32`` accumulator does.

>>> import numpy as np
>>> from labkit import elements as el
>>> el.element("half_t").name, el.element(np.float16).cute, el.element("float_e4m3_t").bits
('f16', 'half_t', 8)
>>> el.to_bits([1.0, -2.0], "f16").tolist(), el.to_bits([1.0, 3.140625], "bf16").tolist()
([15360, 49152], [16256, 16457])
>>> hex(int(el.to_bits(1 + 2**-11, "tf32")))      # ties away: 1 + 2**-10
'0x3f802000'
>>> el.to_bits([1.0, 448.0, 1000.0], "e4m3").tolist(), el.from_bits(0x7b, "e5m2").tolist()
([56, 126, 126], 57344.0)
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

from labkit.errors import LayoutError

__all__ = ["Element", "ELEMENTS", "ELEMENT_BITS", "element", "element_bits", "to_bits",
           "from_bits", "wrap", "pack_registers", "unpack_registers", "per_register",
           "register_kind"]


@dataclass(frozen=True)
class Element:
    """One element type: its PTX name, width in bits, ``kind`` (``"float"``, ``"int"`` or
    ``"bits"``), whether it is signed, CuTe's name (``cute``) and other spellings (``aliases``).
    ``coded``: :func:`to_bits`/:func:`from_bits` know its coding (not only its width)."""

    name: str
    bits: int
    kind: str
    signed: bool = True
    cute: str = ""
    aliases: tuple = ()
    coded: bool = True

    @property
    def dtype(self) -> np.dtype:
        """The numpy unsigned integer type holding one element's bits."""
        return np.dtype(f"uint{max(self.bits, 8)}")


ELEMENTS: dict = {e.name: e for e in (
    Element("f16", 16, "float", cute="half_t", aliases=("half", "fp16", "float16")),
    Element("bf16", 16, "float", cute="bfloat16_t", aliases=("bfloat16",)),
    Element("tf32", 32, "float", cute="tfloat32_t", aliases=("tfloat32",)),
    Element("f32", 32, "float", cute="float", aliases=("fp32", "float32")),
    Element("f64", 64, "float", cute="double", aliases=("fp64", "float64"), coded=False),
    Element("e4m3", 8, "float", cute="float_e4m3_t",
            aliases=("fp8_e4m3", "float8_e4m3", "float8_e4m3fn", "fp8")),
    Element("e5m2", 8, "float", cute="float_e5m2_t", aliases=("fp8_e5m2", "float8_e5m2")),
    Element("e2m1", 4, "float", cute="float_e2m1_t", aliases=("fp4", "float4_e2m1"), coded=False),
    Element("e8m0", 8, "float", False, cute="float_ue8m0_t", aliases=("ue8m0",), coded=False),
    Element("s4", 4, "int", cute="int4b_t", aliases=("int4",), coded=False),
    Element("u4", 4, "int", False, cute="uint4b_t", aliases=("uint4",), coded=False),
    Element("s8", 8, "int", cute="int8_t", aliases=("int8",)),
    Element("u8", 8, "int", False, cute="uint8_t", aliases=("uint8",)),
    Element("s16", 16, "int", cute="int16_t", aliases=("int16",)),
    Element("s32", 32, "int", cute="int32_t", aliases=("int32",)),
    Element("s64", 64, "int", cute="int64_t", aliases=("int64",), coded=False),
    Element("b4", 4, "bits", False, aliases=()),
    Element("b8", 8, "bits", False, aliases=()),
    Element("u16", 16, "bits", False, cute="uint16_t", aliases=("uint16", "b16")),
    Element("u32", 32, "bits", False, cute="uint32_t", aliases=("uint32", "b32")),
    Element("u64", 64, "bits", False, cute="uint64_t", aliases=("uint64", "b64"), coded=False),
)}
"""Every element type labkit knows, by PTX name."""

ELEMENT_BITS = {name: e.bits for name, e in ELEMENTS.items()}
"""Bits of each element type, by PTX name."""

_SPELLINGS = {s.lower(): e for e in ELEMENTS.values() for s in (e.name, e.cute, *e.aliases) if s}
_DTYPES = {np.dtype(np.float16): "f16", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64",
           np.dtype(np.int8): "s8", np.dtype(np.uint8): "u8", np.dtype(np.int16): "s16",
           np.dtype(np.int32): "s32", np.dtype(np.int64): "s64", np.dtype(np.uint16): "u16",
           np.dtype(np.uint32): "u32", np.dtype(np.uint64): "u64"}


def element(kind, arg: str = "element_type") -> Element:
    """The :class:`Element` that ``kind`` names: CuTe's, PTX's or numpy's spelling (see the
    module). Anything else is a :class:`LayoutError` naming ``arg`` and the spellings.

    >>> element("bfloat16_t").name, element("int8_t").cute
    ('bf16', 'int8_t')
    >>> element("fp13")
    Traceback (most recent call last):
      ...
    labkit.errors.LayoutError: element_type='fp13' is not an element type; use CuTe's names (half_t, ...
    """
    if isinstance(kind, Element):
        return kind
    if isinstance(kind, str):
        e = _SPELLINGS.get(kind.strip().lower().removeprefix("cute::").removeprefix("cutlass::"))
        if e is not None:
            return e
    elif not isinstance(kind, (bool, int)):
        try:
            dt = np.dtype(kind)
        except (TypeError, ValueError, SyntaxError):
            dt = None
        if dt is not None and dt in _DTYPES:
            return ELEMENTS[_DTYPES[dt]]
    cute = ", ".join(e.cute for e in ELEMENTS.values() if e.cute and e.coded)
    raise LayoutError(f"{arg}={kind!r} is not an element type; use CuTe's names ({cute}), "
                      f"PTX's ({', '.join(n for n, e in ELEMENTS.items() if e.coded)}) or a numpy dtype")


def element_bits(kind, arg: str = "element_type") -> int:
    """Bits per element of ``kind``: an element type (any spelling) or a width in bits.

    >>> element_bits("bf16"), element_bits(8), element_bits("float_e2m1_t")
    (16, 8, 4)
    """
    if isinstance(kind, (int, np.integer)) and not isinstance(kind, bool):
        widths = sorted({e.bits for e in ELEMENTS.values()})
        if int(kind) in widths:
            return int(kind)
        raise LayoutError(f"{arg}={int(kind)} bits is not one of {widths} bits")
    return element(kind, arg).bits


def _coded(kind) -> Element:
    e = element(kind)
    if not e.coded:
        raise LayoutError(f"element type {e.name} ({e.cute or e.name}): labkit knows its width "
                          f"({e.bits} bits) but not its coding as values")
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


def _fp8_values(e: Element) -> np.ndarray:
    """The value of each of the 256 codes of e4m3 (OCP FN: bias 7, no infinity, S.1111.111 NaN)
    or e5m2 (bias 15, IEEE-like infinities and NaNs), as float64."""
    exp_bits, man_bits = (4, 3) if e.name == "e4m3" else (5, 2)
    bias = (1 << (exp_bits - 1)) - 1
    codes = np.arange(256)
    sign = np.where(codes >> 7, -1.0, 1.0)
    exp = (codes >> man_bits) & ((1 << exp_bits) - 1)
    man = codes & ((1 << man_bits) - 1)
    frac = man / (1 << man_bits)
    val = np.where(exp == 0, frac * 2.0 ** (1 - bias), (1 + frac) * 2.0 ** (exp - bias)) * sign
    top = (1 << exp_bits) - 1
    if e.name == "e4m3":
        val = np.where((exp == top) & (man == (1 << man_bits) - 1), np.nan, val)
    else:
        val = np.where(exp == top, np.where(man == 0, sign * np.inf, np.nan), val)
    return val


def _to_fp8(x, e: Element) -> np.ndarray:
    table = _fp8_values(e)
    pos = table[:128]
    finite = np.isfinite(pos)
    mags, codes = pos[finite], np.arange(128)[finite]          # ascending, codes 0..max finite
    a = np.abs(np.asarray(x, np.float64))
    a = np.where(np.isnan(a), 0.0, np.minimum(a, mags[-1]))     # satfinite: clamp to the largest
    hi = np.clip(np.searchsorted(mags, a), 0, len(mags) - 1)
    lo = np.clip(hi - 1, 0, len(mags) - 1)
    d_lo, d_hi = a - mags[lo], mags[hi] - a
    pick_hi = (d_hi < d_lo) | ((d_hi == d_lo) & (codes[hi] % 2 == 0))
    out = np.where(pick_hi, codes[hi], codes[lo]).astype(np.uint8)
    out = np.where(np.signbit(np.asarray(x, np.float64)), out | np.uint8(0x80), out)
    return np.where(np.isnan(np.asarray(x, np.float64)), np.uint8(0x7F), out).astype(np.uint8)


def to_bits(values, kind: str = "f16") -> np.ndarray:
    """``values`` rounded to ``kind`` (see the module's rounding rules), as its bit patterns."""
    e = _coded(kind)
    x = np.asarray(values)
    if e.name in ("e4m3", "e5m2"):
        return _to_fp8(x, e)
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
        raise LayoutError(f"values for {e.name} must be integers in {lo}..{hi}")
    return np.asarray(xf, np.int64).astype(e.dtype)


def from_bits(bits, kind: str = "f16") -> np.ndarray:
    """The float64 values of ``kind`` bit patterns (integers exactly)."""
    e = _coded(kind)
    b = np.asarray(bits).astype(e.dtype)
    if e.name in ("e4m3", "e5m2"):
        return _fp8_values(e)[b.astype(np.int64)]
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
        raise LayoutError(f"{e.name} packs {per} elements to a register; got {b.shape[-1]} on the last axis")
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
