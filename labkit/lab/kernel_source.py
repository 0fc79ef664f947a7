"""Count the instructions of the tensor-core GEMM kernels from their generated source.

``labkit.cuda.kernels.gemm_tensorcore`` writes each kernel out as Python source in which every
PTX instruction is one call (``mma_m16n8k16_f32f16f16f32(...)``, ``ldmatrix_x4(...)``,
``cp_async_16(...)``, ...). Counting the calls gives the static instruction mix of a kernel
without a GPU, to compare with the SASS the compiler made of it (``HMMA``, ``LDSM``, ``LDGSTS``...).

>>> src = "x = ldmatrix_x4(a)\\nd = mma_m16n8k16_f32f16f16f32(a, b, c)\\ncuda.syncthreads()\\n"
>>> counts = instruction_counts(src)
>>> counts["ldmatrix"], counts["mma"], counts["barrier"], counts["cp.async"]
(1, 1, 1, 0)
"""

from __future__ import annotations

import re

from labkit.errors import LabkitError

__all__ = ["CALLS", "SASS_NAMES", "instruction_counts", "kernel_counts", "main_loop"]

# PTX instruction -> the call that issues it in the generated source
CALLS = {
    "mma": r"mma_m16n8k\d+_\w+\(",
    "ldmatrix": r"ldmatrix_x4\(",
    "cp.async": r"cp_async_\w*16\w*\(",
    "ld.global.v4": r"ld_global_v4\(",
    "st.shared.v4": r"st_shared_v4\(",
    "barrier": r"cuda\.syncthreads\(\)",
}
# PTX instruction -> the SASS opcode it becomes
SASS_NAMES = {"mma": "HMMA", "ldmatrix": "LDSM", "cp.async": "LDGSTS", "ld.global.v4": "LDG",
              "st.shared.v4": "STS", "barrier": "BAR"}
_RUN_CALL = re.compile(r"^(\s*)(?:[\w, ]+ = )?(ldmatrix_x4|mma_m16n8k\d+_\w+|cp_async_16)\(")


def instruction_counts(source: str) -> dict[str, int]:
    """Static count of each instruction of :data:`CALLS` in kernel ``source``."""
    if not isinstance(source, str):
        raise LabkitError(f"source must be a kernel's generated source (str); got {type(source).__name__}")
    return {what: len(re.findall(pattern, source)) for what, pattern in CALLS.items()}


def kernel_counts(module, acc: str = "f32", arch=(9, 0)) -> dict[str, int]:
    """:func:`instruction_counts` of a ladder step's kernel (``gemm_mma``, ``gemm_swizzle``,
    ``gemm_pipeline``) generated for accumulator ``acc`` and compute capability ``arch``."""
    if not hasattr(module, "source"):
        raise LabkitError(f"module must be a tensor-core step of labkit.cuda.kernels (gemm_mma, gemm_swizzle, "
                          f"gemm_pipeline); got {module!r}")
    return instruction_counts(module.source(acc, tuple(arch)))


def main_loop(source: str, start: str = "    for kt in range(ktiles):", end: str = "    # epilogue") -> list[str]:
    """The lines of the kernel's K loop, with each run of identical instruction calls collapsed
    to one line ``"<indent>N x name(...)"``."""
    if start not in source or end not in source:
        raise LabkitError(f"source: no main loop between {start.strip()!r} and {end.strip()!r}")
    body = source[source.index(start):source.index(end)]
    out, run = [], []
    for line in body.splitlines() + [""]:
        found = _RUN_CALL.match(line)
        if run and not (found and found.group(2) == run[0][1]):
            out.append(f"{run[0][0]}{len(run)} x {run[0][1]}(...)")
            run = []
        if found:
            run.append(found.groups())
        elif line.strip():
            out.append(line)
    return out
