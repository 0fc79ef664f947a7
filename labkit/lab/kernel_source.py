"""Count the instructions of the tensor-core GEMM kernels from their tagged statements.

``labkit.cuda.kernels.ladder.gemm_codegen`` writes each kernel as statements, and every statement that
issues a PTX instruction says which (``Statement.op``: ``"mma"``, ``"ldmatrix"``,
``"cp.async"``, ...). Counting them gives the static instruction mix of a kernel without a GPU,
to compare with the SASS the compiler made of it (``HMMA``, ``LDSM``, ``LDGSTS``...).

>>> from labkit.cuda.kernels.ladder import gemm_mma
>>> counts = instruction_counts(gemm_mma.statements("f32", 90))
>>> counts["mma"], counts["ldmatrix"], counts["barrier"], counts["cp.async"]
(32, 16, 2, 0)
"""

from __future__ import annotations

from labkit.errors import LabkitError

__all__ = ["INSTRUCTIONS", "SASS_NAMES", "instruction_counts", "kernel_counts", "main_loop"]

#: the PTX instructions counted (``Statement.op`` values)
INSTRUCTIONS = ("mma", "ldmatrix", "cp.async", "ld.global.v4", "st.shared.v4", "barrier")
#: PTX instruction -> the SASS opcode it becomes
SASS_NAMES = {"mma": "HMMA", "ldmatrix": "LDSM", "cp.async": "LDGSTS", "ld.global.v4": "LDG",
              "st.shared.v4": "STS", "barrier": "BAR"}
#: instructions whose runs :func:`main_loop` folds into one line
_FOLDED = ("mma", "ldmatrix", "cp.async")


def _statements(statements, what):
    from labkit.cuda.kernels.ladder.gemm_statements import Statement

    if isinstance(statements, (str, bytes)) or not hasattr(statements, "__iter__"):
        raise LabkitError(f"{what}: statements must be a kernel's tagged statements "
                          f"(gemm_<step>.statements(acc, sm)), not its source text; got {type(statements).__name__}")
    statements = list(statements)
    if not all(isinstance(s, Statement) for s in statements):
        raise LabkitError(f"{what}: statements must all be gemm_statements.Statement")
    return statements


def instruction_counts(statements) -> dict[str, int]:
    """Static count of each instruction of :data:`INSTRUCTIONS` among ``statements``."""
    statements = _statements(statements, "instruction_counts")
    return {what: sum(s.op == what for s in statements) for what in INSTRUCTIONS}


def kernel_counts(module, acc: str = "f32", sm: int = 90) -> dict[str, int]:
    """:func:`instruction_counts` of a ladder step's kernel (``gemm_mma``, ``gemm_swizzle``,
    ``gemm_pipeline``, ``gemm_tma``) generated for accumulator ``acc`` and SM ``sm``."""
    if not hasattr(module, "statements"):
        raise LabkitError(f"module must be a tensor-core step of labkit.cuda.kernels (gemm_mma, gemm_swizzle, "
                          f"gemm_pipeline, gemm_tma); got {module!r}")
    return instruction_counts(module.statements(acc, sm))


def main_loop(statements) -> list[str]:
    """The lines of the kernel's k-tile loop (the statements of phase ``"mainloop"``), each run
    of one MMA, ldmatrix or cp.async intrinsic folded to one line ``"<indent>N x name(...)"``.

    >>> from labkit.cuda.kernels.ladder import gemm_mma
    >>> main_loop(gemm_mma.statements("f32", 90))[:3]
    ['    for kt in range(ktiles):', '        cuda.syncthreads()  # every warp is done with the previous k-tile', '        k0 = int32(k_first + kt * 64)']
    """
    loop = [s for s in _statements(statements, "main_loop") if s.phase == "mainloop"]
    if not loop:
        raise LabkitError("statements: no main loop (no statement of phase 'mainloop')")
    out, run = [], []
    for s in loop + [None]:
        folds = s is not None and s.op in _FOLDED
        if run and not (folds and s.call == run[0].call):
            out.append(f"{'    ' * run[0].depth}{len(run)} x {run[0].call}(...)")
            run = []
        if folds:
            run.append(s)
        elif s is not None:
            out.append(s.line())
    return out
