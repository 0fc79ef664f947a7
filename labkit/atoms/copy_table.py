"""The copy instructions as data: ``ldmatrix``, ``stmatrix``, ``cp.async`` and ``cvta.to.shared``.

CuTe's ``Copy_Traits`` TV layouts over bits (``include/cute/atom/copy_traits_sm75.hpp``,
``copy_traits_sm80.hpp``, ``copy_traits_sm90.hpp``) and the PTX ISA's lane rules of
ldmatrix/stmatrix. Minimum SMs from the PTX ISA's "Target ISA notes": ldmatrix sm_75, cp.async
sm_80, stmatrix sm_90.

>>> LDMATRIX["ldmatrix_x4_trans"].atom, STMATRIX["stmatrix_x4"].ptx
('SM75_U16x8_LDSM_T', 'stmatrix.sync.aligned.m8n8.x4.shared.b16')
"""

from __future__ import annotations

from .records import CpAsyncInstruction, Instruction, LdmatrixInstruction, StmatrixInstruction

__all__ = ["LDMATRIX", "STMATRIX", "CP_ASYNC", "ADDRESS", "matrix_row_lane", "lane_row",
           "matrix_element"]


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
    return CpAsyncInstruction(name=name, ptx=ptx, min_sm=80, kind="cp.async", threads=1, level=level,
                              bytes=16 if level else 0, atom=atom, src_bits=bits, dst_bits=bits)


CP_ASYNC = {i.name: i for i in (
    _cp("cp_async_16", "cp.async.ca.shared.global [dst], [src], 16", "ca", "SM80_CP_ASYNC_CACHEALWAYS"),
    _cp("cp_async_cg_16", "cp.async.cg.shared.global [dst], [src], 16", "cg", "SM80_CP_ASYNC_CACHEGLOBAL"),
    _cp("cp_async_commit_group", "cp.async.commit_group"),
    _cp("cp_async_wait_group", "cp.async.wait_group n"),
    _cp("cp_async_wait_all", "cp.async.wait_all"),
)}
"""The cp.async copies and fences by ``labkit.cuda.ptx`` name."""

ADDRESS = {"smem_addr": Instruction("smem_addr", "cvta.to.shared.u64", 0, "address", threads=1)}
"""Shared-address conversion (any GPU)."""

