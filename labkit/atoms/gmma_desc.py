"""Hopper's 64-bit shared-memory matrix descriptor (``wgmma``), and CuTe's ``make_gmma_desc``.

A ``wgmma`` instruction reads A (SS form) and B from shared memory through a descriptor, the
``GmmaDescriptor`` union of ``cute/arch/mma_sm90_desc.hpp`` (fields of the PTX ISA's "Matrix
Descriptor Format"):

====================  ========  ===================================================
field                 bits      meaning
====================  ========  ===================================================
start_address         [0,14)    shared-memory byte address >> 4
leading_byte_offset   [16,30)   LBO, bytes >> 4
stride_byte_offset    [32,46)   SBO, bytes >> 4
base_offset           [49,52)   swizzle phase of the start address (CuTe writes 0)
layout_type           [62,64)   INTERLEAVE = 0, B128 = 1, B64 = 2, B32 = 3
====================  ========  ===================================================

The fields hold what CuTe's bitfields hold: start address and offsets in units of 16 bytes
(one ``uint128_t``). :func:`make_gmma_desc` follows ``make_gmma_desc<Major>`` line by line: the
tensor is recast to ``uint128_t``, divided into the canonical ``((W,n),(8,k))`` (MN-major) or
``((8,n),(2,1))`` (K-major) form, its strides checked, and LBO and SBO read from two strides.
Where C++ refuses at compile time (``static_assert``), labkit raises :class:`LayoutError` with
CuTe's message.

>>> import labkit as lk
>>> from labkit.atoms.gmma_layouts import gmma_layout_atom
>>> sA = lk.tile_to_shape(gmma_layout_atom("K", "SW32", 16), (lk.S(64), lk.S(16)))
>>> d = make_gmma_desc("K", sA, start_address=0x400)
>>> d
GmmaDescriptor(start_address=64, leading_byte_offset=1, stride_byte_offset=16, base_offset=0, layout_type=<LayoutType.B32: 3>)
>>> hex(d.encode()), decode(d.encode()) == d
('0xc000001000010040', True)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ..errors import LayoutError
from ..layout import S, Layout, Swizzle, ComposedLayout, logical_divide, make_layout, size, upcast
from ..layout.int_tuple import congruent, is_int
from ..layout.pointer import Iterator, SmemPtrFlag
from .gmma_layouts import gmma_element_bits, gmma_major

__all__ = ["LayoutType", "GmmaDescriptor", "decode", "make_gmma_desc", "gmma_layout_type",
           "smem_tile", "DescriptorIterator", "make_gmma_desc_tensor"]


class LayoutType(enum.IntEnum):
    """CuTe's ``SM90::GMMA::LayoutType``: the descriptor's swizzle-mode code (bits 62-63)."""

    INTERLEAVE = 0
    B128 = 1
    B64 = 2
    B32 = 3


_FIELDS = (  # name, first bit, width
    ("start_address", 0, 14), ("leading_byte_offset", 16, 14), ("stride_byte_offset", 32, 14),
    ("base_offset", 49, 3), ("layout_type", 62, 2))
_BY_SWIZZLE_BITS = {0: LayoutType.INTERLEAVE, 1: LayoutType.B32, 2: LayoutType.B64,
                    3: LayoutType.B128}
_W = {LayoutType.INTERLEAVE: 1, LayoutType.B32: 2, LayoutType.B64: 4, LayoutType.B128: 8}


def _field_int(name, value, width):
    if isinstance(value, bool) or not is_int(value):
        raise LayoutError(f"GmmaDescriptor: {name} must be an int, got {value!r}")
    if not 0 <= int(value) < 1 << width:
        raise LayoutError(f"GmmaDescriptor: {name}={value} does not fit its {width}-bit field "
                          f"(0..{(1 << width) - 1})")
    return int(value)


@dataclass(frozen=True)
class GmmaDescriptor:
    """One descriptor, field by field as CuTe's ``GmmaDescriptor::bitfield`` holds them.

    ``start_address``, ``leading_byte_offset`` and ``stride_byte_offset`` are in units of 16
    bytes (the 4 low bits are not stored); the ``*_bytes`` properties give bytes.

    >>> d = GmmaDescriptor(start_address=0x42, leading_byte_offset=1, stride_byte_offset=64,
    ...                    layout_type="B128")
    >>> hex(d.encode()), d.stride_bytes
    ('0x4000004000010042', 1024)
    >>> print(d.cute_print(), end="")
    GmmaDescriptor: 0x4000004000010042
      start_addr :  0x0042
      leading_off:  0x0001 (1)
      stride_off :  0x0040 (64)
      base_offset:  0x0
      layout_type:  0x1 (B128)
    """

    start_address: int = 0
    leading_byte_offset: int = 0
    stride_byte_offset: int = 0
    base_offset: int = 0
    layout_type: LayoutType = LayoutType.INTERLEAVE

    def __post_init__(self):
        for name, _, width in _FIELDS[:4]:
            object.__setattr__(self, name, _field_int(name, getattr(self, name), width))
        lt = self.layout_type
        if isinstance(lt, str) and lt.strip().upper() in LayoutType.__members__:
            lt = LayoutType[lt.strip().upper()]
        elif isinstance(lt, bool) or not is_int(lt) or int(lt) not in (0, 1, 2, 3):
            raise LayoutError(f"GmmaDescriptor: layout_type must be a LayoutType (INTERLEAVE, "
                              f"B128, B64, B32) or its code 0..3, got {lt!r}")
        object.__setattr__(self, "layout_type", LayoutType(int(lt)))

    @classmethod
    def decode(cls, desc: int) -> "GmmaDescriptor":
        """The descriptor whose 64 bits are ``desc`` (:func:`decode`)."""
        return decode(desc)

    def encode(self) -> int:
        """The 64 bits, as ``GmmaDescriptor::desc_`` holds them."""
        return sum(int(getattr(self, name)) << lo for name, lo, _ in _FIELDS)

    def __int__(self):
        """The 64 bits (``uint64_t(desc)`` in CuTe)."""
        return self.encode()

    __index__ = __int__

    start_address_bytes = property(lambda self: self.start_address << 4,
                                   doc="The start address in bytes.")
    leading_bytes = property(lambda self: self.leading_byte_offset << 4, doc="LBO in bytes.")
    stride_bytes = property(lambda self: self.stride_byte_offset << 4, doc="SBO in bytes.")

    def cute_print(self) -> str:
        """The text CuTe's ``print(GmmaDescriptor)`` writes."""
        return (f"GmmaDescriptor: 0x{self.encode():016x}\n"
                f"  start_addr :  0x{self.start_address:04x}\n"
                f"  leading_off:  0x{self.leading_byte_offset:04x} ({self.leading_byte_offset})\n"
                f"  stride_off :  0x{self.stride_byte_offset:04x} ({self.stride_byte_offset})\n"
                f"  base_offset:  0x{self.base_offset:01x}\n"
                f"  layout_type:  0x{int(self.layout_type):01x} ({self.layout_type.name})\n")


def decode(desc: int) -> GmmaDescriptor:
    """The fields of a 64-bit descriptor; the bits no field uses must be zero.

    >>> decode(0x4000004000010042).stride_byte_offset
    64
    """
    if isinstance(desc, bool) or not is_int(desc) or not 0 <= int(desc) < 1 << 64:
        raise LayoutError(f"decode: desc must be a 64-bit unsigned int, got {desc!r}")
    desc = int(desc)
    used = sum(((1 << w) - 1) << lo for _, lo, w in _FIELDS)
    if desc & ~used:
        raise LayoutError(f"decode: desc=0x{desc:016x} sets bits outside the descriptor's fields "
                          f"(mask 0x{desc & ~used:016x}); CuTe's bitfields leave them zero")
    return GmmaDescriptor(**{name: (desc >> lo) & ((1 << w) - 1) for name, lo, w in _FIELDS})


def gmma_layout_type(swizzle) -> LayoutType:
    """CuTe's ``layout_type(u128_tensor)``: the LayoutType of a byte swizzle ``Swizzle<B,4,3>``.

    >>> gmma_layout_type(Swizzle(2, 4, 3)).name
    'B64'
    """
    if not isinstance(swizzle, Swizzle):
        raise LayoutError(f"swizzle must be a Swizzle, got {swizzle!r}")
    if swizzle.base != 4 or not 0 <= swizzle.bits <= 3 or swizzle.shift != 3:
        raise LayoutError(f"{swizzle} is not a GMMA swizzle (CuTe: static_assert 'Unsupported "
                          "layout swizzle': M == 4, 0 <= B <= 3, S == 3 on byte addresses)")
    return _BY_SWIZZLE_BITS[swizzle.bits]


def _split(smem_layout, bits):
    """(byte swizzle, layout) of the tensor C++ would make from ``smem_layout``."""
    if isinstance(smem_layout, Layout):
        return Swizzle(0, 4, 3), smem_layout       # a plain smem_ptr: CuTe's get_swizzle is <0,4,3>
    if isinstance(smem_layout, ComposedLayout) and isinstance(smem_layout.layout_a, Swizzle) \
            and isinstance(smem_layout.layout_b, Layout):
        flag = smem_layout.offset
        if isinstance(flag, SmemPtrFlag):
            if flag.bits != bits:
                raise LayoutError(f"smem_layout waits for a {flag.bits}-bit pointer but "
                                  f"element_bits={bits} (CuTe: static_assert 'Expected a B-bit "
                                  "pointer type.')")
            return smem_layout.layout_a, smem_layout.layout_b
        raise LayoutError(f"smem_layout {smem_layout}: its swizzle is position-independent (offset "
                          f"{flag}, on element offsets); make_gmma_desc needs CuTe's GMMA atoms, "
                          "whose swizzle acts on byte addresses (Sw<B,4,3> o smem_ptr[..b](unset) "
                          "o ...): build it from gmma_layout_atom")
    raise LayoutError(f"smem_layout must be a Layout or a GMMA ComposedLayout (Sw<B,4,3> o "
                      f"smem_ptr[..b](unset) o layout), got {smem_layout!r}")


def _stride(layout, i, j, what):
    d = layout.stride[i][j]
    if not isinstance(d, S):
        raise LayoutError(f"{what}: stride<{i},{j}> of the canonical layout {layout} is dynamic; "
                          "CuTe reads it as a constexpr, so a dynamic stride does not compile")
    return int(d)


def _offset_field(name, value, canonical):
    if not 0 <= value < 1 << 14:
        raise LayoutError(f"{name} = {value} x 16 bytes (from {canonical}) does not fit the "
                          "descriptor's 14-bit field; CuTe would store it truncated")
    return value


def make_gmma_desc(major, smem_layout, start_address: int = 0, element_bits=16) -> GmmaDescriptor:
    """CuTe's ``make_gmma_desc<Major::K | Major::MN>(tensor)`` for the shared-memory tensor of
    ``element_bits``-bit elements with layout ``smem_layout`` starting at byte ``start_address``.

    ``smem_layout`` is a GMMA ComposedLayout (a :func:`~labkit.atoms.gmma_layouts.gmma_layout_atom`
    tiled by ``tile_to_shape``, possibly cut to one MMA's tile with :func:`smem_tile`) or a plain
    Layout (no swizzle: INTERLEAVE). Its mode 0 is M or N, mode 1 is K, and it holds what one
    ``wgmma`` reads: K = 32 bytes (16-bit: K = 16), or 16/64 bytes for sparse A/B.

    >>> import labkit as lk
    >>> from labkit.atoms.gmma_layouts import gmma_layout_atom
    >>> sB = lk.tile_to_shape(gmma_layout_atom("MN", "SW128", 16), (lk.S(128), lk.S(16)))
    >>> d = make_gmma_desc("MN", sB)
    >>> d.layout_type.name, d.leading_bytes, d.stride_bytes
    ('B128', 1024, 2048)
    """
    major = gmma_major(major)
    bits = gmma_element_bits(element_bits, "element_bits")
    if isinstance(start_address, bool) or not is_int(start_address):
        raise LayoutError(f"start_address must be an int (a shared-memory byte address), got "
                          f"{start_address!r}")
    start = int(start_address)
    if not 0 <= start < 1 << 18 or start % 16:
        raise LayoutError(f"start_address={start}: the descriptor holds a 16-byte aligned shared-"
                          "memory address below 256 KiB (bits [4,18) of it)")
    swizzle, layout = _split(smem_layout, bits)
    if len(layout) != 2:
        raise LayoutError(f"smem_layout {layout} has rank {len(layout)} (CuTe: static_assert "
                          "'GMMA Descriptors can only be constructed on rank-2 tensors.')")
    lt = gmma_layout_type(swizzle)
    w = _W[lt]
    u128 = upcast(layout, 128 // bits)            # recast<uint128_t const>(tensor)
    if major == "MN":
        k = size(u128[1])
        if int(k) not in (256 // bits, 128 // bits, 512 // bits) or not isinstance(k, S):
            raise LayoutError(
                f"smem_layout {layout}: K-size {k} (CuTe: static_assert 'Not a canonical GMMA_MN "
                "Layout: Expected K-size 256/sizeof_bits<T> for dense or (128|512)/sizeof_bits<T> "
                "for sparse.')")
        tiler = (make_layout(S(w), S(1)), make_layout(S(8), S(1)))
    else:
        mn, k = size(u128[0]), size(u128[1])
        if int(mn) % 8 or not isinstance(mn, S):
            raise LayoutError(f"smem_layout {layout}: MN-size {mn} (CuTe: static_assert 'Not a "
                              "canonical GMMA_K Layout: Expected MN-size multiple of 8.')")
        if int(k) not in (2, 4) or not isinstance(k, S):
            raise LayoutError(
                f"smem_layout {layout}: K-size {k} x 16 bytes (CuTe: static_assert 'Not a "
                "canonical GMMA_K Layout: Expected K-size 2 for dense or 4 for sparse (in units "
                "of uint128_t).')")
        tiler = (make_layout(S(8), S(1)), make_layout(S(2), S(1)))
    canonical = logical_divide(u128, tiler)
    name = "GMMA_MN" if major == "MN" else "GMMA_K"
    if not congruent(canonical.shape, ((1, 1), (1, 1))):
        raise LayoutError(f"smem_layout {layout}: in 16-byte units it divides into {canonical} "
                          f"(CuTe: static_assert 'Not a canonical {name} Layout: Expected profile "
                          "failure.')")
    what = f"make_gmma_desc<Major::{major}>"
    s00, s10 = _stride(canonical, 0, 0, what), _stride(canonical, 1, 0, what)
    s01, s11 = _stride(canonical, 0, 1, what), _stride(canonical, 1, 1, what)
    inter = lt is LayoutType.INTERLEAVE
    if major == "MN":
        want00, want10 = (s00 if inter else 1), w
        got = (s00, s10)
    else:
        want00, want10 = w, (s10 if inter else 1)
        got = (s00, s10)
    if got != (want00, want10):
        raise LayoutError(
            f"smem_layout {layout}: in 16-byte units it divides into {canonical}, whose strides "
            f"<0,0>, <1,0> are {got[0]}, {got[1]} where {lt.name} needs {want00}, {want10} "
            f"(CuTe: static_assert 'Not a canonical {name} Layout: Expected stride failure.')")
    if major == "MN":
        sbo, lbo = (s01, s11) if inter else (s11, s01)
    else:
        sbo, lbo = s01, s10
    return GmmaDescriptor(start_address=start >> 4,
                          leading_byte_offset=_offset_field("LBO", lbo, canonical),
                          stride_byte_offset=_offset_field("SBO", sbo, canonical),
                          base_offset=0, layout_type=lt)


def smem_tile(smem_layout, tiler, coord, start_address: int = 0, element_bits=16):
    """``local_tile`` of a shared-memory tensor: ``(layout, start_address)`` of the tile at
    ``coord``. The swizzle of a GMMA layout lives in the pointer, so the tile keeps it and its
    start address moves by the tile's first offset (in bytes), as ``local_tile`` does in C++.

    >>> import labkit as lk
    >>> from labkit.atoms.gmma_layouts import gmma_layout_atom
    >>> sA = lk.tile_to_shape(gmma_layout_atom("K", "SW128", 16), (lk.S(128), lk.S(64)))
    >>> tile, start = smem_tile(sA, (lk.S(128), lk.S(16)), (0, 1), start_address=0x400)
    >>> print(tile); print(start)
    Sw<3,4,3> o smem_ptr[16b](unset) o (_128,_16):(_64,_1)
    1056
    """
    from ..layout import local_tile, make_tensor
    bits = gmma_element_bits(element_bits, "element_bits")
    swizzle_layout = smem_layout
    if isinstance(smem_layout, ComposedLayout):
        _split(smem_layout, bits)
        inner = smem_layout.layout_b
    elif isinstance(smem_layout, Layout):
        inner = smem_layout
    else:
        raise LayoutError(f"smem_layout must be a Layout or a GMMA ComposedLayout, got "
                          f"{smem_layout!r}")
    if isinstance(start_address, bool) or not is_int(start_address) or start_address < 0:
        raise LayoutError(f"start_address must be a non-negative int, got {start_address!r}")
    t = local_tile(make_tensor(None, inner), tiler, coord)
    offset = int(t.offset)
    if (offset * bits) % 8:
        raise LayoutError(f"smem_tile: the tile starts {offset} elements in, not on a byte")
    start = int(start_address) + offset * bits // 8
    if isinstance(swizzle_layout, ComposedLayout):
        return ComposedLayout(swizzle_layout.layout_a, swizzle_layout.offset, t.layout), start
    return t.layout, start


class DescriptorIterator(Iterator):
    """CuTe's ``GMMA::DescriptorIterator``: the iterator of a GMMA fragment. ``deref(i)`` is the
    descriptor with ``i`` added to its low 32 bits (the start address, in 16-byte units), as
    CuTe's ``operator+`` adds a k-block's offset; it prints as ``GMMA::DescriptorIterator``.

    >>> it = DescriptorIterator(GmmaDescriptor(start_address=0x300, stride_byte_offset=64, layout_type="B128"))
    >>> print(it); hex(int(it.deref(6)))
    GMMA::DescriptorIterator
    '0x4000004000000306'
    """

    __slots__ = ("desc",)

    def __init__(self, desc: GmmaDescriptor):
        self.desc = desc

    def __add__(self, offset):
        if not is_int(offset):
            raise LayoutError(f"DescriptorIterator + offset: offset must be an int, got {offset!r}")
        bits = self.desc.encode()
        low = (bits + int(offset)) & 0xFFFFFFFF
        return DescriptorIterator(decode((bits & ~0xFFFFFFFF) | low))

    def deref(self, offset=0) -> GmmaDescriptor:
        return (self + offset).desc

    def __eq__(self, other):
        return isinstance(other, DescriptorIterator) and self.desc == other.desc

    def __hash__(self):
        return hash(self.desc)

    def __str__(self):
        return "GMMA::DescriptorIterator"

    __repr__ = __str__


def make_gmma_desc_tensor(major, smem_tensor):
    """CuTe's ``MakeTensor<GMMA::smem_desc<Major>>`` (what ``make_fragment_A/B`` of a GMMA atom
    gives): from a partitioned shared-memory tensor ``((MN,K), rest...)``, a tensor of descriptors,
    one per ``(MN,K)`` block: the iterator holds ``make_gmma_desc<Major>`` of the first block, the
    layout is the tensor's layout in 16-byte units with mode 0 replaced by ``_1:_0``.

    >>> import labkit as lk
    >>> sA = lk.make_tensor(lk.make_smem_ptr(0x3000, "half_t"),
    ...                     lk.tile_to_shape(lk.gmma_layout_atom("K", "SW128", "half_t"), (lk.S(64), lk.S(64))))
    >>> blocks = lk.make_tensor(sA.storage, lk.zipped_divide(sA.layout, (lk.S(64), lk.S(16))))
    >>> frag = make_gmma_desc_tensor("K", blocks)
    >>> print(frag); [hex(int(frag(0, k))) for k in range(4)]
    GMMA::DescriptorIterator o (_1,(_1,_4)):(_0,(_0,_2))
    ['0x4000004000010300', '0x4000004000010302', '0x4000004000010304', '0x4000004000010306']
    """
    from ..layout import Tensor, recast_layout, SwizzlePtr, SmemPtr
    if not isinstance(smem_tensor, Tensor) or not isinstance(smem_tensor.storage, (SmemPtr, SwizzlePtr)):
        raise LayoutError(f"make_fragment of a GMMA operand needs a shared-memory tensor (made on "
                          f"make_smem_ptr); got {smem_tensor!r} (CuTe: static_assert 'Expected SMEM "
                          "Tensor to construct a GMMA Desc Tensor')")
    ptr, layout, offset = smem_tensor.storage, smem_tensor.layout, int(smem_tensor.offset)
    swizzle = ptr.swizzle if isinstance(ptr, SwizzlePtr) else Swizzle(0, 4, 3)
    bits = ptr.bits
    start = (ptr + offset).address
    mode0 = layout[0]
    desc = make_gmma_desc(major, ComposedLayout(swizzle, SmemPtrFlag(bits), mode0), start, bits)
    u128 = recast_layout(layout, bits, 128)
    frg = Layout((S(1), *u128.shape[1:]), (S(0), *u128.stride[1:]))
    return Tensor(DescriptorIterator(desc), frg, 0)
