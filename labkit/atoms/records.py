"""The one instruction record: every PTX instruction labkit models is an :class:`Instruction`.

A record holds what the hardware and CuTe say of one instruction: its ``labkit.cuda.ptx`` name,
PTX text, minimum SM, the arch-specific target it needs (``arch``: ``"sm_90a"`` for Hopper's
wgmma, which only compute capability 9.0 runs; ``""`` for portable PTX) and how many threads
issue it together (``threads``: 1 for a per-thread copy, 32 for a warp, 128 for a warpgroup).
The families add their own fields: :class:`MmaInstruction` (``mma.sync`` and ``wgmma`` alike:
shape, element types, CuTe's TV layouts, and per operand its kind, registers or a shared-memory
descriptor), :class:`LdmatrixInstruction`, :class:`StmatrixInstruction`,
:class:`CpAsyncInstruction` and :class:`InlineInstruction` (fences, probes, the GEMM ladder's own
PTX). The tables live in :mod:`labkit.atoms.mma_table`, :mod:`labkit.atoms.copy_table` and
:mod:`labkit.atoms.inline_table`; :mod:`labkit.atoms.instructions` is the registry that finds them.

>>> from labkit.atoms.instructions import instruction
>>> w = instruction("SM90_64x64x16_F32BF16BF16_SS")
>>> w.threads, w.arch, w.operand_kind("A"), w.registers("A"), w.register_type("A")
(128, 'sm_90a', 'descriptor', 1, 'u64')
>>> m = instruction("SM80_16x8x16_F32F16F16F32_TN")
>>> m.threads, m.operand_kind("A"), m.registers("A"), m.register_type("C")
(32, 'registers', 4, 'f32')
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ..elements import element
from ..errors import InstructionError
from ..threads import WARP, WARPGROUP

__all__ = ["WARP", "WARPGROUP", "OPS", "arch_sm", "Instruction", "MmaInstruction", "LdmatrixInstruction",
           "StmatrixInstruction", "CpAsyncInstruction", "InlineInstruction", "operand",
           "tv_coords"]

#: the one vocabulary of PTX operations a kernel's statements are counted by (``Statement.op``):
#: an entry's ``op`` is the longest of these its PTX text starts with (at a ``.`` or the end)
OPS = ("mma", "ldmatrix", "stmatrix", "cp.async", "cp.async.commit_group", "cp.async.wait_group",
       "cp.async.wait_all", "cp.async.bulk.tensor", "cvta.to.shared", "ld.global.v4", "st.shared.v4",
       "st.global", "st.global.v2", "mbarrier.init", "mbarrier.arrive", "mbarrier.arrive.expect_tx",
       "mbarrier.try_wait", "fence.mbarrier_init", "fence.proxy.async", "wgmma.fence", "wgmma.commit_group",
       "wgmma.wait_group", "wgmma.mma_async", "setmaxnreg.inc", "setmaxnreg.dec", "ld.volatile.shared", "mov",
       "cvt.rn.f16x2", "cvt.rn.bf16x2", "st.shared", "bar.sync", "cp.async.bulk.commit_group",
       "cp.async.bulk.wait_group", "barrier.cluster", "red.relaxed.gpu", "ld.global.acquire")


@dataclass(frozen=True)
class Instruction:
    """One PTX instruction: its ``labkit.cuda.ptx`` name, PTX text, minimum SM, family
    (``kind``), the arch-specific target it needs (``arch``) and the threads that issue it."""

    name: str
    ptx: str
    min_sm: int
    kind: str
    arch: str = ""
    threads: int = WARP

    @property
    def op(self) -> str:
        """The operation it counts as (one of :data:`OPS`): the longest of them its PTX starts with.

        >>> from labkit.atoms.instructions import instruction
        >>> instruction("cp_async_cg_16").op, instruction("cp_async_commit_group").op
        ('cp.async', 'cp.async.commit_group')
        """
        text = self.ptx.split()[0].rstrip(";") if self.ptx else ""
        found = [o for o in OPS if text == o or text.startswith(o + ".")]
        if not found:
            raise InstructionError(f"{self.name}: its PTX {self.ptx!r} starts with none of the operations "
                                   f"labkit counts (records.OPS)")
        return max(found, key=len)

    def runs_on(self, sm: int) -> bool:
        """Whether a GPU of SM ``sm`` runs it: at least ``min_sm``, and exactly the arch's SM
        for arch-specific PTX (``sm_90a``: 90 only)."""
        if self.arch:
            return int(sm) == arch_sm(self.arch)
        return int(sm) >= self.min_sm

    def need(self) -> str:
        """What it needs, in words: ``"sm_80"`` or ``"sm_90a (compute capability 9.0 exactly)"``."""
        if self.arch:
            sm = arch_sm(self.arch)
            return f"{self.arch} (compute capability {sm // 10}.{sm % 10} exactly)"
        return f"sm_{self.min_sm}"


def arch_sm(arch: str) -> int:
    """The one SM that runs arch-specific PTX ``arch`` (``"sm_90a"``: 90).

    >>> arch_sm("sm_90a")
    90
    """
    if not (isinstance(arch, str) and arch.startswith("sm_") and arch.endswith("a") and arch[3:-1].isdigit()):
        raise InstructionError(f"arch must name an arch-specific target such as 'sm_90a', got {arch!r}")
    return int(arch[3:-1])


def operand(name) -> str:
    """``"A"``, ``"B"`` or ``"C"`` for an MMA operand name (``"D"`` is ``"C"``: same fragment).

    >>> operand("d")
    'C'
    """
    op = str(name).upper()
    if op == "D":
        op = "C"
    if op not in ("A", "B", "C"):
        raise InstructionError(f"operand must be 'A', 'B', 'C' or 'D'; got {name!r}")
    return op


@dataclass(frozen=True)
class MmaInstruction(Instruction):
    """An MMA: ``mma.sync.aligned.m{M}n{N}k{K}.row.col...`` (a warp, every operand in registers)
    or ``wgmma.mma_async.sync.aligned.m64n{N}k{K}...`` (a warpgroup; ``form`` ``"SS"``: A and B
    by shared-memory descriptor, ``"RS"``: A in registers, B by descriptor).

    ``types`` are ``(D, A, B, C)`` (CuTe's order); ``layout_A/B/C`` CuTe's TV layouts as text,
    ``(thread, value)`` to ``m + M*k`` (A), ``n + N*k`` (B) and ``m + M*n`` (C/D); ``thr_id``
    CuTe's ``ThrID``; ``atoms`` the CuTe atom names that issue it.
    """

    shape_mnk: tuple = ()
    types: tuple = ()
    layout_A: str = ""
    layout_B: str = ""
    layout_C: str = ""
    atoms: tuple = ()
    form: str = ""
    thr_id: str = "_32:_1"

    m = property(lambda self: self.shape_mnk[0])
    n = property(lambda self: self.shape_mnk[1])
    k = property(lambda self: self.shape_mnk[2])
    shape = property(lambda self: self.shape_mnk, doc="``(m, n, k)``.")
    acc_type = property(lambda self: self.types[0], doc="The accumulator (C/D) element type.")
    a_type = property(lambda self: self.types[1], doc="The A element type.")
    b_type = property(lambda self: self.types[2], doc="The B element type.")

    @property
    def ab_type(self) -> str:
        """The A and B element type (they differ only in mixed fp8 and int8 forms: then it raises)."""
        if self.a_type != self.b_type:
            raise InstructionError(f"{self.name}: A is {self.a_type} and B is {self.b_type}; ask a_type or b_type")
        return self.a_type

    @property
    def ab_bits(self) -> int:
        """Bits of an A (and B) element: PTX gives A and B one width."""
        return element(self.a_type).bits

    def tolerance(self) -> tuple:
        """``(rtol, atol)`` of D against float64, the one bound labkit checks an MMA by:
        ``|D - ref| <= rtol * (|A| @ |B|.T + |C|) + atol``. f32 accumulators: 2^-16 (the tensor
        cores' products are exact and their sums keep at least that much), but 2^-11 for fp8
        operands (e4m3, e5m2): Hopper's fp8 tensor cores keep fewer bits while they accumulate
        (an H100 gave errors up to 12.4 x 2^-16 of ``|A| @ |B|.T`` over K = 128 in ``python -m
        labkit verify``, 2026-12-05); f16: half an f16 ulp, 2^-9, plus its smallest normal,
        2^-14; s32: exact.

        >>> from labkit.atoms.instructions import instruction
        >>> instruction("SM90_64x64x16_F16F16F16_SS").tolerance(), instruction("SM80_16x8x32_S32S8S8S32_TN").tolerance()
        ((0.001953125, 6.103515625e-05), (0.0, 0.0))
        >>> instruction("SM90_64x64x32_F32E4M3E5M2_SS_TN").tolerance()
        (0.00048828125, 0.0)
        """
        if self.acc_type == "f32" and element(self.a_type).kind == "float" and element(self.a_type).bits == 8:
            return (2.0 ** -11, 0.0)
        return {"f32": (2.0 ** -16, 0.0), "f16": (2.0 ** -9, 2.0 ** -14), "s32": (0.0, 0.0)}[self.acc_type]

    def element_type(self, op: str) -> str:
        """The element type of operand ``op``."""
        return {"A": self.a_type, "B": self.b_type, "C": self.acc_type}[operand(op)]

    def operand_kind(self, op: str) -> str:
        """``"registers"`` or ``"descriptor"`` (a 64-bit shared-memory matrix descriptor)."""
        op = operand(op)
        if self.form and (op == "B" or (op == "A" and self.form == "SS")):
            return "descriptor"
        return "registers"

    def matrix_shape(self, op: str) -> tuple:
        """``(rows, cols)`` of operand ``op`` in CuTe's order: A ``(M, K)``, B ``(N, K)``, C ``(M, N)``."""
        m, n, k = self.shape_mnk
        return {"A": (m, k), "B": (n, k), "C": (m, n)}[operand(op)]

    def layout(self, op: str) -> str:
        """CuTe's TV layout of operand ``op`` as text."""
        return {"A": self.layout_A, "B": self.layout_B, "C": self.layout_C}[operand(op)]

    def elements(self, op: str) -> int:
        """Elements of operand ``op`` each thread holds in registers (0 for a descriptor operand,
        which no thread holds: every thread of the warpgroup sees the whole tile through it)."""
        if self.operand_kind(op) == "descriptor":
            return 0
        rows, cols = self.matrix_shape(op)
        return rows * cols // self.threads

    def registers(self, op: str) -> int:
        """Registers per thread for operand ``op``: 32-bit ones (narrower elements pack two or
        four to a register), or 1 for a 64-bit descriptor."""
        if self.operand_kind(op) == "descriptor":
            return 1
        return self.elements(op) * element(self.element_type(op)).bits // 32

    def register_type(self, op: str) -> str:
        """The PTX type of one register of ``op``: ``"u64"`` (a descriptor), ``"f32"``,
        ``"s32"`` (one accumulator each) or ``"u32"`` (packed narrower elements, tf32 bits)."""
        if self.operand_kind(op) == "descriptor":
            return "u64"
        ty = self.element_type(op)
        return ty if ty in ("f32", "s32") and operand(op) == "C" else "u32"

    def coords(self, op: str):
        """``(threads, elements, 2)`` int array: the ``(row, col)`` (CuTe's order, see
        :meth:`matrix_shape`) of value ``v`` of thread ``t``, from CuTe's TV layout. Value ``v``
        sits in register ``v // (32 // bits)``, the lower-indexed values in the low bits.

        >>> from labkit.atoms.instructions import instruction
        >>> instruction("SM80_16x8x8_F32F16F16F32_TN").coords("A")[1].tolist()   # lane 1
        [[0, 2], [0, 3], [8, 2], [8, 3]]
        """
        if self.operand_kind(op) == "descriptor":
            raise InstructionError(f"{self.name}: {operand(op)} is read through a shared-memory "
                                   "descriptor; no thread holds its elements")
        return tv_coords(self.layout(op), self.matrix_shape(op)[0], self.threads, self.elements(op))

    def ldmatrix_blocks(self, op: str) -> tuple:
        """Per register of ``op`` (A or B of an ``mma.sync``), the ``(row, col16)`` corner of the
        8x8 block of 16-bit units it holds, ``col16`` counting 16-bit units of a K-major row; that
        block is what one matrix of ``ldmatrix`` (without ``.trans``) loads into the register.
        Derived from CuTe's TV layout; an operand whose registers are not such blocks raises.

        >>> from labkit.atoms.instructions import instruction
        >>> instruction("mma_m16n8k16_f16f16f16f16").ldmatrix_blocks("A")
        ((0, 0), (8, 0), (0, 8), (8, 8))
        """
        op = operand(op)
        if op == "C":
            raise InstructionError("ldmatrix_blocks: only the A and B operands are loaded by ldmatrix")
        if self.threads != WARP:
            raise InstructionError(f"ldmatrix_blocks: {self.name} is issued by {self.threads} threads; "
                                   "ldmatrix fills the registers of one warp's mma.sync")
        return _ldmatrix_blocks(self, op)

    @property
    def immediates(self) -> tuple:
        """A wgmma's immediate operands after ``scale-d``, in PTX order: f16/bf16 take
        ``imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b`` (RS: no ``imm-trans-a``),
        tf32 and fp8 only the scales (their operands are K-major), integers none."""
        if not self.form:
            return ()
        kind = element(self.a_type).kind
        if kind == "int":
            return ()
        if element(self.a_type).bits == 16:
            trans = ("imm_trans_a", "imm_trans_b") if self.form == "SS" else ("imm_trans_b",)
            return ("imm_scale_a", "imm_scale_b", *trans)
        return ("imm_scale_a", "imm_scale_b")

    @property
    def asm(self) -> str:
        """The inline-assembly text, operands as ``$n`` in PTX order.

        ``mma.sync``: D's registers, then A's, B's and C's. ``wgmma``: D's registers ``$0..$R-1``
        (read and written: ``$R..$2R-1`` are the same registers tied as inputs, not in the text),
        A (``a-desc``, or four registers), ``b-desc``, ``scale-d`` (a predicate set from a
        run-time integer: 0 gives D = A*B, else D = A*B + D) and the immediates as the
        placeholders ``$imm_scale_a`` ... that the intrinsic replaces by literal values.
        """
        if not self.form:
            na, nb, nc = self.registers("A"), self.registers("B"), self.registers("C")
            idx = iter(range(nc + na + nb + nc))

            def group(n):
                return "{" + ", ".join(f"${next(idx)}" for _ in range(n)) + "}"

            return f"{self.ptx} {group(nc)}, {group(na)}, {group(nb)}, {group(nc)};"
        r = self.registers("C")
        d = ", ".join(f"${i}" for i in range(r))
        if self.form == "SS":
            a, nxt = f"${2 * r}", 2 * r + 1
        else:
            a, nxt = "{" + ", ".join(f"${2 * r + i}" for i in range(4)) + "}", 2 * r + 4
        imm = "".join(f", ${x}" for x in self.immediates)
        return (f"{{ .reg .pred p; setp.ne.b32 p, ${nxt + 1}, 0; {self.ptx} {{{d}}}, {a}, ${nxt}, p"
                f"{imm}; }}")


@dataclass(frozen=True)
class LdmatrixInstruction(Instruction):
    """``ldmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16``: ``num`` 8x8 matrices of 16-bit
    elements; ``src_bits``/``dst_bits`` are CuTe's ``Copy_Traits`` TV layouts over bits."""

    num: int = 0
    trans: bool = False
    atom: str = ""
    src_bits: str = ""
    dst_bits: str = ""


@dataclass(frozen=True)
class StmatrixInstruction(LdmatrixInstruction):
    """``stmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16``: ``num`` 8x8 matrices of 16-bit
    elements stored from one 32-bit register per matrix and lane; ``src_bits`` (the registers)
    and ``dst_bits`` (the 8*num row addresses) are CuTe's ``Copy_Traits`` TV layouts over bits,
    whose ``RefLayout`` is ``src_bits``."""


@dataclass(frozen=True)
class CpAsyncInstruction(Instruction):
    """``cp.async`` copies (``level`` ``"ca"``/``"cg"``, ``bytes`` per thread) and the group
    fences (``level`` empty). Copies carry CuTe's ``Copy_Traits`` bit layouts and atom name."""

    level: str = ""
    bytes: int = 0
    atom: str = ""
    src_bits: str = ""
    dst_bits: str = ""


@dataclass(frozen=True)
class InlineInstruction(Instruction):
    """PTX bound as written: ``asm`` is the inline-assembly text (``$n`` the operands, ``$n`` alone
    a literal immediate), ``module`` the ``labkit.cuda`` module that binds it."""

    asm: str = ""
    module: str = ""


@functools.lru_cache(maxsize=None)
def _tv_table(text, rows, threads, values):
    import numpy as np

    from ..layout import parse_layout

    lay = parse_layout(text)
    idx = np.array([[int(lay(t, v)) for v in range(values)] for t in range(threads)], np.int64)
    out = np.stack([idx % rows, idx // rows], axis=-1)
    out.setflags(write=False)
    return out


def tv_coords(layout_text: str, rows: int, threads: int = WARP, values: int | None = None):
    """``(threads, values, 2)``: ``(index % rows, index // rows)`` of CuTe TV layout
    ``layout_text`` at every ``(thread, value)`` (a read-only numpy array).

    >>> tv_coords("((_4,_8),_2):((_16,_1),_8)", 8, values=2)[5].tolist()    # m16n8k8 B, lane 5
    [[1, 2], [1, 3]]
    """
    if values is None:
        from ..layout import parse_layout, product

        values = int(product(parse_layout(layout_text)[1].shape))
    return _tv_table(layout_text, int(rows), int(threads), int(values))


@functools.lru_cache(maxsize=None)
def _ldmatrix_blocks(ins, op):
    import numpy as np

    xy = ins.coords(op)
    per = 32 // ins.ab_bits
    blocks = []
    for r in range(ins.registers(op)):
        vals = xy[:, r * per:(r + 1) * per]                           # (32 lanes, values)
        row = vals[..., 0]
        col16 = vals[..., 1] * ins.ab_bits // 16                      # the 16-bit unit of each value
        r0, c0 = int(row.min()), int(col16.min()) // 8 * 8
        lane = np.arange(WARP)
        want_row = r0 + lane // 4
        want_col = c0 + 2 * (lane % 4)
        ok = (row == want_row[:, None]).all() and (col16.min(axis=1) == want_col).all()
        if not ok:
            raise InstructionError(f"{ins.ptx}: register {r} of {op} is not one 8x8 block of 16-bit units "
                                   "in ldmatrix's fragment layout")
        blocks.append((r0, c0))
    return tuple(blocks)
