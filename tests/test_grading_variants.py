"""Variants of the exercises' hand-computation questions (labkit.grading.variants).

Variant 0 is the book's exercise: its answers are the ones worked out from the book's facts
(offset 19 of (2, 3) in (4,8):(8,1), '_12:_1' from coalescing (_2,(_1,_6)):(_1,(_6,_2)), ...).
The same for exercise 2's tiling, composition and complement questions and exercise 3's
named-axis and fragment questions (their answers checked against the formulas of the PTX ISA's
fragment layouts written out here). For 60 other seeds
every question is well-posed: its numbers are in range, its answer is unique
(the layouts asked about are one-to-one where the question inverts them), its answer agrees
with the arithmetic written out here, it varies from seed to seed, and the layout it is asked
about is printed on no book page. For the layout questions labkit's answer is what CuTe C++
computes (g++ with CUTLASS's headers; all cases of all seeds in two programs).
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_cute_cpp as cpp  # noqa: E402  (the shared g++ oracle runner)

import labkit as lk  # noqa: E402
from labkit.errors import LabkitError  # noqa: E402
from labkit.grading import variants  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
EX = "01_shape_stride"
SEEDS = range(1, 61)
PAGES = {p.name: p.read_text(encoding="utf-8") for p in sorted((REPO / "book").rglob("*.md"))}
BOOK = {name: "".join(text.split()) for name, text in PAGES.items()}

# the book's answers, worked out by hand from the exercise's text (solutions/README.md)
BOOK_ANSWERS = {"q1": 19, "q2": (1, 3), "q3": 11, "q4": (32, 56), "q5": "(4,8):(_1,4)",
                "q6": "_12:_1", "q7": ("_32:_1", "(4,8):(1,4)"), "q8": ((1, 1), 2), "q9": 13,
                "q11": (9, 10)}


TILING = "02_tiling"
TILING_BOOK = {"q1": 37, "q2": (2, 0, 1, 1), "q3": 41, "q4": ((4, 16), (1, 8)), "q5": 52,
               "q8": 32, "q10": "(_2,_2):(_1,_8)"}


AXES = "03_named_axes"
AXES_BOOK = {"q1": (3, 232), "q2": (64, 255), "q3": 1287, "q4": (26, 1), "q5": {(2, 2), (2, 3)},
             "q7": (5, 6), "q8": (5, 3), "q9": 3, "q10": (18, 0)}


def answers(seed, ex=EX):
    got = variants.answers(ex, seed)
    assert got == {q: variants.answer(ex, q, seed) for q in variants.questions(ex)}
    return got


def test_variant_zero_is_the_book_exercise():
    assert answers(0) == BOOK_ANSWERS
    assert answers(0, TILING) == TILING_BOOK
    assert answers(0, AXES) == AXES_BOOK
    assert variants.of(EX, "").seed == 0 and variants.of(EX, "  ").seed == 0


def test_a_student_id_picks_a_stable_variant():
    assert variants.seed_of("ada@uni.edu") == variants.seed_of(" ada@uni.edu ")
    seeds = {variants.seed_of(f"student-{k}") for k in range(200)}
    assert 0 not in seeds and len(seeds) >= 195 and all(1 <= s <= 999_999 for s in seeds)


@pytest.mark.parametrize("bad", [-1, True, 2.5, None])
def test_a_bad_variant_is_named(bad):
    with pytest.raises(LabkitError, match="variant"):
        variants.of(EX, bad)
    with pytest.raises(LabkitError, match="exercise must be one of"):
        variants.of("99_nope", 0)


def on_a_page(*texts) -> list[str]:
    keys = ["".join(t.split()) for t in texts]
    return [name for name, page in BOOK.items() if all(k in page for k in keys)]


@pytest.mark.parametrize("seed", SEEDS)
def test_every_question_is_well_posed(seed):
    v = variants.of(EX, seed)
    a = answers(seed)
    m, n = v.L.shape
    assert v.L.stride == (n, 1) and (m, n) != (4, 8)
    i, j = v.c1
    assert 0 <= i < m and 0 <= j < n and a["q1"] == i * n + j < m * n
    assert 0 < v.f < m * n and a["q2"] == (v.f % m, v.f // m)
    assert sorted(v.L(x) for x in range(m * n)) == list(range(m * n))    # one coordinate each
    assert a["q3"] == (v.f % m) * n + v.f // m
    (ta, tb), (pitch, one) = v.T.shape, v.T.stride
    assert one == 1 and pitch > tb and a["q4"] == (ta * tb, (ta - 1) * pitch + tb)
    da, db = v.D
    assert a["q5"] == f"({da},{db}):(_1,{da})"
    pa, pb = v.P
    assert a["q7"] == (f"_{pa * pb}:_1", f"({pa},{pb}):(1,{pa})")
    (p, q), r = v.N.shape
    ((one, s1), s2) = v.N.stride
    assert 0 < v.g < p * q * r
    x, c = v.g % (p * q), v.g // (p * q)
    assert a["q8"] == ((x % p, x // p), c)
    assert a["q9"] == (x % p) + (x // p) * s1 + c * s2
    assert 0 <= v.t11 < 32 and 0 <= v.v11 < 8
    m11, k11 = a["q11"]
    assert 0 <= m11 < 16 and 0 <= k11 < 16
    # the layouts asked about are on no page of the book (so no page shows their answers)
    for layout in (v.L, v.T, v.A, v.N):
        assert not on_a_page(str(layout)), (seed, str(layout))
    t, val = v.t11, v.v11
    for pattern in (rf"A_tv\(\s*{t}\s*,\s*{val}\s*\)", rf"thread {t} hold as value {val}\b",
                    rf"thread {t}, value {val}\b"):
        assert not [name for name, text in PAGES.items() if re.search(pattern, text)], pattern


@pytest.mark.parametrize("seed", SEEDS)
def test_every_tiling_question_is_well_posed(seed):
    v = variants.of(TILING, seed)
    a = answers(seed, TILING)
    rows, cols = v.shape
    tr, tc = v.tile
    assert rows % tr == 0 and cols % tc == 0 and (rows, cols, tr, tc) != (8, 8, 2, 4)
    i, j = v.e
    assert 0 <= i < rows and 0 <= j < cols and a["q1"] == cols * i + j
    digits = a["q2"]
    assert digits == (i // tr, i % tr, j // tc, j % tc)
    # the storage: tiles row-major, each tile row-major; every element has one address
    assert a["q3"] == digits[0] * tr * cols + digits[2] * tr * tc + digits[1] * tc + digits[3]
    addresses = {v.tiled(x)[0]["m"] for x in range(rows * cols)}
    assert addresses == set(range(rows * cols))
    assert a["q4"] == ((tc, tr * cols), (1, tr * tc))
    a5, b5 = v.t5
    assert 0 <= a5 < rows // tr and 0 <= b5 < cols // tc and a["q5"] == a5 * tr * cols + b5 * tc
    s0, s1 = v.A8.stride
    b = (v.i8 % 4) * 3 + (v.i8 // 4)                       # B8 = (4,3):(3,1)
    assert 0 < v.i8 < 12 and a["q8"] == (b % 6) * s0 + (b // 6) * s1
    layout, m = v.comp
    n, d = layout.shape, layout.stride
    # the complement and the layout together reach every offset below m exactly once
    comp = lk.parse_layout(a["q10"])
    reached = sorted(x + y for x in (d * k for k in range(n)) for y in
                     (comp(k) for k in range(lk.size(comp))))
    assert reached == list(range(m))
    assert not on_a_page(str(v.A8), f"R({v.i8})")
    assert not on_a_page(f"complement({layout},{m})")


@pytest.mark.parametrize("seed", SEEDS)
def test_every_named_axes_question_is_well_posed(seed):
    """The formulas of the questions' text (the PTX ISA's fragment layouts) give the answers."""
    v = variants.of(AXES, seed)
    a = answers(seed, AXES)
    assert 0 <= v.x1 < 128 * 256 and a["q1"] == divmod(v.x1, 256)
    assert a["q2"] == v.lc2 and 0 <= v.lc2[0] < 128 and 0 <= v.lc2[1] < 256
    assert a["q3"] == 256 * v.lc3[0] + v.lc3[1]
    row, col = v.e4
    assert a["q4"] == (4 * row + col // 2, col % 2)
    lane = v.lane5
    assert a["q5"] == {(lane // 4, 2 * (lane % 4)), (lane // 4, 2 * (lane % 4) + 1)}
    m, k = v.a7
    assert a["q7"] == (4 * (m % 8) + (k % 8) // 2, k % 2 + 2 * (m // 8) + 4 * (k // 8))
    t, val = v.tv8
    assert 0 <= t < 32 and val in (0, 1) and a["q8"] == (t // 4, 2 * (t % 4) + val)
    m, n = v.c9
    assert 0 <= m < 32 and 0 <= n < 16 and a["q9"] == m // 16 + 2 * (n // 8)
    assert a["q10"] == (4 * (m % 8) + (n % 8) // 2, n % 2 + 2 * ((m % 16) // 8))
    assert not on_a_page(f"index {v.x1}") and not on_a_page(f"lane {lane} of")
    assert v.tv8 != (21, 1) and not on_a_page(f"thread {t}, value {val}")


def test_the_answers_vary_with_the_seed():
    for ex, book in ((EX, BOOK_ANSWERS), (TILING, TILING_BOOK), (AXES, AXES_BOOK)):
        seen = {q: set() for q in book}
        for seed in SEEDS:
            for q, value in answers(seed, ex).items():
                seen[q].add(repr(value))
        for q, values in seen.items():
            # a 2x2 arrangement has 4 warps, and no variant answers as the book does
            least = 3 if (ex, q) == (AXES, "q9") else 8
            assert len(values) >= least, (ex, q, len(values))


# ------------------------------------------------------------------------------ CuTe C++


def cpp_value(value) -> str:
    """What CuTe prints for labkit's answer: tuples as (a,b), ints plain."""
    if isinstance(value, tuple):
        return "(" + ",".join(cpp_value(v) for v in value) + ")"
    return str(value)


def layout_cases():
    """(case, labkit's answer as CuTe prints it) for every layout question of every seed."""
    cases = []

    def add(expr, answer):
        cases.append((cpp.Case("variant", expr, lambda a=answer: a, expr), cpp_value(answer)))

    for seed in [0, *SEEDS]:
        v, a = variants.of(EX, seed), answers(seed)
        L, T, N = cpp.cpp_layout(v.L), cpp.cpp_layout(v.T), cpp.cpp_layout(v.N)
        i, j = v.c1
        add(f"{L}(make_coord(int({i}), int({j})))", a["q1"])
        add(f"idx2crd(int({v.f}), shape({L}))", a["q2"])
        add(f"{L}(int({v.f}))", a["q3"])
        add(f"make_tuple(size({T}), cosize({T}))", a["q4"])
        da, db = v.D
        add(f"make_layout(make_shape(int({da}), int({db})))", a["q5"])
        add(f"coalesce({cpp.cpp_layout(v.A)})", a["q6"])
        pa, pb = v.P
        add(f"coalesce(make_layout(make_shape(Int<{pa}>{{}}, Int<{pb}>{{}})))", a["q7"][0])
        add(f"coalesce(make_layout(make_shape(int({pa}), int({pb})), "
            f"make_stride(int(1), int({pa}))))", a["q7"][1])
        add(f"idx2crd(int({v.g}), shape({N}))", a["q8"])
        add(f"{N}(int({v.g}))", a["q9"])
        add(f"{cpp.cpp_layout(v.A_tv)}(int({v.t11}), int({v.v11}))",
            int(v.A_tv(v.t11, v.v11)))
    for seed in [0, *SEEDS]:
        v, a = variants.of(TILING, seed), answers(seed, TILING)
        rows, cols = v.shape
        tr, tc = v.tile
        grid = cpp.cpp_layout(lk.make_layout((rows, cols), (cols, 1)))
        a5, b5 = v.t5
        add(f"zipped_divide({grid}, make_tile(int({tr}), int({tc})))"
            f"(int(0), make_coord(int({a5}), int({b5})))", a["q5"])
        add(f"composition({cpp.cpp_layout(v.A8)}, {cpp.cpp_layout(v.B8)})(int({v.i8}))", a["q8"])
        layout, m = v.comp
        add(f"complement({cpp.cpp_layout(layout)}, Int<{int(m)}>{{}})", a["q10"])
    return cases


@pytest.mark.slow
@pytest.mark.skipif(cpp.GXX is None or cpp.INCLUDES is None,
                    reason="needs g++ and CuTe's headers (nvidia-cutlass and the CUDA wheels)")
def test_layout_answers_are_what_cute_cpp_computes():
    pairs = layout_cases()
    cases = [c for c, _ in pairs]
    with tempfile.TemporaryDirectory() as work:
        got = cpp.run_cases(cases, lambda c: ("ok", str(c.py())), Path(work), "grading-variants",
                            chunk_ok=400)
    wrong = []
    for case, mine in pairs:
        kind, text = got[case.cpp]
        # a layout prints exactly as CuTe; a number or a coordinate may print static in C++
        same = text == mine or (":" not in mine and text.replace("_", "") == mine)
        if kind != "ok" or not same:
            wrong.append((case.cpp, text, mine))
    assert not wrong, wrong[:5]
    assert len(cases) == 61 * (11 + 3)


# ------------------------------------------------ exercises 2b, 4, 5 and 6: the book's answers
# worked out by hand from each exercise's text (the literals its hidden tests held before the
# exercise had variants)

G2T = "02b_global_to_thread"
G2T_BOOK = {"q1": (24, 3), "q2": 16, "q3": (88, 88), "q4": 383360, "q5": "(_8,_8):(_16,23936)",
            "q7": ((1421, 513), (1517, 513)), "q8": (33, 22),
            "q9": "(_128,_16,6):(_1,1496,23936)", "q11": 28200, "q12": 80}
REPL = "04_replication_offset"
REPL_BOOK = {"q1": {(6, 2, 1), (38, 2, 1), (70, 2, 1), (102, 2, 1)},
             "q2": {(97, 0), (97, 1), (97, 2), (97, 3)},
             "q3": ({(0, 1), (1, 1)}, {(1, 1)}, {(0, 1)}), "q4": (19, 11), "q5": (2, 80),
             "q9": ((128, 16), (256, 16)), "q10": (32, 0, 16), "q12": {5, 21}}
BANKS = "05_banks_swizzle"
BANKS_BOOK = {"q1": 18, "q2": {16, 17, 18, 19, 20, 21, 22, 23}, "q3": 6, "q5": (210, 2),
              "q6": "Sw<2,2,3>", "q7": "SWIZZLE_32B", "q8": (32, 4), "q9": (1, 32),
              "q10": (896, 112, 216), "q11": [9, 8, 11, 10],
              "q13": [12, 8, 4, 0, 28, 24, 20, 16]}
FRAG = "06_fragment_trace"
FRAG_BOOK = {"q1": (1, 13), "q2": (6, 2), "q3": ("a2", "high"), "q4": ("b1", "low"),
             "q7": (51, 75), "q8": 146, "q9": (25, 304), "q10": ("a3", "low"), "q12": (1, 5, 1),
             "q13": [(2, 1), (3, 1)]}
# the questions whose answer is a fact of the hardware or of a fixed kernel: they stay fixed
FIXED = {G2T: {"q6", "q10"}, REPL: {"q6", "q7", "q8", "q11"}, BANKS: {"q4", "q12"},
         FRAG: {"q5", "q6", "q11", "q14", "q15"}}
MORE = {G2T: G2T_BOOK, REPL: REPL_BOOK, BANKS: BANKS_BOOK, FRAG: FRAG_BOOK}


@pytest.mark.parametrize("ex", sorted(MORE))
def test_variant_zero_is_the_book_exercise_2b_to_6(ex):
    assert answers(0, ex) == MORE[ex]
    # every question of the master either varies or is listed as fixed
    master = (REPO / "solutions" / f"{ex}.ipynb").read_text(encoding="utf-8")
    names = set(re.findall(r"name: (q\d+)", master))
    assert names == set(MORE[ex]) | FIXED[ex], ex


@pytest.mark.parametrize("seed", SEEDS)
def test_every_global_to_thread_question_is_well_posed(seed):
    """Ragged tiles, tile offsets, partitions and masks from the chapter's formulas."""
    v, a = variants.of(G2T, seed), answers(seed, G2T)
    m, n = v.shape
    assert m % 8 == 0 and m % 128 and n % 128 and (m, n) != (1496, 600)
    gm, gn = -(-m // 128), -(-n // 128)
    assert gm >= 3 and gn >= 3 and v.last == (gm - 1, gn - 1)
    tm, tn = v.tile1
    assert a["q1"] == ((m + tm - 1) // tm, (n + tn - 1) // tn)
    assert a["q2"] == gm + gn - 1                 # the last block row and column, both ragged
    lr, lc = m - 128 * (gm - 1), n - 128 * (gn - 1)
    assert a["q3"] == (lr, lc) and 0 < lr < 128 and 0 < lc < 128
    b0, b1 = v.b4
    assert 0 < b0 < gm - 1 and 0 < b1 < gn - 1 and a["q4"] == 128 * b0 + 128 * b1 * m
    assert 0 <= v.t5 < 256 and a["q5"] == f"(_8,_8):(_16,{16 * m})"
    t = v.t7
    r0, c0 = 128 * (gm - 1) + t % 32, 128 * (gn - 1) + t // 32
    assert a["q7"] == ((r0, c0), (r0 + 96, c0))
    for t, count in zip(v.t8, a["q8"]):
        rows = sum(t % 32 + 32 * i < lr for i in range(4))
        cols = sum(t // 32 + 8 * j < lc for j in range(16))
        assert count == rows * cols
    assert v.k9 % 16 == 0 and a["q9"] == f"(_128,_16,{v.k9 // 16}):(_1,{m},{16 * m})"
    busy = {t for t in range(256) if 8 * (t % 16) < lr and t // 16 < lc}
    assert a["q12"] == 256 - len(busy)
    # requests: per block and warp, 64 values of which those with a row and a column inside
    issued = 0
    for bm in range(gm):
        for bn in range(gn):
            rows = min(128, m - 128 * bm)
            cols = min(128, n - 128 * bn)
            for w in range(8):
                issued += sum(32 * i < rows for i in range(4)) * sum(w + 8 * j < cols
                                                                   for j in range(16))
    assert a["q11"] == issued
    assert not on_a_page(f"({m},{n}):(_1,{m})") and not on_a_page(f"{m}x{n}")


@pytest.mark.parametrize("seed", SEEDS)
def test_every_replication_offset_question_is_well_posed(seed):
    """The tcgen05.cp.32x128b.warpx4 placement and the 2x2 mesh modes, from the question text."""
    v, a = variants.of(REPL, seed), answers(seed, REPL)
    m, sfk = v.f1
    assert a["q1"] == {(32 * p + m % 32, m // 32, sfk) for p in range(4)}
    lane, col = v.p2
    assert a["q2"] == {(32 * col + lane % 32, k) for k in range(4)}
    i, j = v.e3
    assert a["q3"] == ({(0, i // 4), (1, i // 4)}, {(1, i // 4)}, {(j // 4, i // 4)})
    assert a["q4"] == (8 * (i % 4) + j, 4 * (i % 4) + j % 4)
    blocks = v.k5 // 32
    assert len(v.sfa5) == len(v.sfb5) == blocks
    d = sum(32 * x * y for x, y in zip(v.sfa5, v.sfb5))
    assert d == int(d) and a["q5"] == (blocks, int(d))
    mm, nn, kk = v.mnk9
    assert kk % 16 == 0 and a["q9"] == ((mm, kk // 16), (nn, kk // 16))
    gx, gy = v.d10
    assert a["q10"] == (32, 32 * gx, 16)
    assert a["q12"] == {v.lane12 % 16, v.lane12 % 16 + 16}
    assert not on_a_page(f"SFA[{m},{sfk}]") and not on_a_page(f"TLane{lane},TCol{col}")


@pytest.mark.parametrize("seed", SEEDS)
def test_every_banks_swizzle_question_is_well_posed(seed):
    """Banks, phases and swizzles from the definitions the exercise states."""
    v, a = variants.of(BANKS, seed), answers(seed, BANKS)
    assert a["q1"] == (v.a1 // 4) % 32 and not on_a_page(f"address {v.a1}")
    assert a["q2"] == set(range(8 * v.p2, 8 * v.p2 + 8))
    r, c = v.e3
    assert a["q3"] == c ^ r and 0 <= a["q3"] < 8

    def swizzle(x, b, m, s):
        return x ^ ((x >> s) & (((1 << b) - 1) << m))

    r, c = v.e5
    x = swizzle(64 * r + c, 3, 3, 3)
    assert a["q5"] == (x, (x % 64) // 8) and x // 64 == r
    mode, dtype = v.m6
    b = {"SWIZZLE_32B": 1, "SWIZZLE_64B": 2, "SWIZZLE_128B": 3}[mode]
    size = {"fp8": 1, "fp16": 2, "bf16": 2, "fp32": 4}[dtype]
    assert a["q6"] == f"Sw<{b},{4 - size.bit_length() + 1},3>"
    values, dtype = v.m7
    row = values * {"fp8": 1, "fp16": 2, "bf16": 2, "fp32": 4}[dtype]
    want = next((f"SWIZZLE_{w}B" for w in (128, 64, 32) if row % w == 0), "INTERLEAVE")
    assert row % 16 == 0 and a["q7"] == want
    # ldmatrix.x4 on (16,w):(w,1) fp16: phase = 8 rows of one 8x8 matrix, 16 bytes each
    def wavefronts(swz):
        total = 0
        for mat in range(4):
            rows = [8 * (mat % 2) + k for k in range(8)]
            col = 8 * (mat // 2)
            words = {}
            for rr in rows:
                off = rr * v.w8 + col
                off = swizzle(off, 3, 3, 3) if swz else off
                for w in range(4):
                    word = off // 2 + w
                    words.setdefault(word % 32, set()).add(word)
            total += max(len(s) for s in words.values())
        return total
    assert a["q8"] == (wavefronts(False), wavefronts(True))
    banks = {}
    for lane in range(32):
        word = v.n9 * lane
        banks.setdefault(word % 32, set()).add(word)
    assert a["q9"] == (1, max(len(s) for s in banks.values()))
    b = {"SWIZZLE_32B": 1, "SWIZZLE_64B": 2, "SWIZZLE_128B": 3}[v.m10]
    mask = (1 << b) - 1
    assert a["q10"] == (mask << 7, mask << 4, swizzle(v.a10, b, 4, 3))
    line = v.r11 // 2                            # a 64-byte row is half a 128-byte line
    assert a["q11"] == [4 * v.r11 + (p ^ (line % 4)) for p in range(4)]
    rr = v.r13
    offs = [swizzle((rr % 8) * 8 + (8 * c % 8) + (8 * c // 8) * 64 + (rr // 8) * 512, 3, 3, 3)
            for c in range(8)]
    assert a["q13"] == [(2 * o // 4) % 32 for o in offs]


@pytest.mark.parametrize("seed", SEEDS)
def test_every_fragment_trace_question_is_well_posed(seed):
    """The m16n8k16 fragments of the PTX ISA, written out here."""
    v, a = variants.of(FRAG, seed), answers(seed, FRAG)

    def coord_a(t, val):                      # PTX ISA, m16n8k16 .f16 A fragment
        return (t // 4 + 8 * ((val // 2) % 2), 2 * (t % 4) + val % 2 + 8 * (val // 4))

    table = {coord_a(t, val): (t, val) for t in range(32) for val in range(8)}
    assert len(table) == 256                  # one owner per element
    assert a["q1"] == coord_a(*v.l1)
    assert a["q2"] == table[v.a2]
    lane, val = table[v.a3]
    assert a["q3"] == (f"a{val // 2}", "low" if val % 2 == 0 else "high")
    n, k = v.b4
    val = (k % 8) % 2 + 2 * (k // 8)
    assert a["q4"] == (f"b{val // 2}", "low" if val % 2 == 0 else "high")
    vv, m, kk = v.s7
    assert a["q7"] == (vv + 8 * m + 32 * kk, vv + 32 * m + 8 * kk)
    assert v.l8[1] < 4                        # the same for m16n8k8, whose A has 4 values
    m, k = coord_a(*v.l8)
    assert a["q8"] == 16 * m + k
    m, k = v.a9
    matrix = (m // 8) + 2 * (k // 8)
    assert a["q9"] == (8 * matrix + m % 8, 2 * (16 * m + 8 * (k // 8)))
    lane, val = table[v.a9]
    assert a["q10"] == (f"a{val // 2}", "low" if val % 2 == 0 else "high")
    vv, j, kk = v.x12
    assert a["q12"] == (vv % 4, 2 * j + vv // 4, kk)
    t = v.lane13
    assert a["q13"] == [(2 * (t % 4), t // 4), (2 * (t % 4) + 1, t // 4)]
    assert not on_a_page(f"lane {v.l1[0]} value {v.l1[1]}")


# ------------------------------------------- exercises 2b, 5 and 6 against CuTe C++ (g++)

TENSOR_HEADERS = """#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cstdio>
#include <unistd.h>
#include <sys/wait.h>
"""
TENSOR_PRELUDE = cpp.PRELUDE.replace('"cute_pch.hpp"', '"cute_variants_pch.hpp"') + \
    "static float fbuf_[1];\n"


def tensor_cases():
    """(case, labkit's answer as the C++ statement prints it) for the layout questions of
    exercises 2b, 5 and 6: tiles, partitions, identity coordinates, swizzles, MMA fragments."""
    cases = []

    def add(body, answer):
        cases.append((cpp.Case("variant", body, lambda a=answer: a, body), answer))

    T128 = "make_tile(Int<128>{}, Int<128>{})"
    for seed in [0, *SEEDS]:
        v, a = variants.of(G2T, seed), answers(seed, G2T)
        m, n = v.shape
        A = f"make_tensor(make_gmem_ptr(fbuf_), make_layout(make_shape(int({m}), int({n}))))"
        b0, b1 = v.b4
        tile = f"local_tile({A}, {T128}, make_coord(int({b0}), int({b1})))"
        add(f"auto t = {tile}; print(int(t.data().get() - fbuf_));", str(a["q4"]))
        add(f"auto t = {tile}; print(local_partition(t, make_layout(make_shape(Int<16>{{}}, "
            f"Int<16>{{}})), int({v.t5})).layout());", a["q5"])
        l0, l1 = v.last
        add(f"auto c = local_partition(local_tile(make_identity_tensor(make_shape(int({m}), "
            f"int({n}))), {T128}, make_coord(int({l0}), int({l1}))), make_layout(make_shape("
            f"Int<32>{{}}, Int<8>{{}})), int({v.t7})); print(c(0)); print(\" \"); print(c(3));",
            " ".join(cpp_value(x) for x in a["q7"]))
        mA = f"make_tensor(make_gmem_ptr(fbuf_), make_layout(make_shape(int({m}), int({v.k9}))))"
        add(f"print(local_tile({mA}, make_tile(Int<128>{{}}, Int<128>{{}}, Int<16>{{}}), "
            f"make_coord(int({l0}), int({l1}), _), Step<_1, X, _1>{{}}).layout());", a["q9"])
    sA = ("composition(Swizzle<3,3,3>{}, tile_to_shape(make_layout(make_shape(Int<8>{}, "
          "make_shape(Int<8>{}, Int<8>{})), make_stride(Int<8>{}, make_stride(Int<1>{}, "
          "Int<64>{}))), make_shape(Int<128>{}, Int<64>{})))")
    for seed in [0, *SEEDS]:
        v, a = variants.of(BANKS, seed), answers(seed, BANKS)
        r, c = v.e5
        add(f"print(composition(Swizzle<3,3,3>{{}}, make_layout(make_shape(Int<8>{{}}, Int<64>{{}}), "
            f"make_stride(Int<64>{{}}, Int<1>{{}})))(int({r}), int({c})));", str(a["q5"][0]))
        b = {"SWIZZLE_32B": 1, "SWIZZLE_64B": 2, "SWIZZLE_128B": 3}[v.m10]
        add(f"using W = Swizzle<{b},4,3>; print(int(W::yyy_msk{{}})); print(\" \"); "
            f"print(int(W::zzz_msk{{}})); print(\" \"); print(W{{}}(int({v.a10})));",
            " ".join(str(x) for x in a["q10"]))
        add(f"auto L = {sA}; for (int c = 0; c < 8; ++c) {{ print(int((2 * L(int({v.r13}), 8 * c) "
            f"/ 4) % 32)); print(\" \"); }}", " ".join(str(x) for x in a["q13"]))
    ALayout = "typename MMA_Traits<SM80_16x8x16_F16F16F16F16_TN>::ALayout{}"
    for seed in [0, *SEEDS]:
        v, a = variants.of(FRAG, seed), answers(seed, FRAG)
        t, val = v.l1
        m1, k1 = a["q1"]
        add(f"print({ALayout}(int({t}), int({val})));", str(m1 + 16 * k1))   # (M,K) column-major
        lane, val = a["q2"]
        m2, k2 = v.a2
        add(f"print({ALayout}(int({lane}), int({val})));", str(m2 + 16 * k2))
        vv, mm, kk = v.s7
        add(f"print(make_layout(make_shape(make_shape(_2{{}}, _2{{}}, _2{{}}), _4{{}}, _4{{}}))"
            f"(int({vv}), int({mm}), int({kk})));", str(a["q7"][0]))
    return cases


@pytest.mark.slow
@pytest.mark.skipif(cpp.GXX is None or cpp.INCLUDES is None,
                    reason="needs g++ and CuTe's headers (nvidia-cutlass and the CUDA wheels)")
def test_layout_answers_of_2b_5_6_are_what_cute_cpp_computes():
    pairs = tensor_cases()
    cases = [c for c, _ in pairs]
    key = cpp._toolchain_key(TENSOR_HEADERS.encode() + TENSOR_PRELUDE.encode() + b"1")
    with tempfile.TemporaryDirectory() as work:
        got = cpp.run_cases(cases, lambda c: ("ok", str(c.py())), Path(work),
                            "grading-variants-tensor", key, TENSOR_HEADERS,
                            "cute_variants_pch.hpp",
                            lambda bodies: cpp._program(bodies, TENSOR_PRELUDE, "{}"),
                            chunk_ok=400)
    wrong = []
    for case, mine in pairs:
        kind, text = got[case.cpp]
        same = text == mine or (":" not in mine and text.replace("_", "") == mine)
        if kind != "ok" or not same:
            wrong.append((case.cpp, kind, text, mine))
    assert not wrong, wrong[:5]
    assert len(cases) == 61 * (4 + 3 + 3)


# last in the file: it reuses the answers the tests above worked out (variants caches them)
def test_the_answers_of_2b_to_6_vary_with_the_seed():
    for ex, book in MORE.items():
        seen = {q: set() for q in book}
        for seed in SEEDS:
            for q, value in answers(seed, ex).items():
                seen[q].add(repr(value))
        for q, values in seen.items():
            # a few answers only, less the book's (no variant answers as the book does)
            least = {(REPL, "q3"): 3, (REPL, "q4"): 8, (REPL, "q10"): 1, (BANKS, "q2"): 3, (BANKS, "q9"): 5, (BANKS, "q6"): 6,
                     (BANKS, "q3"): 7, (BANKS, "q7"): 3, (BANKS, "q8"): 2, (FRAG, "q3"): 7,
                     (FRAG, "q4"): 3, (FRAG, "q10"): 7, (BANKS, "q11"): 7,
                     (BANKS, "q13"): 7}.get((ex, q), 8)
            assert len(values) >= least, (ex, q, len(values))
