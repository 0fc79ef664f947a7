"""The canonical shared-memory layout atoms of Hopper's GMMA (``wgmma``), as CuTe spells them.

``cute/atom/mma_traits_sm90_gmma.hpp`` defines eight atoms in units of *bits*, one per major
(K or MN) and swizzle mode (INTER, SW32, SW64, SW128); the atom for an element type is
``upcast<sizeof_bits<T>>`` of the bit atom:

    Layout_K_SW128_Atom_Bits  = Sw<3,4,3> o smem_ptr[1b](unset) o (_8,_1024):(_1024,_1)
    Layout_MN_SW128_Atom_Bits = Sw<3,4,3> o smem_ptr[1b](unset) o (_1024,_8):(_1,_1024)

The swizzle acts on *byte* addresses (``Swizzle<B,4,3>``: 16-byte chunks, 8 rows of 128 bytes)
and stays so under the upcast; the middle term is CuTe's ``smem_ptr_flag_bits<b>``, a placeholder
(a static zero) for the shared-memory pointer of ``b``-bit elements the layout waits for. When a
tensor is made from such a layout the swizzle moves into the pointer; that is what
:func:`labkit.atoms.gmma_desc.make_gmma_desc` reads. (``labkit.swizzle_atoms.swizzle_atom`` is the
same arrangement written position-independently, on element offsets: ``Sw<3,3,3> o _0 o ...``.)

>>> print(gmma_layout_atom("K", "SW128", 16))
Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)
>>> print(gmma_layout_atom_named("Layout_MN_SW64_Atom", "tf32"))
Sw<2,4,3> o smem_ptr[32b](unset) o (_16,_8):(_1,_16)
"""

from __future__ import annotations

from ..errors import LayoutError
from ..layout import S, Swizzle, ComposedLayout, make_layout, upcast
from ..elements import element_bits as _element_bits
from ..layout.pointer import SmemPtrFlag

__all__ = ["SmemPtrFlag", "GMMA_MAJORS", "GMMA_SWIZZLES", "GMMA_ELEMENT_BITS",
           "GMMA_LAYOUT_ATOM_NAMES", "gmma_layout_atom_bits", "gmma_layout_atom",
           "gmma_layout_atom_named", "gmma_major", "gmma_element_bits", "ss_smem_selector"]

GMMA_MAJORS = ("K", "MN")
"""CuTe's ``GMMA::Major``: K-major (K contiguous) and MN-major (M or N contiguous)."""

GMMA_SWIZZLES = ("INTER", "SW32", "SW64", "SW128")
"""The atoms' swizzle names in CuTe, narrowest first; the swizzle of each is ``Swizzle<B,4,3>``
with B = 0, 1, 2, 3 (8 rows of 16, 32, 64, 128 bytes)."""

GMMA_ELEMENT_BITS = (8, 16, 32)
"""Element widths ``wgmma`` reads from shared memory: 8 (e4m3, e5m2, s8, u8), 16 (f16, bf16),
32 (tf32)."""

GMMA_LAYOUT_ATOM_NAMES = tuple(f"Layout_{m}_{s}_Atom" for m in GMMA_MAJORS for s in GMMA_SWIZZLES)
"""The eight CuTe names, ``Layout_K_INTER_Atom`` ... ``Layout_MN_SW128_Atom``."""

_SWIZZLE_BITS = {"INTER": 0, "SW32": 1, "SW64": 2, "SW128": 3}
_SWIZZLE_ALIASES = {"INTER": "INTER", "INTERLEAVE": "INTER", "NONE": "INTER", "SW32": "SW32",
                    "B32": "SW32", "SWIZZLE_32B": "SW32", "SW64": "SW64", "B64": "SW64",
                    "SWIZZLE_64B": "SW64", "SW128": "SW128", "B128": "SW128",
                    "SWIZZLE_128B": "SW128"}


def gmma_major(major) -> str:
    """``"K"`` or ``"MN"`` from ``major`` (also ``"M"``/``"N"``, any case); else a LayoutError.

    >>> gmma_major("mn"), gmma_major("K")
    ('MN', 'K')
    """
    if isinstance(major, str):
        m = major.strip().upper()
        if m in ("K", "MN", "M", "N"):
            return "K" if m == "K" else "MN"
    raise LayoutError(f"major must be 'K' or 'MN' (CuTe's GMMA::Major), got {major!r}")


def _swizzle_name(swizzle) -> str:
    if isinstance(swizzle, str):
        name = _SWIZZLE_ALIASES.get(swizzle.strip().upper())
        if name is not None:
            return name
    raise LayoutError(f"swizzle must be one of {', '.join(GMMA_SWIZZLES)} (or INTERLEAVE, "
                      f"B32, B64, B128, SWIZZLE_32B ...), got {swizzle!r}")


def gmma_element_bits(element_type, arg: str = "element_type") -> int:
    """The width in bits of a GMMA shared-memory element: 8, 16 or 32, from a width or a name
    (``"f16"``, ``"bf16"``, ``"tf32"``, ``"e4m3"``, ``"s8"`` ...).

    >>> gmma_element_bits("bf16"), gmma_element_bits(8)
    (16, 8)
    """
    try:
        bits = _element_bits(element_type)
    except LayoutError as e:
        raise LayoutError(f"{arg}: {e}") from None
    if bits not in GMMA_ELEMENT_BITS:
        raise LayoutError(f"{arg}={element_type!r} is {bits}-bit; wgmma reads 8-, 16- or 32-bit "
                          "elements from shared memory")
    return bits


def gmma_layout_atom_bits(major, swizzle) -> ComposedLayout:
    """CuTe's ``Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom_Bits``: the atom in units of bits.

    >>> print(gmma_layout_atom_bits("MN", "INTER"))
    Sw<0,4,3> o smem_ptr[1b](unset) o (_128,_8):(_1,_128)
    """
    major, name = gmma_major(major), _swizzle_name(swizzle)
    b = _SWIZZLE_BITS[name]
    row = S(128 << b)                     # bits in one row of the atom: 16, 32, 64, 128 bytes
    if major == "K":
        inner = make_layout((S(8), row), (row, S(1)))
    else:
        inner = make_layout((row, S(8)), (S(1), row))
    return ComposedLayout(Swizzle(b, 4, 3), SmemPtrFlag(1), inner)


def gmma_layout_atom(major, swizzle, element_type=16) -> ComposedLayout:
    """CuTe's ``GMMA::Layout_{major}_{swizzle}_Atom<T>`` for elements of ``element_type``: the bit
    atom upcast by the element width (``upcast<sizeof_bits<T>>``), the swizzle unchanged.

    >>> print(gmma_layout_atom("K", "INTER", "e4m3"))
    Sw<0,4,3> o smem_ptr[8b](unset) o (_8,_16):(_16,_1)
    >>> print(gmma_layout_atom("MN", "SW32", "f16"))
    Sw<1,4,3> o smem_ptr[16b](unset) o (_16,_8):(_1,_16)
    """
    bits = gmma_element_bits(element_type)
    atom = gmma_layout_atom_bits(major, swizzle)
    return ComposedLayout(atom.layout_a, SmemPtrFlag(bits), upcast(atom.layout_b, bits))


def gmma_layout_atom_named(name: str, element_type=16) -> ComposedLayout:
    """The atom by its CuTe name, ``"Layout_K_SW128_Atom"`` (``GMMA::`` and ``_Bits`` allowed).

    >>> print(gmma_layout_atom_named("GMMA::Layout_K_SW32_Atom", 16))
    Sw<1,4,3> o smem_ptr[16b](unset) o (_8,_16):(_16,_1)
    """
    if not isinstance(name, str):
        raise LayoutError(f"name must be a CuTe atom name such as 'Layout_K_SW128_Atom', got "
                          f"{name!r}")
    base = name.strip()
    for prefix in ("cute::", "SM90::", "GMMA::"):
        base = base[len(prefix):] if base.startswith(prefix) else base
    bits_atom = base.endswith("_Bits")
    if bits_atom:
        base = base[:-len("_Bits")]
    if base not in GMMA_LAYOUT_ATOM_NAMES:
        raise LayoutError(f"name {name!r} is not a GMMA layout atom; CuTe's are "
                          f"{', '.join(GMMA_LAYOUT_ATOM_NAMES)}")
    _, major, swizzle, _ = base.split("_")
    if bits_atom:
        return gmma_layout_atom_bits(major, swizzle)
    return gmma_layout_atom(major, swizzle, element_type)


def ss_smem_selector(major, element_type, blk_mn, blk_k) -> ComposedLayout:
    """The GMMA layout atom CUTLASS's SM90 collective builder picks for an operand tile of
    ``blk_mn`` x ``blk_k`` (``cutlass::gemm::collective::detail::ss_smem_selector``): the widest
    swizzle whose atom divides the tile along the contiguous mode (MN for MN-major, K for
    K-major), SW128 first. ``blk_mn`` and ``blk_k`` must be multiples of 8 (C++ static_asserts).

    >>> print(ss_smem_selector("K", "float_e4m3_t", 128, 64))
    Sw<2,4,3> o smem_ptr[8b](unset) o (_8,_64):(_64,_1)
    >>> print(ss_smem_selector("MN", "half_t", 192, 64))
    Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_8):(_1,_64)
    """
    from ..layout import size
    from ..layout.int_tuple import is_int
    major = gmma_major(major)
    dims = []
    for name, v in (("blk_mn", blk_mn), ("blk_k", blk_k)):
        v0 = v[0] if isinstance(v, tuple) and v else v
        if isinstance(v0, bool) or not is_int(v0) or int(v0) <= 0:
            raise LayoutError(f"ss_smem_selector: {name} must be a positive int (or a tuple whose "
                              f"first mode is one), got {v!r}")
        dims.append(int(v0))
    mn0, k0 = dims
    if mn0 % 8:
        raise LayoutError(f"ss_smem_selector: blk_mn={mn0}: BLK_MN0 must be a multiple of 8. (CUTLASS static_assert)")
    if k0 % 8:
        raise LayoutError(f"ss_smem_selector: blk_k={k0}: BLK_K0 must be a multiple of 8. (CUTLASS static_assert)")
    for sw in ("SW128", "SW64", "SW32", "INTER"):
        atom = gmma_layout_atom(major, sw, element_type)
        extent = int(size(atom.layout_b[0] if major == "MN" else atom.layout_b[1]))
        if (mn0 if major == "MN" else k0) % extent == 0:
            return atom
    which = "BLK_MN0 must be a multiple of size<0>(GMMA::Layout_MN_INTER_Atom<ElementType>{})" if major == "MN" \
        else "BLK_K0 must be a multiple of size<1>(GMMA::Layout_K_INTER_Atom<ElementType>{})"
    raise LayoutError(f"ss_smem_selector({major}, {element_type}, {mn0}, {k0}): {which} (CUTLASS static_assert)")
