"""The Hopper warpgroup MMAs (``wgmma.mma_async``) of K = 16 as data: CuTe's ``MMA_Traits``.

A ``wgmma`` is issued by a warpgroup of 128 threads; B (and A in the ``SS`` form) is read from
shared memory through a 64-bit descriptor (:mod:`labkit.atoms.gmma_desc`), A in the ``RS`` form
from registers. It does not fit the ``mma.sync`` entries of :mod:`labkit.atoms.instructions`
(32 threads, every operand in registers), so it has its own table, ``GMMA``, which
``instructions.instruction(name)`` also searches.

The TV layouts are CuTe's (``cute/atom/mma_traits_sm90_gmma.hpp``), written as CuTe's templates
write them: ``ABLayout<M,K>`` = ``(_128,(M,K)):(_0,(_1,M))`` for an operand in shared memory
(every thread sees the whole tile through the descriptor), ``ALayout_64x16`` for A in registers
and ``CLayout_64xN`` for the accumulators. ``tests/test_gmma_instructions_cpp.py`` checks every
entry against g++'s print of ``MMA_Traits``.

>>> g = GMMA_BY_ATOM["SM90_64x64x16_F32BF16BF16_SS"]
>>> g.ptx, g.thr_id, g.layout_B
('wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16', '_128:_1', '(_128,(_64,_16)):(_0,(_1,_64))')
>>> g.registers["C"], g.registers["A"]
((32, 'f32'), (1, 'u64'))

Every entry is also the inline PTX a numba kernel emits (``labkit.cuda.ptx.<name>``, made by
``labkit.cuda._wgmma_intrinsics`` from ``asm``): the PTX ISA's operands in its order, ``d`` (the
accumulator registers ``$0..$R-1``, read and written), A (``a-desc`` in the SS form; in the RS
form ``a``, four 32-bit registers of two 16-bit elements each), ``b-desc``, ``scale-d`` (a
predicate set from a run-time integer: 0 gives D = A*B, else D = A*B + D) and the immediates
``imm-scale-a``, ``imm-scale-b`` (1 or -1) and ``imm-trans-a`` (SS only: A in registers is always
K-major), ``imm-trans-b`` (0: K-major, 1: M/N-major), written as the placeholders
``$imm_scale_a`` ... that the intrinsic replaces by literal values (``immediates`` lists them).

>>> print(GMMA["wgmma_m64n8k16_f16f16f16_ss"].asm)
{ .reg .pred p; setp.ne.b32 p, $6, 0; wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {$0, $1}, $4, $5, p, $imm_scale_a, $imm_scale_b, $imm_trans_a, $imm_trans_b; }
>>> print(GMMA["wgmma_m64n8k16_f16f16f16_rs"].asm)
{ .reg .pred p; setp.ne.b32 p, $9, 0; wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {$0, $1}, {$4, $5, $6, $7}, $8, p, $imm_scale_a, $imm_scale_b, $imm_trans_b; }
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GmmaInstruction", "GMMA", "GMMA_BY_ATOM", "GMMA_N", "WARPGROUP", "IMMEDIATES", "IMMEDIATES_RS"]

WARPGROUP = 128
"""Threads of a warpgroup: four consecutive warps, the first one's index a multiple of 4."""

IMMEDIATES = ("imm_scale_a", "imm_scale_b", "imm_trans_a", "imm_trans_b")
"""The immediate operands of the SS ``wgmma.mma_async`` after ``scale-d``, in PTX order."""

IMMEDIATES_RS = ("imm_scale_a", "imm_scale_b", "imm_trans_b")
"""The RS form's immediates: no ``imm-trans-a`` (A in registers is K-major)."""

GMMA_N = (8, 16, 32, 64, 128, 256)
"""The N of the entries here (the PTX ISA allows every multiple of 8 up to 256)."""


def ab_layout(m: int, k: int) -> str:
    """CuTe's ``GMMA::ABLayout<M,K>``: an operand read from shared memory."""
    return f"(_128,(_{m},_{k})):(_0,(_1,_{m}))"


A_LAYOUT_64x16 = "((_4,_8,_4),(_2,_2,_2)):((_128,_1,_16),(_64,_8,_512))"
"""CuTe's ``GMMA::ALayout_64x16``: A of 16-bit elements in registers (the RS form)."""


def c_layout_64xn(n: int) -> str:
    """CuTe's ``GMMA::CLayout_64xN<N>``: the accumulators."""
    return f"((_4,_8,_4),(_2,_2,_{n // 8})):((_128,_1,_16),(_64,_8,_512))"


@dataclass(frozen=True)
class GmmaInstruction:
    """One ``wgmma.mma_async`` form: M = 64, N, K = 16, its element types (D, A, B, C), ``form``
    ``"SS"`` (A and B by descriptor) or ``"RS"`` (A in registers), and CuTe's layouts.

    ``min_sm`` is 90 and ``arch`` ``"sm_90a"``: ``wgmma`` is arch-specific PTX (PTX ISA, Target
    ISA notes) that only compute capability 9.0 runs; ``labkit.cuda.jit`` checks it before a launch.
    """

    name: str
    ptx: str
    shape_mnk: tuple
    types: tuple
    form: str
    atoms: tuple
    layout_A: str
    layout_B: str
    layout_C: str
    thr_id: str = "_128:_1"
    min_sm: int = 90
    kind: str = "wgmma"
    arch: str = "sm_90a"

    @property
    def shape(self) -> tuple:
        """``(m, n, k)``."""
        return self.shape_mnk

    @property
    def acc_type(self) -> str:
        """The accumulator (C/D) element type."""
        return self.types[0]

    @property
    def ab_type(self) -> str:
        """The A/B element type."""
        return self.types[1]

    @property
    def intrinsic(self) -> str:
        """The ``labkit.cuda.ptx`` name that issues this form: the entry's name."""
        return self.name

    @property
    def immediates(self) -> tuple:
        """The immediate operands after ``scale-d``, in PTX order."""
        return IMMEDIATES if self.form == "SS" else IMMEDIATES_RS

    @property
    def asm(self) -> str:
        """The inline-assembly text (see the module)."""
        r = self.registers["C"][0]
        d = ", ".join(f"${i}" for i in range(r))
        # operands: $0..$R-1 the outputs, $R..$2R-1 the same registers as tied inputs (not in the
        # text), then A (a-desc, or four registers), b-desc and the scale-d integer.
        if self.form == "SS":
            a, nxt = f"${2 * r}", 2 * r + 1
        else:
            a, nxt = "{" + ", ".join(f"${2 * r + i}" for i in range(4)) + "}", 2 * r + 4
        imm = ", ".join(f"${x}" for x in self.immediates)
        return (f"{{ .reg .pred p; setp.ne.b32 p, ${nxt + 1}, 0; {self.ptx} {{{d}}}, {a}, ${nxt}, p, "
                f"{imm}; }}")

    @property
    def registers(self) -> dict:
        """Per thread: ``{"A": (count, type), "B": ..., "C": ...}``. A descriptor is one u64;
        A in registers is four u32 (8 halves); the 64 x N accumulators spread over 128 threads
        are N/2 values, as f32 or packed two f16 to a u32."""
        n = self.shape_mnk[1]
        c = (n // 2, "f32") if self.types[0] == "f32" else (n // 4, "u32")
        a = (1, "u64") if self.form == "SS" else (4, "u32")
        return {"A": a, "B": (1, "u64"), "C": c}


def _gmma(n: int, d: str, ab: str, form: str) -> GmmaInstruction:
    letters = {"f32": "F32", "f16": "F16", "bf16": "BF16"}
    atom = f"SM90_64x{n}x16_{letters[d]}{letters[ab]}{letters[ab]}_{form}"
    return GmmaInstruction(
        name=f"wgmma_m64n{n}k16_{d}{ab}{ab}_{form.lower()}",
        ptx=f"wgmma.mma_async.sync.aligned.m64n{n}k16.{d}.{ab}.{ab}",
        shape_mnk=(64, n, 16), types=(d, ab, ab, d), form=form, atoms=(atom,),
        layout_A=ab_layout(64, 16) if form == "SS" else A_LAYOUT_64x16,
        layout_B=ab_layout(n, 16), layout_C=c_layout_64xn(n))


GMMA = {g.name: g for g in (_gmma(n, d, ab, form)
                            for d, ab in (("f32", "f16"), ("f16", "f16"), ("f32", "bf16"))
                            for form in ("SS", "RS") for n in GMMA_N)}
"""Every entry by name, ``wgmma_m64n{N}k16_{d}{a}{b}_{ss|rs}``."""

GMMA_BY_ATOM = {a: g for g in GMMA.values() for a in g.atoms}
"""Every entry by its CuTe atom name, ``SM90_64x{N}x16_F32F16F16_SS`` ..."""
