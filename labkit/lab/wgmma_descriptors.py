"""Hopper's shared-memory operands as CuTe lays them, and the descriptors that point at them.

The GMMA layout atoms (:mod:`labkit.atoms.gmma_layouts`) and an operand tiled from them, the
descriptor CuTe builds from that layout (:mod:`labkit.atoms.gmma_desc`), where the descriptor puts
each core matrix, and a matrix staged into a byte array through the layout. Chapter 6g and lab 8
read these through :mod:`labkit.lab.wgmma`.
"""

from __future__ import annotations

import numpy as np

from labkit.atoms.gmma_desc import GmmaDescriptor, make_gmma_desc, smem_tile
from labkit.atoms.gmma_layouts import GMMA_SWIZZLES, gmma_element_bits, gmma_layout_atom
from labkit.errors import LayoutError
from labkit.layout import S, ComposedLayout, Swizzle, size, tile_to_shape
from labkit.sim.wgmma import operand_addresses

__all__ = ["LAYOUTS", "atom_table", "element_atom", "operand_layout", "descriptor", "descriptor_table",
           "core_matrix_starts", "stage"]

LAYOUTS = {"INTERLEAVE": ("INTER", 16), "B128": ("SW128", 64)}
"""The two K-major layouts lab 8 runs: CuTe's atom and the K of the tile (one k16 step, or one
128-byte row of halves)."""


def _w(swizzle: str) -> int:
    return {"INTER": 1, "SW32": 2, "SW64": 4, "SW128": 8}[swizzle]


def atom_table(element="f16") -> str:
    """The eight GMMA layout atoms for ``element``: CuTe's layout, rows x row bytes, and the
    descriptor's layout type.

    >>> print(atom_table().splitlines()[4])
    Layout_K_SW128_Atom   Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)  8 rows x 128 B  B128
    """
    bits = gmma_element_bits(element)
    rows = []
    for major in ("K", "MN"):
        for sw in GMMA_SWIZZLES:
            atom = gmma_layout_atom(major, sw, bits)
            row_bytes = 16 * _w(sw)
            lt = {"INTER": "INTERLEAVE", "SW32": "B32", "SW64": "B64", "SW128": "B128"}[sw]
            rows.append((f"Layout_{major}_{sw}_Atom", str(atom), f"8 rows x {row_bytes} B", lt))
    rows.insert(0, ("atom", "CuTe layout", "swizzle unit", "layout type"))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    return "\n".join("".join(c.ljust(w + 2) for c, w in zip(r[:3], widths)) + r[3] for r in rows)


def element_atom(major, swizzle, element="f16") -> ComposedLayout:
    """The GMMA atom with its byte swizzle written on element offsets (``Sw<B, M, 3>`` with
    ``2^M`` elements in 16 bytes), so that evaluating it gives where each element lies: the
    form the drawings take.

    >>> print(element_atom("K", "SW128"))
    Sw<3,3,3> o 0 o (_8,_64):(_64,_1)
    """
    bits = gmma_element_bits(element)
    atom = gmma_layout_atom(major, swizzle, bits)
    m = (128 // bits).bit_length() - 1
    return ComposedLayout(Swizzle(atom.layout_a.bits, m, 3), 0, atom.layout_b)


def operand_layout(major, swizzle, mn: int, k: int, element="f16") -> ComposedLayout:
    """CuTe's ``tile_to_shape(GMMA::Layout_{major}_{swizzle}_Atom<T>{}, (mn, k))``: an operand's
    tile in shared memory.

    >>> print(operand_layout("K", "SW128", 64, 64))
    Sw<3,4,3> o smem_ptr[16b](unset) o ((_8,_8),(_64,_1)):((_64,_512),(_1,_0))
    """
    return tile_to_shape(gmma_layout_atom(major, swizzle, gmma_element_bits(element)), (S(mn), S(k)))


def descriptor(major, swizzle, mn: int, k: int, kblock: int = 0, start: int = 0,
               element="f16") -> GmmaDescriptor:
    """``make_gmma_desc`` of k-block ``kblock`` (16 elements of K for 16-bit types) of the
    ``mn`` x ``k`` operand tile whose shared memory starts at byte ``start``.

    >>> d = descriptor("K", "SW128", 64, 64, kblock=1, start=0x400)
    >>> d.start_address_bytes, d.leading_bytes, d.stride_bytes, d.layout_type.name
    (1056, 16, 1024, 'B128')
    """
    bits = gmma_element_bits(element)
    kk = 256 // bits
    tile, addr = smem_tile(operand_layout(major, swizzle, mn, k, bits), (S(mn), S(kk)), (0, kblock),
                           start_address=start, element_bits=bits)
    return make_gmma_desc(major, tile, start_address=addr, element_bits=bits)


def descriptor_table(mn: int = 64, element="f16") -> str:
    """The descriptor of the first k-block of an ``mn``-row operand in every canonical layout:
    LBO and SBO in bytes, the layout type and the 64 bits.

    >>> print(descriptor_table().splitlines()[1])
    K   INTER  (64,16)    1024   128  INTERLEAVE  0x0000000800400000
    """
    bits = gmma_element_bits(element)
    lines = ["maj swz    tile        LBO   SBO  type        descriptor"]
    for major in ("K", "MN"):
        for sw in GMMA_SWIZZLES:
            atom = gmma_layout_atom(major, sw, bits)
            k = max(256 // bits, int(size(atom.layout_b.shape[1]))) if major == "K" else 256 // bits
            rows = max(mn, int(size(atom.layout_b.shape[0]))) if major == "MN" else mn
            d = descriptor(major, sw, rows, k, element=bits)
            lines.append(f"{major:<3} {sw:<6} ({rows},{k})".ljust(19)
                         + f"{d.leading_bytes:>6}{d.stride_bytes:>6}  {d.layout_type.name:<10}  0x{d.encode():016x}")
    return "\n".join(lines)


def core_matrix_starts(desc: int, rows: int, major: str = "K", element="f16") -> np.ndarray:
    """The shared-memory byte address where each 8 x 16-byte core matrix of a ``rows`` x K
    operand starts (its first row), as the descriptor ``desc`` places it: for K-major an array
    ``[rows // 8, 2]`` (8-row group, 16-byte chunk of K); for MN-major ``[rows // T, 2]`` (T
    elements of MN in 16 bytes, K rows 0-7 and 8-15).

    >>> d = descriptor("K", "INTER", 64, 16)
    >>> core_matrix_starts(d.encode(), 64)[:3].tolist()     # SBO = 128 down, LBO = 1024 across
    [[0, 1024], [128, 1152], [256, 1280]]
    """
    eb = gmma_element_bits(element) // 8
    t = 16 // eb
    addr = operand_addresses(int(desc), rows, major, eb)
    if major == "K":
        return addr[0::8, 0::t]
    return np.stack([addr[0::t, 0], addr[0::t, 8]], axis=1)


def stage(smem: np.ndarray, matrix, layout, start: int = 0) -> None:
    """Write ``matrix`` (mn x k, as float16) into the byte array ``smem`` at ``start`` through a
    GMMA ``layout`` (the swizzle acts on the absolute byte address, as the hardware's does)."""
    mat = np.asarray(matrix, dtype=np.float16)
    sw, inner = (layout.layout_a, layout.layout_b) if isinstance(layout, ComposedLayout) \
        else (Swizzle(0, 4, 3), layout)
    rows, cols = mat.shape
    if (rows, cols) != tuple(int(size(m)) for m in inner.shape):
        raise LayoutError(f"matrix: shape {mat.shape} is not the layout's {inner.shape}")
    offs = np.array([[int(inner(r, c)) for c in range(cols)] for r in range(rows)], dtype=np.int64)
    addr = np.asarray(sw(start + 2 * offs), dtype=np.int64)
    bits = mat.view(np.uint16)
    smem[addr] = (bits & 0xFF).astype(np.uint8)
    smem[addr + 1] = (bits >> 8).astype(np.uint8)
