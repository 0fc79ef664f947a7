"""What every trace kernel shares: aligned shared arrays, its register limit, one build per key, a launch.

The trace kernels (:mod:`~labkit.cuda.kernels.probes.trace_kernels`, :mod:`~labkit.cuda.kernels.probes.trace_cta`,
:mod:`~labkit.cuda.kernels.probes.stmatrix_trace`) are built once per key into ``_KERNELS``, show
their source with the constants they close over (``_kernel_source``) and launch with numba's
performance warnings silenced (``_launch``).

>>> from labkit.cuda.kernels.probes import trace_launch
>>> trace_launch.MAX_REGS
4
>>> entry, intrinsic = trace_launch._ldmatrix("x2.trans")
>>> entry.ptx
'ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16'
"""

from __future__ import annotations

import warnings

from labkit.atoms import instructions
from labkit.cuda import ptx
from labkit.cuda.kernels.probes.trace_plans import _ld_name, parse_variant
from labkit.errors import DeviceError

__all__ = ["ALIGN", "MAX_REGS"]


# ---------------------------------------------------------------------------------------------
# kernels: plain ``@cuda.jit`` functions, made by factories that close over the registry entry's
# bound intrinsic (``getattr(ptx, entry.name)``) and integer constants (register counts, sizes)


ALIGN = None if ptx.SIMULATED else 128
"""Alignment of the shared arrays: 128 bytes on a GPU, none under the simulator (it rejects one)."""
MAX_REGS = 4
"""Registers per operand a trace kernel holds (kernels keep them in 4-entry local arrays)."""

# A kernel is one function: numba-cuda compiles a called device function for the current GPU,
# so a kernel that calls one could not be compiled to PTX on a machine without a GPU. The
# register tuples an instruction takes are therefore made inside the kernel from 4-entry local
# arrays with a constant slice (``(r[0], r[1], r[2], r[3])[:n]``), and the branch on a
# constant (``if num == 1``, ldmatrix .x1 returns one register, not a tuple) is pruned by numba
# before typing. Loops over constant ranges are unrolled by the compiler: one instruction per load.


def _ldmatrix(variant):
    """The registry's ldmatrix entry for ``variant`` and its bound intrinsic."""
    num, trans = parse_variant(variant)
    entry = instructions.instruction(_ld_name(num, trans), "ldmatrix")
    return entry, getattr(ptx, entry.name)


def _check_regs(entry, counts):
    for op, n in counts.items():
        if not 1 <= n <= MAX_REGS:
            raise DeviceError(f"{entry.ptx}: {op} has {n} registers per lane; trace kernels hold 1..{MAX_REGS}")


def _kernel_source(kernel, **constants) -> str:
    """The Python source of a trace kernel and the constants it closes over (for display)."""
    import inspect

    head = "".join(f"# {name} = {value}\n" for name, value in constants.items())
    try:
        return head + inspect.getsource(kernel.py_func)
    except (OSError, TypeError):                # no source file (e.g. a frozen install)
        return head + f"# source of {kernel.__name__} is not available\n"


_KERNELS: dict = {}


def _launch(kernel, grid, block, *args):
    """Launch with numba's performance warnings (host copies, small grids) silenced."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module=r"numba")
        kernel[grid, block](*args)
