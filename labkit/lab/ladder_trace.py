"""Run one thread of a GEMM ladder step's kernel in plain Python, every PTX call recorded.

:func:`trace` runs a step's own kernel for one thread of one block: for the tensor-core steps
(3-6) the source ``labkit.cuda.kernels.ladder.gemm_codegen`` renders from the step's statements, with
each intrinsic of ``gemm_codegen.INTRINSICS`` replaced by a recorder; for steps 1 and 2 their
``@cuda.jit`` function's Python code, with A, B, C and the shared arrays replaced by recording
arrays. :func:`step_config` gives the configuration a step runs with.

>>> t = trace("pipeline", M=128, N=128, K=128, thread=9)
>>> [args[2] for name, args in t.calls if name == "cp_async_16"][:2]     # A's index of two 16-byte copies
[200, 2248]
"""

from __future__ import annotations

import importlib
import inspect
import types
from dataclasses import dataclass, field

from labkit.cuda.kernels.ladder.gemm import ALL_STEPS as STEPS
from labkit.cuda.kernels.ladder.gemm import check_step
from labkit.errors import ConfigError, LabkitError

__all__ = ["TRACED_STEPS", "step_config", "Trace", "trace", "gemm_block_dim", "kernel_lines", "kernel_statements"]

#: the steps a thread can be traced through: one thread's PTX calls in plain Python. ``wgmma``
#: is not among them: its MMAs are issued by a whole warpgroup, asynchronously, from shared memory
TRACED_STEPS = tuple(s for s in STEPS if s != "wgmma")


def _module(step):
    check_step(step, TRACED_STEPS, " (traced thread by thread; wgmma's MMAs are a warpgroup's)")
    return importlib.import_module(f"labkit.cuda.kernels.ladder.gemm_{step}")


def step_config(step):
    """The configuration a step runs with: ``gemm_naive.BLOCK``, ``gemm_smem.TILE``, or the
    :class:`~labkit.cuda.kernels.ladder.gemm_config.TileConfig` of a tensor-core step (its ``CONFIG``,
    or ``CONFIGS[DEFAULT]``).

    >>> step_config("smem"), step_config("mma").stages
    ((64, 64, 32), 1)
    """
    mod = _module(step)
    if step == "naive":
        return mod.BLOCK
    if step == "smem":
        return mod.TILE
    return mod.CONFIG if hasattr(mod, "CONFIG") else mod.CONFIGS[mod.DEFAULT]


def _tensorcore(cfg, what):
    from labkit.cuda.kernels.ladder.gemm_config import TileConfig

    if not isinstance(cfg, TileConfig):
        raise ConfigError(f"config: {what} needs a tensor-core step's TileConfig "
                          f"(step_config('mma'), ...); got {cfg!r}")
    return cfg


@dataclass
class Trace:
    """What one thread of a step's kernel did: ``calls``, the PTX calls in program order, each
    ``(name, args)`` with the arguments evaluated (arrays given as their names "A", "B", "C");
    ``loads`` and ``stores``, the ``(array, index)`` of element reads and writes of the steps that
    index arrays directly (steps 1 and 2; shared arrays are "sA" and "sB"); ``variables``, the
    integer variables of a tensor-core kernel when it returned (``m0``, ``n0``, ``crow``, ...)."""

    step: str
    thread: int
    block: int | tuple
    calls: list = field(default_factory=list)
    loads: list = field(default_factory=list)
    stores: list = field(default_factory=list)
    variables: dict = field(default_factory=dict)

    def args(self, name):
        """The argument tuples of every call of ``name``."""
        return [a for nm, a in self.calls if nm == name]


class _Array:
    """Stand-in for a kernel argument or shared array: records indices, reads zeros."""

    def __init__(self, name, tr, shape=None):
        self.name, self.tr, self.shape = name, tr, shape

    def __getitem__(self, idx):
        self.tr.loads.append((self.name, idx))
        return 0.0

    def __setitem__(self, idx, value):
        self.tr.stores.append((self.name, idx))


class _Local:
    def __init__(self):
        self.d = {}

    def __getitem__(self, idx):
        return self.d.get(idx, 0.0)

    def __setitem__(self, idx, value):
        self.d[idx] = value


def _fake_cuda(tr, thread, block, block_dim, shared_names):
    names = iter(shared_names)
    tx, ty = (thread % block_dim[0], thread // block_dim[0]) if len(block_dim) == 2 else (thread, 0)
    bx, by = block if isinstance(block, tuple) else (block, 0)
    return types.SimpleNamespace(
        threadIdx=types.SimpleNamespace(x=tx, y=ty, z=0),
        blockIdx=types.SimpleNamespace(x=bx, y=by, z=0),
        blockDim=types.SimpleNamespace(x=block_dim[0], y=block_dim[1] if len(block_dim) == 2 else 1, z=1),
        syncthreads=lambda: tr.calls.append(("syncthreads", ())),
        shared=types.SimpleNamespace(array=lambda shape, dtype: _Array(next(names, "smem"), tr, shape)),
        local=types.SimpleNamespace(array=lambda shape, dtype: _Local()),
    )


def _recorder(tr, name, op):
    """Records a call of intrinsic ``name`` (PTX instruction ``op``); returns what the kernel
    reads back: the accumulators an MMA is given (4 f32 or 2 packed f16 registers), four zero
    registers of a 128-bit load, a completed mbarrier phase."""
    def call(*args):
        tr.calls.append((name, tuple(a.name if isinstance(a, _Array) else a for a in args)))
        if op == "mma":
            return args[-4:] if name.endswith("f32") else args[-2:]
        if op in ("ldmatrix", "ld.global.v4"):
            return (0, 0, 0, 0)
        if op == "mbarrier.try_wait":
            return 1
        return None
    return call


def trace(step, *, M=None, N=None, K=None, block=0, thread=0, config=None, sm=90):
    """Run step ``step``'s kernel for one ``thread`` of one ``block`` in plain Python.

    The tensor-core steps (3-6) run the source labkit generates for them
    (``gemm_<step>.source``) with the PTX calls replaced by recorders; steps 1 and 2 run their
    kernel's own Python function with A, B, C and the shared arrays replaced by recording arrays.
    ``block`` is the linear block index of steps 3-6 (their raster) or ``(bx, by)`` of steps 1-2.
    Sizes default to one block's tile in M and N and two k-tiles in K.

    >>> t = trace("naive", M=32, N=32, K=4, block=(1, 0), thread=17)
    >>> t.loads[:2], t.stores
    ([('A', (1, 0)), ('B', (17, 0))], [('C', (1, 17))])
    """
    mod = _module(step)
    cfg = config if config is not None else step_config(step)
    tr = Trace(step, thread, block)
    if step in ("naive", "smem"):
        bm, bn, bk = (cfg[1], cfg[0], 1) if step == "naive" else cfg
        M, N, K = M or bm, N or bn, K or 2 * bk
        block_dim = gemm_block_dim(step)
        if not (isinstance(block, tuple) and len(block) == 2):
            raise LabkitError(f"block: step {step!r} takes (bx, by); got {block!r}")
        py = mod._kernel("f32").py_func
        fake = _fake_cuda(tr, thread, block, block_dim, ("sA", "sB"))
        scope = dict(py.__globals__, cuda=fake)
        fn = types.FunctionType(py.__code__, scope, py.__name__, py.__defaults__, py.__closure__)
        fn(_Array("A", tr, (M, K)), _Array("B", tr, (N, K)), _Array("C", tr, (M, N)))
        return tr
    from labkit.cuda.kernels.ladder.gemm_codegen import INTRINSICS, kernel_source
    from labkit.cuda.kernels.ladder.gemm_layout import tile_layout
    from labkit.cuda.offset_function import offset_program
    from labkit.cuda.program import KernelProgram

    cfg = _tensorcore(cfg, "trace")
    M, N, K = M or cfg.bm, N or cfg.bn, K or 2 * cfg.bk
    if not isinstance(block, int):
        raise LabkitError(f"block: step {step!r} takes the linear block index (an int); got {block!r}")
    name = f"gemm_{step}"
    src = (mod.source("f32", sm) if config is None   # the step's own generated source
           else kernel_source(cfg, "f32", sm, name))
    scope = {"min": min, "max": max, "int32": int, "float32": lambda x: x,
             "uint32": lambda x: int(x) & 0xFFFFFFFF, "uint16": lambda x: int(x) & 0xFFFF,
             "smem_offset": offset_program(tile_layout(cfg)).function(),
             "cuda": _fake_cuda(tr, thread, block, (cfg.threads,), ("smem",))}
    for key, op in INTRINSICS.items():
        if "." not in key:                          # cuda.syncthreads: the fake cuda records it
            scope[key] = _recorder(tr, key, op)
    scope["smem_addr"] = lambda arr, i: 0           # shared memory starts at byte 0
    # the kernel's own variables after it ran (m0, n0, crow, ...) are kept in Trace.variables
    program = KernelProgram(name, src + "    return locals()\n", scope, label=f"ladder_trace {name}")
    out = program.function()(_Array("A", tr), _Array("B", tr), _Array("C", tr), M, N, K,
                             *(("maps",) if cfg.loader == "tma" else ()))
    tr.variables = {k: v for k, v in out.items() if isinstance(v, (int, bool))}
    return tr


def gemm_block_dim(step):
    """Threads of a block of step 1 or 2, ``(x, y)``."""
    if step == "naive":
        return tuple(_module("naive").BLOCK)
    if step == "smem":
        return (16, 16)
    check_step(step, ("naive", "smem"))


def kernel_statements(step, config=None, sm=90):
    """The tagged statements of tensor-core step ``step``'s kernel (``gemm_<step>.statements``,
    or ``gemm_codegen.statements`` of ``config``), f32 accumulation."""
    mod = _module(step)
    if step in ("naive", "smem"):
        check_step(step, TRACED_STEPS[2:], " (the generated steps; naive and smem are hand-written @cuda.jit)")
    if config is None:
        return mod.statements("f32", sm)
    from labkit.cuda.kernels.ladder.gemm_codegen import statements

    return statements(_tensorcore(config, "kernel_statements"), "f32", sm, f"gemm_{step}")


def kernel_lines(step, config=None, sm=90):
    """The source of step ``step``'s kernel as lines: its rendered statements for steps 3-6, the
    kernel function's own source for steps 1 and 2."""
    if step in ("naive", "smem"):
        return inspect.getsource(_module(step)._kernel("f32").py_func).splitlines()
    return [s.line() for s in kernel_statements(step, config, sm)]
