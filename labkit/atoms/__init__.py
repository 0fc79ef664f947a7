"""labkit.atoms: MMA and copy atoms as data tables (TV layouts, registers, PTX, minimum SM).

:mod:`labkit.atoms.instructions` is the registry of the instructions themselves; the atoms are
CuTe's view of its entries.
"""

from .instructions import (WARP, ELEMENT_BITS, Instruction, InstructionError, instruction, require_sm,
                           INSTRUCTIONS)
from .mma_atoms import MMAAtom, mma_atom, MMA_ATOMS
from .copy_atoms import CopyTraits, CopyAtom, copy_atom, COPY_TRAITS
from .instructions import WARP, WARPGROUP
from .gmma_layouts import (GMMA_LAYOUT_ATOM_NAMES, gmma_layout_atom, gmma_layout_atom_named,
                           ss_smem_selector)
from .gmma_desc import GmmaDescriptor, DescriptorIterator, make_gmma_desc

__all__ = ["WARP", "MMAAtom", "mma_atom", "MMA_ATOMS", "ELEMENT_BITS", "CopyTraits", "CopyAtom",
           "copy_atom", "COPY_TRAITS", "Instruction", "InstructionError", "instruction",
           "require_sm", "INSTRUCTIONS", "WARP", "WARPGROUP", "GMMA_LAYOUT_ATOM_NAMES",
           "gmma_layout_atom", "gmma_layout_atom_named", "ss_smem_selector", "GmmaDescriptor",
           "DescriptorIterator", "make_gmma_desc"]
