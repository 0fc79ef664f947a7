"""A numpy model of ``wgmma.mma_async`` (M = 64, K = 32 bytes of the element type: 16 for
f16/bf16, 8 for tf32, 32 for e4m3/e5m2/s8/u8): A and B in shared memory (the SS form) or A in
registers and B in shared memory (the RS form). Every function takes the registry entry it
models (``labkit.atoms.instructions.GMMA``: an entry, its name or its CuTe atom name), which
gives N, K and the element types of A, B and the accumulator.

The operands are read the way the PTX ISA's "Shared Memory Matrix Layout" describes, from the
descriptors alone (``labkit.atoms.gmma_desc``): an operand is made of *core matrices* of 8 rows
of 16 bytes; T = 16 bytes / element size elements share a row of one. With W = 1, 2, 4, 8 the
16-byte chunks per swizzle row (INTERLEAVE, 32B, 64B, 128B), the byte offset of element
(mn, k) of a 64 x 16 (A) or N x 16 (B) operand is

* K-major, INTERLEAVE: row ``mn % 8`` at 16 B, 8-row group ``mn // 8`` at SBO; chunk ``k // T``
  at LBO.
* K-major, swizzled: row ``mn % 8`` at ``16 W`` B, group at SBO; chunk ``k // T`` at 16 B.
* MN-major, INTERLEAVE: ``mn // T`` at SBO; K row ``k % 8`` at 16 B, ``k // 8`` at LBO.
* MN-major, swizzled: chunk ``(mn // T) % W`` at 16 B, ``mn // (T W)`` at LBO; K row ``k % 8``
  at ``16 W`` B, ``k // 8`` at SBO.

plus ``(mn or k) % T`` elements inside the chunk. The start address is added and the swizzle then
permutes the address bits: bits [4, 4+B) are XORed with the phase ``((address >> 7) - base_offset)
mod 2^B`` (B = 0, 1, 2, 3), so with base offset 0 (what CuTe writes) bits [4, 4+B) are XORed with
bits [7, 7+B) of the absolute shared-memory address, the swizzle of CuTe's ``Sw<B,4,3>`` pointer,
wherever the tile starts; a base offset ``b`` moves the pattern's origin by ``b`` rows of 128 bytes,
which is what a tile whose pattern restarts at a start address of ``(start >> 7) % 8 = b`` needs.
(On an H200 this rule predicted the device's D for all 96 combinations of a 128-byte swizzled
K-major A at six start addresses, laid out both ways, with each base offset 0..7, the 88 wrong
ones included.) A wrong LBO, SBO, base offset or swizzle mode reads the wrong bytes, as the
hardware would. ``D = A · Bᵀ + D`` (B is held N x K), shape (64, N): exact in float64, then
rounded to the accumulator (f32 or f16) after each instruction; s32 sums wrap modulo 2^32.
tf32 operands are read as 32-bit floats whose low 13 mantissa bits the tensor core ignores.

In the RS form each of the 128 threads holds four 32-bit registers of A (the lower-indexed
value in the low bits); which element of the 64 x K A value ``v`` of thread ``t`` is comes from
the RS entry's TV layout, CuTe's ``GMMA::ALayout_64x{K}``:
``labkit.atoms.gmma_fragment.a_registers`` packs A by it, :func:`wgmma_rs` reads it back by it,
so a wrong layout there gives the hardware a differently placed A than the twin.

>>> import numpy as np
>>> from labkit.atoms.gmma_desc import GmmaDescriptor
>>> smem = np.zeros(4096, np.uint8)
>>> smem[:2048].view(np.float16)[:] = 1          # A: 64 x 16 ones, B: 8 x 16 ones
>>> da = GmmaDescriptor(leading_byte_offset=8, stride_byte_offset=16).encode()   # 128 B, 256 B
>>> db = GmmaDescriptor(start_address=64, leading_byte_offset=8, stride_byte_offset=16).encode()
>>> wgmma_ss("SM90_64x8x16_F32F16F16_SS", smem, da, db)[0, :3]
array([16., 16., 16.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from ..elements import element, from_bits, wrap
from ..errors import LayoutError
from ..atoms.gmma_desc import LayoutType, decode
from ..atoms.gmma_fragment import a_from_registers
from ..atoms.instructions import MmaInstruction, instruction

__all__ = ["wgmma_ss", "wgmma_ss_steps", "wgmma_rs", "wgmma_rs_steps", "operand_addresses", "swizzled",
           "gmma_entry"]

_W = {LayoutType.INTERLEAVE: 1, LayoutType.B32: 2, LayoutType.B64: 4, LayoutType.B128: 8}
_B = {LayoutType.INTERLEAVE: 0, LayoutType.B32: 1, LayoutType.B64: 2, LayoutType.B128: 3}


def gmma_entry(ins, form=None) -> MmaInstruction:
    """The registry's wgmma entry for ``ins`` (an entry, its name or its CuTe atom name)."""
    g = instruction(ins, "wgmma")
    if form is not None and g.form != form:
        raise LayoutError(f"{g.name} is the {g.form} form; this twin models the {form} form")
    return g


def operand_addresses(desc: int, rows: int, major: str, element_bytes: int = 2) -> np.ndarray:
    """The swizzled shared-memory byte address of every element of a ``rows`` x K operand
    (K = 32 bytes of ``element_bytes``-byte elements) described by ``desc``: an int64 array of
    shape (rows, 32 // element_bytes).

    >>> from labkit.atoms.gmma_desc import GmmaDescriptor
    >>> d = GmmaDescriptor(stride_byte_offset=64, leading_byte_offset=1, layout_type="B128")
    >>> operand_addresses(d.encode(), 64, "K")[1, :9:8].tolist()      # row 1: chunks 1, 0 swapped
    [144, 128]
    """
    d = decode(desc)
    if major not in ("K", "MN"):
        raise LayoutError(f"major must be 'K' or 'MN', got {major!r}")
    if rows <= 0 or rows % 8:
        raise LayoutError(f"rows={rows} must be a positive multiple of 8")
    t = 16 // element_bytes
    w = _W[d.layout_type]
    lbo, sbo = d.leading_bytes, d.stride_bytes
    mn = np.arange(rows)[:, None]
    k = np.arange(2 * t)[None, :]
    inter = d.layout_type is LayoutType.INTERLEAVE
    if major == "K":
        off = (mn % 8) * (16 if inter else 16 * w) + (mn // 8) * sbo + (k % t) * element_bytes
        off = off + (k // t) * (lbo if inter else 16)
    else:
        within = (mn % t) * element_bytes
        if inter:
            off = within + (mn // t) * sbo + (k % 8) * 16 + (k // 8) * lbo
        else:
            off = (within + ((mn // t) % w) * 16 + (mn // (t * w)) * lbo
                   + (k % 8) * 16 * w + (k // 8) * sbo)
    return swizzled(d.start_address_bytes + off, d.layout_type, d.base_offset)


def swizzled(address, layout_type, base_offset: int = 0):
    """The byte address the tensor core reads for the unswizzled ``address`` (int or array): bits
    [4, 4+B) XORed with ``((address >> 7) - base_offset) mod 2^B``; with ``base_offset`` 0 it is
    CuTe's ``Sw<B,4,3>`` of the address.

    >>> from labkit.atoms.gmma_desc import LayoutType
    >>> swizzled(3 * 128, LayoutType.B128), swizzled(3 * 128, LayoutType.B128, base_offset=3)
    (432, 384)
    """
    bits = _B[LayoutType(layout_type)]
    a = np.asarray(address, dtype=np.int64)
    phase = ((a >> 7) - int(base_offset)) & ((1 << bits) - 1)
    out = a ^ (phase << 4)
    return int(out) if out.ndim == 0 else out


def _read(smem, addr, kind):
    e = element(kind)
    nbytes = e.bits // 8
    if addr.max() + nbytes > smem.size:
        raise LayoutError(f"the descriptor reads byte {int(addr.max()) + nbytes - 1}, past the "
                          f"{smem.size}-byte shared memory")
    bits = np.zeros(addr.shape, np.uint64)
    for i in range(nbytes):
        bits |= smem[addr + i].astype(np.uint64) << np.uint64(8 * i)
    if e.name == "tf32":
        bits &= np.uint64(0xFFFFE000)            # the tensor core reads the upper 19 bits
    return from_bits(bits.astype(e.dtype), e)


def _check_smem(smem):
    if not isinstance(smem, np.ndarray) or smem.dtype != np.uint8 or smem.ndim != 1:
        raise LayoutError("smem must be a one-dimensional numpy uint8 array")


def _check_major(g, which, major):
    if major not in ("K", "MN"):
        raise LayoutError(f"{which}_major must be 'K' or 'MN', got {major!r}")
    if major == "MN" and element(g.a_type).bits != 16:
        raise LayoutError(f"{which}_major='MN': {g.name} reads {g.a_type}/{g.b_type}, which wgmma "
                          "reads K-major only (only 16-bit operands may be MN-major)")


def _accumulate(g, a, b, d):
    n = g.n
    c = np.zeros((64, n)) if d is None else np.asarray(d, dtype=np.float64)
    if c.shape != (64, n):
        raise LayoutError(f"d must have shape (64, {n}), got {c.shape}")
    acc = g.acc_type
    if acc == "s32":
        total = np.asarray(np.round(c), np.int64) + np.asarray(a, np.int64) @ np.asarray(b, np.int64).T
        return wrap(total, "s32").view(np.int32)
    return (c + a @ b.T).astype(np.float32 if acc == "f32" else np.float16)


def wgmma_rs(ins, a, smem, desc_b: int, d=None, b_major: str = "K") -> np.ndarray:
    """``D = A · Bᵀ + D`` for the RS entry ``ins`` (``wgmma.mma_async.sync.aligned.m64n{N}k{K}``
    with A in registers): A from the warpgroup's registers ``a`` (``(128, 4)`` uint32,
    ``gmma_fragment.a_registers``), B (N x K) from ``smem`` through ``desc_b``, ``b_major`` its
    transpose choice. Returns (64, N).

    >>> import numpy as np
    >>> from labkit.atoms.gmma_desc import GmmaDescriptor
    >>> from labkit.atoms.gmma_fragment import a_registers
    >>> smem = np.zeros(256, np.uint8)
    >>> smem.view(np.float16)[:] = 1                       # B: 8 x 16 ones
    >>> db = GmmaDescriptor(leading_byte_offset=8, stride_byte_offset=16).encode()
    >>> wgmma_rs("SM90_64x8x16_F32F16F16_RS", a_registers(np.full((64, 16), 2.0)), smem, db)[63, 7]
    np.float32(32.0)
    """
    g = gmma_entry(ins, "RS")
    _check_smem(smem)
    _check_major(g, "b", b_major)
    A = a_from_registers(a, g.a_type)
    b = _read(smem, operand_addresses(desc_b, g.n, b_major, element(g.b_type).bits // 8), g.b_type)
    return _accumulate(g, A, b, d)


def wgmma_rs_steps(ins, smem, steps, b_major: str = "K") -> np.ndarray:
    """A chain of RS ``wgmma`` steps of entry ``ins``: ``steps`` holds ``(a, desc_b)`` per step
    (``a`` the ``(128, 4)`` registers of that step's A); the first step has scale-d 0, each later
    one adds to D, rounded to the accumulator type after every step. Returns (64, N)."""
    steps = list(steps)
    if not steps or any(len(step) != 2 for step in steps):
        raise LayoutError("steps must hold one (a, desc_b) pair per step, at least one")
    d = None
    for a, db in steps:
        d = wgmma_rs(ins, a, smem, int(db), d=d, b_major=b_major)
    return d


def wgmma_ss(ins, smem, desc_a: int, desc_b: int, d=None, a_major: str = "K",
             b_major: str = "K") -> np.ndarray:
    """``D = A · Bᵀ + D`` for the SS entry ``ins`` (``wgmma.mma_async.sync.aligned.m64n{N}k{K}``)
    with A (64 x K) and B (N x K) read from ``smem`` (a uint8 array) through their descriptors;
    ``a_major``/``b_major`` are the instruction's transpose choices (K or MN; MN for 16-bit
    operands only). Returns (64, N).
    """
    g = gmma_entry(ins, "SS")
    _check_smem(smem)
    _check_major(g, "a", a_major)
    _check_major(g, "b", b_major)
    a = _read(smem, operand_addresses(desc_a, 64, a_major, element(g.a_type).bits // 8), g.a_type)
    b = _read(smem, operand_addresses(desc_b, g.n, b_major, element(g.b_type).bits // 8), g.b_type)
    return _accumulate(g, a, b, d)


def wgmma_ss_steps(ins, smem, descs, a_major: str = "K", b_major: str = "K") -> np.ndarray:
    """A chain of SS ``wgmma`` steps of entry ``ins`` as a kernel issues them: ``descs`` holds
    ``(desc_a, desc_b)`` per step; the first step has scale-d 0 (``D = A·Bᵀ``), each later one
    adds to D, which is rounded to the accumulator type after every step. Returns (64, N).

    >>> import numpy as np
    >>> from labkit.atoms.gmma_desc import GmmaDescriptor
    >>> smem = np.zeros(4096, np.uint8)
    >>> smem[:2048].view(np.float16)[:] = 1
    >>> da = GmmaDescriptor(leading_byte_offset=8, stride_byte_offset=16).encode()
    >>> db = GmmaDescriptor(start_address=64, leading_byte_offset=8, stride_byte_offset=16).encode()
    >>> wgmma_ss_steps("wgmma_m64n8k16_f32f16f16_ss", smem, [(da, db), (da, db)])[0, 0]
    np.float32(32.0)
    """
    descs = [tuple(int(x) for x in step) for step in descs]
    if not descs or any(len(step) != 2 for step in descs):
        raise LayoutError("descs must hold one (desc_a, desc_b) pair per step, at least one")
    d = None
    for da, db in descs:
        d = wgmma_ss(ins, smem, da, db, d=d, a_major=a_major, b_major=b_major)
    return d
