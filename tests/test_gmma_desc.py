"""GMMA descriptors without the C++ oracle: the bit positions of the PTX ISA's "Matrix Descriptor
Format" (start address [0,14), LBO [16,30), SBO [32,46), base offset [49,52), swizzle mode
[62,64), addresses and offsets without their 4 low bits), and the errors bad arguments give."""

from __future__ import annotations

import pytest

import labkit as lk
from labkit.atoms import gmma_desc as gd
from labkit.atoms.gmma_layouts import SmemPtrFlag, gmma_layout_atom, gmma_layout_atom_named
from labkit.errors import LayoutError


@pytest.mark.parametrize("field,lo", [("start_address", 0), ("leading_byte_offset", 16),
                                      ("stride_byte_offset", 32), ("base_offset", 49)])
def test_each_field_sits_where_the_ptx_isa_puts_it(field, lo):
    assert gd.GmmaDescriptor(**{field: 1}).encode() == 1 << lo
    assert gd.decode(1 << lo) == gd.GmmaDescriptor(**{field: 1})


@pytest.mark.parametrize("name,code", [("INTERLEAVE", 0), ("B128", 1), ("B64", 2), ("B32", 3)])
def test_swizzle_mode_codes_are_the_ptx_isas(name, code):
    # PTX ISA: 0 no swizzle, 1 128-byte, 2 64-byte, 3 32-byte, in bits 62-63
    assert gd.GmmaDescriptor(layout_type=name).encode() == code << 62


def test_bytes_properties_drop_four_low_bits():
    d = gd.GmmaDescriptor(start_address=0x40, leading_byte_offset=2, stride_byte_offset=64)
    assert (d.start_address_bytes, d.leading_bytes, d.stride_bytes) == (0x400, 32, 1024)


@pytest.mark.parametrize("kwargs,match", [
    ({"start_address": 1 << 14}, "start_address=16384 does not fit its 14-bit field"),
    ({"leading_byte_offset": -1}, "leading_byte_offset=-1 does not fit"),
    ({"base_offset": 8}, "base_offset=8 does not fit its 3-bit field"),
    ({"stride_byte_offset": 1.5}, "stride_byte_offset must be an int"),
    ({"layout_type": "SW128"}, "layout_type must be a LayoutType"),
    ({"layout_type": 4}, "layout_type must be a LayoutType"),
])
def test_descriptor_fields_are_checked(kwargs, match):
    with pytest.raises(LayoutError, match=match):
        gd.GmmaDescriptor(**kwargs)


SA = lk.tile_to_shape(gmma_layout_atom("K", "SW128", 16), (lk.S(64), lk.S(64)))
TILE = gd.smem_tile(SA, (lk.S(64), lk.S(16)), (0, 0))[0]


@pytest.mark.parametrize("call,match", [
    (lambda: gd.make_gmma_desc("T", TILE), "major must be 'K' or 'MN'"),
    (lambda: gd.make_gmma_desc("K", TILE, element_bits=64), "element_bits=64 is 64-bit"),
    (lambda: gd.make_gmma_desc("K", TILE, element_bits="f17"), "element_bits: element_type"),
    (lambda: gd.make_gmma_desc("K", TILE, start_address=8), "start_address=8"),
    (lambda: gd.make_gmma_desc("K", TILE, start_address=1 << 18), "below 256 KiB"),
    (lambda: gd.make_gmma_desc("K", TILE, start_address="0"), "start_address must be an int"),
    (lambda: gd.make_gmma_desc("K", TILE, element_bits=8), "Expected a B-bit pointer type"),
    (lambda: gd.make_gmma_desc("K", lk.swizzle_atom("SWIZZLE_128B", 16)), "position-independent"),
    (lambda: gd.make_gmma_desc("K", "(_64,_16):(_16,_1)"), "smem_layout must be a Layout"),
    (lambda: gd.make_gmma_desc("K", lk.parse_layout("(_8,_8,_2):(_8,_1,_64)")), "rank 3"),
    (lambda: gd.make_gmma_desc("K", lk.parse_layout("(_64,_8):(_8,_1)")),
     "Expected K-size 2 for dense or 4 for sparse"),
    (lambda: gd.make_gmma_desc("K", lk.make_layout((lk.S(64), lk.S(16)), (16, lk.S(1)))),
     "dynamic"),
    (lambda: gd.smem_tile(TILE, (lk.S(64), lk.S(16)), (0, 0), element_bits=32),
     "Expected a B-bit pointer type"),
    (lambda: gd.smem_tile(TILE, (lk.S(64), lk.S(16)), (0, 0), start_address=-16),
     "start_address must be a non-negative int"),
    (lambda: gmma_layout_atom("K", "SW16", 16), "swizzle must be one of"),
    (lambda: gmma_layout_atom("K", "SW32", 4), "wgmma reads 8-, 16- or 32-bit"),
    (lambda: gmma_layout_atom_named("Layout_K_SW256_Atom"), "is not a GMMA layout atom"),
    (lambda: SmemPtrFlag(0), "bits must be a positive int"),
])
def test_bad_arguments_name_the_argument(call, match):
    with pytest.raises(LayoutError, match=match):
        call()


def test_an_interleaved_tile_with_an_8_row_mn_gives_a_zero_sbo():
    # K-major INTERLEAVE, 8 rows of 16 fp16: core matrices (8 rows x 16 bytes) at 0 and 128 B:
    # LBO is the distance between the two along K (PTX ISA), here 128 bytes.
    sA = lk.tile_to_shape(gmma_layout_atom("K", "INTER", 16), (lk.S(8), lk.S(16)))
    d = gd.make_gmma_desc("K", sA)
    assert d.leading_bytes == 128 and d.layout_type == gd.LayoutType.INTERLEAVE
