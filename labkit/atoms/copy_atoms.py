"""Copy atoms as data: CuTe's ``Copy_Traits`` (layouts in bits) and ``Copy_Atom<Op, T>``.

The traits describe a copy instruction with three TV layouts over abstract bit numbers:
``SrcLayout`` (which source thread provides which bits), ``DstLayout`` (which destination
thread receives them) and ``RefLayout`` (the numbering the TiledCopy is built on; for
ldmatrix it equals ``DstLayout``, for stmatrix ``SrcLayout``). ``Copy_Atom<Op, T>`` recasts
them to elements of ``T``. The traits of ldmatrix, stmatrix and cp.async come from the
instruction registry (:mod:`labkit.atoms.instructions`).

>>> import labkit as lk
>>> x4 = lk.copy_atom("SM75_U32x4_LDSM_N", "f16")
>>> print(x4.layout_src, x4.layout_dst, sep="\\n")
(_32,_8):(_8,_1)
(_32,(_2,_4)):(_2,(_1,_64))
>>> x4.num_threads, x4.num_values
(_32, _8)
>>> st = lk.copy_atom("SM90_U32x4_STSM_N", "f16")       # ldmatrix's reverse: Src and Dst swap
>>> print(st.layout_src, st.layout_dst, st.layout_ref, sep="\\n")
(_32,(_2,_4)):(_2,(_1,_64))
(_32,_8):(_8,_1)
(_32,(_2,_4)):(_2,(_1,_64))
"""

from __future__ import annotations

from dataclasses import dataclass

from ..elements import element
from ..errors import InstructionError, LayoutError
from ..layout import Layout, parse_layout, recast_layout, size
from .instructions import CP_ASYNC, ELEMENT_BITS, LDMATRIX, STMATRIX

__all__ = ["CopyTraits", "CopyAtom", "copy_atom", "COPY_TRAITS"]


@dataclass(frozen=True)
class CopyTraits:
    """The bit-level description of one copy instruction (CuTe ``Copy_Traits``)."""

    name: str
    thr_id: Layout
    src_bits: Layout
    dst_bits: Layout
    ref_bits: Layout
    ptx: str
    min_sm: int
    instruction: str = ""     # the registry entry (labkit.cuda.ptx name); "" for UniversalCopy


@dataclass(frozen=True)
class CopyAtom:
    """``Copy_Atom<Op, T>``: the traits recast to elements of ``element_type``."""

    traits: CopyTraits
    element_type: str
    layout_src: Layout
    layout_dst: Layout
    layout_ref: Layout

    @property
    def name(self):
        return self.traits.name

    @property
    def ptx(self):
        return self.traits.ptx

    @property
    def min_sm(self):
        return self.traits.min_sm

    @property
    def num_threads(self):
        """``AtomNumThr = size<0>(ValLayoutRef)``."""
        return size(self.layout_ref[0])

    @property
    def num_values(self):
        """``AtomNumVal = size<1>(ValLayoutRef)``."""
        return size(self.layout_ref[1])

    def __str__(self):
        return (f"Copy_Atom<{self.name}, {self.element_type}>\n  ValLayoutSrc: {self.layout_src}"
                f"\n  ValLayoutDst: {self.layout_dst}\n  ValLayoutRef: {self.layout_ref}")


def _traits(name, thr, src, dst, ptx, min_sm, ref=None, instruction=""):
    return CopyTraits(name, parse_layout(thr), parse_layout(src), parse_layout(dst),
                      parse_layout(ref or dst), ptx, min_sm, instruction)


# One Copy_Traits per CuTe atom name in the instruction registry (ldmatrix, stmatrix, cp.async).
# A warp-wide copy has ThrID _32:_1; RefLayout is DstLayout except for stmatrix (SrcLayout: the
# registers, copy_traits_sm90.hpp).
COPY_TRAITS = {i.atom: _traits(i.atom, "_1:_0" if i.kind == "cp.async" else "_32:_1", i.src_bits,
                               i.dst_bits, i.ptx, i.min_sm,
                               ref=i.src_bits if i.kind == "stmatrix" else None, instruction=i.name)
               for i in (*LDMATRIX.values(), *STMATRIX.values(), *CP_ASYNC.values()) if i.atom}


def _universal(bits):
    lay = f"(_1,_{bits}):(_0,_1)"
    return _traits(f"UniversalCopy<{bits}b>", "_1:_0", lay, lay, f"ld/st of {bits} bits", 0)


def copy_atom(name: str, element_type: str = "f16") -> CopyAtom:
    """``Copy_Atom<name, element_type>``.

    ``"UniversalCopy"`` copies one element; ``"UniversalCopy<u128>"`` (or ``<u32>``, ``<u64>``)
    copies that many bits as a vector.

    >>> print(copy_atom("SM75_U16x8_LDSM_T", "f16").layout_dst)
    ((_4,_8),(_1,_2,_4)):((_16,_1),(_1,_8,_64))
    >>> print(copy_atom("SM80_CP_ASYNC_CACHEALWAYS", "half_t").layout_src)
    (_1,_8):(_0,_1)
    """
    if isinstance(name, CopyAtom):
        return name
    element_type = element(element_type, "copy_atom: element_type").name    # CuTe's, PTX's or numpy's name
    ebits = ELEMENT_BITS[element_type]
    if name == "UniversalCopy":
        traits = _universal(ebits)
    elif isinstance(name, str) and name.startswith("UniversalCopy<") and name.endswith(">"):
        inner = name[len("UniversalCopy<"):-1]
        if inner not in ("u16", "u32", "u64", "u128"):
            raise LayoutError(f"copy_atom: UniversalCopy<{inner}> must be u16, u32, u64 or u128")
        traits = _universal(int(inner[1:]))
    elif name in COPY_TRAITS:
        traits = COPY_TRAITS[name]
    else:
        raise InstructionError(f"copy_atom: unknown atom {name!r}; known: {', '.join(COPY_TRAITS)}, "
                          "UniversalCopy, UniversalCopy<u32|u64|u128>")
    vbits = int(size(traits.ref_bits[1]))
    if vbits % ebits != 0:
        raise LayoutError(f"copy_atom: {name} moves {vbits} bits per thread, not a whole number "
                          f"of {element_type} ({ebits}-bit) elements")
    return CopyAtom(traits, element_type,
                    recast_layout(traits.src_bits, 1, ebits),
                    recast_layout(traits.dst_bits, 1, ebits),
                    recast_layout(traits.ref_bits, 1, ebits))
