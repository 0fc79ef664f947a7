"""The TMA / GMMA / UMMA shared-memory swizzle modes as CuTe swizzles.

A swizzle mode arranges a tile in *atoms* of 8 rows x N bytes (N = 16, 32, 64,
128). Inside an atom every 16-byte chunk keeps its 16 bytes together; the
chunks of one row are permuted by XOR:

    physical chunk = logical chunk XOR ((address // 128) % (N // 16))

i.e. address bits ``[4, 4+B)`` are XORed with bits ``[7, 7+B)`` where
``B = log2(N/16)``. On byte addresses this is CuTe's ``Swizzle<B,4,3>``: the
``Layout_K_{INTER,SW32,SW64,SW128}_Atom`` of ``cute/atom/mma_traits_sm90_gmma.hpp``
(``Swizzle<0,4,3>``, ``<1,4,3>``, ``<2,4,3>``, ``<3,4,3>``), the swizzles that
``get_tma_swizzle_bits`` maps to ``CU_TENSOR_MAP_SWIZZLE_{NONE,32B,64B,128B}``.

The XOR source is the 128-byte *line* index, not the N-byte row index: in a
SWIZZLE_64B atom, rows 0-1 are not permuted, rows 2-3 swap chunk pairs, and so on;
the pattern repeats every 8 x N bytes (one atom).

On element offsets (``e`` bytes per element) the same permutation is
``Swizzle<B, 4 - log2(e), 3>``: B and S stay, the base M drops by the bits
that address a byte inside an element. 128B on fp16 is ``Swizzle<3,3,3>``, the
swizzle of CUTLASS's ``sgemm_sm80`` shared-memory tile.

>>> print(swizzle_atom("SWIZZLE_128B", "fp16"))
Sw<3,3,3> o _0 o (_8,_64):(_64,_1)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from labkit.elements import element_bits as _element_bits
from labkit.errors import LayoutError
from labkit.layout import S, Swizzle, composition, make_composed_layout, make_layout

__all__ = [
    "SwizzleMode",
    "SWIZZLE_MODES",
    "swizzle_mode",
    "element_bits",
    "byte_swizzle",
    "element_swizzle",
    "swizzle_atom",
    "swizzle_figure",
    "SwizzleChoice",
    "recommend_swizzle",
    "xor_toy_layout",
]


@dataclass(frozen=True)
class SwizzleMode:
    """One shared-memory swizzle mode: atoms of 8 rows x ``row_bytes`` bytes.

    ``bits`` is CuTe's B (``log2(row_bytes / 16)``); ``tma``, ``gmma`` and
    ``umma`` are the mode's codes in ``CUtensorMapSwizzle``, the SM90 GMMA
    descriptor's ``LayoutType`` and the SM100 UMMA descriptor's ``LayoutType``.

    >>> m = swizzle_mode("SWIZZLE_64B")
    >>> m.row_bytes, m.bits, m.atom_bytes, m.chunks
    (64, 2, 512, 4)
    """

    name: str
    row_bytes: int
    bits: int
    tma: int
    gmma: int
    umma: int

    @property
    def atom_bytes(self) -> int:
        """Bytes in one atom: 8 rows x ``row_bytes``."""
        return 8 * self.row_bytes

    @property
    def chunks(self) -> int:
        """16-byte chunks per atom row."""
        return self.row_bytes // 16

    def __str__(self) -> str:
        return self.name


# Codes: CUtensorMapSwizzle (cuda.h), cute::SM90::GMMA::LayoutType (mma_sm90_desc.hpp),
# cute::UMMA::LayoutType (mma_sm100_desc.hpp).
INTERLEAVE = SwizzleMode("INTERLEAVE", 16, 0, tma=0, gmma=0, umma=0)
SWIZZLE_32B = SwizzleMode("SWIZZLE_32B", 32, 1, tma=1, gmma=3, umma=6)
SWIZZLE_64B = SwizzleMode("SWIZZLE_64B", 64, 2, tma=2, gmma=2, umma=4)
SWIZZLE_128B = SwizzleMode("SWIZZLE_128B", 128, 3, tma=3, gmma=1, umma=2)

SWIZZLE_MODES = (INTERLEAVE, SWIZZLE_32B, SWIZZLE_64B, SWIZZLE_128B)
"""The four modes, narrowest first."""

_ALIASES = {
    "INTERLEAVE": INTERLEAVE, "NONE": INTERLEAVE, "SWIZZLE_NONE": INTERLEAVE, "INTER": INTERLEAVE,
    "16B": INTERLEAVE,
    "SWIZZLE_32B": SWIZZLE_32B, "32B": SWIZZLE_32B, "SW32": SWIZZLE_32B, "B32": SWIZZLE_32B,
    "SWIZZLE_64B": SWIZZLE_64B, "64B": SWIZZLE_64B, "SW64": SWIZZLE_64B, "B64": SWIZZLE_64B,
    "SWIZZLE_128B": SWIZZLE_128B, "128B": SWIZZLE_128B, "SW128": SWIZZLE_128B, "B128": SWIZZLE_128B,
}
_BY_BYTES = {m.row_bytes: m for m in SWIZZLE_MODES}


def swizzle_mode(mode: Any) -> SwizzleMode:
    """The :class:`SwizzleMode` named by ``mode``: a name (``"SWIZZLE_128B"``,
    ``"128B"``, ``"SW128"``, ``"INTERLEAVE"``/``"NONE"``), a row width in bytes
    (16, 32, 64, 128) or a SwizzleMode.

    >>> swizzle_mode(128).name, swizzle_mode("sw32").name, swizzle_mode("none").name
    ('SWIZZLE_128B', 'SWIZZLE_32B', 'INTERLEAVE')
    """
    if isinstance(mode, SwizzleMode):
        return mode
    if isinstance(mode, str):
        m = _ALIASES.get(mode.strip().upper())
        if m is not None:
            return m
    elif isinstance(mode, (int, np.integer)) and not isinstance(mode, bool):
        m = _BY_BYTES.get(int(mode))
        if m is not None:
            return m
    raise LayoutError(
        f"mode {mode!r} is not a swizzle mode; use INTERLEAVE, SWIZZLE_32B, SWIZZLE_64B, SWIZZLE_128B "
        "(or a row width of 16, 32, 64, 128 bytes)"
    )


def element_bits(element_type: Any) -> int:
    """Bits per element of ``element_type``: a width (4, 8, 16, 32, 64) or any spelling
    :func:`labkit.elements.element` accepts (CuTe's ``half_t``, PTX's ``f16``, ``"fp16"``, numpy's
    dtypes ...).

    >>> element_bits("bf16"), element_bits(8), element_bits("e2m1"), element_bits("float_e4m3_t")
    (16, 8, 4, 8)
    """
    return _element_bits(element_type)


def byte_swizzle(mode: Any) -> Swizzle:
    """The mode's swizzle on byte addresses: ``Swizzle<B,4,3>``.

    >>> [str(byte_swizzle(m)) for m in SWIZZLE_MODES]
    ['Sw<0,4,3>', 'Sw<1,4,3>', 'Sw<2,4,3>', 'Sw<3,4,3>']
    """
    return Swizzle(swizzle_mode(mode).bits, 4, 3)


def element_swizzle(mode: Any, element_type: Any) -> Swizzle:
    """The mode's swizzle on element offsets: ``Swizzle<B, log2(128 / bits), 3>``.

    An element of ``bits`` bits sits at byte ``offset * bits / 8``, so the
    16-byte chunk starts at element bit ``4 - log2(bits / 8)``.

    >>> [str(element_swizzle("SWIZZLE_128B", b)) for b in (4, 8, 16, 32)]
    ['Sw<3,5,3>', 'Sw<3,4,3>', 'Sw<3,3,3>', 'Sw<3,2,3>']
    """
    m = swizzle_mode(mode)
    bits = element_bits(element_type)
    return Swizzle(m.bits, 7 - (bits.bit_length() - 1), 3)


def swizzle_atom(mode: Any, element_type: Any, major: str = "K") -> Any:
    """The mode's atom over elements, a ``ComposedLayout`` (CuTe ``Layout_K_SW*_Atom<T>``).

    ``major="K"``: 8 rows x ``row_bytes`` of contiguous K, ``(8, n):(n, 1)``;
    ``major="MN"``: the transpose, ``(n, 8):(1, n)`` (``Layout_MN_SW*_Atom<T>``),
    where ``n = row_bytes * 8 / bits``. INTERLEAVE keeps its identity
    ``Sw<0,M,3>`` (as CuTe's ``Layout_K_INTER_Atom`` does), so every atom is a
    ``ComposedLayout`` with ``layout_a`` (the swizzle) and ``layout_b``.

    >>> print(swizzle_atom("SWIZZLE_32B", "fp32"))
    Sw<1,2,3> o _0 o (_8,_8):(_8,_1)
    >>> print(swizzle_atom("SWIZZLE_128B", 16, major="MN"))
    Sw<3,3,3> o _0 o (_64,_8):(_1,_64)
    """
    m = swizzle_mode(mode)
    bits = element_bits(element_type)
    n = S(m.row_bytes * 8 // bits)
    if not isinstance(major, str) or major.upper() not in ("K", "MN"):
        raise LayoutError(f"major must be 'K' or 'MN'; got {major!r}")
    if major.upper() == "K":
        inner = make_layout((S(8), n), (n, S(1)))
    else:
        inner = make_layout((n, S(8)), (S(1), n))
    return make_composed_layout(element_swizzle(m, bits), S(0), inner)


def swizzle_figure(mode: Any) -> np.ndarray:
    """The PTX ISA's swizzle figure: an ``(8, chunks)`` table of 16-byte chunks.

    Logical chunks are numbered 0..8*chunks-1 row by row; entry ``[r, p]`` is the
    number of the logical chunk stored at physical position ``p`` of row ``r``.

    >>> swizzle_figure("SWIZZLE_128B")[1].tolist()
    [9, 8, 11, 10, 13, 12, 15, 14]
    """
    m = swizzle_mode(mode)
    sw = byte_swizzle(m)
    chunk = np.arange(8 * m.chunks, dtype=np.int64)       # logical chunk number, row-major
    physical = sw(chunk * 16) // 16                          # where its first byte lands
    table = np.empty(8 * m.chunks, dtype=np.int64)
    table[physical] = chunk
    return table.reshape(8, m.chunks)


class SwizzleChoice(NamedTuple):
    """What :func:`recommend_swizzle` returns: the ``mode`` and a ``reason``.

    >>> mode, reason = recommend_swizzle(64)
    >>> mode.name, reason.startswith("64 B = 1 x 64 B")
    ('SWIZZLE_64B', True)
    """

    mode: SwizzleMode
    reason: str


def recommend_swizzle(contiguous_bytes: int) -> SwizzleChoice:
    """The widest atom a tile's contiguous dimension allows, with the reason.

    A mode with N-byte rows needs the contiguous dimension (bytes along K for a
    K-major tile) to be a whole number of N-byte rows; the widest such N wins,
    since it spreads 8 rows of any 16-byte column over the most banks.

    >>> recommend_swizzle(128).mode.name          # 64 fp16
    'SWIZZLE_128B'
    >>> recommend_swizzle(96).mode.name           # 48 fp16: 3 rows of 32 B
    'SWIZZLE_32B'
    """
    n = contiguous_bytes
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise LayoutError(f"contiguous_bytes must be an int (bytes along the contiguous dimension); got {n!r}")
    n = int(n)
    if n < 16 or n % 16:
        raise LayoutError(
            f"contiguous_bytes={n}: swizzled shared-memory tiles need a positive multiple of 16 bytes "
            "along the contiguous dimension (one 16-byte chunk at least)"
        )
    for m in reversed(SWIZZLE_MODES):
        if n % m.row_bytes == 0:
            break
    wider = [w for w in SWIZZLE_MODES if w.row_bytes > m.row_bytes]
    why_not = ""
    if wider:
        nxt = wider[0]
        why_not = f"; {nxt.name} (and anything wider) would need a multiple of {nxt.row_bytes} B"
    if m is INTERLEAVE:
        reason = (
            f"{n} B is a multiple of 16 B but not of 32 B: only INTERLEAVE, the 16-byte atom "
            f"(8 rows x 16 B, no XOR), tiles it{why_not}"
        )
    else:
        reason = (
            f"{n} B = {n // m.row_bytes} x {m.row_bytes} B: {m.name} is the widest atom "
            f"(8 rows x {m.row_bytes} B, {m.chunks} chunks XOR-permuted per row) that tiles it exactly{why_not}"
        )
    return SwizzleChoice(m, reason)


def xor_toy_layout(swizzled: bool = True) -> Any:
    """Seed 001's 8x8 teaching tile: row-major words, optionally ``mapped_col = col ^ row``.

    With 8 banks of one word each, bank = mapped column. The XOR is CuTe's
    ``Swizzle<3,0,3>`` on the row-major word offset ``8*row + col``.

    >>> print(xor_toy_layout())
    Sw<3,0,3> o _0 o (_8,_8):(_8,_1)
    >>> [xor_toy_layout()(r, 0) % 8 for r in range(8)]
    [0, 1, 2, 3, 4, 5, 6, 7]
    """
    plain = make_layout((S(8), S(8)), (S(8), S(1)))
    if not swizzled:
        return plain
    return composition(Swizzle(3, 0, 3), plain)
