"""Variants of the hardware exercises: 03 (named axes), 04 (replication and offset), 05 (banks
and swizzles) and 06 (fragments): each seed's numbers and the answers labkit computes for them.

>>> v = _named_axes(0)
>>> v.seed
0
"""

from __future__ import annotations

import random

from .variant import Variant, lk


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
        lane5 = fresh(lambda: rng.randrange(1, 32), (5, 9))     # lane 5: a lane the book pages show
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


