"""CuTe's Hopper API in labkit against CuTe C++, compiled by g++: GMMA atoms in a TiledMMA, the
partitions of shared-memory tensors, the descriptor fragments ``make_fragment_A/B`` make, every
k-block's 64-bit descriptor, the C partition, ``size(mma)`` and the tile shape.

Each case is drawn from a seeded generator (the same cases on every run): an element type
(half_t, bfloat16_t, tfloat32_t, float_e4m3_t, float_e5m2_t, int8_t, uint8_t), a GMMA atom (SS
or RS, N from 8 to 256), the majors of A and B (K or MN where CuTe allows MN), a layout atom per
operand (``ss_smem_selector``'s pick or a narrower swizzle that still tiles), one or two
warpgroups along M or N, the tile, and eight run-time draws of the thread and of the operands'
start addresses (16-byte aligned, most not 1024-byte aligned). Expected values are what C++
prints (``tests/cute_oracle.py``; recorded in ``tests/cute_cpp_results``).
"""

from __future__ import annotations

import random
import re

import pytest

import labkit as lk
import labkit.elements
from labkit.atoms.gmma_layouts import gmma_layout_atom
import cute_oracle

S = lk.S

PRELUDE = r"""#include <cstddef>
#include <cstdint>
#define CUTE_CVTA_GENERIC_TO_SHARED_ACTIVATED 1
static inline std::size_t __cvta_generic_to_shared(void const* p) { return (std::size_t)p; }
#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute/arch/mma_sm90_gmma_ext.hpp>
#include <cute/atom/mma_traits_sm90_gmma_ext.hpp>
#include <cstdio>
using namespace cute;
using namespace cute::SM90;
template <class Frg> void descs(Frg const& f) {
  for (int j = 0; j < int(size(f)); ++j) printf("%llx,", (unsigned long long)uint64_t(f(j)));
}
"""

# (D, A, B) of the wgmma forms and CuTe's element type names
FORMS = [("f32", "f16", "f16"), ("f16", "f16", "f16"), ("f32", "bf16", "bf16"), ("f32", "tf32", "tf32"),
         ("f32", "e4m3", "e4m3"), ("f32", "e5m2", "e4m3"), ("f16", "e4m3", "e5m2"), ("s32", "s8", "s8"),
         ("s32", "u8", "s8")]
CUTE = {"f16": "half_t", "bf16": "bfloat16_t", "tf32": "tfloat32_t", "e4m3": "float_e4m3_t",
        "e5m2": "float_e5m2_t", "s8": "int8_t", "u8": "uint8_t", "f32": "float", "s32": "int32_t"}
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8}
N_INT = (8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256)
SWIZZLES = ("SW128", "SW64", "SW32", "INTER")
CONFIGS, VARIANTS = 112, 8


def _extent(major, sw, ty):
    """Elements of the atom along its contiguous mode (MN for MN-major, K for K-major)."""
    a = gmma_layout_atom(major, sw, BITS[ty]).layout_b
    return int(lk.size(a[0] if major == "MN" else a[1]))


def _draw(rng):
    d, a, b = rng.choice(FORMS)
    k = 256 // BITS[a]
    n = rng.choice(N_INT if d == "s32" else tuple(range(8, 257, 8)))
    form = rng.choice(("SS", "RS"))
    wide = BITS[a] == 16
    maj_a = "K" if form == "RS" or not wide else rng.choice(("K", "MN"))
    maj_b = "K" if not wide else rng.choice(("K", "MN"))
    atom_layout = rng.choice(((1, 1, 1), (2, 1, 1), (1, 2, 1)))
    if n * atom_layout[1] > 256:
        atom_layout = (2, 1, 1)
    bm = 64 * atom_layout[0] * rng.choice((1, 2))
    bn = n * atom_layout[1]
    # a layout atom per operand that tiles it: the K extent must divide the tile's K
    k_mult = rng.choice((1, 2, 4))

    def pick(major, rows):
        ok = [sw for sw in SWIZZLES if (rows if major == "MN" else None) is None or rows % _extent(major, sw, a) == 0]
        if major == "MN":
            return rng.choice(ok)
        return rng.choice(SWIZZLES)

    sw_a, sw_b = pick(maj_a, bm), pick(maj_b, n)
    need_k = max(k, *(_extent("K", sw, a) for mj, sw in ((maj_a, sw_a), (maj_b, sw_b)) if mj == "K"),
                 *(8 for mj in (maj_a, maj_b) if mj == "MN"))
    bk = need_k * k_mult
    tn = "" if wide else "_TN"
    tmpl = "" if not wide else f"<GMMA::Major::{maj_a},GMMA::Major::{maj_b}>"
    atom = f"SM90_64x{n}x{k}_{d.upper()}{a.upper()}{b.upper()}_{form}{tn}"
    variants = [(rng.randrange(int(128 * atom_layout[0] * atom_layout[1])),
                 rng.randrange(0x400, 0x20000, 16 * rng.choice((1, 8, 64))),
                 rng.randrange(0x400, 0x20000, 16 * rng.choice((1, 8, 64)))) for _ in range(VARIANTS)]
    return dict(d=d, a=a, b=b, atom=atom, tmpl=tmpl, form=form, maj_a=maj_a, maj_b=maj_b,
                sw_a=sw_a, sw_b=sw_b, atom_layout=atom_layout, bm=bm, bn=bn, bk=bk, variants=variants)


CASES = [_draw(r) for r in [random.Random(2026_12_05 + i) for i in range(CONFIGS)]]


def _cpp_block(i, c):
    ta, tb = CUTE[c["a"]], CUTE[c["b"]]
    m, n_, k_ = c["atom_layout"]
    thr, adr_a, adr_b = (", ".join(str(v[j]) for v in c["variants"]) for j in range(3))
    frag_a = ('descs(tCrA);' if c["form"] == "SS" else 'print(tCrA.layout());')
    return f"""  {{
    auto mma = make_tiled_mma({c['atom']}{c['tmpl']}{{}}, Layout<Shape<_{m},_{n_},_{k_}>>{{}});
    auto lA = tile_to_shape(GMMA::Layout_{c['maj_a']}_{c['sw_a'].replace('SW', 'SW')}_Atom<{ta}>{{}}, Shape<_{c['bm']},_{c['bk']}>{{}});
    auto lB = tile_to_shape(GMMA::Layout_{c['maj_b']}_{c['sw_b']}_Atom<{tb}>{{}}, Shape<_{c['bn']},_{c['bk']}>{{}});
    auto gC = make_tensor(make_gmem_ptr(({CUTE[c['d']]}*)0), make_layout(Shape<_{c['bm']},_{c['bn']}>{{}}));
    int thr[] = {{{thr}}}; unsigned long adr_a[] = {{{adr_a}}}; unsigned long adr_b[] = {{{adr_b}}};
    for (int v = 0; v < {VARIANTS}; ++v) {{
      auto sA = make_tensor(make_smem_ptr(({ta}*)adr_a[v]), lA);
      auto sB = make_tensor(make_smem_ptr(({tb}*)adr_b[v]), lB);
      auto t = mma.get_slice(thr[v]);
      auto tCsA = t.partition_A(sA); auto tCrA = t.make_fragment_A(tCsA);
      auto tCsB = t.partition_B(sB); auto tCrB = t.make_fragment_B(tCsB);
      printf("{i}.%d|", v); print(tCsA); printf("|"); print(tCrA.layout()); printf("|"); {frag_a}
      printf("|"); print(tCsB); printf("|"); print(tCrB); printf("|"); descs(tCrB);
      printf("|"); print(t.partition_C(gC).layout()); printf("|%d|", int(size(mma)));
      print(tile_size<0>(mma)); printf(","); print(tile_size<1>(mma)); printf(","); print(tile_size<2>(mma));
      printf("\\n");
    }}
  }}
"""


CHUNK = 16


@pytest.fixture(scope="module")
def cpp():
    if not cute_oracle.available():
        pytest.skip(cute_oracle.SKIP_REASON)
    rows = {}
    for start in range(0, len(CASES), CHUNK):
        body = "".join(_cpp_block(i, CASES[i]) for i in range(start, min(start + CHUNK, len(CASES))))
        out = cute_oracle.program_output(PRELUDE + "int main() {\n" + body + "}\n")
        rows.update({r[0]: r[1:] for r in (line.split("|") for line in out.splitlines() if line)})
    return rows


def _labkit_row(c, v):
    thr_idx, adr_a, adr_b = c["variants"][v]
    name = c["atom"] + (c["tmpl"].replace("GMMA::Major::", "") if c["tmpl"] else "")
    mma = lk.make_tiled_mma(lk.mma_atom(name), lk.make_layout(tuple(S(x) for x in c["atom_layout"])))
    lA = lk.tile_to_shape(gmma_layout_atom(c["maj_a"], c["sw_a"], CUTE[c["a"]]), (S(c["bm"]), S(c["bk"])))
    lB = lk.tile_to_shape(gmma_layout_atom(c["maj_b"], c["sw_b"], CUTE[c["b"]]), (S(c["bn"]), S(c["bk"])))
    sA = lk.make_tensor(lk.make_smem_ptr(adr_a, CUTE[c["a"]]), lA)
    sB = lk.make_tensor(lk.make_smem_ptr(adr_b, CUTE[c["b"]]), lB)
    gC = lk.make_tensor(None, lk.make_layout((S(c["bm"]), S(c["bn"]))))
    t = mma.get_slice(thr_idx)
    tCsA, tCsB = t.partition_A(sA), t.partition_B(sB)
    tCrA, tCrB = t.make_fragment_A(tCsA), t.make_fragment_B(tCsB)

    def descs(f):
        return "".join(f"{int(x.encode()):x}," for x in (f.storage.deref(int(o)) for o in f.layout.offsets()))

    frag_a = descs(tCrA) if c["form"] == "SS" else str(tCrA.layout)
    tile = ",".join(str(x) for x in mma.tile_shape_mnk)
    return [str(tCsA), str(tCrA.layout), frag_a, str(tCsB), str(tCrB), descs(tCrB),
            str(t.partition_C(gC).layout), str(int(mma.num_threads)), tile]


FIELDS = ("partition_A", "make_fragment_A layout", "A descriptors / A registers' layout", "partition_B",
          "make_fragment_B", "B descriptors", "partition_C layout", "size(mma)", "tile_size")


@pytest.mark.parametrize("i", range(len(CASES)))
def test_gmma_tiled_mma_matches_cute(cpp, i):
    c = CASES[i]
    for v in range(VARIANTS):
        want = cpp[f"{i}.{v}"]
        got = _labkit_row(c, v)
        for field, w, g in zip(FIELDS, want, got):
            assert g == w, f"case {i}.{v} {c['atom']}{c['tmpl']} {field}: labkit {g!r}, CuTe {w!r}"


def test_the_cases_cover_the_space():
    """At least 800 cases over every form, both majors, every swizzle and both M and N tilings."""
    assert len(CASES) * VARIANTS >= 800
    assert {c["form"] for c in CASES} == {"SS", "RS"}
    assert {(c["d"], c["a"], c["b"]) for c in CASES} == set(FORMS)
    assert {c["maj_a"] for c in CASES} == {"K", "MN"} and {c["maj_b"] for c in CASES} == {"K", "MN"}
    assert {c["sw_a"] for c in CASES} | {c["sw_b"] for c in CASES} == set(SWIZZLES)
    assert {c["atom_layout"] for c in CASES} == {(1, 1, 1), (2, 1, 1), (1, 2, 1)}
    assert any(v[1] % 1024 for c in CASES for v in c["variants"])


# --- ss_smem_selector: the layout atom CUTLASS's SM90 collective builder picks ----------------------

SELECTOR_TYPES = ("half_t", "bfloat16_t", "tfloat32_t", "float_e4m3_t", "float_e5m2_t", "int8_t", "uint8_t")
SELECTOR_CASES = [(major, t, mn, k) for t in SELECTOR_TYPES for major in ("K", "MN")
                  for mn in (8, 16, 24, 32, 40, 48, 64, 96, 128, 192, 256) for k in (8, 16, 32, 48, 64, 128)
                  if (mn if major == "MN" else k) * BITS[lk.elements.element(t).name] % 128 == 0]


@pytest.fixture(scope="module")
def cpp_selector():
    if not cute_oracle.available():
        pytest.skip(cute_oracle.SKIP_REASON)
    lines = [f'  printf("{m} {t} {mn} {k}|"); print(cutlass::gemm::collective::detail::ss_smem_selector<'
             f'GMMA::Major::{m}, {t}, Int<{mn}>, Int<{k}>>()); printf("\\n");' for m, t, mn, k in SELECTOR_CASES]
    src = PRELUDE + "#include <cutlass/gemm/collective/builders/sm90_common.inl>\nint main() {\n" + "\n".join(lines) + "\n}\n"
    out = cute_oracle.program_output(src)
    return dict(line.split("|") for line in out.splitlines() if line)


def test_ss_smem_selector_picks_cutlasss_atom(cpp_selector):
    assert len(SELECTOR_CASES) >= 500
    for m, t, mn, k in SELECTOR_CASES:
        assert str(lk.ss_smem_selector(m, t, mn, k)) == cpp_selector[f"{m} {t} {mn} {k}"], (m, t, mn, k)


@pytest.mark.parametrize("args,match", [
    (("K", "half_t", 12, 64), "BLK_MN0 must be a multiple of 8"),
    (("K", "half_t", 64, 4), "BLK_K0 must be a multiple of 8"),
    (("MN", "float_e4m3_t", 8, 64), "BLK_MN0 must be a multiple of size<0>"),
    (("T", "half_t", 64, 64), "major must be 'K' or 'MN'"),
])
def test_ss_smem_selector_refuses_what_cutlass_static_asserts(args, match):
    with pytest.raises(lk.LayoutError, match=re.escape(match) if "<" in match else match):
        lk.ss_smem_selector(*args)


def test_gmma_operands_must_be_shared_memory_tensors():
    mma = lk.make_tiled_mma(lk.mma_atom("SM90_64x64x16_F32F16F16_SS"))
    t = mma.get_slice(0)
    gA = lk.make_tensor(None, lk.make_layout((S(64), S(16))))
    with pytest.raises(lk.LayoutError, match="Expected SMEM Tensor to construct a GMMA Desc Tensor"):
        t.make_fragment_A(t.partition_A(gA))
    with pytest.raises(lk.LayoutError, match="Expected a B-bit pointer type"):
        lk.make_tensor(lk.make_smem_ptr(0x400, "float_e4m3_t"), gmma_layout_atom("K", "SW128", "half_t"))
    with pytest.raises(lk.LayoutError, match="make_smem_ptr: address must be a non-negative int"):
        lk.make_smem_ptr(-16, "half_t")
    with pytest.raises(lk.LayoutError, match="make_smem_ptr: element_type='halfx' is not an element type"):
        lk.make_smem_ptr(0, "halfx")
