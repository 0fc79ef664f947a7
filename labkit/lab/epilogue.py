"""The epilogue: a warp's accumulators to shared memory, and the tile out to global memory.

The page's one import, ``from labkit.lab import epilogue``: it hands on the names of
:mod:`~labkit.lab.epilogue_smem` (layouts, predictions, the shared-store kernel),
:mod:`~labkit.lab.epilogue_global` (C straight from the registers or staged, 16-byte stores)
and :mod:`~labkit.lab.epilogue_recorded` (the committed GPU run).

>>> print(row_swizzle(256))
Sw<3,3,4>
"""

from labkit.lab.epilogue_global import global_prediction_table, predict_global, readout_conflicts, run_global
from labkit.lab.epilogue_recorded import (RESULTS, kernel_registers, kernel_registers_text, recorded,
                                          recorded_experiment, recorded_header, recorded_table)
from labkit.lab.epilogue_smem import (ATOM, ATOMS_MN, BUFFER, CTA_TILE, LAYOUTS, STORES, STSM, TOLERANCE,
                                      WARP_TILE, accumulator_pairs, expected_tile, first_conflict,
                                      instructions, layouts, layouts_text, ordering, ordering_summary,
                                      owner_grid, predict, prediction_table, read_tile, row_banks,
                                      row_swizzle, run_smem, simulate, stmatrix_blocks,
                                      stmatrix_matches_accumulators, variants)

__all__ = ["ATOM", "STSM", "STORES", "LAYOUTS", "row_swizzle", "layouts", "variants", "accumulator_pairs",
           "owner_grid", "prediction_table", "ordering_summary", "recorded_header", "recorded_table",
           "layouts_text", "row_banks", "readout_conflicts", "global_prediction_table", "kernel_registers",
           "kernel_registers_text",
           "stmatrix_blocks", "stmatrix_matches_accumulators", "instructions", "predict", "first_conflict",
           "expected_tile", "read_tile", "simulate", "run_smem", "ordering", "predict_global", "run_global",
           "recorded", "recorded_experiment", "RESULTS", "TOLERANCE"]
