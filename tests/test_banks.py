"""Tests of labkit.banks: banks, phases, wavefronts and conflicts.

Expected values are worked out by hand from the model stated in seed 001
(bank = (addr // 4) % 32; at most 128 bytes per wavefront, so 32 lanes per phase
for 4-byte accesses, 16 for 8-byte, 8 for 16-byte; broadcast of equal words;
conflicts only inside a phase) and from FACTS.md (sgemm_sm80's shared-memory
layout); the reasoning sits next to each case. A plain loop implementation of
the same model, written here, checks the vectorised one on random input.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import labkit as lk
from labkit.banks import (
    access_addresses,
    access_conflicts,
    bank_conflicts,
    bank_conflicts_batch,
    bank_of,
    lanes_per_phase,
    layout_offsets,
    ldmatrix_conflicts,
    ldmatrix_phases,
    ldmatrix_rows,
    ldmatrix_tile_conflicts,
)
from labkit.errors import LayoutError
from labkit.swizzle_atoms import swizzle_atom, xor_toy_layout


def tile(atom, shape):
    """A swizzled atom repeated over ``shape`` (CuTe: the swizzle composed with the tiled layout)."""
    shape = tuple(lk.S(n) for n in shape)
    return lk.make_composed_layout(atom.layout_a, atom.offset, lk.tile_to_shape(atom.layout_b, shape))


# --------------------------------------------------------------------------- the model


def test_bank_of():
    # word index mod 32: byte 124 is word 31; byte 128 wraps to bank 0; byte 130 is inside word 32
    assert [bank_of(a) for a in (0, 4, 124, 128, 130, 4 * 37)] == [0, 1, 31, 0, 0, 5]
    assert bank_of(np.array([0, 4, 128])).tolist() == [0, 1, 0]
    assert bank_of(12, num_banks=8) == 3 and bank_of(32, num_banks=8) == 0


def test_lanes_per_phase_seed_rule():
    # 128 bytes per wavefront: 4-byte -> 32 lanes, 8-byte -> 16, 16-byte -> 8; narrower still 32.
    assert [lanes_per_phase(b) for b in (1, 2, 4, 8, 16)] == [32, 32, 32, 16, 8]


def test_consecutive_words_one_wavefront():
    r = bank_conflicts([4 * lane for lane in range(32)], 4)
    assert (r.phases, r.wavefronts, r.degree, r.conflict_free) == (1, 1, 1, True)
    assert r.table[0][5] == ((5, 20),)


def test_stride_128_is_32_way():
    # every lane on bank 0, 32 different words
    r = bank_conflicts([128 * lane for lane in range(32)], 4)
    assert (r.wavefronts, r.degree, r.min_wavefronts) == (32, 32, 1)
    assert [lane for lane, _ in r.table[0][0]] == list(range(32))
    assert list(r.table[0]) == [0]


def test_stride_8_bytes_is_2_way():
    # word 2*lane -> bank (2*lane) % 32: lanes l and l+16 share an even bank with different words
    r = bank_conflicts([8 * lane for lane in range(32)], 4)
    assert (r.wavefronts, r.degree) == (2, 2)
    assert r.table[0][2] == ((1, 8), (17, 136))


def test_broadcast():
    assert bank_conflicts([64] * 32, 4).wavefronts == 1
    # 2-byte reads: lanes 2w and 2w+1 share word w -> one word per bank, no conflict
    r = bank_conflicts([2 * lane for lane in range(32)], 2)
    assert (r.wavefronts, r.degree) == (1, 1)
    assert r.table[0][0] == ((0, 0), (1, 0))
    # half the warp on word 0, half on word 32 (same bank): 2-way
    assert bank_conflicts([0] * 16 + [128] * 16, 4).degree == 2


def test_8_byte_lanes_0_and_16_do_not_conflict():
    # Seed 001: with 8-byte accesses lane 0 and lane 16 are in different phases.
    # lanes 0..15 cover bytes 0..127, lanes 16..31 bytes 128..255: lane 16 is on bank 0 like lane 0.
    r = bank_conflicts([8 * lane for lane in range(32)], 8)
    assert r.lanes_per_phase == 16 and r.phases == 2
    assert (r.wavefronts, r.degree) == (2, 1)
    assert r.table[0][0] == ((0, 0),) and r.table[1][0] == ((16, 128),)
    # the same addresses with 4-byte accesses (one phase of 32) collide
    assert bank_conflicts([8 * lane for lane in range(32)], 4).degree == 2


def test_16_byte_contiguous_and_strided():
    # 512 contiguous bytes, 16 per lane: 4 phases of 8 lanes, each covers all 32 banks once
    r = bank_conflicts([16 * lane for lane in range(32)], 16)
    assert (r.phases, r.wavefronts, r.degree) == (4, 4, 1)
    # 8 lanes on rows 128 bytes apart: banks 0..3 each see 8 words
    r = bank_conflicts([128 * lane for lane in range(8)], 16)
    assert (r.wavefronts, r.degree) == (8, 8)
    assert sorted(r.table[0]) == [0, 1, 2, 3]
    assert r.table[0][1] == tuple((lane, 128 * lane + 4) for lane in range(8))


def test_inactive_lanes():
    r = bank_conflicts([0, None, 128, None], 4)
    assert r.addresses == (0, None, 128, None)
    assert r.degree == 2
    assert bank_conflicts([None] * 8 + [0] * 8, 16).phase_wavefronts == (0, 1)


def test_str_is_readable():
    s = str(bank_conflicts([128 * lane for lane in range(8)], 16))
    assert "8-way" in s and "phase 0 (lanes 0-7)" in s and "8 wavefront" in s
    assert "no bank conflict" in str(bank_conflicts([16 * lane for lane in range(8)], 16))
    assert "degree=8" in repr(bank_conflicts([128 * lane for lane in range(8)], 16))


def reference_wavefronts(addresses, access_bytes, num_banks=32, bank_bytes=4):
    """The model written as plain loops: per phase, per bank, count distinct words."""
    per_phase = min(32, num_banks * bank_bytes // max(access_bytes, bank_bytes))
    phases = []
    for start in range(0, len(addresses), per_phase):
        banks = {}
        for a in addresses[start:start + per_phase]:
            first = a // bank_bytes
            last = (a + access_bytes - 1) // bank_bytes
            for w in range(first, last + 1):
                banks.setdefault(w % num_banks, set()).add(w)
        phases.append(max(len(ws) for ws in banks.values()))
    return phases


@settings(max_examples=150, deadline=None)
@given(
    access_bytes=st.sampled_from([1, 2, 4, 8, 16]),
    slots=st.lists(st.integers(0, 255), min_size=1, max_size=32),
)
def test_matches_plain_loop_model(access_bytes, slots):
    addrs = [s * access_bytes for s in slots]
    r = bank_conflicts(addrs, access_bytes)
    want = reference_wavefronts(addrs, access_bytes)
    assert list(r.phase_wavefronts) == want
    assert r.wavefronts == sum(want) and r.degree == max(want)
    assert r.min_wavefronts <= r.wavefronts


@settings(max_examples=40, deadline=None)
@given(
    access_bytes=st.sampled_from([2, 4, 8, 16]),
    data=st.lists(st.lists(st.integers(0, 63), min_size=16, max_size=16), min_size=1, max_size=6),
)
def test_batch_matches_single(access_bytes, data):
    addrs = np.array(data) * access_bytes
    b = bank_conflicts_batch(addrs, access_bytes)
    singles = [bank_conflicts(list(row), access_bytes) for row in addrs]
    assert b.per_access.tolist() == [s.wavefronts for s in singles]
    assert b.degree == max(s.degree for s in singles)
    assert b.wavefronts == sum(s.wavefronts for s in singles)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("bad", [3, 32, 0, "4", 4.0, None])
def test_bad_access_bytes(bad):
    with pytest.raises(LayoutError, match="access_bytes"):
        bank_conflicts([0, 16], bad)


def test_misaligned_address():
    with pytest.raises(LayoutError, match="aligned"):
        bank_conflicts([0, 2], 4)
    with pytest.raises(LayoutError, match=r"lane 1\].*16"):
        bank_conflicts([0, 8], 16)


def test_too_many_lanes():
    with pytest.raises(LayoutError, match="32 lanes"):
        bank_conflicts([4 * i for i in range(33)], 4)


def test_negative_address():
    with pytest.raises(LayoutError, match="negative"):
        bank_conflicts([0, -4], 4)


@pytest.mark.parametrize("bad", [[], [None, None], 7, ["a"], [1.5]])
def test_other_bad_addresses(bad):
    with pytest.raises(LayoutError, match="address"):
        bank_conflicts(bad, 1)


def test_bad_geometry():
    with pytest.raises(LayoutError, match="num_banks"):
        bank_conflicts([0], 4, num_banks=0)
    with pytest.raises(LayoutError, match="bank_bytes"):
        bank_conflicts([0], 4, bank_bytes=3)


# --------------------------------------------------------------------------- seed 001's 8x8 toy


@pytest.mark.parametrize("col", range(8))
def test_toy_column_read(col):
    # 8 banks of one 4-byte word. Row-major: (r, col) is word 8r + col, bank col for every r:
    # 8 different words on one bank -> 8-way, 8 cycles. Swizzled: word 8r + (col ^ r), bank
    # col ^ r, different for every r -> 1 cycle.
    column = [(r, col) for r in range(8)]
    plain = access_conflicts(xor_toy_layout(False), column, 4, num_banks=8)
    assert (plain.wavefronts, plain.degree) == (8, 8)
    assert list(plain.table[0]) == [col]
    swz = access_conflicts(xor_toy_layout(True), column, 4, num_banks=8)
    assert (swz.wavefronts, swz.degree) == (1, 1)
    assert {b: hits[0][0] for b, hits in swz.table[0].items()} == {col ^ r: r for r in range(8)}


@pytest.mark.parametrize("row", range(8))
def test_toy_row_read(row):
    # a row is 8 consecutive words either way (the XOR permutes within the row)
    for swizzled in (False, True):
        r = access_conflicts(xor_toy_layout(swizzled), [(row, c) for c in range(8)], 4, num_banks=8)
        assert r.wavefronts == 1


# --------------------------------------------------------------------------- layouts


def test_layout_offsets_forms():
    L = lk.make_layout((4, 8), (8, 1))
    assert layout_offsets(L, [(1, 2), (3, 7)]).tolist() == [10, 31]
    assert layout_offsets(L, [5]).tolist() == [9]                 # flat 5 = (1, 1)
    assert layout_offsets(L, np.array([[[0, 0], [1, 0]]])).shape == (1, 2)
    assert layout_offsets(L).tolist()[:4] == [0, 8, 16, 24]
    H = lk.make_layout(((2, 2), 8), ((1, 16), 2))
    assert layout_offsets(H, [((1, 1), 3)]).tolist() == [1 + 16 + 6]
    lanes = lk.make_layout(4, 8)                                  # lane t -> flat index 8t
    assert layout_offsets(L, lanes).tolist() == [0, 2, 4, 6]      # flat 8t = (0, 2t)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_layout_offsets_agree_with_layout_call(data):
    # Law: the vectorised offsets equal the layout evaluated one coordinate at a time.
    L = data.draw(st.sampled_from([sgemm_sm80_smem(), lk.make_layout((16, 8), (1, 16)),
                                   swizzle_atom("SWIZZLE_64B", 8)]))
    shp = L.shape
    def crd(s):
        if isinstance(s, tuple):
            return tuple(crd(x) for x in s)
        return data.draw(st.integers(0, int(s) - 1))
    coords = [crd(shp) for _ in range(data.draw(st.integers(1, 8)))]
    assert layout_offsets(L, coords).tolist() == [L(c) for c in coords]


def test_access_addresses_vectors():
    L = lk.make_layout((8, 64), (64, 1))
    assert access_addresses(L, [(0, 8), (1, 0)], 2, vector=8).tolist() == [16, 128]
    with pytest.raises(LayoutError, match="contiguous"):
        access_addresses(lk.make_layout((8, 64)), [(0, 0)], 2, vector=8)   # column-major
    with pytest.raises(LayoutError, match="extent"):
        access_addresses(L, [(0, 60)], 2, vector=8)
    with pytest.raises(LayoutError, match="vector"):
        access_addresses(L, [(0, 0)], 2, vector=3)


@pytest.mark.parametrize(
    "coords, match",
    [([(8, 0)], "out of range"), ([(0, 0, 0)], "rank"), ([99999], "out of range"), ([(0.5, 1)], "integer")],
)
def test_bad_coords(coords, match):
    with pytest.raises(LayoutError, match=match):
        access_conflicts(lk.make_layout((8, 8), (8, 1)), coords, 4)


def test_bad_nested_coords():
    H = lk.parse_layout("((_2,_8),_4):((_1,_8),_2)")
    with pytest.raises(LayoutError, match="coords.*out of range"):
        layout_offsets(H, [((1, 9), 0)])
    with pytest.raises(LayoutError, match="coords.*rank"):
        layout_offsets(H, [((0, 0),)])


def test_bad_elem_bytes_and_layout():
    with pytest.raises(LayoutError, match="elem_bytes"):
        access_conflicts(lk.make_layout((8, 8), (8, 1)), [(0, 0)], 3)
    with pytest.raises(LayoutError, match="layout"):
        access_conflicts("(8,8):(8,1)", [(0, 0)], 4)


def test_unaligned_base_is_caught():
    # a 16-byte read starting at element 4 of fp16 rows starts at byte 8
    with pytest.raises(LayoutError, match="aligned"):
        access_conflicts(lk.make_layout((8, 64), (64, 1)), [(0, 4)], 2, vector=8)


# --------------------------------------------------------------------------- ldmatrix


def test_ldmatrix_rows_match_mma_a_registers():
    # FACTS.md: lane 0 gets A(0,0..1), A(8,0..1), A(0,8..9), A(8,8..9) from ldmatrix.x4, so the
    # matrices are rows 0-7/cols 0-7, rows 8-15/cols 0-7, rows 0-7/cols 8-15, rows 8-15/cols 8-15.
    rows = ldmatrix_rows(4)
    assert rows.shape == (32, 2)
    for t in range(32):
        q = t // 8
        assert rows[t].tolist() == [t % 8 + 8 * (q % 2), 8 * (q // 2)]
    assert ldmatrix_rows(2).tolist() == [[r, 0] for r in range(16)]
    assert ldmatrix_rows(1, origin=(16, 24)).tolist() == [[16 + r, 24] for r in range(8)]
    assert ldmatrix_rows(4, elem_bytes=1)[16].tolist() == [0, 16]


def test_ldmatrix_plain_k_major_is_8_way():
    # Plain K-major (128,64) fp16: row m starts at byte 128*m. One phase reads 8 consecutive rows
    # at the same 16-byte column: bytes 128*m + 16*c -> banks 4c..4c+3 for all 8 rows, 8 words
    # each -> 8-way, 8 wavefronts per phase, 32 per ldmatrix.x4.
    plain = lk.make_layout((128, 64), (64, 1))
    r = ldmatrix_conflicts(plain, ldmatrix_rows(4, origin=(16, 32)), 2)
    assert r.phase_wavefronts == (8, 8, 8, 8)
    assert (r.wavefronts, r.degree) == (32, 8)
    # whole tile: (128/16) x (64/16) = 32 ldmatrix.x4, 4 phases each, 8 wavefronts per phase
    b = ldmatrix_tile_conflicts(plain, 2, num=4)
    assert (b.accesses, b.wavefronts, b.min_wavefronts, b.degree) == (32, 1024, 128, 8)
    assert (b.phase_degree == 8).all()


def sgemm_sm80_smem():
    # FACTS.md: composition(Swizzle<3,3,3>, (8,(8,8)):(8,(1,64))) tiled to (128,64)
    atom = lk.composition(lk.Swizzle(3, 3, 3), lk.parse_layout("(_8,(_8,_8)):(_8,(_1,_64))"))
    return tile(atom, (128, 64))


def test_sgemm_sm80_tile_text():
    # CuTe C++ (g++, CUTLASS 4.2 headers) prints tile_to_shape(atom, (_128,_64)) uncoalesced:
    # the atom already fills mode 1, which keeps a _1 repeat.
    assert str(sgemm_sm80_smem().layout_b) == "((_8,_16),((_8,_8),_1)):((_8,_512),((_1,_64),_0))"


@pytest.mark.parametrize("num", [1, 2, 4])
def test_ldmatrix_sgemm_sm80_swizzle_is_conflict_free(num):
    # Inside an 8-row atom, (row i, column 8*j1 + j0) is element 8*i + j0 + 64*j1 before the
    # swizzle; Swizzle<3,3,3> XORs bits 6-8 (j1) into bits 3-5 (i), giving 8*(i ^ j1) + j0 + 64*j1,
    # byte 16*(i ^ j1) + 2*j0 + 128*j1. The 16-byte row (i, 8*j1) starts on bank 4*(i ^ j1) mod 32:
    # 8 rows i = 0..7 of one phase give 8 different bank quads -> every bank once -> 1 wavefront.
    b = ldmatrix_tile_conflicts(sgemm_sm80_smem(), 2, num=num)
    assert b.degree == 1
    assert b.wavefronts == b.min_wavefronts == b.accesses * num
    assert b.accesses == (128 // (8 * min(num, 2))) * (64 // (8 * max(num // 2, 1)))


def test_ldmatrix_phases_on_sgemm_tile():
    # rows 0..7, column 8 (j1 = 1): bytes 16*(i ^ 1) + 128 for i = 0..7
    ph = ldmatrix_phases(sgemm_sm80_smem(), ldmatrix_rows(1, origin=(0, 8)), 2)
    assert ph.tolist() == [[128 + 16 * (i ^ 1) for i in range(8)]]


def test_ldmatrix_bad_input():
    L = lk.make_layout((16, 16), (16, 1))
    with pytest.raises(LayoutError, match="8, 16 or 32"):
        ldmatrix_phases(L, ldmatrix_rows(4)[:12], 2)
    with pytest.raises(LayoutError, match="aligned"):
        ldmatrix_phases(lk.make_layout((16, 16), (20, 1)), ldmatrix_rows(1), 2)  # rows 40 B apart
    with pytest.raises(LayoutError, match="contiguous"):
        ldmatrix_phases(lk.make_layout((16, 16)), ldmatrix_rows(1), 2)           # column-major
    with pytest.raises(LayoutError, match="num"):
        ldmatrix_rows(3)
    with pytest.raises(LayoutError, match="origin"):
        ldmatrix_rows(4, origin=(-8, 0))
    with pytest.raises(LayoutError, match="whole number"):
        ldmatrix_tile_conflicts(lk.make_layout((128, 56), (56, 1)), 2)
    with pytest.raises(LayoutError, match="rank 2"):
        ldmatrix_tile_conflicts(lk.make_layout(1024), 2)


# --------------------------------------------------------------------------- swizzle atoms


def row_read(r, n_chunks=8, elems=8):
    """8 lanes reading the 16-byte chunks of row r (fp16)."""
    return [(r, elems * c) for c in range(n_chunks)]


def column_read(c, rows=8, elems=8):
    """8 lanes reading chunk c of rows 0..7 (fp16)."""
    return [(i, elems * c) for i in range(rows)]


@pytest.mark.parametrize("idx", range(8))
def test_sw128_fp16_atom_rows_and_columns_conflict_free(idx):
    # Swizzle<3,3,3> on (8,64):(64,1): 16-byte chunk c of row r is at byte 128*r + 16*(c ^ r).
    # Row read (8 lanes, chunks c = 0..7 of row r): chunks c ^ r are all different -> 32 banks once.
    # Column read (8 lanes, rows 0..7 at chunk c): chunk slots c ^ r all different -> same.
    atom = swizzle_atom("SWIZZLE_128B", "fp16")
    assert access_conflicts(atom, row_read(idx), 2, vector=8).wavefronts == 1
    assert access_conflicts(atom, column_read(idx), 2, vector=8).wavefronts == 1
    # 2-byte column read: (r, j) at byte 128*r + 16*((j//8) ^ r) + 2*(j%8), bank
    # 4*((j//8) ^ r) + (j%8)//2: different for each r -> conflict-free
    j = 8 * idx + 5
    assert access_conflicts(atom, [(r, j) for r in range(8)], 2).degree == 1


@pytest.mark.parametrize("idx", range(8))
def test_plain_128_byte_rows_column_read_is_8_way(idx):
    # without the XOR every row's chunk c sits on banks 4c..4c+3
    plain = lk.make_layout((8, 64), (64, 1))
    assert access_conflicts(plain, column_read(idx), 2, vector=8).degree == 8
    assert access_conflicts(plain, [(r, 8 * idx + 5) for r in range(8)], 2).degree == 8
    assert access_conflicts(plain, row_read(idx), 2, vector=8).degree == 1


@pytest.mark.parametrize("mode", ["SWIZZLE_32B", "SWIZZLE_64B", "SWIZZLE_128B"])
def test_every_mode_column_read_over_8_rows_conflict_free(mode):
    # 8 rows of N bytes cover 8N/128 lines; chunk c of row r lands in 16-byte slot
    # (r % (128/N)) * N/16 + (c ^ line) of its line: 8 different slots for r = 0..7 -> 1 wavefront.
    atom = swizzle_atom(mode, 16)
    n_chunks = {"SWIZZLE_32B": 2, "SWIZZLE_64B": 4, "SWIZZLE_128B": 8}[mode]
    for c in range(n_chunks):
        assert access_conflicts(atom, column_read(c), 2, vector=8).wavefronts == 1


def test_interleave_tile_row_read_is_8_way():
    # INTERLEAVE fp16 atoms (8 rows x 16 B) tiled to (8,64): atom j (columns 8j..8j+7) starts at
    # element 64*j, so (r, 8j) is byte 128*j + 16*r: a row read puts all 8 lanes on slot r of
    # 8 different lines -> 8-way. The SW128 tile of the same shape reads the row in 1.
    inter = tile(swizzle_atom("INTERLEAVE", 16), (8, 64))
    assert access_conflicts(inter, row_read(3), 2, vector=8).degree == 8
    assert access_conflicts(inter, column_read(3), 2, vector=8).degree == 1


def test_sw128_32_row_column_read_is_4_way():
    # Seed 001's caveat: the guarantee is for columns across 8 rows. 32 lanes reading 2 bytes of
    # column j from rows 0..31 of a SW128 fp16 tile: rows r and r+8 sit in different atoms on the
    # same bank (bank 4*((j//8) ^ (r%8)) + (j%8)//2), so 8 banks serve 4 words each -> 4-way.
    # Without the swizzle all 32 rows share one bank -> 32-way.
    sw = tile(swizzle_atom("SWIZZLE_128B", 16), (32, 64))
    assert access_conflicts(sw, [(r, 13) for r in range(32)], 2).degree == 4
    plain = lk.make_layout((32, 64), (64, 1))
    assert access_conflicts(plain, [(r, 13) for r in range(32)], 2).degree == 32
