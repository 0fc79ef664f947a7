"""The epilogue: a warp's accumulators to shared memory, and the tile out to global memory.

The ladder's block computes a 128x128 tile of C with 2x2 warps (CuTe's ``(2,2):(1,2)``), each a
64x64 warp tile of 4x8 ``mma.sync.m16n8k16`` atoms. Lane ``t`` holds, of each atom, the pairs
``C(t//4, 2(t%4)+{0,1})`` and ``C(t//4+8, ...)`` (the atom's ``LayoutC_TV``); converted to f16,
each pair is one 32-bit register. This module predicts what storing those registers costs:

- :func:`layouts`: the shared tiles: a warp's own 64x64 tile (rows of 128 bytes) or the block's
  128x128 tile (rows of 256 bytes), plain or swizzled; :func:`row_swizzle` is the swizzle that
  suits a row length (``Swizzle<3,3,3>`` for 128 bytes, ``Swizzle<3,3,4>`` for 256);
- :func:`instructions`: every warp instruction's per-lane byte offsets and registers, for
  ``st.shared.b32`` (one pair per lane) and ``stmatrix.x4`` (four 8x8 matrices, from CuTe's
  ``SM90_U32x4_STSM_N``), from the CuTe layouts;
- :func:`predict`: the wavefronts of a warp tile (:mod:`labkit.banks`);
- :func:`simulate`: the same stores in :mod:`labkit.sim` (its ``stmatrix`` model);
- :func:`run_smem`: the kernel of :mod:`labkit.cuda.kernels.exp_epilogue` on a GPU (with
  ``clock64``) or under numba's CUDA simulator, checked against both;
- :func:`predict_global`, :func:`run_global`: C written straight from the registers
  (``st.global.b32``) or staged in shared memory and copied out with 16-byte ``st.global.v4``;
- :func:`recorded`: the committed GPU run.

Each half is a module of its own (:mod:`~labkit.lab.epilogue_smem`,
:mod:`~labkit.lab.epilogue_global`, and :mod:`~labkit.lab.epilogue_recorded` for the committed
run); this module hands all their names on, so a page says ``from labkit.lab import epilogue``.

>>> p = predict()
>>> p["rows 128 B", "st.shared.b32"]["wavefronts"], p["rows 128 B + Sw<3,3,3>", "st.shared.b32"]["wavefronts"]
(512, 64)
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
