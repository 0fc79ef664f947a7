"""The GMMA shared-memory layout atoms and descriptors against CuTe C++, compiled by g++.

Every expected value here is printed by a C++ program that includes CuTe's headers
(``tests/cute_oracle.py``; compiled once per toolchain, then cached): the eight
``GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>`` for 8-, 16- and 32-bit T and their ``_Bits``
forms, the 64 bits of ``make_gmma_desc<Major::K|MN>`` over hundreds of tiles, CuTe's
``print(GmmaDescriptor)`` of packed descriptors, and programs C++ refuses (``static_assert``).

On the host CuTe cannot turn a pointer into a shared-memory address (``cast_smem_ptr_to_uint``
prints an error and returns 0), so the programs define ``CUTE_CVTA_GENERIC_TO_SHARED_ACTIVATED``
and a host ``__cvta_generic_to_shared`` returning the pointer's value: a tensor made on the
pointer ``(T*)address`` then starts at shared-memory byte ``address``, as on the device.
"""

from __future__ import annotations

import random

import pytest

import labkit as lk
from labkit.atoms import gmma_desc as gd
from labkit.atoms.gmma_layouts import (GMMA_LAYOUT_ATOM_NAMES, SmemPtrFlag, gmma_layout_atom,
                                       gmma_layout_atom_named)
from labkit.errors import LayoutError
import cute_oracle

PRELUDE = r"""#include <cstddef>
#include <cstdint>
#define CUTE_CVTA_GENERIC_TO_SHARED_ACTIVATED 1
static inline std::size_t __cvta_generic_to_shared(void const* p) { return (std::size_t)p; }
#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cstdio>
using namespace cute;
using namespace cute::SM90;
"""

CPP_TYPES = {8: "uint8_t", 16: "half_t", 32: "tfloat32_t"}
MORE_TYPES = {"float_e4m3_t": 8, "bfloat16_t": 16, "float": 32}
SWIZZLES = ("INTER", "SW32", "SW64", "SW128")
ROW_BYTES = {"INTER": 16, "SW32": 32, "SW64": 64, "SW128": 128}


def _need_oracle():
    if not cute_oracle.available():
        pytest.skip(cute_oracle.SKIP_REASON)


def _rows(out):
    return {row[0]: row[1:] for row in (line.split("|") for line in out.splitlines() if line)}


# ------------------------------------------------------------------------------------- atoms

ATOM_CASES = ([(n, t, b) for n in GMMA_LAYOUT_ATOM_NAMES for b, t in CPP_TYPES.items()]
              + [(n, t, b) for n in GMMA_LAYOUT_ATOM_NAMES for t, b in MORE_TYPES.items()])


@pytest.fixture(scope="module")
def cpp_atoms():
    _need_oracle()
    lines = [f'  printf("{n}<{t}>|"); print(GMMA::{n}<{t}>{{}}); printf("\\n");'
             for n, t, _ in ATOM_CASES]
    lines += [f'  printf("{n}_Bits|"); print(GMMA::{n}_Bits{{}}); printf("\\n");'
              for n in GMMA_LAYOUT_ATOM_NAMES]
    return _rows(cute_oracle.program_output(PRELUDE + "int main() {\n" + "\n".join(lines)
                                            + "\n}\n"))


@pytest.mark.parametrize("name,cpp_type,bits", ATOM_CASES)
def test_layout_atoms_print_as_cute(cpp_atoms, name, cpp_type, bits):
    assert str(gmma_layout_atom_named(name, bits)) == cpp_atoms[f"{name}<{cpp_type}>"][0]


@pytest.mark.parametrize("name", GMMA_LAYOUT_ATOM_NAMES)
def test_bit_atoms_print_as_cute(cpp_atoms, name):
    assert str(gmma_layout_atom_named(name + "_Bits")) == cpp_atoms[name + "_Bits"][0]


# ------------------------------------------------------------------------------- descriptors

def _desc_cases(per_group=14):
    """(major, swizzle, bits, MN, K, MN block, K block, mn index, k index, start) tiles: every
    (major, swizzle, width), tiles of 64..256 x 16..128 that the atom divides, dense K blocks
    (and sparse ones), first and last block, four start addresses; ``per_group`` of them drawn
    (seeded) for each (major, swizzle, width)."""
    rng = random.Random(90)
    cases = []
    starts = (0, 0x400, 0x8080, 0x1C000)
    for major in ("K", "MN"):
        for sw in SWIZZLES:
            for bits in (8, 16, 32):
                group = []
                row = ROW_BYTES[sw] * 8 // bits                  # atom's contiguous extent
                atom_mn, atom_k = (8, row) if major == "K" else (row, 8)
                kblocks = [256 // bits] + ([512 // bits] if major == "K" else [128 // bits])
                for mn in (64, 128, 256):
                    for k in (16, 32, 64, 128):
                        if mn % atom_mn or k % atom_k:
                            continue
                        for kb in kblocks:
                            if k % kb:
                                continue
                            for mnb in sorted({mn, 64}):
                                for mi, ki in {(0, 0), (mn // mnb - 1, k // kb - 1)}:
                                    group.append((major, sw, bits, mn, k, mnb, kb, mi, ki,
                                                  rng.choice(starts)))
                cases += group if len(group) <= per_group else rng.sample(group, per_group)
    return cases


DESC_CASES = _desc_cases()


def _desc_program(cases):
    body = []
    for i, (major, sw, bits, mn, k, mnb, kb, mi, ki, start) in enumerate(cases):
        t = CPP_TYPES[bits]
        body.append(
            f"  {{ auto L = tile_to_shape(GMMA::Layout_{major}_{sw}_Atom<{t}>{{}}, "
            f"Shape<Int<{mn}>,Int<{k}>>{{}});\n"
            f"    auto s = local_tile(make_tensor(make_smem_ptr(({t}*)(uintptr_t){start}), L), "
            f"Shape<Int<{mnb}>,Int<{kb}>>{{}}, make_coord({mi},{ki}));\n"
            f"    printf(\"{i}|\"); print(L); printf(\"|\"); print(s.layout()); "
            f"printf(\"|%llu\\n\", (unsigned long long)"
            f"GMMA::make_gmma_desc<GMMA::Major::{major}>(s).desc_); }}")
    return PRELUDE + "int main() {\n" + "\n".join(body) + "\n}\n"


@pytest.fixture(scope="module")
def cpp_descs():
    _need_oracle()
    out = {}
    for major in ("K", "MN"):                  # two programs: each compiles in under a minute
        idx = [i for i, c in enumerate(DESC_CASES) if c[0] == major]
        rows = _rows(cute_oracle.program_output(_desc_program([DESC_CASES[i] for i in idx])))
        out.update({idx[int(j)]: v for j, v in rows.items()})
    return out


def test_enough_descriptor_cases():
    kinds = {(c[0], c[1], c[2]) for c in DESC_CASES}
    assert len(DESC_CASES) >= 200 and len(kinds) == 2 * 4 * 3


@pytest.mark.slow
@pytest.mark.parametrize("case", range(len(DESC_CASES)),
                         ids=["-".join(map(str, c)) for c in DESC_CASES])
def test_descriptor_bits_are_cutes(cpp_descs, case):
    major, sw, bits, mn, k, mnb, kb, mi, ki, start = DESC_CASES[case]
    layout_cpp, tile_cpp, desc_cpp = cpp_descs[case]
    sL = lk.tile_to_shape(gmma_layout_atom(major, sw, bits), (lk.S(mn), lk.S(k)))
    assert str(sL) == layout_cpp
    tile, addr = gd.smem_tile(sL, (lk.S(mnb), lk.S(kb)), (mi, ki), start, bits)
    assert str(tile.layout_b) == tile_cpp
    desc = gd.make_gmma_desc(major, tile, addr, bits)
    assert desc.encode() == int(desc_cpp), (desc, gd.decode(int(desc_cpp)))
    assert gd.decode(int(desc_cpp)) == desc


# --------------------------------------------------------------------------- encode / decode

def _packed_values():
    rng = random.Random(7)
    vals = [0, 0x4000004000010042, (1 << 64) - 1]
    for _ in range(30):
        vals.append(rng.getrandbits(64))
    return vals


PACKED = _packed_values()
FIELD_MASK = 0xC00E3FFF3FFF3FFF          # bits [0,14) [16,30) [32,46) [49,52) [62,64)


@pytest.fixture(scope="module")
def cpp_prints():
    _need_oracle()
    body = "\n".join(f'  printf("@{v}\\n"); print(GmmaDescriptor(uint64_t({v}ull)));'
                     for v in sorted({p & FIELD_MASK for p in PACKED}))
    out = cute_oracle.program_output(PRELUDE + "int main() {\n" + body + "\n}\n")
    blocks = [b for b in out.split("@") if b]
    return {int(b.split("\n", 1)[0]): b.split("\n", 1)[1] for b in blocks}


@pytest.mark.parametrize("value", PACKED)
def test_decode_prints_as_cute(cpp_prints, value):
    """The field bits of random 64-bit values: labkit decodes them and prints them as CuTe's
    ``print(GmmaDescriptor)`` does, and packs them back to the same value."""
    v = value & FIELD_MASK
    d = gd.decode(v)
    assert d.cute_print() == cpp_prints[v]
    assert d.encode() == v


def test_decode_refuses_bits_outside_the_fields():
    with pytest.raises(LayoutError, match="outside the descriptor's fields"):
        gd.decode(1 << 14)
    with pytest.raises(LayoutError, match="64-bit"):
        gd.decode(1 << 64)


# ------------------------------------------------------------------------------ refusals

REFUSALS = {
    # name: (C++ tensor expression on p (half_t*), labkit major, labkit layout, CuTe's message)
    "k_stride": ("GMMA::Major::K", "make_tensor(make_smem_ptr(p), Layout<Shape<_64,_16>,"
                 "Stride<_16,_1>>{})", "K", "(_64,_16):(_16,_1)",
                 "Not a canonical GMMA_K Layout: Expected stride failure."),
    "k_ksize": ("GMMA::Major::K", "make_tensor(make_smem_ptr(p), tile_to_shape("
                "GMMA::Layout_K_SW128_Atom<half_t>{}, Shape<_64,_64>{}))", "K", None,
                "Not a canonical GMMA_K Layout: Expected K-size 2 for dense or 4 for sparse"),
    "mn_ksize": ("GMMA::Major::MN", "make_tensor(make_smem_ptr(p), tile_to_shape("
                 "GMMA::Layout_MN_SW64_Atom<half_t>{}, Shape<_64,_64>{}))", "MN", None,
                 "Not a canonical GMMA_MN Layout: Expected K-size 256/sizeof_bits<T>"),
    "k_profile": ("GMMA::Major::K", "make_tensor(make_smem_ptr(p), Layout<Shape<Shape<_8,_2,_4>,"
                  "_16>,Stride<Stride<_16,_256,_128>,_1>>{})", "K",
                  "((_8,_2,_4),_16):((_16,_256,_128),_1)",
                  "Not a canonical GMMA_K Layout: Expected profile failure."),
    "mn_stride": ("GMMA::Major::MN", "make_tensor(make_smem_ptr(p), Layout<Shape<_64,_16>,"
                  "Stride<_1,_128>>{})", "MN", "(_64,_16):(_1,_128)",
                  "Not a canonical GMMA_MN Layout: Expected stride failure."),
    "swizzle": ("GMMA::Major::K", "make_tensor(make_smem_ptr(p, Swizzle<3,3,3>{}), "
                "Layout<Shape<_64,_16>,Stride<_16,_1>>{})", "K", None,
                "Unsupported layout swizzle"),
}


def _refusal_layout(name):
    major = REFUSALS[name][2]
    text = REFUSALS[name][3]
    if text is not None:
        return lk.parse_layout(text)
    if name == "k_ksize":
        return lk.tile_to_shape(gmma_layout_atom("K", "SW128", 16), (lk.S(64), lk.S(64)))
    if name == "mn_ksize":
        return lk.tile_to_shape(gmma_layout_atom("MN", "SW64", 16), (lk.S(64), lk.S(64)))
    assert name == "swizzle" and major == "K"
    return lk.ComposedLayout(lk.Swizzle(3, 3, 3), SmemPtrFlag(16), lk.parse_layout(
        "(_64,_16):(_16,_1)"))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_cute_refuses_what_labkit_refuses(name):
    _need_oracle()
    cpp_major, tensor, major, _, message = REFUSALS[name]
    src = (PRELUDE + "int main() {\n  half_t* p = (half_t*)(uintptr_t)0x400;\n"
           f"  auto d = GMMA::make_gmma_desc<{cpp_major}>({tensor});\n"
           '  printf("%llu\\n", (unsigned long long)d.desc_);\n}\n')
    with pytest.raises(RuntimeError, match="static assert") as err:
        cute_oracle.program_output(src)
    assert message in str(err.value)
    with pytest.raises(LayoutError) as mine:
        gd.make_gmma_desc(major, _refusal_layout(name), 0x400, 16)
    assert message in str(mine.value)
