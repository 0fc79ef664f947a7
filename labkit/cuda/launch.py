"""Kernels that check the GPU before they launch: :class:`Kernel`, what ``labkit.cuda.jit`` makes.

A :class:`Kernel` wraps ``numba.cuda.jit``. It reads the kernel's source names (and those of the
device functions it calls) for :mod:`labkit.cuda.ptx` instructions, so the kernel knows
the oldest SM that can run it. Launching (``kernel[grid, block](...)``) first checks the
current device and raises :class:`labkit.errors.DeviceError` with the reason when the
kernel cannot run there: no GPU (and no simulator), or an SM older than the kernel needs.

Under the CUDA simulator the "device" is a simulated one whose SM defaults to 80 and can
be set with :func:`simulate_sm` (or the environment variable ``LABKIT_SIMULATED_SM``), so
the sm_75 code paths run on a CPU too.

>>> from labkit.cuda import launch, ptx
>>> def k(out):
...     out[0] = ptx.ldmatrix_x1(0)
>>> launch.required_sm(k)
75
>>> launch.sm_name(75)
'sm_75'
"""

from __future__ import annotations

import contextlib
import os
import types as _pytypes

from numba import cuda

from labkit.cuda import ptx
from labkit.errors import DeviceError, InstructionError
from labkit.atoms.records import arch_sm

__all__ = ["Kernel", "required_sm", "device_sm", "device_name", "simulate_sm", "sm_name", "check_sm",
           "check_arch"]

_simulated_sm = [None]


def sm_name(sm: int) -> str:
    """``75`` -> ``'sm_75'``."""
    return f"sm_{int(sm)}"


def _instructions_in(fn, seen=None) -> dict:
    """{instruction name: Instruction} for the ptx instructions a Python function refers to."""
    seen = set() if seen is None else seen
    if id(fn) in seen:
        return {}
    seen.add(id(fn))
    code = getattr(fn, "__code__", None)
    if code is None:
        return {}
    names = set()
    stack = [code]
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        names.update(c.co_freevars)
        stack.extend(x for x in c.co_consts if isinstance(x, _pytypes.CodeType))
    scope = dict(fn.__globals__)
    if fn.__closure__:
        for var, cell in zip(code.co_freevars, fn.__closure__):
            try:
                scope[var] = cell.cell_contents
            except ValueError:
                pass
    found = {}

    def visit(obj):
        ins = ptx.instruction_of(obj)
        if ins is not None:
            found[ins.name] = ins
            return
        inner = getattr(obj, "py_func", None)
        if inner is None and isinstance(obj, Kernel):
            inner = obj.py_func
        if inner is not None and callable(inner) and inner is not fn:
            found.update(_instructions_in(inner, seen))

    for name in names:
        obj = scope.get(name)
        if obj is None:
            continue
        if isinstance(obj, _pytypes.ModuleType):
            for attr in names:
                sub = getattr(obj, attr, None)
                if sub is not None:
                    visit(sub)
        else:
            visit(obj)
    return found


def required_sm(fn) -> int:
    """The oldest SM able to run ``fn``: the largest ``min_sm`` of the ptx instructions it uses.

    ``0`` when it uses none.
    """
    found = _instructions_in(fn)
    return max((ins.min_sm for ins in found.values()), default=0)


def device_sm() -> int:
    """SM of the current device (e.g. ``90`` on an H100/H200), or of the simulated one.

    Raises :class:`DeviceError` when there is neither a CUDA GPU nor the simulator.
    """
    if ptx.SIMULATED:
        if _simulated_sm[0] is not None:
            return _simulated_sm[0]
        env = os.environ.get("LABKIT_SIMULATED_SM", "")
        if env:
            try:
                return int(env)
            except ValueError:
                raise DeviceError(f"LABKIT_SIMULATED_SM must be an integer such as 75 or 80; got {env!r}") from None
        return 80

    if not cuda.is_available():
        raise DeviceError(
            "no CUDA GPU is available: run on a machine with an NVIDIA GPU, set NUMBA_ENABLE_CUDASIM=1 "
            "before importing numba to use the CUDA simulator, or use labkit.sim"
        )
    major, minor = cuda.get_current_device().compute_capability
    return 10 * major + minor


def device_name() -> str:
    """Name of the current device ("CUDA simulator (sm_80)" under the simulator)."""
    if ptx.SIMULATED:
        return f"CUDA simulator ({sm_name(device_sm())})"

    sm = device_sm()
    name = cuda.get_current_device().name
    if isinstance(name, bytes):
        name = name.decode()
    return f"{name} ({sm_name(sm)})"


@contextlib.contextmanager
def simulate_sm(sm: int):
    """Within the block, the simulated device reports SM ``sm`` (simulator only).

    >>> from labkit.cuda import launch, ptx
    >>> if ptx.SIMULATED:
    ...     with launch.simulate_sm(75):
    ...         assert launch.device_sm() == 75
    """
    if not ptx.SIMULATED:
        raise DeviceError("simulate_sm works only under the CUDA simulator (NUMBA_ENABLE_CUDASIM=1)")
    if isinstance(sm, bool) or not isinstance(sm, int) or sm < 50:
        raise DeviceError(f"sm must be an integer SM number such as 75 or 80; got {sm!r}")
    old = _simulated_sm[0]
    _simulated_sm[0] = sm
    try:
        yield
    finally:
        _simulated_sm[0] = old


def check_sm(need: int, what: str, uses=()) -> int:
    """Raise :class:`InstructionError` (a :class:`DeviceError`) unless the current device has
    SM >= ``need``; return its SM."""
    sm = device_sm()
    if sm < need:
        detail = ""
        if uses:
            worst = [u for u in uses if u.min_sm > sm]
            detail = " (" + ", ".join(f"{u.ptx} needs {sm_name(u.min_sm)}" for u in worst) + ")"
        raise InstructionError(
            f"{what} needs {sm_name(need)} or newer{detail}; the current device is {device_name()}"
        )
    return sm


def check_arch(what: str, uses=()) -> None:
    """Raise :class:`InstructionError` unless the current device runs the arch-specific PTX among
    ``uses`` (entries whose ``arch`` is set, e.g. ``"sm_90a"``: wgmma): such PTX runs on that one
    SM only (sm_90a: compute capability 9.0, Hopper), not on older or newer GPUs."""
    specific = [u for u in uses if getattr(u, "arch", "")]
    if not specific:
        return
    sm = device_sm()
    for u in specific:
        need = arch_sm(u.arch)
        if sm != need:
            raise InstructionError(
                f"{what} needs {u.arch}, i.e. an {sm_name(need)} GPU (Hopper: H100, H200): {u.ptx} is "
                f"arch-specific PTX that no other SM runs; the current device is {device_name()}")


class Kernel:
    """A ``numba.cuda`` kernel that knows its minimum SM and checks it before each launch.

    ``kernel[grid, block](*args)`` or ``kernel[grid, block, stream, dynamic_smem](*args)``
    as with numba. ``min_sm``: the largest of the instructions' minimum SMs and the
    ``min_sm`` given to ``labkit.cuda.jit``. ``uses``: the instructions found. Made by a
    :class:`~labkit.cuda.program.KernelProgram` (``program.kernel()``, ``labkit.cuda.jit``).
    """

    def __init__(self, fn, min_sm=None, **options):
    
        self.py_func = fn
        self.uses = tuple(sorted(_instructions_in(fn).values(), key=lambda i: i.name))
        found = max((u.min_sm for u in self.uses), default=0)
        self.min_sm = max(found, int(min_sm or 0))
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.__doc__ = getattr(fn, "__doc__", None)
        self.dispatcher = cuda.jit(**options)(fn)

    def check(self) -> int:
        """Raise :class:`DeviceError` if the current device cannot run this kernel; return its SM."""
        check_arch(f"kernel {self.__name__!r}", self.uses)
        return check_sm(self.min_sm, f"kernel {self.__name__!r}", self.uses)

    def __getitem__(self, config):
        self.check()
        return self.dispatcher[config]

    def __repr__(self):
        return f"<labkit kernel {self.__name__} (min {sm_name(self.min_sm)})>"
