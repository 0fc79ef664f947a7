"""Variants of exercise 8 (wgmma): each student's own atoms, tiles, elements and descriptors.

:func:`numbers` draws one variant's numbers (seed 0: the book's), :func:`answers` works out the
expected answers with labkit. :mod:`labkit.grading.variants` wraps them as its ``"08_wgmma"``
entry. Question 1 (the warpgroup, a fact) keeps the book's numbers.

>>> n, lines = numbers(0)
>>> n["atom2"], n["elem4"], n["mn6"]
(('K', 'SW128', 16), (9, 17), (25, 10))
>>> answers(type("V", (), n))["q4"]
(2, 3, 1202)
"""

from __future__ import annotations

from .variant import draw_numbers

__all__ = ["numbers", "answers", "EXERCISE"]

EXERCISE = "08_wgmma"

BOOK = dict(
    atom2=("K", "SW128", 16),
    tile3=("SW32", 64),
    elem4=(9, 17),
    tile5=("SW128", 128),
    mn6=(25, 10), n6=16,
    n7=256, bk7=64,
    desc8=0x4000004000010042,
    wait9=(5, 1),
    b10=("K", "SW64", 64, 1, 0x800),
    a11=(25, 10),
    b12=(17024, 3),
    kt13=("e4m3", 128),
    x14=("e4m3", 3.3),
    cfg15=("e4m3", "e4m3", 256, 2),
    pp16=(5, 64, 6),
    cl17=(2, 256, 1, 32, 16, 5),
)

WHERE = dict(
    atom2="question 2: (major, swizzle, element bits) of the atom",
    tile3="question 3: (swizzle, rows) of the K-major tile of halves",
    elem4="question 4: (row, k) of the element",
    tile5="question 5: (swizzle, N) of the MN-major tile of halves",
    mn6="question 6: (m, n) of D", n6="question 6: N of the instruction",
    n7="question 7: N of the instruction", bk7="question 7: the k-tile",
    desc8="question 8: the descriptor",
    wait9="question 9: (k-tile just committed, N of wait_group)",
    b10="question 10: (major, swizzle, N, k-block, start byte) of B",
    a11="question 11: (m, k) of A in registers",
    b12="question 12: (start byte, row) of the 128-byte swizzled tile",
    kt13="question 13: (element type, bytes of K in a k-tile)",
    x14="question 14: (8-bit format, value)",
    cfg15="question 15: (A's type, B's type, N of the tile, consumer warpgroups)",
    pp16="question 16: (the CTA's tile seq, k-tiles a tile, stages) of a ping-pong consumer",
    cl17="question 17: (consumers, bn, rank, tiles_m, tiles_n, scheduler index) in a cluster of 2",
)


def _w(swizzle):
    return {"INTER": 1, "SW32": 2, "SW64": 4, "SW128": 8}[swizzle]


# ------------------------------------------------------------------ the answers, one a question

def _q2(n):
    from ..atoms.gmma_layouts import gmma_layout_atom
    from ..layout.layout import size

    major, sw, bits = n.atom2
    atom = gmma_layout_atom(major, sw, bits)
    return (int(size(atom.layout_b.shape[0])), int(size(atom.layout_b.shape[1])), str(atom.layout_a))


def _desc(major, sw, mn, k, kblock=0, start=0):
    from ..lab.wgmma import descriptor

    return descriptor(major, sw, mn, k, kblock=kblock, start=start)


def _q3(n):
    sw, rows = n.tile3
    d = _desc("K", sw, rows, max(16, 8 * _w(sw)))
    return (d.leading_byte_offset, d.stride_byte_offset, d.layout_type.name)


def _q4(n):
    import numpy as np

    from ..sim.wgmma import operand_addresses

    row, k = n.elem4
    d = _desc("K", "SW128", 64, 64, kblock=k // 16)          # the k16 step that reads column k
    addr = int(np.asarray(operand_addresses(d.encode(), 64, "K"))[row, k % 16])
    return (k // 8, (k // 8) ^ (row % 8), addr)


def _q5(n):
    sw, N = n.tile5
    d = _desc("MN", sw, N, 16)
    return (d.leading_bytes, d.stride_bytes)


def _q6(n):
    from ..lab.wgmma import owner

    return owner(*n.mn6, n.n6)


def _q7(n):
    from ..atoms.instructions import instruction

    g = instruction(f"SM90_64x{n.n7}x16_F32F16F16_SS")
    return (n.bk7 // g.shape_mnk[2], g.registers("C"),
            instruction(f"SM90_64x{n.n7}x16_F16F16F16_SS").registers("C"))


def _q8(n):
    from ..atoms.gmma_desc import decode

    d = decode(n.desc8)
    return (d.start_address_bytes, d.leading_bytes, d.stride_bytes, d.layout_type.name)


def _q9(n):
    k, depth = n.wait9
    return (depth, k - depth)


def _q10(n):
    major, sw, N, kblock, start = n.b10
    k = max(16, 8 * _w(sw)) if major == "K" else 16
    return _desc(major, sw, N, k, kblock, start).encode()


def _q11(n):
    from ..lab.wgmma import a_owner

    return a_owner(*n.a11)


def _q12(n):
    from ..lab.wgmma import right_base_offset, stored_chunk

    start, row = n.b12
    return (right_base_offset(start, restarted=False), right_base_offset(start, restarted=True),
            stored_chunk(start, row))


def _q13(n):
    from ..atoms.mma_table import GMMA
    from ..elements import element

    kind, nbytes = n.kt13
    k = next(g.shape_mnk[2] for g in GMMA.values() if g.a_type == element(kind).name)   # K of its wgmma
    elems = nbytes * 8 // element(kind).bits
    return (k, elems, elems // k, (k * element(kind).bits // 8) // 16)


def _q14(n):
    from ..elements import to_bits

    fmt, x = n.x14
    code = int(to_bits(x, fmt))                  # cvt.rn.satfinite: nearest, ties to even, clamped
    mant = 3 if fmt == "e4m3" else 2             # S.EEEE.MMM and S.EEEEE.MM
    return (code, (code & 0x7F) >> mant, code & ((1 << mant) - 1))


def _q15(n):
    from ..atoms.instructions import instruction
    from ..cuda.kernels.ladder.gemm_wgmma_config import WgmmaConfig
    from ..cuda.kernels.ladder.gemm_wgmma_operands import atom_name

    a, b, bn, consumers = n.cfg15
    cfg = WgmmaConfig(a=a, b=b, c="bf16", bn=bn, consumers=consumers, scaled=True)
    return (atom_name(cfg), cfg.bk, cfg.stage_bytes, instruction(atom_name(cfg)).registers("C"))


def _q16(n):
    seq, ktiles, stages = n.pp16
    pos = seq * ktiles
    return (seq % 2, pos, pos % stages, (pos // stages) & 1)


def _q17(n):
    from ..cuda.kernels.ladder.gemm_wgmma_config import WgmmaConfig
    from ..cuda.kernels.ladder.gemm_wgmma_schedule import raster

    consumers, bn, rank, tiles_m, tiles_n, index = n.cl17
    cfg = WgmmaConfig(consumers=consumers, bn=bn, cluster=2)
    return (consumers * cfg.cluster, cfg.a_bytes + rank * (bn // cfg.cluster) * 128,
            raster(cfg, index, tiles_m, tiles_n)[rank])


QUESTIONS = {"q2": _q2, "q3": _q3, "q4": _q4, "q5": _q5, "q6": _q6, "q7": _q7, "q8": _q8,
             "q9": _q9, "q10": _q10, "q11": _q11, "q12": _q12, "q13": _q13, "q14": _q14, "q15": _q15,
             "q16": _q16, "q17": _q17}


class _N:
    def __init__(self, d):
        self.__dict__.update(d)


def answers(v) -> dict:
    """The expected answers of variant ``v`` (anything with the numbers as attributes)."""
    return {q: f(v) for q, f in QUESTIONS.items()}


# ---------------------------------------------------------------------- the draws, one a question

_SW = ("INTER", "SW32", "SW64", "SW128")


def _draw_q2(rng):
    return dict(atom2=(rng.choice(("K", "MN")), rng.choice(_SW), rng.choice((8, 16, 32))))


def _draw_q3(rng):
    return dict(tile3=(rng.choice(_SW), rng.choice((64, 128, 192, 256))))


def _draw_q4(rng):
    return dict(elem4=(rng.randrange(64), rng.randrange(64)))


def _draw_q5(rng):
    sw = rng.choice(_SW[1:])
    return dict(tile5=(sw, rng.choice([N for N in (64, 128, 256) if N > 8 * _w(sw)])))    # LBO used: two atoms or more


def _draw_q6(rng):
    N = rng.choice((16, 32, 64, 128, 256))
    return dict(mn6=(rng.randrange(64), rng.randrange(N)), n6=N)


def _draw_q7(rng):
    return dict(n7=rng.choice((8, 16, 32, 64, 128)), bk7=rng.choice((16, 32, 48, 64, 96, 128, 192, 256)))


def _draw_q8(rng):
    from ..atoms.gmma_desc import GmmaDescriptor

    sw = rng.choice(("INTERLEAVE", "B32", "B64", "B128"))
    return dict(desc8=GmmaDescriptor(start_address=rng.randrange(1, 1 << 12), leading_byte_offset=rng.randrange(1, 129),
                                     stride_byte_offset=8 * rng.randrange(1, 33), layout_type=sw).encode())


def _draw_q9(rng):
    depth = rng.randrange(0, 4)
    return dict(wait9=(rng.randrange(depth + 1, 40), depth))


def _draw_q10(rng):
    major = rng.choice(("K", "MN"))
    sw = rng.choice(_SW[1:])
    N = rng.choice((64, 128, 256))
    kblocks = max(1, 8 * _w(sw) // 16) if major == "K" else 1
    return dict(b10=(major, sw, N, rng.randrange(kblocks), 1024 * rng.randrange(1, 100)))


def _draw_q11(rng):
    return dict(a11=(rng.randrange(64), rng.randrange(16)))


def _draw_q12(rng):
    return dict(b12=(1024 * rng.randrange(1, 200) + 128 * rng.randrange(1, 8), rng.randrange(8)))


def _draw_q13(rng):
    return dict(kt13=(rng.choice(("f16", "bf16", "tf32", "e4m3", "e5m2", "s8")), 32 * rng.randrange(1, 17)))


def _draw_q14(rng):
    fmt = rng.choice(("e4m3", "e5m2"))
    top = 448.0 if fmt == "e4m3" else 57344.0
    return dict(x14=(fmt, round(rng.choice((-1, 1)) * rng.uniform(0.02, 1.2 * top), 3)))


def _draw_q15(rng):
    return dict(cfg15=(rng.choice(("e4m3", "e5m2")), rng.choice(("e4m3", "e5m2")), rng.choice((64, 128, 256)),
                       rng.choice((1, 2))))


def _draw_q16(rng):
    return dict(pp16=(rng.randrange(2, 40), rng.choice((16, 32, 48, 64, 96, 128)), rng.choice((3, 4, 5, 6, 7))))


def _draw_q17(rng):
    tiles_m, tiles_n = rng.randrange(3, 60), rng.randrange(2, 40)
    return dict(cl17=(rng.choice((1, 2)), rng.choice((64, 128, 256)), rng.choice((0, 1)), tiles_m, tiles_n,
                      rng.randrange(-(-tiles_m // 2) * tiles_n)))


_DRAWS = {"q2": _draw_q2, "q3": _draw_q3, "q4": _draw_q4, "q5": _draw_q5, "q6": _draw_q6, "q7": _draw_q7,
          "q8": _draw_q8, "q9": _draw_q9, "q10": _draw_q10, "q11": _draw_q11, "q12": _draw_q12,
          "q13": _draw_q13, "q14": _draw_q14, "q15": _draw_q15, "q16": _draw_q16, "q17": _draw_q17}


def numbers(seed: int) -> tuple[dict, list]:
    """``(numbers, lines)`` of variant ``seed``: 0 is the book's; any other draws every question's
    numbers anew until its answer differs from the book's."""
    drawn = draw_numbers(EXERCISE, seed, BOOK, _DRAWS, lambda q, nums: QUESTIONS[q](_N(nums)))
    lines = [f"{name:<7}= {_show(drawn[name]):<30} ({WHERE[name]})" for name in WHERE]
    return drawn, lines


def _show(value):
    return f"0x{value:016x}" if isinstance(value, int) and value > 1 << 32 else str(value)
