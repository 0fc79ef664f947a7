"""Tests of labkit.swizzle_atoms: the swizzle modes as CuTe swizzles.

Expected values come from CuTe (``cute/atom/mma_traits_sm90_gmma.hpp``:
``Layout_K_{INTER,SW32,SW64,SW128}_Atom_Bits`` are ``Swizzle<0..3,4,3>`` over
``(8, 128..1024 bits)``; ``copy_traits_sm90_tma_swizzle.hpp`` maps B = 0..3 at
M = 4 to TMA's NONE/32B/64B/128B), the PTX ISA's 128B figure as quoted by
seed 001, FACTS.md (sgemm_sm80 uses ``Swizzle<3,3,3>`` on fp16 for its 128-byte
K-major rows), and hand arithmetic written next to each case.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import labkit as lk
from labkit.errors import LayoutError
from labkit.swizzle_atoms import (
    SWIZZLE_MODES,
    byte_swizzle,
    element_bits,
    element_swizzle,
    recommend_swizzle,
    swizzle_atom,
    swizzle_figure,
    swizzle_mode,
    xor_toy_layout,
)

MODES = ("INTERLEAVE", "SWIZZLE_32B", "SWIZZLE_64B", "SWIZZLE_128B")
WIDTHS = (4, 8, 16, 32)

# Row width in bytes and CuTe's B for each mode (B = log2(row_bytes / 16)).
ROW_BYTES = {"INTERLEAVE": 16, "SWIZZLE_32B": 32, "SWIZZLE_64B": 64, "SWIZZLE_128B": 128}
CUTE_B = {"INTERLEAVE": 0, "SWIZZLE_32B": 1, "SWIZZLE_64B": 2, "SWIZZLE_128B": 3}
# Element-unit base M: a 16-byte chunk starts at element bit 4 - log2(bytes per element):
# 4-bit -> 32 elements per chunk -> 5; 8-bit -> 16 -> 4; 16-bit -> 8 -> 3; 32-bit -> 4 -> 2.
ELEMENT_M = {4: 5, 8: 4, 16: 3, 32: 2}


@pytest.mark.parametrize("name", MODES)
def test_byte_swizzle_is_cute_gmma_atom_swizzle(name):
    sw = byte_swizzle(name)
    assert (sw.bits, sw.base, sw.shift) == (CUTE_B[name], 4, 3)


@pytest.mark.parametrize("name", MODES)
@pytest.mark.parametrize("bits", WIDTHS)
def test_element_swizzle_parameters(name, bits):
    sw = element_swizzle(name, bits)
    assert (sw.bits, sw.base, sw.shift) == (CUTE_B[name], ELEMENT_M[bits], 3)


def test_128b_fp16_is_sgemm_sm80_swizzle():
    # FACTS.md: sgemm_sm80 composes Swizzle<3,3,3> with its fp16 K-major tile of 64-element rows.
    assert str(element_swizzle("SWIZZLE_128B", "fp16")) == "Sw<3,3,3>"
    assert str(swizzle_atom("SWIZZLE_128B", "half")) == "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"


@pytest.mark.parametrize(
    "name, bits, text",
    [
        # (8, row_bytes * 8 / bits) : (that, 1), by hand
        ("INTERLEAVE", 16, "Sw<0,3,3> o _0 o (_8,_8):(_8,_1)"),
        ("SWIZZLE_32B", 32, "Sw<1,2,3> o _0 o (_8,_8):(_8,_1)"),
        ("SWIZZLE_64B", 8, "Sw<2,4,3> o _0 o (_8,_64):(_64,_1)"),
        ("SWIZZLE_128B", 4, "Sw<3,5,3> o _0 o (_8,_256):(_256,_1)"),
        ("SWIZZLE_128B", 32, "Sw<3,2,3> o _0 o (_8,_32):(_32,_1)"),
    ],
)
def test_atom_text(name, bits, text):
    assert str(swizzle_atom(name, bits)) == text


def test_mn_major_atom_is_transpose():
    # Layout_MN_SW128_Atom_Bits is (1024,8):(1,1024) bits -> (64,8):(1,64) halves.
    atom = swizzle_atom("SWIZZLE_128B", 16, major="MN")
    assert str(atom) == "Sw<3,3,3> o _0 o (_64,_8):(_1,_64)"
    k_major = swizzle_atom("SWIZZLE_128B", 16)
    for m in range(64):
        for k in range(8):
            assert atom(m, k) == k_major(k, m)


def _hardware_byte_address(linear, row_bytes):
    """The mode's definition on a linear byte address.

    Inside each 128-byte line, the 16-byte chunk index (bits 4.. of the address, B bits)
    is XORed with the line index modulo the number of chunks per row (bits 7.., B bits).
    """
    chunks = row_bytes // 16
    chunk = (linear // 16) % chunks
    line = (linear // 128) % chunks
    return linear - 16 * chunk + 16 * (chunk ^ line)


@pytest.mark.parametrize("name", MODES)
@pytest.mark.parametrize("bits", WIDTHS)
def test_atom_moves_bytes_as_the_mode_defines(name, bits):
    atom = swizzle_atom(name, bits)
    row_bytes = ROW_BYTES[name]
    per_row = row_bytes * 8 // bits
    assert lk.size(atom) == 8 * per_row
    for r in range(8):
        for k in range(per_row):
            bit_linear = (r * per_row + k) * bits        # bit address before the swizzle
            want = _hardware_byte_address(bit_linear // 8, row_bytes) * 8 + bit_linear % 8
            assert atom(r, k) * bits == want, (r, k)


def test_128b_chunk_xor_row():
    # The seed's statement for 128B: 16-byte chunk c of row r lands at chunk c ^ r of that row.
    atom = swizzle_atom("SWIZZLE_128B", 16)
    for r in range(8):
        for c in range(8):
            assert atom(r, 8 * c) == 64 * r + 8 * (c ^ r)


def test_narrow_modes_xor_the_128_byte_line_not_the_row():
    # SWIZZLE_64B: two 64-byte rows share a 128-byte line, so rows 0 and 1 are not permuted
    # and rows 2, 3 swap chunk pairs (line 1). SWIZZLE_32B: rows 0..3 sit in line 0 (no XOR),
    # rows 4..7 in line 1 (the two chunks swap).
    sw64 = swizzle_atom("SWIZZLE_64B", 16)    # 32 halves per row, 8 per chunk
    assert [sw64(1, 8 * c) for c in range(4)] == [32, 40, 48, 56]
    assert [sw64(2, 8 * c) for c in range(4)] == [72, 64, 88, 80]
    sw32 = swizzle_atom("SWIZZLE_32B", 16)    # 16 halves per row
    assert [sw32(3, 8 * c) for c in range(2)] == [48, 56]
    assert [sw32(4, 8 * c) for c in range(2)] == [72, 64]


@pytest.mark.parametrize("name", MODES)
@pytest.mark.parametrize("bits", WIDTHS)
def test_atom_is_a_permutation_of_its_bytes(name, bits):
    offs = np.sort(swizzle_atom(name, bits).offsets())
    assert offs.tolist() == list(range(8 * ROW_BYTES[name] * 8 // bits))


@settings(max_examples=60, deadline=None)
@given(mode=st.sampled_from(MODES), bits=st.sampled_from(WIDTHS), x=st.integers(0, 1 << 20))
def test_element_swizzle_agrees_with_byte_swizzle(mode, bits, x):
    # Law: swizzling element offset x, then converting to bits, equals converting first and
    # swizzling the byte address (for addresses aligned to the element).
    e = element_swizzle(mode, bits)
    b = byte_swizzle(mode)
    bit_addr = x * bits
    assert e(x) * bits == b(bit_addr // 8) * 8 + bit_addr % 8


def test_ptx_figure_128b():
    fig = swizzle_figure("SWIZZLE_128B")
    assert fig.shape == (8, 8)
    assert fig[0].tolist() == list(range(8))
    # PTX ISA K-major 128B figure, row 1 (seed 001): 9, 8, 11, 10, 13, 12, 15, 14
    assert fig[1].tolist() == [9, 8, 11, 10, 13, 12, 15, 14]
    # row 7: position p holds chunk p ^ 7, i.e. the row reversed: 63 .. 56
    assert fig[7].tolist() == [63, 62, 61, 60, 59, 58, 57, 56]
    # every row holds its own 8 chunks
    for r in range(8):
        assert sorted(fig[r].tolist()) == list(range(8 * r, 8 * r + 8))


def test_ptx_figure_narrow_modes():
    fig64 = swizzle_figure("SWIZZLE_64B")
    assert fig64.shape == (8, 4)
    assert fig64[1].tolist() == [4, 5, 6, 7]        # line 0: no XOR
    assert fig64[2].tolist() == [9, 8, 11, 10]      # line 1: XOR 1
    assert fig64[6].tolist() == [27, 26, 25, 24]    # line 3: XOR 3
    fig32 = swizzle_figure("SWIZZLE_32B")
    assert fig32[3].tolist() == [6, 7] and fig32[4].tolist() == [9, 8]
    assert swizzle_figure("INTERLEAVE").ravel().tolist() == list(range(8))


@pytest.mark.parametrize(
    "nbytes, mode",
    [
        (16, "INTERLEAVE"), (48, "INTERLEAVE"), (32, "SWIZZLE_32B"), (96, "SWIZZLE_32B"),
        (64, "SWIZZLE_64B"), (192, "SWIZZLE_64B"), (128, "SWIZZLE_128B"), (256, "SWIZZLE_128B"),
        (1024, "SWIZZLE_128B"),
    ],
)
def test_recommend_swizzle_widest_atom(nbytes, mode):
    choice = recommend_swizzle(nbytes)
    assert choice.mode.name == mode
    m, reason = choice
    assert mode in reason and f"{nbytes} B" in reason


def test_recommend_swizzle_fp16_rows():
    # Seed 001: 64 fp16 (128 B) or more per row -> SWIZZLE_128B; 32 fp16 -> 64B; 16 fp16 -> 32B.
    assert recommend_swizzle(64 * 2).mode.name == "SWIZZLE_128B"
    assert recommend_swizzle(32 * 2).mode.name == "SWIZZLE_64B"
    assert recommend_swizzle(16 * 2).mode.name == "SWIZZLE_32B"


@pytest.mark.parametrize("bad", [0, 8, 100, -128, 24])
def test_recommend_swizzle_rejects_non_chunk_multiples(bad):
    with pytest.raises(LayoutError, match="contiguous_bytes"):
        recommend_swizzle(bad)


@pytest.mark.parametrize("bad", ["128", 128.0, True, None])
def test_recommend_swizzle_rejects_non_ints(bad):
    with pytest.raises(LayoutError, match="contiguous_bytes"):
        recommend_swizzle(bad)


def test_mode_names_and_codes():
    assert [m.name for m in SWIZZLE_MODES] == list(MODES)
    assert swizzle_mode("sw128") is swizzle_mode(128) is swizzle_mode("SWIZZLE_128B")
    assert swizzle_mode("NONE").name == "INTERLEAVE"
    # CUtensorMapSwizzle NONE/32B/64B/128B = 0/1/2/3; GMMA LayoutType INTERLEAVE/B128/B64/B32 = 0/1/2/3;
    # UMMA LayoutType SWIZZLE_NONE/128B/64B/32B = 0/2/4/6.
    assert [m.tma for m in SWIZZLE_MODES] == [0, 1, 2, 3]
    assert [m.gmma for m in SWIZZLE_MODES] == [0, 3, 2, 1]
    assert [m.umma for m in SWIZZLE_MODES] == [0, 6, 4, 2]
    assert [m.atom_bytes for m in SWIZZLE_MODES] == [128, 256, 512, 1024]


@pytest.mark.parametrize("bad", ["SWIZZLE_256B", 256, 0, "", None, 3.0])
def test_bad_mode(bad):
    with pytest.raises(LayoutError, match="mode"):
        swizzle_mode(bad)


def test_element_bits():
    assert element_bits("fp16") == element_bits("bf16") == element_bits(np.float16) == 16
    assert element_bits("e4m3") == element_bits(np.int8) == 8
    assert element_bits("tf32") == element_bits("float32") == 32
    assert element_bits("e2m1") == 4


@pytest.mark.parametrize("bad", [12, 0, "fp12", 3.5, np.complex64, True])
def test_bad_element_type(bad):
    with pytest.raises(LayoutError, match="element_type"):
        element_bits(bad)
    with pytest.raises(LayoutError, match="element_type"):
        swizzle_atom("SWIZZLE_128B", bad)


def test_bad_major():
    with pytest.raises(LayoutError, match="major"):
        swizzle_atom("SWIZZLE_128B", 16, major="M")


def test_xor_toy_layout_is_col_xor_row():
    # Seed 001's toy: row-major 8x8 words; the swizzled one stores (row, col) at
    # 8*row + (col XOR row).
    plain, toy = xor_toy_layout(False), xor_toy_layout(True)
    for r in range(8):
        for c in range(8):
            assert plain(r, c) == 8 * r + c
            assert toy(r, c) == 8 * r + (c ^ r)
