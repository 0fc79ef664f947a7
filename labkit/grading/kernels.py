"""The exercises' kernel capstones, graded by running a learner's addresses inside a real block.

Two ideas, one module each; this module hands their names on, so that an exercise's tests say
``from labkit.grading import kernels`` and then ``kernels.ThreadBlock``, ``kernels.StagedTile``:

- :mod:`labkit.grading.thread_block` (exercise 6): per-lane ``ldmatrix`` offsets inside
  sgemm_sm80's thread block (``run_capstone``, ``RowAddress``, ``ThreadBlock``, ``report``);
- :mod:`labkit.grading.staged_tile` (exercise 7): where each accumulator pair of the epilogue
  goes in the swizzled C tile (``run_epilogue``, ``PairAddress``, ``StagedTile``,
  ``epilogue_report``);
- :mod:`labkit.grading.smem_kernel` (exercise 7): a layout of a tile ldmatrix reads free of bank
  conflicts (``LdmatrixTile``) and a warp's transpose kernel through ``lk.offset_function``
  (``tile_input``, ``transpose_wavefronts``, ``TransposeRun``, ``WarpTranspose``).

>>> from labkit.grading import kernels
>>> kernels.report() == kernels.epilogue_report() == kernels.NOT_ANSWERED
True
"""

from labkit.grading.staged_tile import (EPILOGUE_LAYOUT, STAGED, EpilogueRun, PairAddress, StagedTile,
                                        epilogue_report, pair_inputs, run_epilogue)
from labkit.grading.smem_kernel import (LdmatrixTile, TransposeRun, WarpTranspose, ldmatrix_wavefronts,
                                        tile_input, transpose_answer, transpose_wavefronts)
from labkit.grading.thread_block import (COMPUTES, NOT_ANSWERED, CapstoneRun, RowAddress, ThreadBlock,
                                         call_inputs, check_offsets, exact, form, offset_table, report,
                                         run_capstone, smem_layout)

__all__ = ["NOT_ANSWERED", "COMPUTES", "smem_layout", "offset_table", "call_inputs", "run_capstone", "CapstoneRun", "check_offsets",
           "report", "RowAddress", "ThreadBlock", "form", "exact", "transpose_answer",
           "STAGED", "EPILOGUE_LAYOUT", "pair_inputs", "run_epilogue", "EpilogueRun", "epilogue_report",
           "PairAddress", "StagedTile",
           "LdmatrixTile", "TransposeRun", "WarpTranspose", "ldmatrix_wavefronts", "tile_input", "transpose_wavefronts"]
