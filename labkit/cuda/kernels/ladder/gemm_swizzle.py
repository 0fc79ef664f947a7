"""GEMM ladder, step 4: step 3 with ``Swizzle<3,3,3>`` shared memory.

Everything is as in step 3 except where an element of a tile lives in shared memory:
CuTe's ``composition(Swizzle<3,3,3>, (8,(8,8)):(8,(1,64)))`` atom, repeated down the rows
(the layout of CUTLASS's ``sgemm_sm80``). Within each 8-row block, the 16-byte chunk
``c`` of row ``r`` moves to slot ``r ^ c``, so the eight rows an ldmatrix phase reads, and
the eight chunks eight threads store, land in eight different bank groups: no conflicts.

>>> from labkit.cuda.kernels.ladder import gemm_swizzle
>>> gemm_swizzle.CONFIG.swizzle, gemm_swizzle.CONFIG.bk
(True, 64)
"""

import dataclasses

from labkit.cuda.kernels.ladder import gemm_mma
from labkit.cuda.kernels.ladder.gemm_launch import RULES, step_functions

__all__ = ["STEP", "CONFIG", "RULES", "launch", "statements", "source", "kernel_config"]

STEP = "swizzle"
CONFIG = dataclasses.replace(gemm_mma.CONFIG, swizzle=True, conflict_free=True)   # checked: no bank conflicts


statements, source, launch, kernel_config = step_functions(STEP, "gemm_swizzle", CONFIG)
