"""labkit.atoms: MMA and copy atoms as data tables (TV layouts, registers, PTX, minimum SM)."""

from .mma import MMAAtom, mma_atom, MMA_ATOMS, ELEMENT_BITS
from .copy import CopyTraits, CopyAtom, copy_atom, COPY_TRAITS

__all__ = ["MMAAtom", "mma_atom", "MMA_ATOMS", "ELEMENT_BITS", "CopyTraits", "CopyAtom",
           "copy_atom", "COPY_TRAITS"]
