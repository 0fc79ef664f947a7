"""Variants of exercise 7 (the GEMM ladder): each student's own tiles, lanes, swizzles and rates.

:func:`numbers` draws one variant's numbers (seed 0: the book's), :func:`answers` works out the
expected answers with labkit. :mod:`labkit.grading.variants` wraps them as its
``"07_gemm_ladder"`` entry. Questions 12 and 13 (a layout and a kernel, graded by what they do
in :mod:`labkit.grading.smem_kernel`) take their tile from the variant; questions 8 (the sectors of the m16n8 atom's stores, a fact of its
layout) and 11 (the capstone, graded on the whole tile by :mod:`labkit.grading.kernels`) keep
the book's numbers.

>>> n, lines = numbers(0)
>>> n["tile1"], n["lane5"], n["cta9"]
((256, 128), 21, ((255, 128, 48), (128, 128, 96)))
>>> answers(type("V", (), n))["q10"]
(11, 10, 2852)
"""

from __future__ import annotations

from .variant import draw_numbers

__all__ = ["numbers", "answers", "EXERCISE"]

EXERCISE = "07_gemm_ladder"

# the book's numbers (variant 0), question by question
BOOK = dict(
    tile1=(256, 128), bk1=64, stages1=4,
    warp2=(64, 64), bk2=64,
    rows3=(128, 128, 256), sw3=((3, 3, 3), (3, 3, 3)),
    rows4=((256, 2), (256, 4)),
    lane5=21, kk5=1,
    tile6=(128, 128), tflops6=312, tbps6=2.0,
    warp7=(64, 64),
    cta9=((255, 128, 48), (128, 128, 96)),
    lane10=13, h10=1, atom10=(0, 8),
    tile12=(64, 64), tile13=(32, 32),
)

WHERE = dict(
    tile1="question 1: (BM, BN) of the block's tile of C", bk1="question 1: the k-tile",
    stages1="question 1: stages of the ring",
    warp2="question 2: the warp tile (rows, columns)", bk2="question 2: the k-tile",
    rows3="question 3: row bytes of the three tiles",
    sw3="question 3: (B, M, S) of the 2nd and 3rd tiles' swizzles",
    rows4="question 4: (row bytes, element bytes) of the two tiles",
    lane5="question 5: the lane", kk5="question 5: the k-block",
    tile6="question 6: (BM, BN)", tflops6="question 6: TFLOP/s", tbps6="question 6: TB/s",
    warp7="question 7: the warp tile of accumulators (rows, columns)",
    cta9="question 9: (registers a thread, threads, KB of shared memory) for (a), (b)",
    lane10="question 10: the lane", h10="question 10: the register",
    atom10="question 10: the atom's top-left element (m0, n0)",
    tile12="question 12: (rows, cols) of halves of the ldmatrix tile",
    tile13="question 13: (rows, cols) of int32 of the transposed tile",
)

_INTEGER_TILES = [(a, b) for a in (32, 64, 96, 128, 192, 256, 384) for b in (32, 64, 96, 128, 192, 256, 384)
                  if (a * b) % (a + b) == 0]


# ------------------------------------------------------------------ the answers, one a question

def _q1(n):
    bm, bn = n.tile1
    per = 2 * (bm + bn) * n.bk1
    return (per, 2, n.stages1 * per // 1024)


def _q2(n):
    wm, wn = n.warp2
    kblocks = n.bk2 // 16
    return ((wm // 16) * (wn // 8) * kblocks, (wm // 16 + (wn // 8) // 2) * kblocks)


def _q3(n):
    from ..banks.bank_model import bank_conflicts
    from ..layout.compose import composition
    from ..layout.layout import make_layout
    from ..layout.swizzle import Swizzle

    out = []
    for row_bytes, sw in zip(n.rows3, (None, *n.sw3)):
        tile = make_layout((8, row_bytes // 2), (row_bytes // 2, 1))
        if sw is not None:
            tile = composition(Swizzle(*sw), tile)
        out.append(int(bank_conflicts([2 * int(tile(r, 0)) for r in range(8)], 16).wavefronts))
    return tuple(out)


def _q4(n):
    from ..lab import epilogue

    return tuple(str(epilogue.row_swizzle(rb, elem_bytes=eb)) for rb, eb in n.rows4)


def _q5(n):
    from ..layout.compose import composition
    from ..layout.layout import make_layout
    from ..layout.swizzle import Swizzle

    row, chunk = n.lane5 % 16, 2 * n.kk5 + n.lane5 // 16
    tile = composition(Swizzle(3, 3, 3), make_layout((64, 64), (64, 1)))
    return (row, chunk, 2 * int(tile(row, 8 * chunk)))


def _q6(n):
    bm, bn = n.tile6
    fpb = bm * bn // (bm + bn)
    ridge = (n.tflops6 * 10) // round(n.tbps6 * 10)
    return (fpb, ridge, "memory" if fpb * round(n.tbps6 * 10) < n.tflops6 * 10 else "arithmetic")


def _atom():
    from ..atoms.mma_atoms import mma_atom

    return mma_atom("SM80_16x8x16_F32F16F16F32_TN")


def _q7(n):
    from ..layout.layout import size

    wm, wn = n.warp7
    atom = _atom()
    values = int(size(atom.layout_C)) // 32          # accumulators a lane holds per atom
    registers = (wm // 16) * (wn // 8) * values // 2     # f16 pairs, one 32-bit register each
    return (registers // 4, registers)


def _q9(n):
    from ..atoms.sm_limits import occupancy

    (ra, ta, ka), (rb, tb, kb) = n.cta9
    return (occupancy(regs=ra, threads=ta, smem=ka * 1024, sm=90),
            occupancy(regs=rb, threads=tb, smem=kb * 1024, sm=80))


def _q10(n):
    from ..lab import epilogue

    idx = int(_atom().layout_C(n.lane10, 2 * n.h10))    # element of the 16x8 atom, column-major
    m, c = n.atom10[0] + idx % 16, n.atom10[1] + idx // 16
    return (m, c, 2 * int(epilogue.layouts()["rows 256 B + Sw<3,3,4>"](m, c)))


def _q12(n):
    """A layout of the tile that ldmatrix reads conflict-free: (rows, cols, 0 wavefronts past the least)."""
    return (*n.tile12, 0)


def _q13(n):
    """A warp's transpose through a conflict-free layout: (rows, cols, 0 wavefronts past the least)."""
    return (*n.tile13, 0)


QUESTIONS = {"q1": _q1, "q2": _q2, "q3": _q3, "q4": _q4, "q5": _q5, "q6": _q6, "q7": _q7,
             "q9": _q9, "q10": _q10, "q12": _q12, "q13": _q13}
# the numbers each question reads
_READS = {"q1": ("tile1", "bk1", "stages1"), "q2": ("warp2", "bk2"), "q3": ("rows3", "sw3"),
          "q4": ("rows4",), "q5": ("lane5", "kk5"), "q6": ("tile6", "tflops6", "tbps6"),
          "q7": ("warp7",), "q9": ("cta9",), "q10": ("lane10", "h10", "atom10"),
          "q12": ("tile12",), "q13": ("tile13",)}


class _N:
    def __init__(self, d):
        self.__dict__.update(d)


def answers(v) -> dict:
    """The expected answers of variant ``v`` (anything with the numbers as attributes)."""
    return {q: f(v) for q, f in QUESTIONS.items()}


# ---------------------------------------------------------------------- the draws, one a question

def _draw_q1(rng):
    while True:
        tile = (rng.choice([64, 128, 256]), rng.choice([64, 128, 256]))
        bk, stages = rng.choice([32, 64, 128]), rng.randint(2, 6)
        if stages * 2 * sum(tile) * bk <= 227 * 1024:          # the ring fits an sm_90 block
            return dict(tile1=tile, bk1=bk, stages1=stages)


_WARP_SIDES = [16, 32, 48, 64, 80, 96, 112, 128]      # multiples of 16: whole atoms and ldmatrix.x4 pairs


def _draw_q2(rng):
    return dict(warp2=(rng.choice(_WARP_SIDES), rng.choice(_WARP_SIDES)),
                bk2=rng.choice([16, 32, 64, 128]))


def _draw_q3(rng):
    return dict(rows3=(rng.choice([32, 64, 128, 256, 512]), rng.choice([128, 256, 512, 1024]),
                       rng.choice([128, 256, 512, 1024])),
                sw3=tuple((rng.randint(1, 3), 3, rng.randint(3, 5)) for _ in range(2)))


def _draw_q4(rng):
    while True:
        a = (rng.choice([128, 256, 512, 1024]), rng.choice([1, 2, 4, 8]))
        b = (rng.choice([128, 256, 512, 1024]), rng.choice([1, 2, 4, 8]))
        if a != b:
            return dict(rows4=(a, b))


def _draw_q5(rng):
    return dict(lane5=rng.randrange(1, 32), kk5=rng.randrange(4))


def _draw_q6(rng):
    while True:
        tile = rng.choice(_INTEGER_TILES)
        tflops, tenths = rng.randint(50, 1000), rng.randint(5, 50)
        fpb = tile[0] * tile[1] // sum(tile)
        ridge = tflops * 10 / tenths
        if abs(fpb - ridge) >= 2 and 20 <= ridge <= 250:        # far enough apart to be plain
            return dict(tile6=tile, tflops6=tflops, tbps6=tenths / 10)


def _draw_q7(rng):
    return dict(warp7=(rng.choice(_WARP_SIDES), rng.choice(_WARP_SIDES)))


def _fits(regs, threads, kb, sm):
    """Registers or shared memory (what the question states) bind, not threads or the CTA cap."""
    warps = threads // 32
    per_warp = -(-regs * 32 // 256) * 256
    by_regs = (16384 // per_warp) * 4 // warps
    by_smem = (233472 if sm == 90 else 167936) // (kb * 1024 + 1024)
    best = min(by_regs, by_smem)
    return 1 <= best <= 8 and best < min(2048 // threads, 32)


def _draw_q9(rng):
    out = []
    for sm, top in ((90, 227), (80, 163)):
        while True:
            cta = (rng.randint(32, 255), rng.choice([64, 128, 256, 384, 512]), rng.randint(8, top // 2))
            if _fits(*cta, sm) and cta[0] * cta[1] <= 65536:
                out.append(cta)
                break
    return dict(cta9=tuple(out))


def _draw_q10(rng):
    return dict(lane10=rng.randrange(1, 32), h10=rng.randrange(2),
                atom10=(16 * rng.randrange(8), 8 * rng.randrange(16)))


def _draw_q12(rng):
    return dict(tile12=(16 * rng.randint(1, 8), rng.choice([32, 64, 128, 256])))


def _draw_q13(rng):       # one warp walks rows and columns; the simulator runs it in seconds
    return dict(tile13=(32 * rng.randint(1, 3), 32 * rng.randint(1, 3)))


_DRAWS = {"q1": _draw_q1, "q2": _draw_q2, "q3": _draw_q3, "q4": _draw_q4, "q5": _draw_q5,
          "q6": _draw_q6, "q7": _draw_q7, "q9": _draw_q9, "q10": _draw_q10, "q12": _draw_q12,
          "q13": _draw_q13}


def numbers(seed: int) -> tuple[dict, list]:
    """``(numbers, lines)`` of variant ``seed``: 0 is the book's; any other draws every question's
    numbers anew until its answer differs from the book's."""
    drawn = draw_numbers(EXERCISE, seed, BOOK, _DRAWS, lambda q, nums: QUESTIONS[q](_N(nums)))
    lines = [f"{name:<8}= {str(drawn[name]):<28} ({WHERE[name]})" for name in WHERE]
    return drawn, lines
