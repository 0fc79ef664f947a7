"""The GEMM ladder: five kernels for ``C = A @ B.T`` (fp16 TN), from naive to tensor cores.

============  ==============================================================================
step          what it adds
============  ==============================================================================
``naive``     one thread per element of C, everything from global memory
``smem``      64x64 CTA tiles staged in shared memory, a 4x4 register tile per thread
``mma``       ``ldmatrix`` + ``mma.sync`` (m16n8k16; m16n8k8 on sm_75), one 32x32 tile a warp
``swizzle``   the same, with shared memory laid out by ``Swizzle<3,3,3>``: no bank conflicts
``pipeline``  ``cp.async.ca`` 3-stage pipeline, 64x64 warp tiles, fragments double-buffered
              in registers, a grouped CTA raster (plain 16-byte loads on sm_75)
``tma``       the Tensor Memory Accelerator fills shared memory (sm_90): one thread, one
              mbarrier per stage, 256x128 tiles of 8 warps, 4 stages
``wgmma``     warpgroup MMA from shared memory (sm_90a): a TMA producer warpgroup, two
              consumer warpgroups of m64n256k16, full/empty mbarriers, persistent CTAs
============  ==============================================================================

Each step is a module ``labkit.cuda.kernels.ladder.gemm_<step>`` with a ``launch(A, B, C, acc,
sm)`` that checks the operands (a :class:`labkit.errors.DeviceError` names the argument and
the rule) and returns a function that launches the kernel. :func:`gemm` wraps it for numpy
inputs; :func:`check` runs a step on fresh random inputs against a float64 reference.

>>> from labkit.cuda.kernels.ladder import gemm
>>> gemm.STEPS, gemm.ALL_STEPS[-1]
(('naive', 'smem', 'mma', 'swizzle', 'pipeline', 'tma'), 'wgmma')
>>> try:
...     gemm.gemm(None, None, step="fast")
... except ValueError as e:
...     print(e)
step: must be one of ('naive', 'smem', 'mma', 'swizzle', 'pipeline', 'tma', 'wgmma'), got 'fast'
"""

import importlib

import numpy as np

from labkit.cuda.kernels.ladder.gemm_common import (
    check_operands,
    output_dtype,
    random_operands,
    reference,
    relative_error,
    tolerance,
)
from labkit.cuda.kernels.ladder.gemm_config import check_sm
from labkit.errors import ConfigError

__all__ = ["STEPS", "ALL_STEPS", "check_step", "step_module", "prepare", "gemm", "check", "kernel_report"]

#: the mma.sync ladder the book's chapters and the recorded 2026-12-01 run walk through
STEPS = ("naive", "smem", "mma", "swizzle", "pipeline", "tma")
#: every step a launch, check or benchmark accepts: the ladder and Hopper's wgmma step after it
ALL_STEPS = STEPS + ("wgmma",)



def _sm(sm):
    """``sm``, or the current GPU's (the simulated one's under the simulator) when None."""
    if sm is None:
        from labkit.cuda.launch import device_sm

        return device_sm()
    return check_sm(sm)


def check_step(step, steps=ALL_STEPS, why=""):
    """``step`` if it is one of ``steps``; else the one error of a wrong step, a
    :class:`~labkit.errors.ConfigError` naming the argument, the steps allowed and ``why``.

    >>> check_step("tma")
    'tma'
    """
    if step not in steps:
        raise ConfigError(f"step: must be one of {tuple(steps)}{why}, got {step!r}")
    return step


def step_module(step):
    """The module that implements ``step`` (imported on first use)."""
    check_step(step)
    return importlib.import_module(f"labkit.cuda.kernels.ladder.gemm_{step}")


def prepare(step, A, B, C=None, acc="f32", sm=None, **options):
    """Check device operands for ``step`` and return ``(C, launch)``.

    ``A``, ``B`` (and ``C`` if given) are device arrays; ``launch()`` runs the kernel once,
    asynchronously. ``options`` go to the step's ``launch`` (e.g. ``config=`` for
    ``pipeline``). ``sm`` (an int, 90 for sm_90) defaults to the current GPU's.
    """
    mod = step_module(step)
    sm = _sm(sm)
    if C is None:
        from numba import cuda

        shape = getattr(A, "shape", (0, 0))
        shape_b = getattr(B, "shape", (0, 0))
        if len(shape) == 2 and len(shape_b) == 2:
            dtype = (mod.operand_dtypes(options.get("config", mod.DEFAULT))[1]
                     if hasattr(mod, "operand_dtypes") else output_dtype(acc))
            C = cuda.device_array((shape[0], shape_b[0]), dtype)
    return C, mod.launch(A, B, C, acc, sm, **options)


def gemm(A, B, step="pipeline", acc="f32", sm=None, **options):
    """``A @ B.T`` on the GPU (or the simulator) with one ladder step; numpy in, numpy out.

    A: (M, K) float16, B: (N, K) float16, both row-major. Returns C (M, N), float32 for
    ``acc="f32"``, float16 for ``acc="f16"``. ``sm`` picks the SM the kernel is built for
    (default: the current GPU's); an older one runs the older code path (sm_75: m16n8k8).
    """
    mod = step_module(step)
    sm = _sm(sm)
    A = np.ascontiguousarray(A) if isinstance(A, np.ndarray) else A
    B = np.ascontiguousarray(B) if isinstance(B, np.ndarray) else B
    M, N, K = check_operands(step, A, B, None, acc, sm, **mod.RULES)
    from numba import cuda

    dA, dB = cuda.to_device(A), cuda.to_device(B)
    C = cuda.to_device(np.full((M, N), np.nan, output_dtype(acc)))  # poisoned
    _, launch = prepare(step, dA, dB, C, acc, sm, **options)
    launch()
    return C.copy_to_host()


def check(step, M, N, K, acc="f32", sm=None, seed=None, **options):
    """Run ``step`` on fresh random inputs; return ``(relative error, tolerance)``.

    The inputs are uniform in [-1, 1] (never zeros), C is poisoned with NaN before the
    launch (an unwritten element gives an infinite error), and the reference is float64.
    """
    mod = step_module(step)
    if hasattr(mod, "check"):                  # a step with its own operand types (wgmma: fp8)
        return mod.check(M, N, K, acc=acc, sm=sm, seed=seed, **options)
    A, B = random_operands(M, N, K, seed)
    C = gemm(A, B, step=step, acc=acc, sm=sm, **options)
    return relative_error(C, reference(A, B)), tolerance(acc, K)


def kernel_report(step, acc="f32", sm=None, sass_path=None, **options):
    """Registers, spills and SASS instruction mix of a tensor-core step's compiled kernel.

    Only the steps built by :mod:`labkit.cuda.kernels.ladder.gemm_codegen` (``mma``, ``swizzle``,
    ``pipeline``, ``tma``) have one; the kernel must have run once. See
    :func:`labkit.cuda.kernels.ladder.gemm_sass.kernel_report`.
    """
    from labkit.cuda.kernels.ladder import gemm_sass

    mod = step_module(step)
    if hasattr(mod, "kernel_report"):  # a step with its own report (wgmma: HGMMA per k-tile)
        return mod.kernel_report(acc, _sm(sm), sass_path, **options)
    if not hasattr(mod, "kernel_config"):
        check_step(step, ("mma", "swizzle", "pipeline", "tma"), " (the tensor-core steps)")
    sm = _sm(sm)
    cfg, name = mod.kernel_config(**options)
    return gemm_sass.kernel_report(cfg, acc, sm, name, sass_path)
