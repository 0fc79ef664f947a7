"""The instruction registry: every PTX instruction labkit models, found by one look-up.

Every entry is an :class:`~labkit.atoms.records.Instruction` (one record for every family, see
:mod:`labkit.atoms.records`), held in one table per family:

- :data:`MMA`: ``mma.sync.aligned.m16n8k{8,16,32}.row.col`` (a warp),
- :data:`GMMA`: ``wgmma.mma_async.sync.aligned.m64n{N}k{K}`` (a warpgroup, ``sm_90a``), SS and RS,
  f16/bf16/tf32/e4m3/e5m2/s8/u8 (:mod:`labkit.atoms.mma_table`),
- :data:`LDMATRIX`, :data:`STMATRIX`, :data:`CP_ASYNC`, :data:`ADDRESS`
  (:mod:`labkit.atoms.copy_table`),
- :data:`WGMMA_PTX` (``wgmma.fence``, ``commit_group``, ``wait_group``, ``fence.proxy.async``),
  :data:`PROBE` and :data:`GEMM_PTX` (:mod:`labkit.atoms.inline_table`).

:data:`INSTRUCTIONS` holds every entry that ``labkit.cuda.ptx`` binds (all but ``PROBE`` and
``GEMM_PTX``, which their own modules bind; :data:`INLINE` holds those). :func:`instruction`
finds an entry by its ``labkit.cuda.ptx`` name, a CuTe atom name or its PTX text; an unknown
name, or one the SM cannot run (:func:`require_sm`, which also knows ``sm_90a``), raises
:class:`InstructionError`. Everything built on an instruction is keyed by these entries:
``labkit.atoms`` (``MMAAtom``, ``Copy_Traits``), ``labkit.sim`` (which keeps its own fragment
rules, written from the PTX ISA, as the independent model), ``labkit.cuda.ptx`` and
``python -m labkit verify``.

>>> from labkit.atoms import instructions as isa
>>> mma = isa.instruction("SM80_16x8x16_F32BF16BF16F32_TN")
>>> mma.name, mma.ptx, mma.min_sm
('mma_m16n8k16_f32bf16bf16f32', 'mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32', 80)
>>> mma.registers("A"), mma.registers("B"), mma.registers("C")
(4, 2, 4)
>>> isa.instruction("ldmatrix_x4_trans").atom
'SM75_U16x8_LDSM_T'
>>> isa.instruction("wgmma.fence.sync.aligned").name
'wgmma_fence'
>>> isa.require_sm("cp_async_16", 75)
Traceback (most recent call last):
  ...
labkit.errors.InstructionError: cp_async_16 (cp.async.ca.shared.global [dst], [src], 16) needs sm_80; this device is sm_75
>>> isa.require_sm("SM90_64x8x16_F16F16F16_SS", 100).name
Traceback (most recent call last):
  ...
labkit.errors.InstructionError: wgmma_m64n8k16_f16f16f16_ss (wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16) needs sm_90a (compute capability 9.0 exactly); this device is sm_100
"""

from __future__ import annotations

from ..elements import ELEMENT_BITS, ELEMENTS
from ..errors import InstructionError
from .copy_table import (ADDRESS, CP_ASYNC, LDMATRIX, STMATRIX, lane_row, matrix_element,
                         matrix_row_lane)
from .inline_table import GEMM_PTX, PROBE, WGMMA_PTX
from .mma_table import GMMA, MMA
from .records import (WARP, WARPGROUP, CpAsyncInstruction, InlineInstruction, Instruction,
                      LdmatrixInstruction, MmaInstruction, StmatrixInstruction, operand, tv_coords)

__all__ = ["ELEMENT_BITS", "ELEMENTS", "WARP", "WARPGROUP", "Instruction", "MmaInstruction",
           "LdmatrixInstruction", "StmatrixInstruction", "CpAsyncInstruction", "InlineInstruction",
           "operand", "MMA", "GMMA", "LDMATRIX", "STMATRIX", "CP_ASYNC", "ADDRESS", "WGMMA_PTX",
           "INSTRUCTIONS", "PROBE", "GEMM_PTX", "INLINE", "instruction", "require_sm",
           "InstructionError", "matrix_row_lane", "lane_row", "matrix_element", "tv_coords"]

INSTRUCTIONS = {**ADDRESS, **LDMATRIX, **STMATRIX, **MMA, **CP_ASYNC, **GMMA, **WGMMA_PTX}
"""Every instruction ``labkit.cuda.ptx`` binds, by its name there."""

INLINE = {**PROBE, **GEMM_PTX}
"""Inline PTX bound outside ``labkit.cuda.ptx``, by name."""

_ALL = {**INSTRUCTIONS, **INLINE}
_BY_ATOM = {**{a: i for i in (*MMA.values(), *GMMA.values()) for a in i.atoms},
            **{i.atom: i for i in (*LDMATRIX.values(), *STMATRIX.values(), *CP_ASYNC.values()) if i.atom}}
_BY_PTX = {}
for _ins in _ALL.values():
    _BY_PTX.setdefault(_ins.ptx, _ins)


def instruction(name, kind: str | None = None) -> Instruction:
    """The registry entry called ``name``: a ``labkit.cuda.ptx`` name, a CuTe atom name or the
    PTX text (an entry is returned as is). ``kind`` (``"mma"``, ``"wgmma"``, ``"ldmatrix"``,
    ``"stmatrix"``, ...) restricts the family.

    >>> instruction("SM75_16x8x8_F32F16F16F32_TN").name
    'mma_m16n8k8_f32f16f16f32'
    >>> instruction("SM80_16x8x32_S32U8U8S32_TN")
    Traceback (most recent call last):
      ...
    labkit.errors.InstructionError: no instruction named 'SM80_16x8x32_S32U8U8S32_TN'; known: the labkit.cuda.ptx names ...
    """
    ins = name if isinstance(name, Instruction) else (
        _ALL.get(name) or _BY_ATOM.get(name) or _BY_PTX.get(name) if isinstance(name, str) else None)
    if ins is not None and (kind is None or ins.kind == kind):
        return ins
    pool = [n for n, i in _ALL.items() if (kind is None or i.kind == kind) and not n.startswith("wgmma_m")]
    what = f"{kind} instruction" if kind else "instruction"
    raise InstructionError(f"no {what} named {name!r}; known: the labkit.cuda.ptx names {', '.join(pool)}, "
                           "wgmma_m64n{N}k{K}_{d}{a}{b}_{ss|rs}, their CuTe atom names (SM80_16x8x16_F32F16F16F32_TN, "
                           "SM90_64x128x16_F32F16F16_SS, SM75_U32x4_LDSM_N ...) or their PTX text")


def require_sm(name, sm: int) -> Instruction:
    """The entry of ``name`` if a GPU of SM ``sm`` runs it (at least its minimum SM; exactly
    sm_90 for ``sm_90a`` PTX); else :class:`InstructionError`. The one arch check of labkit.

    >>> require_sm("mma_m16n8k8_f32f16f16f32", 75).min_sm
    75
    """
    ins = instruction(name)
    if not ins.runs_on(sm):
        raise InstructionError(f"{ins.name} ({ins.ptx}) needs {ins.need()}; this device is sm_{int(sm)}")
    return ins
