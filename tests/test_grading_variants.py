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
    return {q: variants.answer(ex, q, seed) for q in variants.questions(ex)}


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
            least = 4 if (ex, q) == (AXES, "q9") else 8     # a 2x2 arrangement has 4 warps
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
