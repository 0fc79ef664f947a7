"""One wgmma operand in shared memory, laid out as CuTe lays it: a GMMA layout atom tiled over the
operand, the byte address of each element, and one descriptor per K = 16 step.

CuTe's SM90 kernels build ``tile_to_shape(GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>,
(rows, K))`` for A (64 x K) or B (N x K), and hand each ``wgmma`` the descriptor of the k-th
``(rows, 16)`` slice (``make_gmma_desc`` of ``local_tile``). :class:`GmmaOperand` is that, with
labkit's :func:`~labkit.atoms.gmma_layouts.gmma_layout_atom`, :func:`~labkit.atoms.gmma_desc.smem_tile`
and :func:`~labkit.atoms.gmma_desc.make_gmma_desc`. The swizzle acts on the absolute byte
address, so an operand placed at a 1024-byte aligned ``start`` can be written into a byte image
whose address 0 is itself 1024-byte aligned in shared memory (the probe kernel's array).

>>> op = gmma_operand("K", "SW128", 64, 64)
>>> op.byte_addresses()[1, :9:8].tolist()       # row 1: its first two 16-byte chunks swapped
[144, 128]
>>> [hex(d.encode()) for d in op.descriptors()][:2]
['0x4000004000010000', '0x4000004000010002']
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import LayoutError
from ..layout import S, tile_to_shape
from .gmma_desc import make_gmma_desc, smem_tile
from .gmma_layouts import gmma_element_bits, gmma_layout_atom, gmma_major, _swizzle_name

__all__ = ["GmmaOperand", "gmma_operand", "atom_row_elements", "fits", "k_step"]

def k_step(element_bits=16) -> int:
    """K of one dense ``wgmma``: 32 bytes of the element type (f16/bf16 16, tf32 8, fp8 and
    int8 32), as the registry's GMMA entries have it.

    >>> k_step(16), k_step("tf32"), k_step("float_e4m3_t")
    (16, 8, 32)
    """
    return 256 // gmma_element_bits(element_bits, "element_bits")


def atom_row_elements(swizzle, element_bits: int = 16) -> int:
    """Elements in one row of a GMMA atom: 16, 32, 64 or 128 bytes (INTER, SW32, SW64, SW128).

    >>> atom_row_elements("SW128"), atom_row_elements("INTER")
    (64, 8)
    """
    b = {"INTER": 0, "SW32": 1, "SW64": 2, "SW128": 3}[_swizzle_name(swizzle)]
    return (128 << b) // gmma_element_bits(element_bits, "element_bits")


def fits(major, swizzle, rows: int, k: int, element_bits: int = 16) -> bool:
    """Whether CuTe's atom tiles a ``rows`` x ``k`` operand (``tile_to_shape`` needs the atom to
    divide it): an MN-major atom is one row of the swizzle wide along MN, a K-major one along K.

    >>> fits("MN", "SW32", 8, 64), fits("MN", "INTER", 8, 64), fits("K", "SW128", 8, 64)
    (False, True, True)
    """
    row = atom_row_elements(swizzle, element_bits)
    if gmma_major(major) == "MN":
        return rows % row == 0 and k % 8 == 0
    return rows % 8 == 0 and k % row == 0


@dataclass(frozen=True)
class GmmaOperand:
    """A ``rows`` x ``k`` operand (mode 0 is M or N, mode 1 is K) of ``element_bits``-bit elements
    at byte ``start`` of shared memory, in CuTe's GMMA layout ``major``/``swizzle``."""

    major: str
    swizzle: str
    rows: int
    k: int
    start: int = 0
    element_bits: int = 16

    @property
    def layout(self):
        """``tile_to_shape(atom, (rows, k))``: the ComposedLayout ``Sw<B,4,3> o smem_ptr o L``."""
        return tile_to_shape(gmma_layout_atom(self.major, self.swizzle, self.element_bits),
                             (S(self.rows), S(self.k)))

    @property
    def nbytes(self) -> int:
        return self.rows * self.k * self.element_bits // 8

    def byte_addresses(self) -> np.ndarray:
        """``(rows, k)`` int64: the shared-memory byte address of every element, swizzle applied
        (CuTe's swizzle pointer: ``Sw(start + bytes(L(mn, k)))``)."""
        lay = self.layout
        offs = np.asarray(lay.layout_b.offsets(), np.int64).reshape(self.k, self.rows).T
        return lay.layout_a(self.start + offs * self.element_bits // 8)

    def descriptors(self) -> list:
        """One :class:`~labkit.atoms.gmma_desc.GmmaDescriptor` per wgmma K step (:func:`k_step`):
        ``make_gmma_desc`` of the ``(rows, K)`` slice at ``(0, s)``, its start address moved as
        ``local_tile`` moves it."""
        lay = self.layout
        ks = k_step(self.element_bits)
        out = []
        for s in range(self.k // ks):
            tile, start = smem_tile(lay, (S(self.rows), S(ks)), (0, s), self.start, self.element_bits)
            out.append(make_gmma_desc(self.major, tile, start, self.element_bits))
        return out

    def store(self, image: np.ndarray, bits: np.ndarray) -> None:
        """Write the element codes ``bits`` (``rows`` x ``k``, 8-, 16- or 32-bit) into the byte
        ``image``, little-endian."""
        nbytes = self.element_bits // 8
        bits = np.asarray(bits).astype(np.uint64)
        if bits.shape != (self.rows, self.k):
            raise LayoutError(f"store: bits must have shape ({self.rows}, {self.k}); got {bits.shape}")
        addr = self.byte_addresses()
        if int(addr.max()) + nbytes > image.size:
            raise LayoutError(f"store: the operand reaches byte {int(addr.max()) + nbytes - 1}, past the "
                              f"{image.size}-byte image")
        for b in range(nbytes):
            image[addr + b] = (bits >> np.uint64(8 * b)) & np.uint64(0xFF)


def gmma_operand(major, swizzle, rows: int, k: int, start: int = 0, element_bits=16) -> GmmaOperand:
    """A :class:`GmmaOperand`, its arguments checked: ``rows`` a multiple of 8, ``k`` of 16, the
    atom dividing the operand (:func:`fits`), ``start`` 1024-byte aligned (the swizzle's period,
    so the descriptors' base offset is 0).

    >>> gmma_operand("MN", "SW64", 8, 16)
    Traceback (most recent call last):
      ...
    labkit.errors.LayoutError: an MN-major SW64 atom is 32 elements wide along MN: it does not tile 8 rows (CuTe's tile_to_shape refuses); take a narrower swizzle
    """
    major = gmma_major(major)
    swizzle = _swizzle_name(swizzle)
    bits = gmma_element_bits(element_bits, "element_bits")
    for name, v, mult in (("rows", rows, 8), ("k", k, k_step(bits))):
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0 or v % mult:
            raise LayoutError(f"{name}={v!r} must be a positive multiple of {mult}")
    if isinstance(start, bool) or not isinstance(start, int) or start < 0 or start % 1024:
        raise LayoutError(f"start={start!r} must be a 1024-byte aligned byte address (the swizzle "
                          "repeats every 1024 bytes; the descriptor's base offset stays 0)")
    if not fits(major, swizzle, rows, k, bits):
        row = atom_row_elements(swizzle, bits)
        if major == "MN":
            raise LayoutError(f"an MN-major {swizzle} atom is {row} elements wide along MN: it does not "
                              f"tile {rows} rows (CuTe's tile_to_shape refuses); take a narrower swizzle")
        raise LayoutError(f"a K-major {swizzle} atom is {row} elements wide along K: it does not tile "
                          f"k={k} (CuTe's tile_to_shape refuses)")
    return GmmaOperand(major, swizzle, rows, k, start, bits)
