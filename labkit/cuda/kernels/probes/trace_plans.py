"""Fragment-trace plans: pure data saying which shared-memory offset every lane hands to every ldmatrix.

A plan is what a trace kernel of :mod:`labkit.cuda.kernels.probes.trace_kernels` runs, and what
:mod:`labkit.sim` and the grader read; it needs no GPU and no numba. :func:`mma_plan` stages one
warp's ``mma.sync`` operands (from the registry's ldmatrix lane rule and the entry's
``ldmatrix_blocks``); :func:`cta_plan` is sgemm_sm80's CTA on one 128x128x64 k-tile
(``Swizzle<3,3,3>`` shared tiles filled by 128-bit ``cp.async``, ``ldmatrix.x4`` for both operands).

>>> from labkit.cuda.kernels.probes import trace_plans
>>> trace_plans.parse_variant("x4.trans")
(4, True)
>>> p = trace_plans.mma_plan("mma_m16n8k16_f16f16f16f16", "x4", "x2")
>>> p.a_offsets[0, [0, 1, 8, 16, 31]].tolist()     # lane 16 starts row A(0, 8..15)
[0, 16, 128, 8, 248]
>>> int(trace_plans.cta_plan().smem_offset(0, 9))   # Swizzle<3,3,3>: 64^8 = 72, plus 1
73
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from labkit import elements
from labkit.atoms import WARP, instructions
from labkit.errors import DeviceError

__all__ = ["LDMATRIX_VARIANTS", "parse_variant", "MmaPlan", "mma_plan", "CtaPlan", "cta_plan"]


LDMATRIX_VARIANTS = ("x1", "x2", "x4", "x1.trans", "x2.trans", "x4.trans")
"""ldmatrix variants by the suffix of their PTX name."""


def parse_variant(variant: str, what: str = "variant") -> tuple:
    """``"x4.trans"`` -> ``(4, True)``."""
    if variant not in LDMATRIX_VARIANTS:
        raise DeviceError(f"{what} must be one of {LDMATRIX_VARIANTS}; got {variant!r}")
    return int(variant[1]), variant.endswith(".trans")


def _ld_name(num, trans):
    return f"ldmatrix_x{num}" + ("_trans" if trans else "")


# ---------------------------------------------------------------------------------------------
# one MMA


@dataclass(frozen=True)
class MmaPlan:
    """How one warp stages and loads the operands of one ``mma.sync`` (see :func:`mma_plan`).

    ``a_offsets (loads, 32)`` / ``b_offsets``: element offsets each lane gives each ldmatrix.
    ``a_major`` is ``"k"`` (A stored ``K*m + k``) or ``"m"`` (``M*k + m``, loaded with
    ``.trans``); ``b_major`` is ``"k"`` (``K*n + k``) or ``"n"`` (``N*k + n``).
    """

    instruction: str
    m: int
    n: int
    k: int
    acc_type: str
    a_variant: str
    b_variant: str
    a_major: str
    b_major: str
    a_offsets: np.ndarray = field(repr=False)
    b_offsets: np.ndarray = field(repr=False)

    @property
    def entry(self):
        """The instruction registry's entry."""
        return instructions.instruction(self.instruction, "mma")

    @property
    def ab_type(self) -> str:
        return self.entry.ab_type

    @property
    def k16(self) -> int:
        """K in 16-bit units (the staging and ldmatrix unit): ``k * bits // 16``."""
        return self.k * self.entry.ab_bits // 16

    @property
    def a_regs(self) -> int:
        return self.entry.registers("A")

    @property
    def b_regs(self) -> int:
        return self.entry.registers("B")

    @property
    def c_regs(self) -> int:
        return self.entry.registers("C")

    def _units(self, bits):
        """Element bits ``(..., rows, K)`` as ``(..., rows, K16)`` 16-bit units (little-endian:
        the lower-indexed element in the low bits, as in a register)."""
        e = elements.element(self.ab_type)
        x = np.ascontiguousarray(np.asarray(bits).astype(e.dtype))
        return x.view(np.uint16)

    def a_image(self, a_bits) -> np.ndarray:
        """Shared-memory image ``(..., M*K16)`` uint16 of A's element bits ``(..., M, K)``."""
        a = self._units(a_bits)
        t = a if self.a_major == "k" else np.swapaxes(a, -1, -2)
        return np.ascontiguousarray(t).reshape(a.shape[:-2] + (self.m * self.k16,))

    def b_image(self, b_bits) -> np.ndarray:
        """Shared-memory image ``(..., N*K16)`` uint16 of B's element bits ``(..., N, K)``."""
        b = self._units(b_bits)
        t = b if self.b_major == "k" else np.swapaxes(b, -1, -2)
        return np.ascontiguousarray(t).reshape(b.shape[:-2] + (self.n * self.k16,))


def _lane_rows(num):
    """Lane -> (matrix within the load, row): the registry's ldmatrix lane rule."""
    return instructions.lane_row(np.arange(WARP), num)


def mma_plan(instruction: str, variant: str | None = None, b_variant: str | None = None) -> MmaPlan:
    """Plan one warp's ldmatrix loads for the MMA ``instruction`` (a registry name or CuTe atom;
    anything else raises :class:`~labkit.errors.InstructionError`).

    ``variant`` loads A, ``b_variant`` loads B: ``"x1"``, ``"x2"``, ``"x4"``, optionally
    ``".trans"`` (the operand is then stored M- or N-major and transposed by ldmatrix; 16-bit
    elements only). Default: the widest load that one MMA's operand fills (one matrix per
    register). Which 8x8 block of 16-bit units each register holds is the registry's
    :meth:`~labkit.atoms.instructions.MmaInstruction.ldmatrix_blocks`.
    """
    ins = instructions.instruction(instruction, "mma")  # unknown: InstructionError
    m, n, k = ins.shape
    k16 = k * ins.ab_bits // 16
    na, nb = ins.registers("A"), ins.registers("B")
    variant = variant or f"x{na}"
    b_variant = b_variant or f"x{nb}"
    a_num, a_trans = parse_variant(variant, "variant")
    b_num, b_trans = parse_variant(b_variant, "b_variant")
    for op, num, regs in (("A", a_num, na), ("B", b_num, nb)):
        if regs % num:
            raise DeviceError(
                f"{op} of {ins.ptx} has {regs} register(s) per lane, but ldmatrix.x{num} loads {num}: "
                f"{regs} is not divisible by {num}; use x{regs} or smaller"
            )
    if (a_trans or b_trans) and ins.ab_bits != 16:
        raise DeviceError(f"ldmatrix .trans moves 16-bit elements; {ins.ptx} has {ins.ab_bits}-bit "
                          "A and B, so load them without .trans (K-major)")
    mat, row = _lane_rows(a_num)
    blocks = ins.ldmatrix_blocks("A")
    a_off = []
    for load in range(na // a_num):
        m0, k0 = (np.array(v) for v in zip(*(blocks[a_num * load + i] for i in mat)))
        a_off.append(m * (k0 + row) + m0 if a_trans else k16 * (m0 + row) + k0)
    mat, row = _lane_rows(b_num)
    blocks = ins.ldmatrix_blocks("B")
    b_off = []
    for load in range(nb // b_num):
        n0, k0 = (np.array(v) for v in zip(*(blocks[b_num * load + i] for i in mat)))
        b_off.append(n * (k0 + row) + n0 if b_trans else k16 * (n0 + row) + k0)
    return MmaPlan(
        ins.name, m, n, k, ins.acc_type, variant, b_variant,
        "m" if a_trans else "k", "n" if b_trans else "k",
        np.array(a_off, np.int32), np.array(b_off, np.int32),
    )


# ---------------------------------------------------------------------------------------------
# the sgemm_sm80 CTA


@dataclass(frozen=True)
class CtaPlan:
    """sgemm_sm80's CTA on one 128x128x64 k-tile (see :func:`cta_plan`).

    ``cp_src``/``cp_dst (128, 8)``: each thread's eight 16-byte cp.async copies, as element
    offsets into the global tile (``64*m + k``) and into shared memory (swizzled).
    ``a_offsets``/``b_offsets (k_blocks, warps, 4, 32)``: each lane's ldmatrix.x4 row
    offset for A fragment ``i`` / B load ``j`` in every k-block.
    ``warp_m``/``warp_n (warps,)``: the warp's coordinate in the 2x2 warp layout.
    """

    bm: int
    bn: int
    bk: int
    warp_m: np.ndarray = field(repr=False)
    warp_n: np.ndarray = field(repr=False)
    cp_src: np.ndarray = field(repr=False)
    cp_dst: np.ndarray = field(repr=False)
    a_offsets: np.ndarray = field(repr=False)
    b_offsets: np.ndarray = field(repr=False)
    layout: object = field(repr=False, default=None)

    @property
    def k_blocks(self) -> int:
        return self.bk // 16

    def smem_offset(self, row, k):
        """Swizzled shared-memory element offset of tile element ``(row, k)`` (A or B)."""
        row = np.asarray(row)
        k = np.asarray(k)
        flat = np.vectorize(lambda r, c: int(self.layout(int(r), int(c))))
        return flat(row, k) if row.shape or k.shape else int(self.layout(int(row), int(k)))

    def a_rows(self, warp: int, i: int) -> np.ndarray:
        """Tile rows of A fragment ``i`` of ``warp``: ``32 i + 16 warp_m + (0..15)``."""
        return 32 * i + 16 * int(self.warp_m[warp]) + np.arange(16)

    def b_rows(self, warp: int, nn: int) -> np.ndarray:
        """Tile rows (n) of B fragment ``nn`` of ``warp``: ``16 nn + 8 warp_n + (0..7)``."""
        return 16 * nn + 8 * int(self.warp_n[warp]) + np.arange(8)


@functools.lru_cache(maxsize=1)
def cta_plan() -> CtaPlan:
    """The plan of sgemm_sm80's CTA (FACTS: "The official CTA configuration").

    Shared memory: ``composition(Swizzle<3,3,3>, (8,(8,8)):(8,(1,64)))`` tiled to (128, 64)
    (built with labkit.layout); gmem->smem: threads ``(16,8):(8,1)`` copy 8 halves each, rows
    ``t//8 + 16 r``; TiledMMA 2x2 warps (warp ``w`` at ``(w % 2, w // 2)``), tile 32x32x16.
    """
    from labkit.layout import S, Swizzle, composition, make_layout, tile_to_shape

    inner = make_layout((S(8), (S(8), S(8))), (S(8), (S(1), S(64))))
    layout = composition(Swizzle(3, 3, 3), tile_to_shape(inner, (S(128), S(64))))
    bm = bn = 128
    bk = 64
    table = np.array([[int(layout(r, c)) for c in range(bk)] for r in range(bm)], np.int64)
    t = np.arange(128)[:, None]
    rr = np.arange(8)[None, :]
    rows = t // 8 + 16 * rr
    cols = np.broadcast_to(8 * (t % 8), rows.shape)
    cp_src = (bk * rows + cols).astype(np.int32)
    cp_dst = table[rows, cols].astype(np.int32)
    warps = np.arange(4)
    wm, wn = warps % 2, warps // 2
    mat, row = instructions.lane_row(np.arange(WARP), 4)          # the registry's ldmatrix lane rule
    mma = instructions.instruction("mma_m16n8k16_f16f16f16f16", "mma")
    a_blk = np.array(mma.ldmatrix_blocks("A"))                   # matrix i -> register a_i's block
    b_blk = np.array(mma.ldmatrix_blocks("B"))                   # x4 = two n8 atoms' b0, b1
    kb = np.arange(bk // 16)[:, None, None, None]
    idx = np.arange(4)[None, None, :, None]
    a_row = 32 * idx + 16 * wm[None, :, None, None] + a_blk[mat, 0] + row
    a_col = 16 * kb + a_blk[mat, 1]
    b_row = 16 * (2 * idx + mat // 2) + 8 * wn[None, :, None, None] + b_blk[mat % 2, 0] + row
    b_col = 16 * kb + b_blk[mat % 2, 1]
    a_row, a_col = np.broadcast_arrays(a_row, a_col)
    b_row, b_col = np.broadcast_arrays(b_row, b_col)
    return CtaPlan(
        bm, bn, bk, wm, wn, cp_src, cp_dst,
        table[a_row, a_col].astype(np.int32), table[b_row, b_col].astype(np.int32), layout,
    )
