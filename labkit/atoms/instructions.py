"""The instruction registry: every hardware fact about the PTX instructions labkit models.

One table per instruction family, each entry a frozen record:

- :data:`MMA`: ``mma.sync.aligned.m16n8k{8,16}.row.col`` (shape, element types, minimum SM,
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
sm_75, m16n8k16 and every bf16 form sm_80; cp.async sm_80; stmatrix sm_90. TV layouts are CuTe's
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

from dataclasses import dataclass

from ..errors import InstructionError

__all__ = ["ELEMENT_BITS", "Instruction", "MmaInstruction", "LdmatrixInstruction",
           "StmatrixInstruction", "CpAsyncInstruction", "operand", "MMA", "LDMATRIX", "STMATRIX",
           "CP_ASYNC", "ADDRESS", "INSTRUCTIONS", "instruction", "require_sm", "InstructionError"]

ELEMENT_BITS = {"f16": 16, "bf16": 16, "f32": 32, "u32": 32, "u16": 16, "u8": 8, "tf32": 32}
"""Bits of each element type an instruction names."""

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

    def registers(self, op: str) -> int:
        """32-bit registers per lane: narrower elements pack two (or more) to a register."""
        op = operand(op)
        ty = self.acc_type if op == "C" else self.ab_type
        return self.elements(op) * ELEMENT_BITS[ty] // 32

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
# CuTe TV layouts (mma_traits_sm80.hpp: SM80_16x8x16_*, SM80_16x8x8_*; SM75_16x8x8 is the same).
_L16816 = ("((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))", "((_4,_8),(_2,_2)):((_16,_1),(_8,_64))",
           "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))")
_L1688 = ("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", "((_4,_8),_2):((_16,_1),_8)",
          "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))")


def _mma(k, acc, ab, min_sm, atoms):
    la, lb, lc = _L16816 if k == 16 else _L1688
    return MmaInstruction(
        name=f"mma_m16n8k{k}_{acc}{ab}{ab}{acc}",
        ptx=f"mma.sync.aligned.m16n8k{k}.row.col.{acc}.{ab}.{ab}.{acc}",
        min_sm=min_sm, kind="mma", shape_mnk=(16, 8, k), ab_type=ab, acc_type=acc,
        layout_A=la, layout_B=lb, layout_C=lc, atoms=tuple(atoms))


MMA = {i.name: i for i in (
    _mma(8, "f16", "f16", 75, ["SM80_16x8x8_F16F16F16F16_TN"]),
    _mma(8, "f32", "f16", 75, ["SM80_16x8x8_F32F16F16F32_TN", "SM75_16x8x8_F32F16F16F32_TN"]),
    _mma(8, "f32", "bf16", 80, ["SM80_16x8x8_F32BF16BF16F32_TN"]),
    _mma(16, "f16", "f16", 80, ["SM80_16x8x16_F16F16F16F16_TN"]),
    _mma(16, "f32", "f16", 80, ["SM80_16x8x16_F32F16F16F32_TN"]),
    _mma(16, "f32", "bf16", 80, ["SM80_16x8x16_F32BF16BF16F32_TN"]),
)}
"""The mma.sync forms by ``labkit.cuda.ptx`` name."""


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

_BY_ATOM = {**{a: i for i in MMA.values() for a in i.atoms},
            **{i.atom: i for i in (*LDMATRIX.values(), *STMATRIX.values(), *CP_ASYNC.values()) if i.atom}}


def instruction(name, kind: str | None = None) -> Instruction:
    """The registry entry called ``name``: a ``labkit.cuda.ptx`` name or a CuTe atom name
    (an entry is returned as is). ``kind`` (``"mma"``, ``"ldmatrix"``, ``"stmatrix"``, ...)
    restricts the family.

    >>> instruction("SM75_16x8x8_F32F16F16F32_TN").name
    'mma_m16n8k8_f32f16f16f32'
    >>> instruction("SM80_16x8x32_S32S8S8S32_TN")
    Traceback (most recent call last):
      ...
    labkit.errors.InstructionError: no instruction named 'SM80_16x8x32_S32S8S8S32_TN'; known: smem_addr, ...
    """
    ins = name if isinstance(name, Instruction) else (
        INSTRUCTIONS.get(name) or _BY_ATOM.get(name) if isinstance(name, str) else None)
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
