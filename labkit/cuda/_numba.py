"""The one boundary between labkit and numba / numba-cuda: every name labkit needs beyond
``numba.cuda.jit``, ``cuda.shared/local.array``, ``cuda.threadIdx`` and friends comes from here.

numba-cuda's own extending API is used where it has one (``numba.cuda.extending.intrinsic``,
``numba.cuda.types``, ``numba.cuda.cgutils``, ``numba.cuda.core.errors``); the rest are the few
internals labkit genuinely needs, each named once below: the simulator switch, the simulator's
shared-array allocator (:mod:`labkit.cuda._cudasim` fixes a race in it), the driver's version.
Every name is resolved when this module is imported; when numba-cuda moved one, the import fails
with :class:`NumbaBoundaryError` naming the installed numba-cuda version, the missing name and the
version labkit was written against, instead of a traceback deep inside a kernel compile.

``SIMULATED`` is the one answer to "is numba's CUDA simulator on?" (``NUMBA_ENABLE_CUDASIM=1``
set before numba was imported); :mod:`labkit.cuda`, :mod:`labkit.cuda.ptx` and
:mod:`labkit.cuda.probe` re-export this constant.

>>> from labkit.cuda import _numba
>>> _numba.SIMULATED in (True, False), _numba.WRITTEN_FOR
(True, '0.30')
>>> _numba.resolve("numba.cuda.no_such_module", "thing")
Traceback (most recent call last):
  ...
labkit.cuda._numba.NumbaBoundaryError: numba-cuda ... has no numba.cuda.no_such_module.thing (labkit's numba boundary, labkit.cuda._numba, was written for numba-cuda 0.30); pin numba-cuda to 0.30.x or update labkit.cuda._numba
"""

from __future__ import annotations

import importlib
import importlib.metadata as _md

from labkit.errors import DeviceError

__all__ = ["NumbaBoundaryError", "WRITTEN_FOR", "NUMBA_CUDA_VERSION", "SIMULATED", "resolve",
           "intrinsic", "intrinsic_prefer_literal", "types", "TypingError", "cgutils_get_item_pointer", "cgutils_unpack_tuple",
           "ir", "simulator_shared_class", "simulator_thread", "simulator_aborted", "simulator_array", "as_dtype", "NumbaType", "driver_version",
           "element_pointer_as_int", "index_values", "inline_asm", "fixed_arity", "kernel_set_attribute",
           "driver_api", "prepared_launch", "max_active_clusters"]

WRITTEN_FOR = "0.30"
"""The numba-cuda release series this boundary was written and tested against."""


def _version(dist):
    try:
        return _md.version(dist)
    except _md.PackageNotFoundError:
        return "(not installed)"


NUMBA_CUDA_VERSION = _version("numba-cuda")
"""The installed numba-cuda version."""


class NumbaBoundaryError(DeviceError, ImportError):
    """A name labkit takes from numba-cuda is not where this numba-cuda version keeps it."""


def resolve(module: str, name: str):
    """``module.name``, or :class:`NumbaBoundaryError` naming the numba-cuda version."""
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        raise NumbaBoundaryError(
            f"numba-cuda {NUMBA_CUDA_VERSION} has no {module}.{name} (labkit's numba boundary, "
            f"labkit.cuda._numba, was written for numba-cuda {WRITTEN_FOR}); pin numba-cuda to "
            f"{WRITTEN_FOR}.x or update labkit.cuda._numba") from None


# --- the simulator switch (numba-cuda reads NUMBA_ENABLE_CUDASIM once, at import) ---------------
SIMULATED: bool = bool(resolve("numba.cuda.core.config", "ENABLE_CUDASIM"))
"""True when numba's CUDA simulator is on: ``labkit.cuda.ptx`` names are then Python twins."""

# --- numba-cuda's extending API (typing and lowering of the PTX intrinsics) ---------------------
intrinsic = resolve("numba.cuda.extending", "intrinsic")
_intrinsic_with_options = resolve("numba.cuda.extending", "_intrinsic")


def intrinsic_prefer_literal(func):
    """``@intrinsic`` typed with literal arguments first (an immediate operand such as the ``n``
    of ``cp.async.wait_group n``); numba-cuda's ``intrinsic`` takes no options, its
    ``_intrinsic(target="cuda", prefer_literal=True)`` does."""
    return _intrinsic_with_options(target="cuda", prefer_literal=True)(func)
types = resolve("numba.cuda", "types")
for _name in ("Array", "BaseTuple", "Integer", "IntegerLiteral", "Float", "UniTuple", "uint32", "int32",
              "uint64", "float32", "intp", "void"):
    resolve("numba.cuda.types", _name)
TypingError = resolve("numba.cuda.core.errors", "TypingError")
cgutils_get_item_pointer = resolve("numba.cuda.cgutils", "get_item_pointer")
cgutils_unpack_tuple = resolve("numba.cuda.cgutils", "unpack_tuple")
ir = importlib.import_module("llvmlite.ir")

# --- simulator internals (labkit.cuda._cudasim) -------------------------------------------------
simulator_shared_class = resolve("numba.cuda.simulator.kernelapi", "FakeCUDAShared")
as_dtype = resolve("numba.cuda.np.numpy_support", "as_dtype")
NumbaType = resolve("numba.cuda.types", "Type")
if not callable(getattr(simulator_shared_class, "array", None)):
    raise NumbaBoundaryError(f"numba-cuda {NUMBA_CUDA_VERSION}: the simulator's FakeCUDAShared has no "
                             f"array() (labkit.cuda._numba was written for numba-cuda {WRITTEN_FOR})")


def simulator_thread():
    """``(thread, block, thread index in the block, threads in the block)`` of the calling
    simulated CUDA thread, or None outside a simulated kernel. The simulator runs a thread as a
    ``threading.Thread`` carrying ``_manager`` (its block, with ``_block_dim``) and ``thread_id``."""
    import threading

    import numpy as np

    t = threading.current_thread()
    manager = getattr(t, "_manager", None)
    if manager is None:
        return None
    try:
        return t, manager, int(t.thread_id), int(np.prod(manager._block_dim))
    except AttributeError:
        raise NumbaBoundaryError(f"numba-cuda {NUMBA_CUDA_VERSION}: a simulated thread no longer carries "
                                 f"thread_id / _manager._block_dim (labkit.cuda._numba was written for "
                                 f"numba-cuda {WRITTEN_FOR})") from None


def simulator_aborted(thread) -> bool:
    """True when the simulator has told ``thread``'s block to stop (another thread raised)."""
    return bool(getattr(thread, "abort", False))


def simulator_array(arr):
    """The numpy array behind a simulator array wrapper (kernel arguments are wrapped in
    ``FakeCUDAArray``/``FakeWithinKernelCUDAArray``, which keep it as ``_ary`` / ``_item``);
    anything else is returned as is."""
    import numpy as np

    for _ in range(4):
        if isinstance(arr, np.ndarray):
            break
        inner = arr.__dict__.get("_item") if hasattr(arr, "__dict__") else None
        if inner is None:
            inner = getattr(arr, "_ary", None)
        if inner is None:
            break
        arr = inner
    return arr


def driver_version():
    """``(major, minor)`` of the CUDA driver API numba talks to (GPU only)."""
    return tuple(resolve("numba.cuda.cudadrv.driver", "driver").get_version())


def kernel_set_attribute(dispatcher, attribute, value, device_id):
    """Set the driver's ``CU_FUNC_ATTRIBUTE_<attribute>`` to ``value`` on every compiled kernel of
    ``dispatcher`` (``cuKernelSetAttribute``; GPU only). The handle comes through numba-cuda's public
    API (each overload's ``library.get_cufunc()``), the driver and its enum from here."""
    binding = resolve("numba.cuda.cudadrv.driver", "binding")
    driver = resolve("numba.cuda.cudadrv.driver", "driver")
    attr = getattr(binding.CUfunction_attribute, f"CU_FUNC_ATTRIBUTE_{attribute}")
    for kernel in dispatcher.overloads.values():
        driver.cuKernelSetAttribute(attr, value, kernel.library.get_cufunc().handle, device_id)


def driver_api():
    """The CUDA driver's Python bindings numba-cuda itself uses (``cuda.bindings.driver``), for the
    calls numba has no wrapper of (``cuTensorMapEncodeTiled``)."""
    return importlib.import_module("cuda.bindings.driver")


def fixed_arity(name, params, typer, doc=None):
    """A typing function ``name(typingctx, *params)`` for numba's ``@intrinsic``, which reads the
    intrinsic's argument list from the function's signature: ``typer(typingctx, *args)`` behind an
    ``inspect.Signature`` of exactly ``params`` (no generated source).

    >>> import inspect
    >>> f = fixed_arity("add3", ("a", "b", "c"), lambda ctx, *xs: (ctx, xs))
    >>> str(inspect.signature(f)), f("ctx", 1, 2, 3)
    ('(typingctx, a, b, c)', ('ctx', (1, 2, 3)))
    """
    import inspect

    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    signature = inspect.Signature([inspect.Parameter(p, kind) for p in ("typingctx", *params)])

    def typing(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        return typer(*bound.args)

    typing.__signature__ = signature
    typing.__name__ = typing.__qualname__ = name
    typing.__doc__ = doc
    return typing


# --- lowering helpers every intrinsic shares ----------------------------------------------------
_i64 = ir.IntType(64)


def index_values(context, builder, idxty, idx):
    """An index operand (an integer, or a tuple of them) as a list of intp values."""
    if isinstance(idxty, types.BaseTuple):
        items = cgutils_unpack_tuple(builder, idx, len(idxty))
        return [context.cast(builder, v, t, types.intp) for v, t in zip(items, idxty)]
    return [context.cast(builder, idx, idxty, types.intp)]


def element_pointer_as_int(context, builder, aryty, ary_val, idxty, idx_val):
    """The address of ``ary[idx]`` as a 64-bit integer (no wraparound of negative indices)."""
    ary = context.make_array(aryty)(context, builder, ary_val)
    ptr = cgutils_get_item_pointer(context, builder, aryty, ary,
                                   index_values(context, builder, idxty, idx_val), wraparound=False)
    return builder.ptrtoint(ptr, _i64)


def inline_asm(builder, ret, args, text, constraints, values, side_effect=True):
    """Call inline PTX ``text``: ``ret`` and ``args`` are llvmlite types, ``values`` the operands."""
    asm = ir.InlineAsm(ir.FunctionType(ret, list(args)), text, constraints, side_effect=side_effect)
    return builder.call(asm, list(values))


def prepared_launch(kernel, grid, block, shared_bytes, args, cluster=1):
    """A no-argument function that launches ``kernel`` (a dispatcher's compiled overload:
    ``dispatcher.compile(signature)``) on ``args``, marshalled once (GPU only).

    numba-cuda's ``kernel[grid, block](*args)`` types every argument, picks the overload and
    marshals the arguments again on each call, which costs more host time than a short kernel
    runs. This marshals them here, the way numba-cuda does (the overload's ``_prepare_args``),
    builds cuda.core's ``LaunchConfig`` once, and each call hands both to cuda.core's ``launch`` on
    the default stream. ``args`` must be device arrays and scalars (nothing is copied back), and
    stay alive as long as the function. ``cluster`` > 1 launches thread-block clusters of that many
    CTAs along x: ``grid`` counts CTAs and must be a multiple of it.

    >>> prepared_launch(None, 3, 32, 0, (), cluster=2)
    Traceback (most recent call last):
    ...
    labkit.errors.DeviceError: grid: a cluster launch needs a grid of whole clusters (a positive multiple of cluster=2); got grid=3
    """
    if cluster < 1 or grid < cluster or grid % cluster:
        raise DeviceError(f"grid: a cluster launch needs a grid of whole clusters (a positive multiple of "
                          f"cluster={cluster}); got grid={grid}")
    launch = resolve("cuda.core", "launch")
    LaunchConfig = resolve("cuda.core", "LaunchConfig")
    driver = resolve("numba.cuda.cudadrv", "driver")
    stream = driver._to_core_stream(0)
    kernelargs, retr = [], []
    for t, v in zip(kernel.argument_types, args):
        kernel._prepare_args(t, v, stream, retr, kernelargs)
    if retr:
        raise DeviceError("args: a prepared launch takes device arrays (cuda.to_device), not host arrays "
                          "that would be copied back after each launch")
    shape = dict(cluster=(cluster, 1, 1)) if cluster > 1 else {}
    config = LaunchConfig(grid=(grid // cluster, 1, 1), block=(block, 1, 1), shmem_size=shared_bytes, **shape)
    function = kernel._codelibrary.get_cufunc().kernel

    def run():
        launch(stream, config, function, *kernelargs)

    return run


def max_active_clusters(kernel, block, shared_bytes, cluster):
    """How many clusters of ``cluster`` CTAs of ``kernel`` (a compiled overload) the GPU runs at once (cuda.core's
    occupancy query, ``cuOccupancyMaxActiveClusters``), or None where this cuda.core cannot say."""
    LaunchConfig = resolve("cuda.core", "LaunchConfig")
    driver = resolve("numba.cuda.cudadrv", "driver")
    config = LaunchConfig(grid=(1, 1, 1), cluster=(cluster, 1, 1), block=(block, 1, 1), shmem_size=shared_bytes)
    try:
        occupancy = kernel._codelibrary.get_cufunc().kernel.occupancy
    except AttributeError:
        return None
    for kw in (dict(stream=driver._to_core_stream(0)), {}):      # stream is keyword-only in cuda.core 1.2
        try:
            return int(occupancy.max_active_clusters(config, **kw))
        except TypeError:
            continue
    return None
