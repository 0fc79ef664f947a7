"""The instruction registry: every hardware fact about the PTX instructions labkit models.

One table per instruction family, each entry a frozen record:

- :data:`MMA`: ``mma.sync.aligned.m16n8k{8,16,32}.row.col`` (shape, element types, minimum SM,
  the CuTe ``MMA_Traits`` TV layouts and the CuTe atom names that issue it),
- :data:`LDMATRIX`: ``ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16`` (matrix count,
  transpose, minimum SM, the CuTe ``Copy_Traits`` bit layouts and atom name),
- :data:`STMATRIX`: ``stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16``, ldmatrix's
  reverse (the same fields; CuTe's Src and Dst layouts swap),
- :data:`CP_ASYNC`: ``cp.async`` 16-byte copies and their group fences,
- :data:`ADDRESS`: ``cvta.to.shared`` (the shared address the others take).

Each entry is keyed by its ``labkit.cuda.ptx`` name (``mma_m16n8k16_f32f16f16f32``,
``ldmatrix_x4_trans``, ``stmatrix_x4``, ``cp_async_16``). :func:`instruction` finds an entry by that name or by a
CuTe atom name; an unknown name, or one the SM cannot run (:func:`require_sm`), raises
:class:`InstructionError`. Everything built on an instruction is keyed by these entries:
``labkit.atoms`` (``MMAAtom``, ``Copy_Traits``), ``labkit.sim`` (which keeps its own fragment
rules, written from the PTX ISA, as the independent model), ``labkit.cuda.ptx`` (the numba
intrinsics and their simulator twins) and ``python -m labkit verify``.

Minimum SMs are the PTX ISA's "Target ISA notes": ldmatrix sm_75; mma m16n8k8 with f16 inputs
sm_75, m16n8k16, every bf16 form, m16n8k8 .tf32 and m16n8k32 .s8 sm_80; cp.async sm_80; stmatrix sm_90. TV layouts are CuTe's
(``include/cute/atom/mma_traits_sm80.hpp``, ``copy_traits_sm75.hpp``, ``copy_traits_sm80.hpp``,
``copy_traits_sm90.hpp``).

>>> from labkit.atoms import instructions as isa
>>> mma = isa.instruction("SM80_16x8x16_F32BF16BF16F32_TN")
>>> mma.name, mma.ptx, mma.min_sm
('mma_m16n8k16_f32bf16bf16f32', 'mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32', 80)
>>> mma.registers("A"), mma.registers("B"), mma.registers("C")
(4, 2, 4)
>>> isa.instruction("ldmatrix_x4_trans").atom
'SM75_U16x8_LDSM_T'
>>> st = isa.instruction("SM90_U32x4_STSM_N")
>>> st.name, st.ptx, st.min_sm
('stmatrix_x4', 'stmatrix.sync.aligned.m8n8.x4.shared.b16', 90)
>>> isa.require_sm("cp_async_16", 75)
Traceback (most recent call last):
  ...
labkit.errors.InstructionError: cp_async_16 (cp.async.ca.shared.global [dst], [src], 16) needs sm_80; this device is sm_75
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ..errors import InstructionError
from .elements import ELEMENT_BITS, ELEMENTS
# The warpgroup MMAs (128 threads, shared-memory descriptors) have their own table: instruction()
# finds them by name or CuTe atom; INSTRUCTIONS (and everything iterating it) does not hold them.
from .gmma_instructions import GMMA, GMMA_BY_ATOM, GmmaInstruction

__all__ = ["ELEMENT_BITS", "ELEMENTS", "Instruction", "MmaInstruction", "LdmatrixInstruction",
           "StmatrixInstruction", "CpAsyncInstruction", "operand", "MMA", "LDMATRIX", "STMATRIX",
           "CP_ASYNC", "ADDRESS", "INSTRUCTIONS", "InlineInstruction", "PROBE", "GEMM_PTX", "INLINE", "instruction", "require_sm", "InstructionError",
           "matrix_row_lane", "lane_row", "matrix_element", "tv_coords"]

WARP = 32


@dataclass(frozen=True)
class Instruction:
    """One PTX instruction: its ``labkit.cuda.ptx`` name, PTX text, minimum SM and family
    (``kind``: ``"address"``, ``"ldmatrix"``, ``"stmatrix"``, ``"mma"`` or ``"cp.async"``)."""

    name: str
    ptx: str
    min_sm: int
    kind: str


@dataclass(frozen=True)
class MmaInstruction(Instruction):
    """``mma.sync.aligned.m{M}n{N}k{K}.row.col.{d}.{a}.{b}.{c}``.

    ``layout_A/B/C`` are CuTe's TV layouts as text: ``(thread, value)`` to ``m + M*k`` (A),
    ``n + N*k`` (B) and ``m + M*n`` (C/D). ``atoms`` are the CuTe atom names issuing it.
    """

    shape_mnk: tuple = ()
    ab_type: str = ""
    acc_type: str = ""
    layout_A: str = ""
    layout_B: str = ""
    layout_C: str = ""
    atoms: tuple = ()

    @property
    def m(self) -> int:
        return self.shape_mnk[0]

    @property
    def n(self) -> int:
        return self.shape_mnk[1]

    @property
    def k(self) -> int:
        return self.shape_mnk[2]

    @property
    def shape(self) -> tuple:
        """``(m, n, k)``."""
        return self.shape_mnk

    @property
    def types(self) -> tuple:
        """``(D, A, B, C)`` element types, CuTe's order."""
        return (self.acc_type, self.ab_type, self.ab_type, self.acc_type)

    def elements(self, op: str) -> int:
        """Elements of operand ``op`` (A, B, C or D) each lane holds."""
        m, n, k = self.shape_mnk
        return {"A": m * k, "B": n * k, "C": m * n}[operand(op)] // WARP

    def element_type(self, op: str) -> str:
        """The element type of operand ``op``: ``ab_type`` for A and B, ``acc_type`` for C/D."""
        return self.acc_type if operand(op) == "C" else self.ab_type

    def registers(self, op: str) -> int:
        """32-bit registers per lane: narrower elements pack two (or more) to a register."""
        return self.elements(op) * ELEMENT_BITS[self.element_type(op)] // 32

    def matrix_shape(self, op: str) -> tuple:
        """``(rows, cols)`` of operand ``op`` in CuTe's order: A ``(M, K)``, B ``(N, K)``, C ``(M, N)``."""
        m, n, k = self.shape_mnk
        return {"A": (m, k), "B": (n, k), "C": (m, n)}[operand(op)]

    def layout(self, op: str) -> str:
        """CuTe's TV layout of operand ``op`` as text."""
        return {"A": self.layout_A, "B": self.layout_B, "C": self.layout_C}[operand(op)]

    def coords(self, op: str):
        """``(32, elements, 2)`` int array: the ``(row, col)`` (CuTe's order, see
        :meth:`matrix_shape`) of value ``v`` of lane ``t``, from CuTe's TV layout. Value ``v``
        sits in register ``v // (32 // bits)``, the lower-indexed values in the low bits.

        >>> instruction("SM80_16x8x8_F32F16F16F32_TN").coords("A")[1].tolist()   # lane 1
        [[0, 2], [0, 3], [8, 2], [8, 3]]
        """
        return tv_coords(self.layout(op), self.matrix_shape(op)[0], WARP, self.elements(op))

    def ldmatrix_blocks(self, op: str) -> tuple:
        """Per register of ``op`` (A or B), the ``(row, col16)`` corner of the 8x8 block of
        16-bit units it holds, ``col16`` counting 16-bit units of a K-major row; that block is
        what one matrix of ``ldmatrix`` (without ``.trans``) loads into the register. Derived
        from CuTe's TV layout; an operand whose registers are not such blocks raises.

        >>> instruction("mma_m16n8k16_f16f16f16f16").ldmatrix_blocks("A")
        ((0, 0), (8, 0), (0, 8), (8, 8))
        """
        op = operand(op)
        if op == "C":
            raise InstructionError("ldmatrix_blocks: only the A and B operands are loaded by ldmatrix")
        return _ldmatrix_blocks(self, op)

    @property
    def ab_bits(self) -> int:
        """Bits of an A/B element."""
        return ELEMENT_BITS[self.ab_type]

    @property
    def a_regs(self) -> int:
        return self.registers("A")

    @property
    def b_regs(self) -> int:
        return self.registers("B")

    @property
    def c_regs(self) -> int:
        return self.registers("C")


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
class StmatrixInstruction(Instruction):
    """``stmatrix.sync.aligned.m8n8.x{num}[.trans].shared.b16``: ``num`` 8x8 matrices of 16-bit
    elements stored from one 32-bit register per matrix and lane; ``src_bits`` (the registers)
    and ``dst_bits`` (the 8*num row addresses) are CuTe's ``Copy_Traits`` TV layouts over bits,
    whose ``RefLayout`` is ``src_bits``."""

    num: int = 0
    trans: bool = False
    atom: str = ""
    src_bits: str = ""
    dst_bits: str = ""


@dataclass(frozen=True)
class CpAsyncInstruction(Instruction):
    """``cp.async`` copies (``level`` ``"ca"``/``"cg"``, ``bytes`` per thread) and the group
    fences (``level`` empty). Copies carry CuTe's ``Copy_Traits`` bit layouts and atom name."""

    level: str = ""
    bytes: int = 0
    atom: str = ""
    src_bits: str = ""
    dst_bits: str = ""


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


# --- mma.sync --------------------------------------------------------------------------------
# CuTe's TV layouts, by the MMA_Traits that declare them (include/cute/atom/mma_traits_sm80.hpp;
# SM75_16x8x8_F32F16F16F32_TN in mma_traits_sm75.hpp has the m16n8k8 16-bit ones). Each entry
# names its set: nothing is inferred from the shape. tests/test_mma_traits_cpp.py prints every
# entry's MMA_Traits with g++ and compares.
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
        min_sm=min_sm, kind="mma", shape_mnk=(m, n, k), ab_type=ab, acc_type=acc,
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
    xy = ins.coords(op)
    per = 32 // ins.ab_bits
    blocks = []
    for r in range(ins.registers(op)):
        vals = xy[:, r * per:(r + 1) * per]                           # (32 lanes, values)
        row = vals[..., 0]
        col16 = vals[..., 1] * ins.ab_bits // 16                      # the 16-bit unit of each value
        r0, c0 = int(row.min()), int(col16.min()) // 8 * 8
        lane = _np_arange(WARP)
        want_row = r0 + lane // 4
        want_col = c0 + 2 * (lane % 4)
        ok = (row == want_row[:, None]).all() and (col16.min(axis=1) == want_col).all()
        if not ok:
            raise InstructionError(f"{ins.ptx}: register {r} of {op} is not one 8x8 block of 16-bit units "
                                   "in ldmatrix's fragment layout")
        blocks.append((r0, c0))
    return tuple(blocks)


def _np_arange(n):
    import numpy as np

    return np.arange(n)


# --- the ldmatrix / stmatrix lane rules ------------------------------------------------------
# PTX ISA, "Warp-level matrix load instruction: ldmatrix" (stmatrix: the same fragments, stored).
# Row addresses: lane 8*i + r gives the address of row r of matrix i (.x1: lanes 0-7 count, .x2:
# lanes 0-15, .x4: all 32). Registers: register i of every lane holds its piece of matrix i; lane
# t holds row t // 4, 16-bit elements 2*(t % 4) (low half) and 2*(t % 4) + 1 (high half); with
# .trans the matrix is read column-major: column t // 4 of rows 2*(t % 4) (low) and +1 (high).


def matrix_row_lane(matrix, row):
    """The lane whose address names ``row`` (0-7) of ``matrix`` (0-3) in an ldmatrix or stmatrix.

    >>> matrix_row_lane(2, 5)
    21
    """
    return 8 * matrix + row


def lane_row(lane, num: int = 4):
    """``(matrix, row)`` that ``lane`` addresses in an ``.x{num}`` ldmatrix/stmatrix. Lanes past
    ``8 * num`` give no address; for them this is the row of lane ``lane % (8 * num)``, the
    convention labkit's kernels use (they fill every lane's address). Works on numpy arrays.

    >>> lane_row(21), lane_row(21, 2)
    ((2, 5), (0, 5))
    """
    lane = lane % (8 * num)
    return lane // 8, lane % 8


def matrix_element(lane, half, trans: bool = False):
    """``(row, col)`` in its 8x8 matrix of 16-bit half ``half`` (0 low, 1 high) of a register of
    ``lane`` after ldmatrix (or stored by stmatrix); ``trans`` for ``.trans``. Works on arrays.

    >>> matrix_element(5, 1), matrix_element(5, 1, trans=True)
    ((1, 3), (3, 1))
    """
    row, col = lane // 4, 2 * (lane % 4) + half
    return (col, row) if trans else (row, col)


# --- ldmatrix --------------------------------------------------------------------------------
# CuTe copy_traits_sm75.hpp: Src is the 8*num row addresses (128 bits each), Dst the registers.
_LDSM_SRC = {1: "((_8,_4),_128):((_128,_0),_1)", 2: "((_16,_2),_128):((_128,_0),_1)",
             4: "(_32,_128):(_128,_1)"}
_LDSM_DST = {1: "(_32,_32):(_32,_1)", 2: "(_32,(_32,_2)):(_32,(_1,_1024))",
             4: "(_32,(_32,_4)):(_32,(_1,_1024))"}
_LDSM_DST_T = {1: "((_4,_8),(_16,_2)):((_256,_16),(_1,_128))",
               2: "((_4,_8),(_16,_2,_2)):((_256,_16),(_1,_128,_1024))",
               4: "((_4,_8),(_16,_2,_4)):((_256,_16),(_1,_128,_1024))"}


def _ldsm(num, trans):
    suffix = ".trans" if trans else ""
    return LdmatrixInstruction(
        name=f"ldmatrix_x{num}" + ("_trans" if trans else ""),
        ptx=f"ldmatrix.sync.aligned.m8n8.x{num}{suffix}.shared.b16", min_sm=75, kind="ldmatrix",
        num=num, trans=trans,
        atom=f"SM75_U16x{2 * num}_LDSM_T" if trans else f"SM75_U32x{num}_LDSM_N",
        src_bits=_LDSM_SRC[num], dst_bits=(_LDSM_DST_T if trans else _LDSM_DST)[num])


LDMATRIX = {i.name: i for i in (_ldsm(num, trans) for trans in (False, True) for num in (1, 2, 4))}
"""The ldmatrix forms by ``labkit.cuda.ptx`` name."""


# --- stmatrix --------------------------------------------------------------------------------
# CuTe copy_traits_sm90.hpp: Copy_Traits<SM90_..._STSM_*> takes its SrcLayout (the registers)
# from the matching LDSM's DstLayout and its DstLayout (the 8*num row addresses, 128 bits each)
# from that LDSM's SrcLayout; RefLayout = SrcLayout. PTX ISA: stmatrix needs sm_90.
def _stsm(num, trans):
    suffix = ".trans" if trans else ""
    return StmatrixInstruction(
        name=f"stmatrix_x{num}" + ("_trans" if trans else ""),
        ptx=f"stmatrix.sync.aligned.m8n8.x{num}{suffix}.shared.b16", min_sm=90, kind="stmatrix",
        num=num, trans=trans,
        atom=f"SM90_U16x{2 * num}_STSM_T" if trans else f"SM90_U32x{num}_STSM_N",
        src_bits=(_LDSM_DST_T if trans else _LDSM_DST)[num], dst_bits=_LDSM_SRC[num])


STMATRIX = {i.name: i for i in (_stsm(num, trans) for trans in (False, True) for num in (1, 2, 4))}
"""The stmatrix forms by ``labkit.cuda.ptx`` name."""


# --- cp.async --------------------------------------------------------------------------------
# CuTe copy_traits_sm80.hpp: one thread moves 128 bits.
def _cp(name, ptx, level="", atom=""):
    bits = "(_1,_128):(_0,_1)" if level else ""
    return CpAsyncInstruction(name=name, ptx=ptx, min_sm=80, kind="cp.async", level=level,
                              bytes=16 if level else 0, atom=atom, src_bits=bits, dst_bits=bits)


CP_ASYNC = {i.name: i for i in (
    _cp("cp_async_16", "cp.async.ca.shared.global [dst], [src], 16", "ca", "SM80_CP_ASYNC_CACHEALWAYS"),
    _cp("cp_async_cg_16", "cp.async.cg.shared.global [dst], [src], 16", "cg", "SM80_CP_ASYNC_CACHEGLOBAL"),
    _cp("cp_async_commit_group", "cp.async.commit_group"),
    _cp("cp_async_wait_group", "cp.async.wait_group n"),
    _cp("cp_async_wait_all", "cp.async.wait_all"),
)}
"""The cp.async copies and fences by ``labkit.cuda.ptx`` name."""

ADDRESS = {"smem_addr": Instruction("smem_addr", "cvta.to.shared.u64", 0, "address")}
"""Shared-address conversion (any GPU)."""

INSTRUCTIONS = {**ADDRESS, **LDMATRIX, **STMATRIX, **MMA, **CP_ASYNC}
"""Every instruction by ``labkit.cuda.ptx`` name."""


# --- inline PTX outside labkit.cuda.ptx ------------------------------------------------------
@dataclass(frozen=True)
class InlineInstruction(Instruction):
    """PTX that a module other than ``labkit.cuda.ptx`` emits: ``asm`` is the inline-assembly
    text (``$n`` the operands), ``module`` the ``labkit.cuda`` module that binds it."""

    asm: str = ""
    module: str = ""


def _inline(module, kind, name, ptx, min_sm, asm):
    return InlineInstruction(name=name, ptx=ptx, min_sm=min_sm, kind=kind, asm=asm, module=module)


PROBE = {i.name: i for i in (
    _inline("labkit.cuda.probe", "probe", "clock64", "mov.u64 %clock64", 0, "mov.u64 $0, %clock64;"),
    _inline("labkit.cuda.probe", "probe", "ld_volatile_shared_u32", "ld.volatile.shared.u32", 0,
            "{ .reg .u64 t; cvta.to.shared.u64 t, $1; ld.volatile.shared.u32 $0, [t]; }"),
)}
"""The timing probes of :mod:`labkit.cuda.probe` (any SM)."""

_G = "labkit.cuda.kernels.ladder.gemm_ptx"
GEMM_PTX = {i.name: i for i in (
    _inline(_G, "ld", "ld_global_v4", "ld.global.v4.u32", 0,
            "{ .reg .pred p; .reg .u64 g; setp.ne.u32 p, $5, 0; cvta.to.global.u64 g, $4; "
            "mov.b32 $0, 0; mov.b32 $1, 0; mov.b32 $2, 0; mov.b32 $3, 0; "
            "@p ld.global.v4.u32 {$0, $1, $2, $3}, [g]; }"),
    _inline(_G, "st", "st_shared_v4", "st.shared.v4.b32", 0, "st.shared.v4.b32 [$0], {$1, $2, $3, $4};"),
    _inline(_G, "cp.async", "cp_async_cg_16_zfill", "cp.async.cg.shared.global [dst], [src], 16, src_bytes", 80,
            "{ .reg .u64 g; cvta.to.global.u64 g, $1; cp.async.cg.shared.global [$0], [g], 16, $2; }"),
    _inline(_G, "st", "st_global_u32", "st.global.b32", 0,
            "{ .reg .u64 g; cvta.to.global.u64 g, $0; st.global.b32 [g], $1; }"),
    _inline(_G, "st", "st_global_v2_f32", "st.global.v2.f32", 0,
            "{ .reg .u64 g; cvta.to.global.u64 g, $0; st.global.v2.f32 [g], {$1, $2}; }"),
    _inline(_G, "mbarrier", "mbarrier_init", "mbarrier.init.shared::cta.b64", 80,
            "mbarrier.init.shared::cta.b64 [$0], $1;"),
    _inline(_G, "mbarrier", "fence_mbarrier_init",
            "fence.mbarrier_init.release.cluster; fence.proxy.async.shared::cta", 90,
            "fence.mbarrier_init.release.cluster; fence.proxy.async.shared::cta;"),
    _inline(_G, "mbarrier", "mbarrier_arrive_expect_tx", "mbarrier.arrive.expect_tx.shared::cta.b64", 90,
            "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;"),
    _inline(_G, "mbarrier", "mbarrier_arrive", "mbarrier.arrive.shared::cta.b64", 80,
            "mbarrier.arrive.shared::cta.b64 _, [$0];"),
    _inline(_G, "mbarrier", "mbarrier_try_wait", "mbarrier.try_wait.parity.shared::cta.b64", 90,
            "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }"),
    _inline(_G, "setmaxnreg", "setmaxnreg_inc", "setmaxnreg.inc.sync.aligned.u32", 90,
            "setmaxnreg.inc.sync.aligned.u32 $n;"),
    _inline(_G, "setmaxnreg", "setmaxnreg_dec", "setmaxnreg.dec.sync.aligned.u32", 90,
            "setmaxnreg.dec.sync.aligned.u32 $n;"),
    _inline(_G, "tma", "tma_load_2d",
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", 90,
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
            "[$0], [$1, {$2, $3}], [$4];"),
)}
"""The GEMM ladder's own PTX (:mod:`labkit.cuda.kernels.ladder.gemm_ptx`): minimum SMs from the PTX
ISA's Target ISA notes (cp.async and mbarrier sm_80; expect_tx, try_wait, TMA and the
fences sm_90)."""

INLINE = {**PROBE, **GEMM_PTX}
"""Inline PTX bound outside ``labkit.cuda.ptx``, by name."""

_BY_ATOM = {**{a: i for i in MMA.values() for a in i.atoms},
            **{i.atom: i for i in (*LDMATRIX.values(), *STMATRIX.values(), *CP_ASYNC.values()) if i.atom}}


def instruction(name, kind: str | None = None) -> Instruction:
    """The registry entry called ``name``: a ``labkit.cuda.ptx`` name or a CuTe atom name
    (an entry is returned as is). ``kind`` (``"mma"``, ``"ldmatrix"``, ``"stmatrix"``, ...)
    restricts the family.

    >>> instruction("SM75_16x8x8_F32F16F16F32_TN").name
    'mma_m16n8k8_f32f16f16f32'
    >>> instruction("SM80_16x8x32_S32U8U8S32_TN")
    Traceback (most recent call last):
      ...
    labkit.errors.InstructionError: no instruction named 'SM80_16x8x32_S32U8U8S32_TN'; known: smem_addr, ...
    """
    ins = name if isinstance(name, (Instruction, GmmaInstruction)) else (
        INSTRUCTIONS.get(name) or _BY_ATOM.get(name) or INLINE.get(name) or GMMA.get(name)
        or GMMA_BY_ATOM.get(name) if isinstance(name, str) else None)
    if ins is not None and (kind is None or ins.kind == kind):
        return ins
    pool = [n for n, i in INSTRUCTIONS.items() if kind is None or i.kind == kind]
    atoms = [a for a, i in _BY_ATOM.items() if kind is None or i.kind == kind]
    what = f"{kind} instruction" if kind else "instruction"
    raise InstructionError(f"no {what} named {name!r}; known: {', '.join(pool)} "
                           f"or the CuTe atoms {', '.join(atoms)}")


def require_sm(name, sm: int) -> Instruction:
    """The entry of ``name`` if an SM ``sm`` GPU runs it; else :class:`InstructionError`.

    >>> require_sm("mma_m16n8k8_f32f16f16f32", 75).min_sm
    75
    """
    ins = instruction(name)
    if int(sm) < ins.min_sm:
        raise InstructionError(f"{ins.name} ({ins.ptx}) needs sm_{ins.min_sm}; this device is sm_{int(sm)}")
    return ins
