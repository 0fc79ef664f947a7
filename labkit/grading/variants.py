"""Variants: each student's own numbers for an exercise's hand-computation questions.

A variant is a seed. Variant 0 is the exercise as the book prints it; any other seed draws new
shapes, strides, coordinates and indices from the same ranges of well-posed questions, and the
expected answers are computed with labkit when the notebook is graded. A student's seed comes
from the id they enter in the notebook's first cell (:func:`seed_of`), or the instructor gives
one with ``labkit grade --variant SEED``.

>>> v = of("01_shape_stride", "")          # no id: the book's numbers
>>> v.seed, str(v.L), v.c1
(0, '(4,8):(8,1)', (2, 3))
>>> answer("01_shape_stride", "q1", 0)
19
>>> of("01_shape_stride", "student-42").seed == seed_of("student-42") != 0
True
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from ..errors import LabkitError
from . import variants_gemm as _gemm

__all__ = ["seed_of", "of", "answer", "questions", "EXERCISES", "Variant"]


def seed_of(student_id) -> int:
    """The variant of a student id: 0 for ``""`` (the book's numbers), else a stable number
    from 1 to 999999 (the same id gives the same variant on every machine)."""
    if student_id is None or str(student_id).strip() == "":
        return 0
    digest = hashlib.sha256(str(student_id).strip().encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % 999_999 + 1


def _seed(seed_or_id) -> int:
    if isinstance(seed_or_id, bool):
        raise LabkitError(f"a variant is a seed (int >= 0) or a student id (str); got {seed_or_id!r}")
    if isinstance(seed_or_id, int):
        if seed_or_id < 0:
            raise LabkitError(f"a variant seed is an int >= 0; got {seed_or_id}")
        return seed_or_id
    if isinstance(seed_or_id, str):
        return seed_of(seed_or_id)
    raise LabkitError(f"a variant is a seed (int >= 0) or a student id (str); got {seed_or_id!r}")


@dataclass
class Variant:
    """One variant's numbers (attributes), and how the notebook prints them."""

    exercise: str
    seed: int
    numbers: dict
    lines: list

    def __getattr__(self, name):
        numbers = self.__dict__.get("numbers", {})
        if name in numbers:
            return numbers[name]
        raise AttributeError(f"variant of {self.exercise} has no number {name!r}")

    def __str__(self):
        head = (f"{self.exercise}, variant {self.seed}"
                + (" (the book's numbers)" if self.seed == 0 else ""))
        return "\n".join([head, *self.lines])

    def __repr__(self):
        return str(self)


# ------------------------------------------------------------------------ 01_shape_stride


def _shape_stride(seed: int) -> Variant:
    import labkit as lk

    S = lk.S
    if seed == 0:
        m, n, c1, f = 4, 8, (2, 3), 13
        ta, tb, pitch = 4, 8, 16
        da, db = 4, 8
        a0, a1, a_mid, a_join = 2, 6, 6, 2
        pa, pb = 4, 8
        p, q, r, s1, s2, g = 2, 2, 4, 8, 2, 11
        t, val = 5, 6
    else:
        rng = random.Random(f"01_shape_stride/{seed}")
        while True:
            m, n = rng.randint(3, 9), rng.randint(3, 12)
            if (m, n) != (4, 8) and m != n:
                break
        c1 = (rng.randrange(1, m), rng.randrange(1, n))
        f = rng.randrange(m + 1, m * n - 1)
        ta, tb = rng.randint(3, 9), rng.randint(3, 9)
        pitch = rng.randint(tb + 3, 40)
        da, db = rng.randint(3, 12), rng.randint(3, 12)
        a0, a1 = rng.randint(2, 8), rng.randint(2, 8)
        a_mid = rng.randint(3, 40)
        a_join = a0 if rng.random() < 0.5 else rng.choice([x for x in range(2, 12) if x != a0])
        pa, pb = rng.randint(3, 12), rng.randint(3, 12)
        p, q, r = rng.randint(2, 3), rng.randint(2, 3), rng.randint(3, 5)
        s1 = rng.randint(p + 2, 12)
        s2 = rng.randint(2, 16)
        g = rng.randrange(p * q + 1, p * q * r - 1)
        while (t := rng.randrange(32), val := rng.randrange(8)) in ((5, 6), (0, 5), (21, 1)):
            pass                                  # the pairs the book works out
    L = lk.make_layout((m, n), (n, 1))
    T = lk.make_layout((ta, tb), (pitch, 1))
    A = lk.make_layout((S(a0), (S(1), S(a1))), (S(1), (S(a_mid), S(a_join))))
    N = lk.make_layout(((p, q), r), ((1, s1), s2))
    A_tv = lk.parse_layout("((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))")
    numbers = dict(L=L, c1=c1, f=f, T=T, D=(da, db), A=A, P=(pa, pb), N=N, g=g, t11=t, v11=val,
                   A_tv=A_tv)
    rows = [("L", L, "questions 1-3"), ("c1", c1, "question 1"), ("f", f, "questions 2, 3"),
            ("T", T, "question 4"), ("D", (da, db), "question 5: make_layout(D)"),
            ("A", A, "question 6"), ("P", (pa, pb), "question 7: column-major, shape P"),
            ("N", N, "questions 8, 9"), ("g", g, "questions 8, 9"),
            ("t11, v11", f"{t}, {val}", "question 11")]
    lines = [f"{name:<8}= {str(value):<30} ({where})" for name, value, where in rows]
    return Variant("01_shape_stride", seed, numbers, lines)


def _shape_stride_answers(v: Variant) -> dict:
    import labkit as lk

    L, N, T, A = v.L, v.N, v.T, v.A
    m = int(lk.size(L.shape[0]))
    coord_f = (v.f % m, v.f // m)
    inner = int(lk.size(N.shape[0]))
    p = int(lk.size(N.shape[0][0]))
    rest = v.g % inner
    pa, pb = v.P
    return {
        "q1": int(L(*v.c1)),
        "q2": coord_f,
        "q3": int(L(v.f)),
        "q4": (int(lk.size(T)), int(lk.cosize(T))),
        "q5": str(lk.make_layout(v.D)),
        "q6": str(lk.coalesce(A)),
        "q7": (str(lk.coalesce(lk.make_layout((lk.S(pa), lk.S(pb))))),
               str(lk.coalesce(lk.make_layout((pa, pb), (1, pa))))),
        "q8": ((rest % p, rest // p), v.g // inner),
        "q9": int(N(v.g)),
        "q11": (int(v.A_tv(v.t11, v.v11)) % 16, int(v.A_tv(v.t11, v.v11)) // 16),
    }


# ------------------------------------------------------------------------------ 02_tiling


def _tiling(seed: int) -> Variant:
    import labkit as lk

    if seed == 0:
        rows, cols, tr, tc, e, t5 = 8, 8, 2, 4, (4, 5), (3, 1)
        a_stride, i8 = (8, 2), 5
        n, d, m = 4, 2, 16
    else:
        rng = random.Random(f"02_tiling/{seed}")
        while True:
            rows, cols = rng.choice([8, 12, 16]), rng.choice([8, 12, 16])
            tr, tc = rng.choice([2, 4]), rng.choice([2, 4])
            if (rows, cols, tr, tc) != (8, 8, 2, 4):
                break
        while (e := (rng.randrange(tr, rows), rng.randrange(tc, cols))) == (4, 5):
            pass
        while (t5 := (rng.randrange(rows // tr), rng.randrange(cols // tc))) in ((0, 0), (3, 1)):
            pass
        while (a_stride := (rng.randint(3, 12), rng.randint(2, 5))) == (8, 2):
            pass
        i8 = rng.choice([k for k in range(1, 12) if k not in (5, 4)])
        while (n := rng.choice([2, 3, 4, 5]), d := rng.choice([2, 3, 4])) == (4, 2):
            pass
        m = n * d * rng.choice([2, 3, 4])
    tiled = lk.axe_tiled_layout((rows, cols), (tr, tc))
    A8 = lk.make_layout((6, 2), a_stride)
    B8 = lk.make_layout((4, 3), (3, 1))
    numbers = dict(shape=(rows, cols), tile=(tr, tc), tiled=tiled, e=e, t5=t5, A8=A8, B8=B8,
                   i8=i8, comp=(lk.parse_layout(f"_{n}:_{d}"), lk.S(m)))
    rows_ = [("shape", (rows, cols), "questions 1-5: the matrix"),
             ("tile", (tr, tc), "questions 1-5: rows, columns of a tile"),
             ("tiled", tiled, "questions 1-4"), ("e", e, "questions 1-3: the element (i, j)"),
             ("t5", t5, "question 5: (tile row, tile column)"),
             ("A8, B8", f"{A8}, {B8}", "question 8"), ("i8", i8, "question 8"),
             ("comp", f"complement(_{n}:_{d}, _{m})", "question 10")]
    lines = [f"{name:<8}= {str(value):<30} ({where})" for name, value, where in rows_]
    return Variant("02_tiling", seed, numbers, lines)


def _tiling_answers(v: Variant) -> dict:
    import labkit as lk

    rows, cols = v.shape
    tr, tc = v.tile
    i, j = v.e
    x = cols * i + j
    return {
        "q1": x,
        "q2": (i // tr, i % tr, j // tc, j % tc),
        "q3": int(v.tiled(x)[0]["m"]),
        "q4": ((tc, tr * cols), (1, tr * tc)),
        "q5": int(lk.zipped_divide(lk.make_layout((rows, cols), (cols, 1)), (tr, tc))(0, v.t5)),
        "q8": int(lk.composition(v.A8, v.B8)(v.i8)),
        "q10": str(lk.complement(*v.comp)),
    }


# --------------------------------------------------------------------------- 03_named_axes


def _named_axes(seed: int) -> Variant:
    if seed == 0:
        x1, lc2, lc3, e4, lane5, a7, tv8, c9 = 1000, (64, 255), (5, 7), (6, 5), 9, (9, 10), (21, 1), (20, 12)
    else:
        rng = random.Random(f"03_named_axes/{seed}")

        def fresh(draw, book):
            while (value := draw()) in book:
                pass
            return value

        x1 = fresh(lambda: rng.randrange(300, 128 * 256), (1000,))
        lc2 = fresh(lambda: (rng.randrange(1, 128), rng.randrange(1, 256)), ((64, 255),))
        lc3 = fresh(lambda: (rng.randrange(1, 128), rng.randrange(1, 256)), ((5, 7),))
        e4 = fresh(lambda: (rng.randrange(1, 8), rng.randrange(8)), ((6, 5),))
        lane5 = fresh(lambda: rng.randrange(1, 32), (9,))
        a7 = fresh(lambda: (rng.randrange(16), rng.randrange(16)), ((9, 10),))
        tv8 = fresh(lambda: (rng.randrange(32), rng.randrange(2)), ((21, 1),))
        c9 = fresh(lambda: (rng.randrange(32), rng.randrange(16)), ((20, 12),))
    numbers = dict(x1=x1, lc2=lc2, lc3=lc3, e4=e4, lane5=lane5, a7=a7, tv8=tv8, c9=c9)
    rows = [("x1", x1, "question 1: a logical index of acc"),
            ("lc2", lc2, "question 2: (TLane, TCol)"), ("lc3", lc3, "question 3: (TLane, TCol)"),
            ("e4", e4, "question 4: an element (row, col) of frag"),
            ("lane5", lane5, "question 5: a lane of frag"),
            ("a7", a7, "question 7: an element (m, k) of A"),
            ("tv8", tv8, "question 8: (thread, value) of tv_B"),
            ("c9", c9, "questions 9, 10: an element (m, n) of the 32x16 C tile")]
    lines = [f"{name:<8}= {str(value):<30} ({where})" for name, value, where in rows]
    return Variant("03_named_axes", seed, numbers, lines)


def _named_axes_answers(v: Variant) -> dict:
    import labkit as lk

    acc = lk.tmem_accumulator_layout(128, 256)
    frag = lk.m8n8_fragment_layout()
    atom = lk.mma_atom("SM80_16x8x16_F16F16F16F16_TN")
    tv_b = lk.mma_atom("SM80_16x8x8_F16F16F16F16_TN").layout_B
    pos = acc(v.x1)[0]
    x2 = acc.backward({"TLane": v.lc2[0], "TCol": v.lc2[1]})[0]
    held = frag(8 * v.e4[0] + v.e4[1])[0]
    m, n = v.c9
    return {
        "q1": (int(pos["TLane"]), int(pos["TCol"])),
        "q2": (int(x2) // 256, int(x2) % 256),
        "q3": int(acc.backward({"TLane": v.lc3[0], "TCol": v.lc3[1]})[0]),
        "q4": (int(held["laneid"]), int(held["reg"])),
        "q5": {divmod(int(x), 8) for x in frag.backward({"laneid": v.lane5})},
        "q7": tuple(int(a) for a in atom.owner("A", *v.a7)),
        "q8": tuple(int(a) for a in lk.idx2crd(tv_b(*v.tv8), (8, 8))),
        "q9": m // 16 + 2 * (n // 8),
        "q10": tuple(int(a) for a in atom.owner("C", m % 16, n % 8)),
    }


EXERCISES = {
    "01_shape_stride": (_shape_stride, _shape_stride_answers),
    "02_tiling": (_tiling, _tiling_answers),
    "03_named_axes": (_named_axes, _named_axes_answers),
    "07_gemm_ladder": (lambda seed: Variant("07_gemm_ladder", seed, *_gemm.numbers(seed)), _gemm.answers),
}


def questions(exercise: str) -> list[str]:
    """The questions of ``exercise`` whose numbers come from the variant."""
    _check(exercise)
    return sorted(EXERCISES[exercise][1](of(exercise, 0)), key=lambda q: (len(q), q))


def _check(exercise):
    if exercise not in EXERCISES:
        raise LabkitError(f"exercise must be one of {', '.join(sorted(EXERCISES))} (the exercises "
                          f"with variants); got {exercise!r}")


def of(exercise: str, seed_or_id=0) -> Variant:
    """The numbers of ``exercise`` for a variant seed or a student id (``""``: the book's)."""
    _check(exercise)
    return EXERCISES[exercise][0](_seed(seed_or_id))


def answer(exercise: str, question: str, seed_or_id=0):
    """The expected answer of ``question`` in a variant, computed with labkit."""
    answers = EXERCISES[exercise][1](of(exercise, seed_or_id))
    if question not in answers:
        raise LabkitError(f"question must be one of {', '.join(answers)}; got {question!r}")
    return answers[question]
