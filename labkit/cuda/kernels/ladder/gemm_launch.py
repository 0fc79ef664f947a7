"""Compiling and launching the generated tensor-core kernels (steps 3-6).

:func:`build_kernel` renders ``gemm_codegen.statements`` for one configuration, accumulator and
SM, executes the text with the intrinsics of :data:`gemm_codegen.INTRINSICS` in scope and
hands the function to ``numba.cuda.jit``; :func:`launch` checks the operands and returns a
no-argument function that launches it; :func:`step_functions` gives a ladder step its
``statements``, ``source``, ``launch`` and ``kernel_config``.

>>> from labkit.cuda.kernels.ladder.gemm_config import TileConfig
>>> statements, source, launch, kernel_config = step_functions("mma", "gemm_mma",
...     TileConfig(stages=1, double_buffer=False))
>>> kernel_config()[1], "def gemm_mma(" in source(), statements()[0].kind
('gemm_mma', True, 'def')
"""

from __future__ import annotations

import functools

import numba
import numpy as np
from numba import cuda

from labkit.cuda import _numba, ptx
from labkit.cuda.kernels.ladder import gemm_ptx
from labkit.cuda.kernels.ladder.gemm_codegen import INTRINSICS, TYPES, kernel_source, statements
from labkit.cuda.kernels.ladder.gemm_common import ceil_div, check_operands, set_dynamic_shared
from labkit.cuda.kernels.ladder.gemm_config import TileConfig, check_sm
from labkit.cuda.kernels.ladder.gemm_layout import tile_layout
from labkit.cuda.kernels.ladder.gemm_tma_maps import tensor_maps
from labkit.cuda.offset_function import offset_function
from labkit.cuda.program import KernelProgram
from labkit.errors import ConfigError, DeviceError

__all__ = ["RULES", "namespace", "program", "build_kernel", "launch_config", "launch", "step_functions"]

#: operand rules of the tensor-core steps: ldmatrix/mma need sm_75; rows of A and B are
#: copied 16 bytes at a time, so K % 8 == 0 and 16-byte-aligned pointers
RULES = dict(min_sm=75, k_multiple=8, align_bytes=16)


def namespace(cfg):
    """What the generated source of ``cfg``'s kernel refers to: each intrinsic of
    :data:`~labkit.cuda.kernels.ladder.gemm_codegen.INTRINSICS`, numba's scalar types, ``cuda``,
    ``min``/``max`` and ``smem_offset``, its shared-memory layout compiled by
    :func:`labkit.cuda.offset_function`."""
    scope = {"cuda": cuda, "min": min, "max": max, "smem_offset": offset_function(tile_layout(cfg))}
    scope.update({t: getattr(_numba.types, t) for t in TYPES})
    for name in INTRINSICS:
        if "." not in name:
            scope[name] = getattr(gemm_ptx if name in gemm_ptx.__all__ else ptx, name)
    return scope


def program(cfg, acc, sm, name="gemm_tc", static_smem=False):
    """The :class:`~labkit.cuda.program.KernelProgram` of ``cfg``'s kernel: the rendered statements
    over :func:`namespace`."""
    sts = statements(cfg, acc, check_sm(sm), name, static_smem)
    from labkit.cuda.kernels.ladder.gemm_statements import render

    return KernelProgram(name, render(sts), namespace(cfg), statements=sts,
                         label=f"gemm {name} {cfg.bm}x{cfg.bn}x{cfg.bk} {acc} sm_{sm}")


@functools.lru_cache(maxsize=None)
def build_kernel(cfg, acc, sm, name="gemm_tc"):
    """Compile-on-first-launch numba kernel for ``cfg``, ``acc`` ("f32"/"f16") and SM ``sm``."""
    options = dict(fastmath=True, lineinfo=False)
    if cfg.max_registers:
        options["max_registers"] = cfg.max_registers
    return program(cfg, acc, sm, name, static_smem=ptx.SIMULATED).dispatcher(**options)


def launch_config(cfg, M, N, sm):
    """(grid, block, dynamic shared bytes) for an M x N output."""
    return (ceil_div(M, cfg.bm) * ceil_div(N, cfg.bn),), (cfg.threads,), cfg.smem_bytes(sm)


def launch(step, cfg, A, B, C, acc, sm, name="gemm_tc"):
    """Check operands for ``step`` and return a no-argument function launching ``cfg``'s kernel."""
    rules = dict(RULES, min_sm=90) if cfg.loader == "tma" else RULES
    M, N, K = check_operands(step, A, B, C, acc, sm, **rules)
    for operand, rows, tile in (("A", M, cfg.bm), ("B", N, cfg.bn)):
        if (rows + tile) * K > 2**31 - 1:
            raise DeviceError(f"{operand}: ({rows} + {tile}) * K = {(rows + tile) * K} is over the "
                              "int32 index range (2**31 - 1) the kernel computes in")
    kernel = build_kernel(cfg, acc, sm, name)
    grid, block, smem = launch_config(cfg, M, N, sm)
    A1, B1 = A.reshape(M * K), B.reshape(N * K)
    Cv = (C if acc == "f32" else C.view(np.uint16)).reshape(M * N)
    args = (A1, B1, Cv, np.int32(M), np.int32(N), np.int32(K))
    if cfg.loader == "tma":
        args += (tensor_maps(cfg, A1, B1, M, N, K),)
    if not ptx.SIMULATED:
        kernel.compile(tuple(numba.typeof(a) for a in args))
        set_dynamic_shared(kernel, smem)
    configured = kernel[grid, block, 0, 0 if ptx.SIMULATED else smem]
    return lambda: configured(*args)


def step_functions(step, name, configs, default=None, default_sm=80, loader=None):
    """``(statements, source, launch, kernel_config)`` of a ladder step built on ``gemm_codegen``.

    ``configs`` is the step's one :class:`TileConfig` or a dict of named ones with ``default`` the
    step's own. Every function takes ``config=``: a name of ``configs``, or any :class:`TileConfig`
    (a copy of the step's with a field changed: ``dataclasses.replace(step.CONFIG, smem_layout=...)``);
    ``loader`` (if given) is the only loader a caller's own TileConfig may use.
    """
    named = {"default": configs} if isinstance(configs, TileConfig) else configs
    default = "default" if isinstance(configs, TileConfig) else default

    def pick(config):
        if config is None:
            config = default
        if isinstance(config, TileConfig):
            if loader is not None and config.loader != loader:
                raise ConfigError(f"config: step {step!r} needs loader={loader!r}, got {config.loader!r}")
            return config
        if config not in named:
            raise ConfigError(f"config: must be a TileConfig or one of {sorted(named)}, got {config!r}")
        return named[config]

    def step_statements(acc="f32", sm=default_sm, config=None):
        return statements(pick(config), acc, sm, name)

    def source(acc="f32", sm=default_sm, config=None):
        return kernel_source(pick(config), acc, sm, name)

    def step_launch(A, B, C, acc, sm, config=None):
        return launch(step, pick(config), A, B, C, acc, sm, name)

    def kernel_config(config=None):
        return pick(config), name

    step_statements.__doc__ = f"The tagged statements of step {step!r}'s kernel (gemm_codegen.statements)."
    source.__doc__ = f"The generated Python source of step {step!r}'s kernel."
    step_launch.__doc__ = ("Check the operands and the config (``config=``: a name or any TileConfig) and "
                           "return a no-argument function that launches the kernel once.")
    kernel_config.__doc__ = f"(TileConfig, kernel name) of step {step!r}."
    return step_statements, source, step_launch, kernel_config
