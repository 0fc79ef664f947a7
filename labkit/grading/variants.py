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

import copy
import functools
import hashlib
import random
from dataclasses import dataclass

from ..errors import LabkitError
from . import variants_gemm as _gemm

from labkit import atoms as _atoms
from labkit import axe as _axe
from labkit import banks as _banks
from labkit import layout as _layout
from labkit import swizzle_atoms as _swizzle_atoms
from labkit import tiled as _tiled


class _Floors:
    """``lk.<name>`` for the names the variants use, read from the floors below grading (the
    package's face, ``import labkit as lk``, stands above this floor)."""

    _FLOORS = (_layout, _axe, _banks, _swizzle_atoms, _atoms, _tiled)

    def __getattr__(self, name):
        for floor in self._FLOORS:
            if name in getattr(floor, "__all__", ()) or hasattr(floor, name):
                return getattr(floor, name)
        raise AttributeError(f"labkit has no {name!r} below the grading floor")


lk = _Floors()

__all__ = ["seed_of", "of", "answer", "answers", "questions", "EXERCISES", "Variant"]


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


# -------------------------------------------------------------------- 02b_global_to_thread


def _global_to_thread(seed: int) -> Variant:
    if seed == 0:
        m, n, tile1, b4, t5, t7, t8, k9 = 1496, 600, (64, 256), (3, 2), 37, 45, (45, 60), 96
    else:
        rng = random.Random(f"02b_global_to_thread/{seed}")
        while True:                        # ragged in both modes, at least 3x3 blocks
            m, n = 8 * rng.randint(48, 250), rng.randint(300, 1200)
            if m % 128 and n % 128 and (m, n) != (1496, 600):
                break
        tile1 = (rng.choice([32, 64, 256]), rng.choice([64, 128, 256]))
        b4 = (rng.randrange(1, -(-m // 128) - 1), rng.randrange(1, -(-n // 128) - 1))
        t5 = rng.choice([t for t in range(1, 256) if t != 37])
        t7 = rng.choice([t for t in range(1, 256) if t != 45])
        t8 = tuple(rng.sample([t for t in range(256) if t not in (45, 60)], 2))
        k9 = 16 * rng.randint(2, 20)
    last = (-(-m // 128) - 1, -(-n // 128) - 1)
    numbers = dict(shape=(m, n), tile1=tile1, b4=b4, t5=t5, t7=t7, t8=t8, k9=k9, last=last)
    rows = [("shape", (m, n), "the matrix A (M, N), column-major"),
            ("tile1", tile1, "question 1: (rows, columns) of a tile"),
            ("last", last, "questions 3, 7, 8, 9, 12: the last block"),
            ("b4", b4, "questions 4, 5: a block"), ("t5", t5, "question 5: a thread of thr16"),
            ("t7", t7, "question 7: a thread of thr"), ("t8", t8, "question 8: two threads"),
            ("k9", k9, "question 9: K of mA")]
    lines = [f"{name:<8}= {str(value):<30} ({where})" for name, value, where in rows]
    return Variant("02b_global_to_thread", seed, numbers, lines)


def _global_to_thread_answers(v: Variant) -> dict:
    from labkit.lab import predicated_copy as pc

    S = lk.S
    m, n = v.shape
    A = lk.make_tensor(None, lk.make_layout((m, n)))
    tile = lk.local_tile(A, (S(128), S(128)), v.b4)
    cA = lk.make_identity_tensor((m, n))
    part = lk.local_partition(lk.local_tile(cA, (S(128), S(128)), v.last),
                              lk.make_layout((S(32), S(8))), v.t7)
    mA = lk.make_tensor(None, lk.make_layout((m, v.k9)))
    proj = lk.local_tile(mA, (S(128), S(128), S(16)), (*v.last, lk._), (1, lk.X, 1))
    scalar = pc.value_mask((m, n), v.last, "scalar")
    vector = pc.value_mask((m, n), v.last, "vector")
    ragged = pc.ragged_tiles((m, n))
    return {
        "q1": tuple(int(x) for x in pc.ragged_tiles((m, n), v.tile1)["grid"]),
        "q2": int(ragged["partial_blocks"]),
        "q3": tuple(int(x) for x in ragged["last_tile"]),
        "q4": int(tile.offset),
        "q5": str(lk.local_partition(tile, lk.make_layout((S(16), S(16))), v.t5).layout),
        "q7": tuple(tuple(int(x) for x in part(i)) for i in (0, 3)),
        "q8": tuple(int(scalar[t].sum()) for t in v.t8),
        "q9": str(proj.layout),
        "q11": int(pc.predict((m, n), "scalar")["requests"]),
        "q12": int(256 - vector.any(axis=1).sum()),
    }


# ------------------------------------------------------------------------ 05_banks_swizzle

_MODES = ("SWIZZLE_32B", "SWIZZLE_64B", "SWIZZLE_128B")
_BYTES = {"fp8": 1, "fp16": 2, "bf16": 2, "fp32": 4}


def _banks_swizzle(seed: int) -> Variant:
    if seed == 0:
        a1, p2, e3, e5, m6, m7, w8, n9 = 200, 2, (5, 3), (3, 10), ("SWIZZLE_64B", "fp32"), (48, "bf16"), 64, 32
        m10, a10, r11, r13 = "SWIZZLE_128B", 200, 2, 3
    else:
        rng = random.Random(f"05_banks_swizzle/{seed}")

        def fresh(draw, book):
            while (value := draw()) in book:
                pass
            return value

        a1 = fresh(lambda: rng.randrange(132, 4096), (200, 128, 256, 512, 1024, 2048))
        p2 = fresh(lambda: rng.randrange(4), (2,))
        e3 = fresh(lambda: (rng.randrange(1, 8), rng.randrange(1, 8)), ((5, 3),))
        e5 = fresh(lambda: (rng.randrange(1, 8), rng.randrange(64)), ((3, 10),))
        m6 = fresh(lambda: (rng.choice(_MODES), rng.choice(sorted(_BYTES))), (("SWIZZLE_64B", "fp32"),))
        def row7():
            dtype = rng.choice(sorted(_BYTES))
            return (rng.randrange(1, 33) * 16 // _BYTES[dtype], dtype)  # whole 16-byte chunks

        m7 = fresh(row7, ((48, "bf16"),))
        w8 = rng.choice([32, 64, 128])
        n9 = fresh(lambda: rng.randint(2, 72), (32,))
        m10 = rng.choice(_MODES)
        a10 = fresh(lambda: rng.randrange(132, 4096), (200,))
        r11 = fresh(lambda: rng.randrange(8), (2,))
        r13 = fresh(lambda: rng.randrange(128), (3,))
    numbers = dict(a1=a1, p2=p2, e3=e3, e5=e5, m6=m6, m7=m7, w8=w8, n9=n9, m10=m10, a10=a10,
                   r11=r11, r13=r13)
    rows = [("a1", a1, "question 1: a byte address"), ("p2", p2, "question 2: a phase"),
            ("e3", e3, "question 3: an element (r, c) of the toy"),
            ("e5", e5, "question 5: an element (row, col) of atom"),
            ("m6", m6, "question 6: (mode, element type)"),
            ("m7", m7, "question 7: (values per row, element type)"),
            ("w8", w8, "question 8: fp16 values per row of the tile"),
            ("n9", n9, "question 9: columns of the fp32 tile"),
            ("m10", m10, "question 10: a mode"), ("a10", a10, "question 10: a byte address"),
            ("r11", r11, "question 11: a row of the SWIZZLE_64B atom"),
            ("r13", r13, "question 13: a row of the tile")]
    lines = [f"{name:<8}= {str(value):<30} ({where})" for name, value, where in rows]
    return Variant("05_banks_swizzle", seed, numbers, lines)


def _banks_swizzle_answers(v: Variant) -> dict:

    S = lk.S
    sw10 = lk.element_swizzle(v.m10, 8)
    atom = lk.make_layout((S(8), S(64)), (S(64), S(1)))
    tile8 = lk.make_layout((S(16), S(v.w8)), (S(v.w8), S(1)))
    sA = lk.composition(lk.Swizzle(3, 3, 3), lk.tile_to_shape(
        lk.parse_layout("(_8,(_8,_8)):(_8,(_1,_64))"), (S(128), S(64))))
    stored = int(lk.Swizzle(3, 3, 3)(atom(*v.e5)))
    return {
        "q1": int(lk.bank_of(v.a1)),
        "q2": set(range(8 * v.p2, 8 * v.p2 + 8)),
        "q3": v.e3[1] ^ v.e3[0],
        "q5": (stored, (stored % 64) // 8),
        "q6": str(lk.element_swizzle(*v.m6)),
        "q7": lk.recommend_swizzle(v.m7[0] * _BYTES[v.m7[1]]).mode.name,
        "q8": tuple(int(lk.ldmatrix_conflicts(L, lk.ldmatrix_rows(4), 2).wavefronts)
                    for L in (tile8, lk.composition(lk.Swizzle(3, 3, 3), tile8))),
        "q9": (int(lk.bank_conflicts([0] * 32, 4).wavefronts),
               int(lk.bank_conflicts([4 * v.n9 * lane for lane in range(32)], 4).wavefronts)),
        "q10": (int(sw10.yyy_mask), int(sw10.zzz_mask), int(sw10(v.a10))),
        "q11": [int(c) for c in lk.swizzle_figure("SWIZZLE_64B")[v.r11]],
        "q13": [int(lk.bank_of(2 * sA(v.r13, 8 * c))) for c in range(8)],
    }


# ---------------------------------------------------------------------- 06_fragment_trace


def _fragment_trace(seed: int) -> Variant:
    if seed == 0:
        l1, a2, a3, b4, s7, l8, a9, x12, lane13 = ((6, 5), (9, 4), (0, 9), (0, 8), (3, 2, 1),
                                                   (5, 2), (9, 12), (5, 2, 1), 5)
    else:
        rng = random.Random(f"06_fragment_trace/{seed}")

        def fresh(draw, book):
            while (value := draw()) in book:
                pass
            return value

        l1 = fresh(lambda: (rng.randrange(32), rng.randrange(8)), ((6, 5),))
        a2 = fresh(lambda: (rng.randrange(16), rng.randrange(16)), ((9, 4),))
        a3 = fresh(lambda: (rng.randrange(16), rng.randrange(16)), ((0, 9),))
        b4 = fresh(lambda: (rng.randrange(8), rng.randrange(16)), ((0, 8),))
        s7 = fresh(lambda: (rng.randrange(8), rng.randrange(4), rng.randrange(4)), ((3, 2, 1),))
        l8 = fresh(lambda: (rng.randrange(32), rng.randrange(4)), ((5, 2),))
        a9 = fresh(lambda: (rng.randrange(16), rng.randrange(16)), ((9, 12),))
        x12 = fresh(lambda: (rng.randrange(8), rng.randrange(4), rng.randrange(4)), ((5, 2, 1),))
        lane13 = fresh(lambda: rng.randrange(32), (5,))
    numbers = dict(l1=l1, a2=a2, a3=a3, b4=b4, s7=s7, l8=l8, a9=a9, x12=x12, lane13=lane13)
    rows = [("l1", l1, "question 1: (lane, value)"), ("a2", a2, "question 2: an element (m, k) of A"),
            ("a3", a3, "question 3: an element (m, k) of A"),
            ("b4", b4, "question 4: an element (n, k) of B"),
            ("s7", s7, "question 7: (v, m, k) of the A fragment"),
            ("l8", l8, "question 8: (lane, value)"),
            ("a9", a9, "questions 9, 10: an element (m, k) of A"),
            ("x12", x12, "question 12: (v, j, k) of tXrB"),
            ("lane13", lane13, "question 13: a lane")]
    lines = [f"{name:<8}= {str(value):<30} ({where})" for name, value, where in rows]
    return Variant("06_fragment_trace", seed, numbers, lines)


def _fragment_trace_answers(v: Variant) -> dict:
    import numpy as np

    from labkit.sim import SharedMemory, ldmatrix

    atom = lk.mma_atom("SM80_16x8x16_F16F16F16F16_TN")

    def reg(operand, coord):
        e = lk.trace_element(operand, coord)
        return (f"{operand.lower()}{e.register}", e.half)

    m8, k8 = atom.coord_A(*v.l8)
    m9, k9 = v.a9
    smem = SharedMemory(128)
    smem.fill(0, np.arange(64, dtype=np.uint16))        # an 8x8 matrix of its indices
    got = ldmatrix(smem, 16 * (np.arange(32) % 8), num=1, trans=True)[v.lane13, 0]
    frag = lk.make_layout(((2, 2, 2), 4, 4))                            # v + 8 m + 32 k
    static = lk.make_layout(((2, 2, 2), 4, 4), ((1, 2, 4), 32, 8))      # v + 32 m + 8 k
    vv, j, k = v.x12
    return {
        "q1": tuple(int(x) for x in atom.coord_A(*v.l1)),
        "q2": tuple(int(x) for x in atom.owner("A", *v.a2)),
        "q3": reg("A", v.a3),
        "q4": reg("B", v.b4),
        "q7": (int(frag(*v.s7)), int(static(*v.s7))),
        "q8": int(16 * m8 + k8),
        "q9": (int(lk.trace_element("A", v.a9).src_thread), 2 * (16 * m9 + 8 * (k9 // 8))),
        "q10": reg("A", v.a9),
        "q12": (vv % 4, 2 * j + vv // 4, k),
        "q13": [divmod(int(got) & 0xFFFF, 8), divmod(int(got) >> 16, 8)],
    }


# ------------------------------------------------------------------ 04_replication_offset

_MODES_MESH = ("replica", "offset", "sharded")


def _replication_offset(seed: int) -> Variant:
    if seed == 0:
        f1, p2, e3, k5, sfa5, sfb5, mnk9, d10, lane12 = ((70, 1), (33, 3), (6, 3), 64, (0.5, 2.0),
                                                         (4.0, 0.25), (128, 256, 256), (0, 0), 5)
    else:
        rng = random.Random(f"04_replication_offset/{seed}")

        def fresh(draw, book):
            while (value := draw()) in book:
                pass
            return value

        f1 = fresh(lambda: (rng.randrange(128), rng.randrange(4)),
                   ((70, 1), (0, 2), (32, 2), (64, 2), (96, 2)))     # the factors the book places
        p2 = fresh(lambda: (rng.randrange(128), rng.randrange(4)), ((33, 3),))
        e3 = fresh(lambda: (rng.randrange(8), rng.randrange(8)), ((6, 3),))
        k5 = rng.choice([64, 96, 128])
        scales = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0]     # E8M0 powers of two: 32 x any product is whole
        sfa5, sfb5 = fresh(lambda: (tuple(rng.choice(scales) for _ in range(k5 // 32)),
                                    tuple(rng.choice(scales) for _ in range(k5 // 32))),
                           (((0.5, 2.0), (4.0, 0.25)),))
        mnk9 = fresh(lambda: (128 * rng.randint(1, 4), 128 * rng.randint(1, 4), 64 * rng.randint(1, 8)),
                     ((128, 256, 256),))
        d10 = fresh(lambda: (rng.randrange(2), rng.randrange(2)), ((0, 0),))
        lane12 = fresh(lambda: rng.randrange(32), (5,))
    numbers = dict(f1=f1, p2=p2, e3=e3, k5=k5, sfa5=sfa5, sfb5=sfb5, mnk9=mnk9, d10=d10,
                   lane12=lane12)
    rows = [("f1", f1, "question 1: a scale factor (m, sfk)"),
            ("p2", p2, "question 2: (TLane, TCol)"),
            ("e3", e3, "questions 3, 4: an element (i, j) of the 8x8 matrix"),
            ("k5", k5, "question 5: K"), ("sfa5", sfa5, "question 5: the row of SFA"),
            ("sfb5", sfb5, "question 5: the column of SFB"),
            ("mnk9", mnk9, "question 9: (M, N, K)"),
            ("d10", d10, "question 10: a GPU (gpuid_x, gpuid_y)"),
            ("lane12", lane12, "question 12: a lane")]
    lines = [f"{name:<8}= {str(value):<30} ({where})" for name, value, where in rows]
    return Variant("04_replication_offset", seed, numbers, lines)


def _replication_offset_answers(v: Variant) -> dict:
    import numpy as np


    sfa = lk.scale_factor_layout(128, 4)
    x2 = lk.copy_atom("SM75_U32x2_LDSM_N", "f16").layout_src
    m, n, k = v.mnk9
    d = lk.block_scaled_mma(np.ones((1, v.k5)), np.ones((v.k5, 1)), [list(v.sfa5)],
                            [list(v.sfb5)], fmt=lk.MXFP8)[0, 0]

    def held(mode):
        t = lk.mesh_layout(mode).table()
        return int(np.sum((t["gpuid_x"] == v.d10[0]) & (t["gpuid_y"] == v.d10[1])))

    return {
        "q1": set(sfa.forward(v.f1, shape=(128, 4), axes=("TLane", "TCol", "byte"))),
        "q2": {sfa.coordinate(x, shape=(128, 4))
               for x in sfa.backward({"TLane": v.p2[0], "TCol": v.p2[1]})},
        "q3": tuple({(int(p["gpuid_x"]), int(p["gpuid_y"]))
                     for p in lk.mesh_layout(mode)(v.e3, shape=(8, 8))} for mode in _MODES_MESH),
        "q4": tuple(int(lk.mesh_layout(mode)(v.e3, shape=(8, 8))[0]["m"])
                    for mode in ("replica", "sharded")),
        "q5": (int(lk.MXFP8.scale_blocks(v.k5)), int(d)),
        "q9": ((m, int(lk.NVFP4.scale_blocks(k))), (n, int(lk.NVFP4.scale_blocks(k)))),
        "q10": tuple(held(mode) for mode in _MODES_MESH),
        "q12": {t for t in range(32) if x2(t, 0) == x2(v.lane12, 0)},
    }


EXERCISES = {
    "01_shape_stride": (_shape_stride, _shape_stride_answers),
    "02_tiling": (_tiling, _tiling_answers),
    "03_named_axes": (_named_axes, _named_axes_answers),
    "02b_global_to_thread": (_global_to_thread, _global_to_thread_answers),
    "04_replication_offset": (_replication_offset, _replication_offset_answers),
    "05_banks_swizzle": (_banks_swizzle, _banks_swizzle_answers),
    "06_fragment_trace": (_fragment_trace, _fragment_trace_answers),
    "07_gemm_ladder": (lambda seed: Variant("07_gemm_ladder", seed, *_gemm.numbers(seed)), _gemm.answers),
}


def questions(exercise: str) -> list[str]:
    """The questions of ``exercise`` whose numbers come from the variant."""
    _check(exercise)
    return sorted(_answers(exercise, 0), key=lambda q: (len(q), q))


def _check(exercise):
    if exercise not in EXERCISES:
        raise LabkitError(f"exercise must be one of {', '.join(sorted(EXERCISES))} (the exercises "
                          f"with variants); got {exercise!r}")


def of(exercise: str, seed_or_id=0) -> Variant:
    """The numbers of ``exercise`` for a variant seed or a student id (``""``: the book's)."""
    _check(exercise)
    return EXERCISES[exercise][0](_seed(seed_or_id))


@functools.lru_cache(maxsize=1024)
def _answers(exercise: str, seed: int) -> dict:
    return EXERCISES[exercise][1](of(exercise, seed))


def answers(exercise: str, seed_or_id=0) -> dict:
    """Every expected answer of a variant, ``{question: answer}`` (worked out once per variant)."""
    _check(exercise)
    return copy.deepcopy(_answers(exercise, _seed(seed_or_id)))


def answer(exercise: str, question: str, seed_or_id=0):
    """The expected answer of ``question`` in a variant, computed with labkit."""
    _check(exercise)
    answers = _answers(exercise, _seed(seed_or_id))
    if question not in answers:
        raise LabkitError(f"question must be one of {', '.join(answers)}; got {question!r}")
    return copy.deepcopy(answers[question])
