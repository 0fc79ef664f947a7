"""Variants of exercise 7, the GEMM ladder (labkit.grading.variants_gemm).

Variant 0 is the book's exercise: its answers are the literals the exercise was written with
(49152 bytes armed for a 256x128 tile of k-tiles of 64, Sw<3,3,4> for rows of 256 bytes of
halves, 2 and 1 CTAs a multiprocessor, ...). For 60 other seeds every question is well-posed:
its numbers are in range, its answer is unique and in range, it differs from the book's, it is
printed on no book page, and it agrees with the hand arithmetic written out here from the PTX
ISA (the m16n8 accumulator fragment: c0, c1 in row groupID = lane / 4, columns 2 (lane % 4) + 0, 1;
c2, c3 eight rows down; ldmatrix's 8x8 matrices; stmatrix.x4's four registers a lane) and
from CuTe's Swizzle<B,M,S> (offset ^ ((offset & (2^B - 1) << (M + S)) >> S)), never from
the code under test; the swizzled offsets of questions 3, 5 and 10 are also what CuTe C++
computes (g++ with CUTLASS's headers, all variants in one program). Questions 12 and 13 (a
layout and a kernel of the learner's, graded by what they do: tests/test_grading_smem_kernel.py)
take only their tile from the variant; their answer is the tile with no wavefront past the least.
Questions 8 and 11 keep the book's numbers.
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import labkit as lk  # noqa: E402
from labkit.grading import variants  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
EX = "07_gemm_ladder"
SEEDS = range(1, 61)
BOOK = {p.name: "".join(p.read_text(encoding="utf-8").split()) for p in sorted((REPO / "book").rglob("*.md"))}

# the exercise's answers before it had variants (its hidden tests' literals)
BOOK_ANSWERS = {"q1": (49152, 2, 192), "q2": (128, 32), "q3": (8, 1, 2),
                "q4": ("Sw<3,3,4>", "Sw<3,2,4>"), "q5": (5, 3, 736), "q6": (64, 156, "memory"),
                "q7": (16, 64), "q9": (2, 1), "q10": (11, 10, 2852),
                "q12": (64, 64, 0), "q13": (32, 32, 0)}


def swizzle(offset, b, m, s):
    """CuTe's Swizzle<B,M,S> on an offset: the B bits at M+S are XORed into the B bits at M."""
    return offset ^ ((offset & (((1 << b) - 1) << (m + s))) >> s)


def log2(x):
    assert x > 0 and x & (x - 1) == 0, x
    return x.bit_length() - 1


# ------------------------------------------------------- hand arithmetic, question by question

def hand_q1(v):
    bm, bn = v.tile1
    a_box, b_box = bm * v.bk1 * 2, bn * v.bk1 * 2            # bytes of A's and B's box
    ring = v.stages1 * (a_box + b_box)
    assert ring % 1024 == 0
    return (a_box + b_box, 2, ring // 1024)


def hand_q2(v):
    wm, wn = v.warp2
    mma = sum(1 for _m in range(0, wm, 16) for _n in range(0, wn, 8) for _k in range(0, v.bk2, 16))
    # per k-block of 16: A is (wm/8) x 2 matrices of 8x8, B is 2 x (wn/8); ldmatrix.x4 loads 4
    matrices = (wm // 8) * 2 + 2 * (wn // 8)
    assert matrices % 4 == 0
    return (mma, matrices // 4 * (v.bk2 // 16))


def hand_q3(v):
    out = []
    for row_bytes, sw in zip(v.rows3, (None, *v.sw3)):
        slots = Counter()
        for r in range(8):
            o = r * row_bytes // 2                                # (r, 0) in halves
            if sw is not None:
                o = swizzle(o, *sw)
            slots[(2 * o // 16) % 8] += 1                         # 16-byte slot of 128 B of banks
        out.append(max(slots.values()))
    return tuple(out)


def hand_q4(v):
    return tuple(f"Sw<3,{log2(16 // eb)},{log2(rb // 16)}>" for rb, eb in v.rows4)


def hand_q5(v):
    row, chunk = v.lane5 % 16, 2 * v.kk5 + v.lane5 // 16
    return (row, chunk, 128 * row + 16 * (chunk ^ (row % 8)))


def hand_q6(v):
    bm, bn = v.tile6
    fpb = Fraction(2 * bm * bn * 64, 2 * (bm + bn) * 64)
    ridge = Fraction(v.tflops6) / Fraction(str(v.tbps6))
    assert fpb.denominator == 1 and abs(fpb - ridge) >= 1      # no near tie to argue about
    return (int(fpb), int(ridge), "memory" if fpb < ridge else "arithmetic")


def hand_q7(v):
    wm, wn = v.warp7
    registers = (wm // 16) * (wn // 8) * 4 // 2                  # c0..c3 a lane, two halves a register
    return (registers // 4, registers)


def hand_q9(v):
    out = []
    for (regs, threads, kb), smem_sm in zip(v.cta9, (233472, 167936)):
        per_warp = -(-regs * 32 // 256) * 256
        by_regs = 4 * (16384 // per_warp) // (threads // 32)
        by_smem = smem_sm // (kb * 1024 + 1024)
        best = min(by_regs, by_smem)
        assert 1 <= best < min(2048 // threads, 32)              # the question's two limits bind
        out.append(best)
    return tuple(out)


def hand_q10(v):
    m = v.atom10[0] + v.lane10 // 4 + 8 * v.h10
    n = v.atom10[1] + 2 * (v.lane10 % 4)
    assert m < 128 and n < 128
    return (m, n, 2 * swizzle(128 * m + n, 3, 3, 4))


def hand_q12(v):
    """A layout of the tile ldmatrix reads in one wavefront a phase exists whenever the tile is
    whole 16x16 blocks: rows padded by 16 bytes put row r's chunk k in 16-byte slot
    (r (cols / 8 + 1) + k) % 8, and cols / 8 + 1 is odd, so the 8 rows of a phase take 8 slots."""
    rows, cols = v.tile12
    assert rows % 16 == 0 and cols % 16 == 0
    assert len({(r * (cols // 8 + 1) + k) % 8 for r in range(8) for k in (0,)}) == 8
    return (rows, cols, 0)


def hand_q13(v):
    """Rows padded by one word put (r, c) in bank (r (cols + 1) + c) % 32 = (r + c) % 32 (cols a
    multiple of 32): 32 lanes on a row or on a column hit 32 banks, one wavefront each."""
    rows, cols = v.tile13
    assert rows % 32 == 0 and cols % 32 == 0
    assert len({(r * (cols + 1)) % 32 for r in range(32)}) == 32
    return (rows, cols, 0)


HAND = {"q1": hand_q1, "q2": hand_q2, "q3": hand_q3, "q4": hand_q4, "q5": hand_q5,
        "q6": hand_q6, "q7": hand_q7, "q9": hand_q9, "q10": hand_q10,
        "q12": hand_q12, "q13": hand_q13}


READS = {"q1": ("tile1", "bk1", "stages1"), "q2": ("warp2", "bk2"), "q3": ("rows3", "sw3"),
         "q4": ("rows4",), "q5": ("lane5", "kk5"), "q6": ("tile6", "tflops6", "tbps6"),
         "q7": ("warp7",), "q9": ("cta9",), "q10": ("lane10", "h10", "atom10"),
         "q12": ("tile12",), "q13": ("tile13",)}


def on_a_page(*texts) -> list[str]:
    keys = ["".join(t.split()) for t in texts]
    return [name for name, page in BOOK.items() if all(k in page for k in keys)]


def test_the_page_check_finds_what_a_page_prints():
    name, page = next(iter(BOOK.items()))
    assert on_a_page(page[:40], page[-40:]) and not on_a_page(page[:40], "(9,9,9,9,9)")


def in_range(v):
    """The numbers are ones the questions' text and the hardware allow."""
    bm, bn = v.tile1
    assert {bm, bn} <= {64, 128, 256} and v.bk1 in (32, 64, 128) and 2 <= v.stages1 <= 6
    assert v.stages1 * 2 * (bm + bn) * v.bk1 <= 227 * 1024           # the ring fits a block
    assert set(v.warp2) <= set(range(16, 129, 16)) and v.bk2 in (16, 32, 64, 128)
    assert all(r in (32, 64, 128, 256, 512, 1024) for r in v.rows3)
    assert all(1 <= b <= 3 and m == 3 and b <= s <= 5 for b, m, s in v.sw3)
    assert all(rb >= 128 and eb <= 16 for rb, eb in v.rows4) and v.rows4[0] != v.rows4[1]
    assert 1 <= v.lane5 < 32 and 0 <= v.kk5 < 4
    assert 50 <= v.tflops6 <= 1000 and 0.5 <= v.tbps6 <= 5.0
    assert all(x in range(16, 129, 16) for x in v.warp7)
    for regs, threads, kb in v.cta9:
        assert 32 <= regs <= 255 and threads % 32 == 0 and regs * threads <= 65536 and kb >= 8
    assert 1 <= v.lane10 < 32 and v.h10 in (0, 1)
    assert v.atom10[0] % 16 == 0 and v.atom10[1] % 8 == 0
    assert v.tile12[0] in range(16, 129, 16) and v.tile12[1] in (32, 64, 128, 256)
    assert set(v.tile13) <= {32, 64, 96}                             # one warp, seconds on the simulator


def answers(seed):
    return {q: variants.answer(EX, q, seed) for q in variants.questions(EX)}


def test_variant_zero_is_the_book_exercise():
    assert answers(0) == BOOK_ANSWERS
    assert {q: HAND[q](variants.of(EX, 0)) for q in HAND} == BOOK_ANSWERS
    assert variants.of(EX, "").seed == 0 and "the book's numbers" in str(variants.of(EX, ""))


def test_the_fixed_questions_are_eight_and_eleven():
    assert variants.questions(EX) == ["q1", "q2", "q3", "q4", "q5", "q6", "q7", "q9", "q10", "q12", "q13"]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_variant_is_well_posed_and_agrees_with_the_hand_arithmetic(seed):
    v = variants.of(EX, seed)
    in_range(v)
    got = answers(seed)
    for q, expected in got.items():
        assert expected == HAND[q](v), (seed, q)
        assert expected != BOOK_ANSWERS[q], (seed, q)                # the book's answer loses
        asked = tuple(getattr(v, name) for name in READS[q])
        assert not on_a_page(repr(asked), repr(expected)), (seed, q)  # not worked on a page
    assert all(1 <= w <= 8 for w in got["q3"])
    assert got["q6"][2] in ("memory", "arithmetic")
    assert str(v).count("\n") == 20                                  # every number printed


def test_the_answers_vary_from_seed_to_seed():
    every = [answers(s) for s in SEEDS]
    per = {q: Counter(repr(a[q]) for a in every) for q in BOOK_ANSWERS}
    for q, seen in per.items():                # q7's warp tiles have 7 products of 16..128 each;
        assert len(seen) >= (5 if q in ("q7", "q13") else 10), (q, seen)    # q13's tiles are 8 shapes
    bounds = Counter(a["q6"][2] for a in every)
    assert bounds["memory"] >= 5 and bounds["arithmetic"] >= 5


def test_a_student_id_and_its_seed_give_the_same_numbers():
    seed = variants.seed_of("student-1")
    assert variants.of(EX, "student-1").numbers == variants.of(EX, seed).numbers
    assert variants.of(EX, seed).numbers == variants.of(EX, seed).numbers != variants.of(EX, 0).numbers


# ------------------------------------------------------- the swizzled offsets against CuTe C++

def swizzled_cases():
    """(C++ expression, labkit's answer) for every swizzled offset the variants ask about: the
    rows of question 3's tiles, question 5's ldmatrix row and question 10's staged pair."""
    import test_cute_cpp as cpp  # noqa: PLC0415  (the shared g++ oracle runner)

    def tile(rows, row_halves, sw):
        plain = (f"make_layout(make_shape(Int<{rows}>{{}}, Int<{row_halves}>{{}}), "
                 f"make_stride(Int<{row_halves}>{{}}, Int<1>{{}}))")
        return f"composition(Swizzle<{sw[0]},{sw[1]},{sw[2]}>{{}}, {plain})" if sw else plain

    pairs = []
    for seed in [0, *SEEDS]:
        v = variants.of(EX, seed)
        for row_bytes, sw in zip(v.rows3, (None, *v.sw3)):
            for r in range(8):
                lay = lk.make_layout((8, row_bytes // 2), (row_bytes // 2, 1))
                if sw:
                    lay = lk.composition(lk.Swizzle(*sw), lay)
                pairs.append((f"{tile(8, row_bytes // 2, sw)}(int({r}), int(0))", int(lay(r, 0))))
        row, chunk, byte = variants.answer(EX, "q5", seed)
        pairs.append((f"{tile(64, 64, (3, 3, 3))}(int({row}), int({8 * chunk}))", byte // 2))
        m, n, byte = variants.answer(EX, "q10", seed)
        pairs.append((f"{tile(128, 128, (3, 3, 4))}(int({m}), int({n}))", byte // 2))
    return cpp, pairs


def _cpp_available():
    import test_cute_cpp as cpp  # noqa: PLC0415
    return cpp.GXX is not None and cpp.INCLUDES is not None


@pytest.mark.slow
@pytest.mark.skipif(not _cpp_available(),
                    reason="needs g++ and CuTe's headers (nvidia-cutlass and the CUDA wheels)")
def test_the_swizzled_offsets_are_what_cute_cpp_computes():
    cpp, pairs = swizzled_cases()
    cases = [cpp.Case("variant", expr, lambda a=mine: a, expr) for expr, mine in pairs]
    with tempfile.TemporaryDirectory() as work:
        got = cpp.run_cases(cases, lambda c: ("ok", str(c.py())), Path(work), "grading-variants-gemm",
                            key=cpp._toolchain_key() + "-swizzle", chunk_ok=600,
                            headers=cpp.HEADERS + "#include <cute/swizzle_layout.hpp>\n")
    wrong = [(e, got[e], mine) for e, mine in pairs
             if got[e][0] != "ok" or got[e][1].replace("_", "") != str(mine)]
    assert not wrong, wrong[:5]
    assert len(pairs) == 61 * (3 * 8 + 2)
