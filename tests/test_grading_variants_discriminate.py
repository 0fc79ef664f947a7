"""Variants that discriminate: over 150 student ids, no variant's expected answer is the book's
for any question (copying the book scores nothing), and every hand-computation question has at
least 20 distinct answers, or :data:`FEW` says why its answer cannot take that many values.

The book's answers are the literals of ``tests/test_grading_variants.py`` and the exercise
tests beside it; here they are only compared with, never worked out.
"""

from __future__ import annotations

import pytest

from labkit.grading import variants
from labkit.grading.variant import seed_of, student_seed

IDS = [f"student-{k:03d}" for k in range(150)]

FEW = {  # (exercise, question): why fewer than 20 distinct answers are all there are
    ("02_tiling", "q4"): "the strides of a tiled row-major matrix: one per (tile, matrix) shape "
                         "pair that tiles evenly, and only ~11 such pairs are well-posed",
    ("03_named_axes", "q9"): "a warp of a 2x2 arrangement: 4 warps, the book's excluded",
    ("04_replication_offset", "q3"): "the devices of a 2x2 mesh holding a row half: one answer "
                                     "per half and column half, 4 in all",
    ("04_replication_offset", "q10"): "elements a device holds in the three modes: every device "
                                      "holds 32 replicated and 16 sharded, offset is 32 or 0",
    ("04_replication_offset", "q12"): "the two lanes of ldmatrix.x2 that share a row: 16 pairs",
    ("05_banks_swizzle", "q2"): "a phase of a 16-byte-a-lane access: 4 phases",
    ("05_banks_swizzle", "q3"): "a stored column of the 8x8 toy: 8 columns",
    ("05_banks_swizzle", "q6"): "a swizzle Sw<B,M,3> of the 4 modes on 1-, 2-, 4- or 8-byte "
                                "elements: 12 in all",
    ("05_banks_swizzle", "q7"): "a swizzle mode: 4 modes",
    ("05_banks_swizzle", "q8"): "wavefronts of ldmatrix.x4 with and without Swizzle<3,3,3>: "
                                "the row pitch sets one of a handful of pairs",
    ("05_banks_swizzle", "q9"): "wavefronts of a broadcast and a column read: 1 and a power of 2",
    ("05_banks_swizzle", "q11"): "a row of SWIZZLE_64B's chunk grid: 8 rows",
    ("05_banks_swizzle", "q13"): "the starting banks of a row of an 8x8 Swizzle<3,3,3> atom: "
                                 "8 rows",
    ("06_fragment_trace", "q3"): "a register and half of the A fragment: 4 registers x 2 halves",
    ("06_fragment_trace", "q4"): "a register and half of the B fragment: 2 registers x 2 halves",
    ("06_fragment_trace", "q10"): "a register and half of the A fragment: 4 registers x 2 halves",
    ("07_gemm_ladder", "q13"): "a warp's transpose tile: rows and columns of 32, 64 or 96 (one warp "
                               "walks both, and the simulator runs it in seconds), 8 shapes",
    ("08_wgmma", "q3"): "the LBO, SBO and layout type of a K-major tile depend on its swizzle "
                        "mode (and its rows for INTERLEAVE): 4 modes",
    ("08_wgmma", "q5"): "the LBO and SBO of an MN-major tile: 3 swizzle modes x 3 values of N",
}
FIXED = {  # (exercise, question): why the question keeps the book's numbers in every variant
    # recalled facts and named choices: one right answer for everyone
    ("04_replication_offset", "q7"): "recall: elements a scale factor covers in NVFP4 and MXFP8",
    ("04_replication_offset", "q8"): "recall: which of S, R, O expresses each of three things",
    ("06_fragment_trace", "q5"): "recall: the matrices ldmatrix loads for one B operand",
    ("06_fragment_trace", "q11"): "recall: the MMA shape and ldmatrix variants on sm_75",
    ("07_gemm_ladder", "q8"): "the sectors of the m16n8 atom's stores: a fact of the atom's C "
                              "layout, the same for every student",
    ("08_wgmma", "q1"): "the warpgroup (4 warps of 32 threads) is a fact of the hardware",
    # capstones: a function graded on the whole tile, not a number
    ("06_fragment_trace", "q14"): "capstone: a function, run on every lane of the tile",
    ("06_fragment_trace", "q15"): "capstone: a function, run on every lane of the tile",
    ("07_gemm_ladder", "q11"): "capstone: a function, run on the whole epilogue tile",
    # questions about one printing rule of CuTe, asked on the case the chapter explains
    ("01_shape_stride", "q10"): "static _0 against dynamic 0 in filter_zeros: the chapter's case",
    ("02_tiling", "q6"): "make_ordered_layout's rule for dynamic orders: the chapter's case",
    ("02_tiling", "q7"): "the same shape with static orders, against question 6",
    ("02_tiling", "q9"): "static composition printed exactly as CuTe prints it: the chapter's case",
    ("02_tiling", "q11"): "logical_divide's rest mode on the chapter's 16:1 example",
    ("03_named_axes", "q6"): "the Axe text of the chapter's (4,8):(8,1)",
    ("02b_global_to_thread", "q6"): "how CuTe prints an identity tensor's layout",
    ("04_replication_offset", "q11"): "num_replicas of the ldmatrix.x2 TV layout CuTe writes",
    ("05_banks_swizzle", "q12"): "the SWIZZLE_128B fp16 atom read down a column: the chapter's "
                                 "case",
    # hand computations about one fixed object of the chapter: the answer is a fact of it, and
    # a variant would need a different object (new question text), not new numbers
    ("02b_global_to_thread", "q10"): "sectors of one warp's request: set by the element size and "
                                     "the thread layout the question fixes (floats, (_32,_8)), "
                                     "not by M",
    ("04_replication_offset", "q6"): "TMEM bytes of the chapter's sfa, the one tcgen05.cp "
                                     "placement the exercise builds",
    ("05_banks_swizzle", "q4"): "cycles of a column read in the 8x8 toy with 8 banks: a fact of "
                                "the toy",
    ("06_fragment_trace", "q6"): "instructions a warp of sgemm_sm80 issues per k-block: a fact "
                                 "of that kernel's configuration",
}


@pytest.fixture(scope="module", params=sorted(variants.EXERCISES))
def drawn(request):
    ex = request.param
    book = variants.answers(ex, 0)
    got = {q: [] for q in book}
    for sid in IDS:
        mine = variants.answers(ex, student_seed(sid))
        for q in book:
            got[q].append(mine[q])
    return ex, book, got


@pytest.mark.slow
def test_no_variant_answers_any_question_as_the_book_does(drawn):
    ex, book, got = drawn
    for q, values in got.items():
        same = [IDS[k] for k, v in enumerate(values) if v == book[q]]
        assert not same, f"{ex} {q}: the book's answer {book[q]!r} is right for {same[:5]}"


@pytest.mark.slow
def test_every_question_has_many_answers_or_says_why_not(drawn):
    ex, _, got = drawn
    for q, values in got.items():
        distinct = len({repr(v) for v in values})
        if (ex, q) in FEW:       # listed only while it is so (then the reason holds)
            assert distinct < 20, f"{ex} {q} has {distinct} distinct answers: drop it from FEW"
        else:
            assert distinct >= 20, f"{ex} {q}: only {distinct} distinct answers over 150 ids"


def test_the_questions_that_keep_the_books_numbers_are_the_ones_named():
    from pathlib import Path

    exercises = Path(__file__).resolve().parents[1] / "exercises"
    for ex in variants.EXERCISES:
        every = {p.stem for p in (exercises / ex / "student" / "tests").glob("q*.py")}
        fixed = every - set(variants.questions(ex))
        assert fixed == {q for e, q in FIXED if e == ex}, ex


def test_a_student_id_and_its_seed_are_one_rule():
    assert student_seed("book") == 0
    assert student_seed(4127) == student_seed("4127") == seed_of("4127") != 0
    assert student_seed(0) != 0                   # 0 is an id like any other, not the book
    assert variants.for_student("01_shape_stride", "ana.lima").seed == seed_of("ana.lima")
