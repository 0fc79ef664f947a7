"""Variants of the layout exercises: 01 (shape and stride), 02 (tiling) and 2b (from the global
tensor to a thread's tile): each seed's numbers and the answers labkit computes for them.

>>> v = _shape_stride(0)
>>> str(v.L), _shape_stride_answers(v)["q1"]
('(4,8):(8,1)', 19)
"""

from __future__ import annotations

import random

from .variant import Variant, lk


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


# -------------------------------------------------------------------- 02b_global_to_thread


def _global_to_thread(seed: int) -> Variant:
    if seed == 0:
        m, n, tile1, b4, t5, t7, t8, k9 = 1496, 600, (64, 256), (3, 2), 37, 45, (45, 60), 96
    else:
        rng = random.Random(f"02b_global_to_thread/{seed}")
        while True:                        # ragged in both modes, at least 3x3 blocks
            m, n = 8 * rng.randint(48, 250), rng.randint(300, 2000)
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


