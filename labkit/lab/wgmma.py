"""Chapter 6g and lab 8: Hopper's ``wgmma`` reads shared memory through descriptors.

The page's one import, ``from labkit.lab import wgmma``: it hands on the names of
:mod:`~labkit.lab.wgmma_descriptors` (the GMMA layout atoms, an operand's tile, the descriptor CuTe
builds from it, staging), :mod:`~labkit.lab.wgmma_matmul` (``D = A @ B.T`` through the CPU twin
or on an sm_90 GPU, and wrong descriptors), :mod:`~labkit.lab.wgmma_base_offset` (a tile off a
1024-byte boundary), :mod:`~labkit.lab.wgmma_registers` (who holds which element of D and of A)
and :mod:`~labkit.lab.wgmma_pipeline` (the mainloop as a schedule, and its measured costs).

>>> import numpy as np
>>> D = twin_matmul(np.eye(64, 16), np.eye(8, 16))       # D = A @ B.T through the twin
>>> D.shape, float(D[3, 3]), float(D[3, 4])
((64, 8), 1.0, 0.0)
"""

from labkit.atoms.instructions import WARPGROUP
from labkit.lab.wgmma_base_offset import base_offset_reads, base_offset_wrong, right_base_offset, stored_chunk
from labkit.lab.wgmma_descriptors import (LAYOUTS, atom_table, core_matrix_starts, descriptor, descriptor_table,
                                          element_atom, operand_layout, stage)
from labkit.lab.wgmma_matmul import (device_matmul, sm90_present, twin_matmul, typed_matmul,
                                     wrong_descriptor_table,
                                     wrong_descriptors)
from labkit.lab.wgmma_pipeline import (Event, Schedule, ceiling_ratio, consumer_schedule, fixed_cost_split,
                                      ktile_times, pipeline_schedule)
from labkit.lab.wgmma_registers import (a_layout, a_owner, a_warp_layout, a_warp_layout_matches, c_layout, owner,
                                        owner_grid, registers_text, warp_layout, warp_layout_matches)

__all__ = ["WARPGROUP", "LAYOUTS", "atom_table", "element_atom", "operand_layout", "descriptor",
           "descriptor_table", "core_matrix_starts", "stage", "twin_matmul", "device_matmul", "typed_matmul",
           "wrong_descriptors",
           "wrong_descriptor_table", "c_layout", "owner", "owner_grid", "warp_layout",
           "warp_layout_matches", "a_layout", "a_owner", "a_warp_layout", "a_warp_layout_matches", "base_offset_reads",
           "base_offset_wrong", "right_base_offset", "stored_chunk", "fixed_cost_split", "registers_text",
           "sm90_present", "Event", "Schedule", "pipeline_schedule", "consumer_schedule", "ceiling_ratio",
           "ktile_times"]
