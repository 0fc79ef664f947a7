"""A rung of the GEMM ladder in CuTe's words: its mainloop beside the CuTe calls that do the same.

CuTe's GEMM tutorials say in a handful of calls what a ladder rung (``labkit.cuda.kernels.gemm_*``)
spells out index by index: ``local_tile`` picks the thread block's tile of A, B and C;
``partition_S`` / ``partition_D`` of a TiledCopy give each thread its part of the copy into shared
memory; ``cp_async_fence`` / ``cp_async_wait<N>`` bound the copies in flight; a k-tile loop runs over
the third mode of the block's tile and a k-block loop over shared memory's K; ``gemm(tiled_mma, ...)``
multiplies the TiledMMA's partitions; ``axpby`` writes the accumulators to C.

:func:`cute_objects` builds those objects with labkit for a rung's configuration (its CTA tile,
threads and stages, read from the kernel module), :func:`trace` runs the rung's own kernel source
for one thread in plain Python, with every PTX call recorded instead of issued, and
:func:`side_by_side` pairs each CuTe call (and the layout labkit computes for it) with the lines
of the rung's source that do the same work.

>>> from labkit import ladder_cute
>>> mma = ladder_cute.rung_tiled_mma(ladder_cute.rung_config("pipeline"))
>>> print(mma.permutation_mnk[0], mma.permutation_mnk[1])
(_16,_2,_4):(_1,_64,_16) (_8,_2,_8):(_1,_64,_8)
>>> t = ladder_cute.trace("pipeline", M=128, N=128, K=128, thread=9)
>>> [args[2] for name, args in t.calls if name == "cp_async_16"][:2]     # A's index of two 16-byte copies
[200, 2248]
"""

from __future__ import annotations

import ast
import inspect
import types
from dataclasses import dataclass, field

from labkit.errors import LabkitError

__all__ = ["STEPS", "ATOM", "rung_config", "rung_tiled_mma", "warp_coverage", "Trace", "trace",
           "kernel_lines", "ranges"]

#: the ladder's rungs, in order (labkit.cuda.kernels.gemm_<step>)
STEPS = ("naive", "smem", "mma", "swizzle", "pipeline", "tma")
#: the MMA atom of the tensor-core rungs with fp32 accumulation (sm_80 and later)
ATOM = "SM80_16x8x16_F32F16F16F32_TN"


def _module(step):
    import importlib

    if step not in STEPS:
        raise LabkitError(f"step must be one of {', '.join(STEPS)}; got {step!r}")
    return importlib.import_module(f"labkit.cuda.kernels.gemm_{step}")


def rung_config(step):
    """The configuration a rung runs with: ``gemm_naive.BLOCK``, ``gemm_smem.TILE``, or the
    :class:`~labkit.cuda.kernels.gemm_tensorcore.TileConfig` of a tensor-core rung (its ``CONFIG``,
    or ``CONFIGS[DEFAULT]``).

    >>> rung_config("smem"), rung_config("mma").stages
    ((64, 64, 32), 1)
    """
    mod = _module(step)
    if step == "naive":
        return mod.BLOCK
    if step == "smem":
        return mod.TILE
    return mod.CONFIG if hasattr(mod, "CONFIG") else mod.CONFIGS[mod.DEFAULT]


def _tensorcore(cfg, what):
    from labkit.cuda.kernels.gemm_tensorcore import TileConfig

    if not isinstance(cfg, TileConfig):
        raise LabkitError(f"{what}: config must be a tensor-core rung's TileConfig "
                          f"(rung_config('mma'), ...); got {cfg!r}")
    return cfg


def rung_tiled_mma(cfg, atom=ATOM):
    """The TiledMMA of a tensor-core rung: ``atom`` on ``warps_m x warps_n`` warps (warp ``w`` at
    M ``w % warps_m``, N ``w // warps_m``), with the permutation that gives every warp one
    contiguous warp tile, as the rung does: M index ``i + 16 w + 16 warps_m r`` (atom row ``i``,
    warp ``w``, repeat ``r``) is row ``i + (bm / warps_m) w + 16 r``; N likewise with 8.

    >>> print(rung_tiled_mma(rung_config("mma")).permutation_mnk[0])
    (_16,_2,_2):(_1,_32,_16)
    """
    import labkit as lk

    cfg = _tensorcore(cfg, "rung_tiled_mma")
    S = lk.S
    (wtm, wtn), (mi, ni) = cfg.warp_tile, cfg.atoms
    perm_m = lk.make_layout((S(16), S(cfg.warps_m), S(mi)), (S(1), S(wtm), S(16)))
    perm_n = lk.make_layout((S(8), S(cfg.warps_n), S(ni)), (S(1), S(wtn), S(8)))
    return lk.make_tiled_mma(atom, lk.make_layout((S(cfg.warps_m), S(cfg.warps_n))), (perm_m, perm_n, S(16)))


def ranges(values):
    """Sorted integers as text of runs: ``[0, 1, 2, 5, 6]`` -> ``"0-2, 5-6"``.

    >>> ranges([7, 0, 1, 2, 5, 6])
    '0-2, 5-7'
    """
    out, vals = [], sorted(set(int(v) for v in values))
    for v in vals:
        if out and v == out[-1][1] + 1:
            out[-1][1] = v
        else:
            out.append([v, v])
    return ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b in out)


def warp_coverage(tiled_mma, tile_mn):
    """``{warp: (rows, columns)}``: the rows and columns of a ``tile_mn`` tile of C that each warp's
    threads hold in ``tiled_mma.partition_C``, as :func:`ranges` text.

    >>> import labkit as lk
    >>> mma = lk.make_tiled_mma(ATOM, lk.make_layout((lk.S(2), lk.S(2))))
    >>> warp_coverage(mma, (32, 16))[1]
    ('16-31', '0-7')
    """
    import labkit as lk

    if not (isinstance(tile_mn, tuple) and len(tile_mn) == 2 and all(isinstance(v, int) and v > 0 for v in tile_mn)):
        raise LabkitError(f"tile_mn must be (M, N), two positive ints; got {tile_mn!r}")
    m, n = tile_mn
    gC = lk.make_tensor(None, lk.make_layout((lk.S(m), lk.S(n))))
    out = {}
    for warp in range(int(tiled_mma.num_threads) // 32):
        offs = set()
        for lane in range(32):
            offs |= {int(o) for o in tiled_mma.get_slice(32 * warp + lane).partition_C(gC).offsets().ravel()}
        out[warp] = (ranges(o % m for o in offs), ranges(o // m for o in offs))
    return out


# ---------------------------------------------------------------- running a rung for one thread

@dataclass
class Trace:
    """What one thread of a rung's kernel did: ``calls``, the PTX calls in program order, each
    ``(name, args)`` with the arguments evaluated (arrays given as their names "A", "B", "C");
    ``loads`` and ``stores``, the ``(array, index)`` of element reads and writes of the rungs that
    index arrays directly (steps 1 and 2; shared arrays are "sA" and "sB")."""

    step: str
    thread: int
    block: int | tuple
    calls: list = field(default_factory=list)
    loads: list = field(default_factory=list)
    stores: list = field(default_factory=list)

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


def _recorder(tr, name):
    def call(*args):
        tr.calls.append((name, tuple(a.name if isinstance(a, _Array) else a for a in args)))
        if name.startswith("mma_"):
            return args[-4:] if name.endswith("f32") else args[-2:]
        if name in ("ldmatrix_x4", "ld_global_v4"):
            return (0, 0, 0, 0)
        if name == "mbarrier_try_wait":
            return 1
        return None
    return call


def trace(step, *, M=None, N=None, K=None, block=0, thread=0, config=None, arch=(9, 0)):
    """Run rung ``step``'s kernel for one ``thread`` of one ``block`` in plain Python.

    The tensor-core rungs (steps 3-6) run the source labkit generates for them
    (``gemm_<step>.source``) with the PTX calls replaced by recorders; steps 1 and 2 run their
    kernel's own Python function with A, B, C and the shared arrays replaced by recording arrays.
    ``block`` is the linear block index of steps 3-6 (their raster) or ``(bx, by)`` of steps 1-2.
    Sizes default to one block's tile in M and N and two k-tiles in K.

    >>> t = trace("naive", M=32, N=32, K=4, block=(1, 0), thread=17)
    >>> t.loads[:2], t.stores
    ([('A', (1, 0)), ('B', (17, 0))], [('C', (1, 17))])
    """
    mod = _module(step)
    cfg = config if config is not None else rung_config(step)
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
    from labkit.cuda.kernels import gemm_tensorcore as tc

    cfg = _tensorcore(cfg, "trace")
    M, N, K = M or cfg.bm, N or cfg.bn, K or 2 * cfg.bk
    if not isinstance(block, int):
        raise LabkitError(f"block: step {step!r} takes the linear block index (an int); got {block!r}")
    name = f"gemm_{step}"
    src = tc.kernel_source(cfg, "f32", tuple(arch), name)
    scope = {}
    for key, value in tc._namespace(cfg).items():
        if key in ("min", "max"):
            scope[key] = value
        elif key in ("int32", "float32"):
            scope[key] = (lambda x: x) if key == "float32" else int
        elif key == "uint32":
            scope[key] = lambda x: int(x) & 0xFFFFFFFF
        elif key == "uint16":
            scope[key] = lambda x: int(x) & 0xFFFF
        elif key == "smem_offset":
            scope[key] = tc.offset_function(cfg.smem_kind, cfg.bk)
        elif key == "smem_addr":
            scope[key] = lambda arr, i: 0          # shared memory starts at byte 0
        elif key == "cuda":
            scope[key] = _fake_cuda(tr, thread, block, (cfg.threads,), ("smem",))
        else:
            scope[key] = _recorder(tr, key)
    exec(compile(src, f"<labkit ladder_cute {name}>", "exec"), scope)
    scope[name](_Array("A", tr), _Array("B", tr), _Array("C", tr), M, N, K, *(("maps",) if cfg.loader == "tma" else ()))
    return tr


def gemm_block_dim(step):
    """Threads of a block of step 1 or 2, ``(x, y)``."""
    if step == "naive":
        return tuple(_module("naive").BLOCK)
    if step == "smem":
        return (16, 16)
    raise LabkitError(f"gemm_block_dim: step must be 'naive' or 'smem'; got {step!r}")


# ---------------------------------------------------------------- the rung's source lines

def kernel_lines(step, config=None, arch=(9, 0)):
    """The source of rung ``step``'s kernel as lines: ``gemm_<step>.source`` for steps 3-6, the
    kernel function's own source for steps 1 and 2."""
    mod = _module(step)
    if step in ("naive", "smem"):
        return inspect.getsource(mod._kernel("f32").py_func).splitlines()
    from labkit.cuda.kernels import gemm_tensorcore as tc

    cfg = _tensorcore(config if config is not None else rung_config(step), "kernel_lines")
    return tc.kernel_source(cfg, "f32", tuple(arch), f"gemm_{step}").splitlines()
