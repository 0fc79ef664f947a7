"""The MMA instructions as data: ``mma.sync`` (a warp) and ``wgmma.mma_async`` (a warpgroup).

Every entry is a :class:`~labkit.atoms.records.MmaInstruction`: one record for both families,
CuTe's ``MMA_Traits`` written as text (``tests/test_mma_traits_cpp.py`` and
``tests/test_gmma_instructions_cpp.py`` print every entry's traits with g++ and compare).

``mma.sync`` (:data:`MMA`): CuTe's ``include/cute/atom/mma_traits_sm75.hpp`` and
``mma_traits_sm80.hpp``; each entry names its TV layout set, nothing is inferred from the shape.
Minimum SMs are the PTX ISA's "Target ISA notes": m16n8k8 with f16 inputs sm_75, every other
form sm_80.

``wgmma`` (:data:`GMMA`): CuTe's ``include/cute/atom/mma_traits_sm90_gmma.hpp`` (and ``_ext``),
every atom CuTe defines for f16/bf16 (K = 16), tf32 (K = 8), e4m3/e5m2 and s8/u8 (K = 32):
K is 256 bits of A's element type. ``ABLayout<M,K>`` = ``(_128,(M,K)):(_0,(_1,M))`` for an
operand in shared memory (every thread sees the whole tile through the descriptor),
``ALayout_64x{K}`` for A in registers (the RS form) and ``CLayout_64xN`` for the accumulators.
The 16-bit atoms take CuTe's majors as template arguments (``SM90_64x128x16_F32F16F16_SS<K,MN>``);
the others are K-major only (``_TN``). wgmma is arch-specific PTX: ``sm_90a``.

>>> g = GMMA["wgmma_m64n64k16_f32bf16bf16_ss"]
>>> g.ptx, g.thr_id, g.layout_B
('wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16', '_128:_1', '(_128,(_64,_16)):(_0,(_1,_64))')
>>> GMMA["wgmma_m64n32k32_f32e4m3e5m2_ss"].atoms, GMMA["wgmma_m64n8k8_f32tf32tf32_rs"].layout_A
(('SM90_64x32x32_F32E4M3E5M2_SS_TN',), '((_4,_8,_4),(_2,_2)):((_64,_1,_16),(_8,_256))')
>>> print(GMMA["wgmma_m64n8k16_f16f16f16_ss"].asm)
{ .reg .pred p; setp.ne.b32 p, $6, 0; wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {$0, $1}, $4, $5, p, $imm_scale_a, $imm_scale_b, $imm_trans_a, $imm_trans_b; }
>>> print(GMMA["wgmma_m64n8k32_s32s8u8_rs"].asm)
{ .reg .pred p; setp.ne.b32 p, $13, 0; wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.u8 {$0, $1, $2, $3}, {$8, $9, $10, $11}, $12, p; }
"""

from __future__ import annotations

from ..elements import element
from .records import WARPGROUP, MmaInstruction

__all__ = ["MMA", "GMMA", "GMMA_N", "GMMA_TYPES", "TV_16x8x16_16BIT", "TV_16x8x8_16BIT",
           "TV_16x8x8_TF32", "TV_16x8x32_8BIT", "ab_layout", "a_layout_64xk", "c_layout_64xn"]

# --- mma.sync --------------------------------------------------------------------------------
_SM80_16x8_Row = "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))"
TV_16x8x16_16BIT = ("((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))",
                    "((_4,_8),(_2,_2)):((_16,_1),(_8,_64))", _SM80_16x8_Row)
TV_16x8x8_16BIT = (_SM80_16x8_Row, "((_4,_8),_2):((_16,_1),_8)", _SM80_16x8_Row)
TV_16x8x8_TF32 = ("((_4,_8),(_2,_2)):((_16,_1),(_8,_64))", "((_4,_8),_2):((_8,_1),_32)", _SM80_16x8_Row)
TV_16x8x32_8BIT = ("((_4,_8),(_4,_2,_2)):((_64,_1),(_16,_8,_256))",
                   "((_4,_8),(_4,_2)):((_32,_1),(_8,_128))", _SM80_16x8_Row)


def _mma(shape, acc, ab, min_sm, atoms, tv):
    m, n, k = shape
    la, lb, lc = tv
    return MmaInstruction(
        name=f"mma_m{m}n{n}k{k}_{acc}{ab}{ab}{acc}",
        ptx=f"mma.sync.aligned.m{m}n{n}k{k}.row.col.{acc}.{ab}.{ab}.{acc}",
        min_sm=min_sm, kind="mma", shape_mnk=(m, n, k), types=(acc, ab, ab, acc),
        layout_A=la, layout_B=lb, layout_C=lc, atoms=tuple(atoms))


MMA = {i.name: i for i in (
    _mma((16, 8, 8), "f16", "f16", 75, ["SM80_16x8x8_F16F16F16F16_TN"], TV_16x8x8_16BIT),
    _mma((16, 8, 8), "f32", "f16", 75, ["SM80_16x8x8_F32F16F16F32_TN", "SM75_16x8x8_F32F16F16F32_TN"],
         TV_16x8x8_16BIT),
    _mma((16, 8, 8), "f32", "bf16", 80, ["SM80_16x8x8_F32BF16BF16F32_TN"], TV_16x8x8_16BIT),
    _mma((16, 8, 16), "f16", "f16", 80, ["SM80_16x8x16_F16F16F16F16_TN"], TV_16x8x16_16BIT),
    _mma((16, 8, 16), "f32", "f16", 80, ["SM80_16x8x16_F32F16F16F32_TN"], TV_16x8x16_16BIT),
    _mma((16, 8, 16), "f32", "bf16", 80, ["SM80_16x8x16_F32BF16BF16F32_TN"], TV_16x8x16_16BIT),
    _mma((16, 8, 8), "f32", "tf32", 80, ["SM80_16x8x8_F32TF32TF32F32_TN"], TV_16x8x8_TF32),
    _mma((16, 8, 32), "s32", "s8", 80, ["SM80_16x8x32_S32S8S8S32_TN"], TV_16x8x32_8BIT),
)}
"""The mma.sync forms by ``labkit.cuda.ptx`` name."""


# --- wgmma -----------------------------------------------------------------------------------
def ab_layout(m: int, k: int) -> str:
    """CuTe's ``GMMA::ABLayout<M,K>``: an operand read from shared memory."""
    return f"(_128,(_{m},_{k})):(_0,(_1,_{m}))"


_A_LAYOUT_64xK = {  # CuTe's GMMA::ALayout_64x8 (32-bit), _64x16 (16-bit), _64x32 (8-bit)
    8: "((_4,_8,_4),(_2,_2)):((_64,_1,_16),(_8,_256))",
    16: "((_4,_8,_4),(_2,_2,_2)):((_128,_1,_16),(_64,_8,_512))",
    32: "((_4,_8,_4),(_4,_2,_2)):((_256,_1,_16),(_64,_8,_1024))",
}


def a_layout_64xk(k: int) -> str:
    """CuTe's ``GMMA::ALayout_64x{K}``: A in registers (the RS form)."""
    return _A_LAYOUT_64xK[k]


def c_layout_64xn(n: int) -> str:
    """CuTe's ``GMMA::CLayout_64xN<N>``: the accumulators."""
    return f"((_4,_8,_4),(_2,_2,_{n // 8})):((_128,_1,_16),(_64,_8,_512))"


GMMA_N = tuple(range(8, 257, 8))
"""The N of the f16/bf16/tf32/fp8 atoms CuTe defines: every multiple of 8 up to 256."""

_GMMA_N_INT = (8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256)
"""The N of the integer atoms (PTX ISA: multiples of 16 above 32)."""

GMMA_TYPES = (
    ("f16", "f16", "f16"), ("f32", "f16", "f16"), ("f32", "bf16", "bf16"), ("f32", "tf32", "tf32"),
    *((d, a, b) for d in ("f16", "f32") for a in ("e4m3", "e5m2") for b in ("e4m3", "e5m2")),
    *(("s32", a, b) for a in ("s8", "u8") for b in ("s8", "u8")),
)
"""``(D, A, B)`` of every wgmma form: PTX's ``.dtype.atype.btype``."""


def _letters(t):
    return t.upper()


def _gmma(n, d, a, b, form):
    k = 256 // element(a).bits
    tn = "" if element(a).bits == 16 else "_TN"     # only 16-bit operands may be MN-major
    atom = f"SM90_64x{n}x{k}_{_letters(d)}{_letters(a)}{_letters(b)}_{form}{tn}"
    return MmaInstruction(
        name=f"wgmma_m64n{n}k{k}_{d}{a}{b}_{form.lower()}",
        ptx=f"wgmma.mma_async.sync.aligned.m64n{n}k{k}.{d}.{a}.{b}",
        min_sm=90, kind="wgmma", arch="sm_90a", threads=WARPGROUP,
        shape_mnk=(64, n, k), types=(d, a, b, d), form=form, atoms=(atom,),
        layout_A=ab_layout(64, k) if form == "SS" else a_layout_64xk(k),
        layout_B=ab_layout(n, k), layout_C=c_layout_64xn(n), thr_id="_128:_1")


GMMA = {g.name: g for g in (_gmma(n, d, a, b, form)
                            for d, a, b in GMMA_TYPES for form in ("SS", "RS")
                            for n in (_GMMA_N_INT if d == "s32" else GMMA_N))}
"""Every wgmma form by name, ``wgmma_m64n{N}k{K}_{d}{a}{b}_{ss|rs}``."""
