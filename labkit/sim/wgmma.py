"""A numpy model of ``wgmma.mma_async``, M = 64, K = 16: A and B in shared memory (the SS form)
or A in registers and B in shared memory (the RS form).

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
hardware would. ``D = A · Bᵀ + D`` (B is held N x K), shape (64, N).

In the RS form each of the 128 threads holds four 32-bit registers of A, two 16-bit elements
each (the lower-indexed value in the low half); which element of the 64 x 16 A value ``v`` of
thread ``t`` is comes from the RS entry's TV layout, CuTe's ``GMMA::ALayout_64x16``:
``labkit.atoms.gmma_fragment.a_registers`` packs A by it, :func:`wgmma_rs` reads it back by it,
so a wrong layout there gives the hardware a differently placed A than the twin.

>>> import numpy as np
>>> from labkit.atoms.gmma_desc import GmmaDescriptor
>>> smem = np.zeros(4096, np.uint8)
>>> smem[:2048].view(np.float16)[:] = 1          # A: 64 x 16 ones, B: 8 x 16 ones
>>> da = GmmaDescriptor(leading_byte_offset=8, stride_byte_offset=16).encode()   # 128 B, 256 B
>>> db = GmmaDescriptor(start_address=64, leading_byte_offset=8, stride_byte_offset=16).encode()
>>> wgmma_ss(smem, da, db, n=8)[0, :3]
array([16., 16., 16.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from ..errors import LayoutError
from ..atoms.gmma_desc import LayoutType, decode
from ..atoms.gmma_fragment import a_from_registers

__all__ = ["wgmma_ss", "wgmma_ss_steps", "wgmma_rs", "wgmma_rs_steps", "operand_addresses", "swizzled"]

_W = {LayoutType.INTERLEAVE: 1, LayoutType.B32: 2, LayoutType.B64: 4, LayoutType.B128: 8}
_B = {LayoutType.INTERLEAVE: 0, LayoutType.B32: 1, LayoutType.B64: 2, LayoutType.B128: 3}
_ELEMENTS = {"f16": 2, "bf16": 2}


def operand_addresses(desc: int, rows: int, major: str, element_bytes: int = 2) -> np.ndarray:
    """The swizzled shared-memory byte address of every element of a ``rows`` x K operand
    (K = 32 bytes) described by ``desc``: an int64 array of shape (rows, 32 // element_bytes).

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


def _read(smem, addr, element):
    if addr.max() + 2 > smem.size:
        raise LayoutError(f"the descriptor reads byte {int(addr.max()) + 1}, past the "
                          f"{smem.size}-byte shared memory")
    lo = smem[addr].astype(np.uint16)
    hi = smem[addr + 1].astype(np.uint16)
    bits = lo | (hi << 8)
    if element == "f16":
        return bits.view(np.float16).astype(np.float64)
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _check_types(n, element, accum):
    if element not in _ELEMENTS:
        raise LayoutError(f"element must be 'f16' or 'bf16', got {element!r}")
    if accum not in ("f32", "f16") or (element == "bf16" and accum != "f32"):
        raise LayoutError(f"accum={accum!r}: f16 inputs accumulate in f32 or f16, bf16 in f32")
    if isinstance(n, bool) or not isinstance(n, int) or not (8 <= n <= 256 and n % 8 == 0):
        raise LayoutError(f"n={n!r} must be a multiple of 8 from 8 to 256")


def _check_smem(smem):
    if not isinstance(smem, np.ndarray) or smem.dtype != np.uint8 or smem.ndim != 1:
        raise LayoutError("smem must be a one-dimensional numpy uint8 array")


def _accumulate(a, b, n, accum, d):
    out = np.float32 if accum == "f32" else np.float16
    c = np.zeros((64, n)) if d is None else np.asarray(d, dtype=np.float64)
    if c.shape != (64, n):
        raise LayoutError(f"d must have shape (64, {n}), got {c.shape}")
    return (c + a @ b.T).astype(out)


def wgmma_rs(a, smem, desc_b: int, n: int, element: str = "f16", accum: str = "f32", d=None,
             b_major: str = "K") -> np.ndarray:
    """``D = A · Bᵀ + D`` for the RS ``wgmma.mma_async.sync.aligned.m64n{n}k16.{accum}.{element}``:
    A from the warpgroup's registers ``a`` (``(128, 4)`` uint32, ``gmma_fragment.a_registers``), B (n x 16)
    from ``smem`` through ``desc_b``, ``b_major`` its transpose choice. Returns (64, n).

    >>> import numpy as np
    >>> from labkit.atoms.gmma_desc import GmmaDescriptor
    >>> from labkit.atoms.gmma_fragment import a_registers
    >>> smem = np.zeros(256, np.uint8)
    >>> smem.view(np.float16)[:] = 1                       # B: 8 x 16 ones
    >>> db = GmmaDescriptor(leading_byte_offset=8, stride_byte_offset=16).encode()
    >>> wgmma_rs(a_registers(np.full((64, 16), 2.0)), smem, db, n=8)[63, 7]
    np.float32(32.0)
    """
    _check_smem(smem)
    _check_types(n, element, accum)
    A = a_from_registers(a, element)
    b = _read(smem, operand_addresses(desc_b, n, b_major), element)
    return _accumulate(A, b, n, accum, d)


def wgmma_rs_steps(smem, steps, n: int, element: str = "f16", accum: str = "f32",
                   b_major: str = "K") -> np.ndarray:
    """A chain of RS ``wgmma`` steps: ``steps`` holds ``(a, desc_b)`` per step (``a`` the
    ``(128, 4)`` registers of that step's A); the first step has scale-d 0, each later one adds
    to D, rounded to the accumulator type after every step. Returns (64, n)."""
    steps = list(steps)
    if not steps or any(len(step) != 2 for step in steps):
        raise LayoutError("steps must hold one (a, desc_b) pair per step, at least one")
    d = None
    for a, db in steps:
        d = wgmma_rs(a, smem, int(db), n, element, accum, d=d, b_major=b_major)
    return d


def wgmma_ss(smem, desc_a: int, desc_b: int, n: int, element: str = "f16", accum: str = "f32",
             d=None, a_major: str = "K", b_major: str = "K") -> np.ndarray:
    """``D = A · Bᵀ + D`` for ``wgmma.mma_async.sync.aligned.m64n{n}k16.{accum}.{element}`` with
    A (64 x 16) and B (n x 16) read from ``smem`` (a uint8 array) through their descriptors;
    ``a_major``/``b_major`` are the instruction's transpose choices (K or MN). Returns (64, n).
    """
    _check_smem(smem)
    _check_types(n, element, accum)
    a = _read(smem, operand_addresses(desc_a, 64, a_major), element)
    b = _read(smem, operand_addresses(desc_b, n, b_major), element)
    return _accumulate(a, b, n, accum, d)


def wgmma_ss_steps(smem, descs, n: int, element: str = "f16", accum: str = "f32", a_major: str = "K",
                   b_major: str = "K") -> np.ndarray:
    """A chain of SS ``wgmma`` steps as a kernel issues them: ``descs`` holds ``(desc_a, desc_b)``
    per step; the first step has scale-d 0 (``D = A·Bᵀ``), each later one adds to D, which is
    rounded to the accumulator type after every step. Returns (64, n).

    >>> import numpy as np
    >>> from labkit.atoms.gmma_desc import GmmaDescriptor
    >>> smem = np.zeros(4096, np.uint8)
    >>> smem[:2048].view(np.float16)[:] = 1
    >>> da = GmmaDescriptor(leading_byte_offset=8, stride_byte_offset=16).encode()
    >>> db = GmmaDescriptor(start_address=64, leading_byte_offset=8, stride_byte_offset=16).encode()
    >>> wgmma_ss_steps(smem, [(da, db), (da, db)], n=8)[0, 0]
    np.float32(32.0)
    """
    descs = [tuple(int(x) for x in step) for step in descs]
    if not descs or any(len(step) != 2 for step in descs):
        raise LayoutError("descs must hold one (desc_a, desc_b) pair per step, at least one")
    d = None
    for da, db in descs:
        d = wgmma_ss(smem, da, db, n, element, accum, d=d, a_major=a_major, b_major=b_major)
    return d
