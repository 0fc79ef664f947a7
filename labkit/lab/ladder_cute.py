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
of the rung's source that do the same work; :func:`agreement` checks that every address the rung
computes is an offset of the thread's CuTe partitions, and :func:`differences` lists what one rung
changes against another.

>>> from labkit.lab import ladder_cute
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

from labkit import layout as lk
from labkit.atoms import copy_atom
from labkit.errors import LabkitError
from labkit.tiled import make_tiled_copy, make_tiled_copy_A, make_tiled_copy_B, make_tiled_mma

__all__ = ["STEPS", "ATOM", "rung_config", "rung_tiled_mma", "warp_coverage", "ranges", "Trace", "trace",
           "gemm_block_dim", "kernel_lines", "RungCute", "cute_objects", "Pair", "side_by_side", "differences",
           "listing", "agreement"]

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
    cfg = _tensorcore(cfg, "rung_tiled_mma")
    S = lk.S
    (wtm, wtn), (mi, ni) = cfg.warp_tile, cfg.atoms
    perm_m = lk.make_layout((S(16), S(cfg.warps_m), S(mi)), (S(1), S(wtm), S(16)))
    perm_n = lk.make_layout((S(8), S(cfg.warps_n), S(ni)), (S(1), S(wtn), S(8)))
    return make_tiled_mma(atom, lk.make_layout((S(cfg.warps_m), S(cfg.warps_n))), (perm_m, perm_n, S(16)))


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
    >>> mma = make_tiled_mma(ATOM, lk.make_layout((lk.S(2), lk.S(2))))
    >>> warp_coverage(mma, (32, 16))[1]
    ('16-31', '0-7')
    """
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
    src = (mod.source("f32", tuple(arch)) if config is None   # the rung's own generated source
           else tc.kernel_source(cfg, "f32", tuple(arch), name))
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
    # the kernel's own variables after it ran (m0, n0, crow, ...) are kept in Trace.variables
    exec(compile(src + "    return locals()\n", f"<labkit ladder_cute {name}>", "exec"), scope)
    out = scope[name](_Array("A", tr), _Array("B", tr), _Array("C", tr), M, N, K,
                      *(("maps",) if cfg.loader == "tma" else ()))
    tr.variables = {k: v for k, v in out.items() if isinstance(v, (int, bool))}
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

    if config is None:
        return mod.source("f32", tuple(arch)).splitlines()
    cfg = _tensorcore(config, "kernel_lines")
    return tc.kernel_source(cfg, "f32", tuple(arch), f"gemm_{step}").splitlines()


def _statements(lines):
    """(tree, [(first line, last line, assigned names, called names, node)]) of kernel source lines,
    compound statements (for, if, while) as their header line only."""
    import textwrap

    tree = ast.parse(textwrap.dedent("\n".join(lines)))
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or isinstance(node, (ast.FunctionDef, ast.Return)):
            continue
        header = isinstance(node, (ast.For, ast.If, ast.While))
        probe = node.iter if isinstance(node, ast.For) else node.test if header else node
        names, calls = set(), set()
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            todo = list(targets)
            while todo:
                t = todo.pop()
                if isinstance(t, ast.Name):
                    names.add(t.id)
                elif isinstance(t, (ast.Tuple, ast.List)):
                    todo += t.elts
                elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                    names.add(t.value.id + "[]")
        if isinstance(node, ast.For):
            names |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        for n in ast.walk(probe):
            if isinstance(n, ast.Call):
                f = n.func
                calls.add(f.id if isinstance(f, ast.Name) else
                          f"{f.value.id}.{f.attr}" if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                          else "")
        last = node.lineno if header else node.end_lineno
        out.append((node.lineno, last, names, calls, node))
    out.sort(key=lambda e: e[0])
    return tree, out


class _Blur(ast.NodeTransformer):
    """Forget what tells repeated statements apart: numbers, and the digits of names."""

    def visit_Constant(self, node):
        return ast.Constant(0) if isinstance(node.value, (int, float)) else node

    def visit_Name(self, node):
        return ast.Name("".join(ch for ch in node.id if not ch.isdigit()), node.ctx)


def _shape(node):
    import copy

    head = node.iter if isinstance(node, ast.For) else node.test if isinstance(node, (ast.If, ast.While)) else node
    return ast.dump(_Blur().visit(copy.deepcopy(head)))


def _inside(stmts, loop_var):
    """Line range (first, last) of the body of the ``for`` loop over ``loop_var``."""
    for first, _, names, _, node in stmts:
        if isinstance(node, ast.For) and loop_var in names:
            return first, node.end_lineno
    return None


@dataclass(frozen=True)
class Pair:
    """One CuTe call, the layout labkit computes for it, and the rung's source lines that do the
    same work (each ``(count, first line)``: ``count`` lines of the same kind, the first shown)."""

    cute: str
    value: str
    numba: tuple


def _select(lines, stmts, *, names=(), calls=(), prefixes=(), within=None, outside=None, loops=()):
    """Lines of the statements that assign one of ``names`` (or a name starting with one of
    ``prefixes``), call one of ``calls``, or are the ``for`` over one of ``loops``; restricted to
    the line range ``within`` or outside ``outside``. Runs of one kind collapse to (count, first)."""
    import textwrap

    text = textwrap.dedent("\n".join(lines)).splitlines()
    picked = []
    for first, last, assigned, called, node in stmts:
        if within and not within[0] < first <= within[1]:
            continue
        if outside and outside[0] <= first <= outside[1]:
            continue
        if isinstance(node, ast.For):
            kind = ("for", tuple(sorted(assigned))) if assigned & set(loops) else None
        elif assigned & set(names):
            kind = ("assign", tuple(sorted(assigned & set(names))))
        elif any(a.startswith(p) for a in assigned for p in prefixes):
            kind = ("assign", next(p for a in assigned for p in prefixes if a.startswith(p)))
        elif called & set(calls) and not isinstance(node, (ast.If, ast.While)) or (
                isinstance(node, ast.While) and called & set(calls)):
            kind = ("call", tuple(sorted(called & set(calls))))
        else:
            kind = None
        if kind is not None:
            line = " ".join(" ".join(text[first - 1:last]).split())
            picked.append((kind + (type(node).__name__, _shape(node)), line))
    out = []
    for kind, line in picked:
        if out and out[-1][0] == kind:
            out[-1][1] += 1
        else:
            out.append([kind, 1, line])
    return tuple((n, line) for _, n, line in out)


# ---------------------------------------------------------------- the CuTe objects of a rung

def _shared_layouts(cfg):
    """(sA, sB) of a tensor-core rung, (row, k, stage) -> element of its shared memory: the rung's
    tile layout (``gemm_tensorcore.smem_layout``) with a stage mode whose stride is one stage,
    A then B; B starts ``bm * bk`` elements after A."""
    from labkit.cuda.kernels import gemm_tensorcore as tc

    stage = (cfg.bm + cfg.bn) * cfg.bk
    out = []
    for rows in (cfg.bm, cfg.bn):
        tile = tc.smem_layout(cfg.smem_kind, cfg.bk, rows=rows)
        swz, inner = (tile.layout_a, tile.layout_b) if hasattr(tile, "layout_b") else (None, tile)
        staged = lk.make_layout(inner[0], inner[1], lk.make_layout(lk.S(cfg.stages), lk.S(stage)))
        out.append(lk.composition(swz, staged) if swz is not None else staged)
    return tuple(out)


@dataclass
class RungCute:
    """The CuTe objects of one rung for one block and one thread (see :func:`cute_objects`)."""

    step: str
    config: object
    thread: int
    coord: tuple
    objects: dict


def _copy_atom_name(cfg):
    if cfg.loader == "tma":
        return None
    if cfg.stages == 1:
        return "UniversalCopy<u128>"
    return "SM80_CP_ASYNC_CACHEALWAYS" if cfg.cache == "ca" else "SM80_CP_ASYNC_CACHEGLOBAL"


def cute_objects(step, *, M, N, K, block=0, thread=0):
    """The CuTe objects that describe rung ``step`` for ``block`` and ``thread``, built with labkit.

    ``objects`` holds, by their names in CuTe's tutorials: ``mA, mB, mC`` (the row-major global
    tensors, coordinate-only), ``gA, gB, gC`` (``local_tile`` at the block's tile coordinate),
    and then per kind of rung: for steps 3-6 ``sA, sB`` (shared memory, with a stage mode),
    ``copy_a`` (the TiledCopy of 16-byte copies, thread layout ``(T/(bk/8), bk/8)`` row-major)
    with ``tAgA, tAsA, tBgB, tBsB`` (its ``partition_S`` / ``partition_D``), ``mma`` (the
    rung's TiledMMA, :func:`rung_tiled_mma`), ``s2r_a, s2r_b`` (``ldmatrix.x4`` copies made from
    it) with ``tXsA, tXsB``, ``tCrC`` and ``tCgC``; for step 2 the thread layouts ``tA`` (copy)
    and ``tC`` (compute) and ``local_partition`` views ``tAgA, tAsA, tCsA, tCsB, tCgC``; for
    step 1 ``tC`` and ``tCgC``. The block's tile coordinate is the one the rung's own raster
    gives ``block`` (:func:`trace`).
    """
    S, X = lk.S, lk.X
    cfg = rung_config(step)
    for name, v in (("M", M), ("N", N), ("K", K)):
        if not isinstance(v, int) or v <= 0:
            raise LabkitError(f"{name} must be a positive int; got {v!r}")
    o = {}
    o["mA"] = lk.make_tensor(None, lk.make_layout((M, K), (K, S(1))))
    o["mB"] = lk.make_tensor(None, lk.make_layout((N, K), (K, S(1))))
    o["mC"] = lk.make_tensor(None, lk.make_layout((M, N), (N, S(1))))
    if step == "naive":
        bx, by = block
        tx, ty = cfg
        coord = (by, bx)
        o["gC"] = lk.local_tile(o["mC"], (S(ty), S(tx)), coord)
        o["tC"] = lk.make_layout((S(ty), S(tx)), (S(tx), S(1)))       # thread tx + 16 ty at (ty, tx)
        o["tCgC"] = lk.local_partition(o["gC"], o["tC"], thread)
        return RungCute(step, cfg, thread, coord, o)
    if step == "smem":
        bm, bn, bk = cfg
        bx, by = block
        tdx, tdy = gemm_block_dim(step)
        coord = (by, bx, X)
        tiler = (S(bm), S(bn), S(bk))
        o["gA"] = lk.local_tile(o["mA"], tiler, coord, (1, X, 1))
        o["gB"] = lk.local_tile(o["mB"], tiler, coord, (X, 1, 1))
        o["gC"] = lk.local_tile(o["mC"], tiler, coord, (1, 1, X))
        threads = tdx * tdy
        o["sA"] = lk.make_tensor(None, lk.make_layout((S(bm), S(bk)), (S(1), S(bm))))   # sA[k, m]
        o["sB"] = lk.make_tensor(None, lk.make_layout((S(bn), S(bk)), (S(1), S(bn))))
        o["tA"] = lk.make_layout((S(threads // bk), S(bk)), (S(bk), S(1)))              # tid -> (tid // bk, tid % bk)
        o["tAgA"] = lk.local_partition(o["gA"], o["tA"], thread)
        o["tAsA"] = lk.local_partition(o["sA"], o["tA"], thread)
        o["tC"] = lk.make_layout((S(tdy), S(tdx)), (S(tdx), S(1)))                       # tid -> (ty, tx)
        o["tCsA"] = lk.local_partition(o["sA"], o["tC"], thread, (1, X))
        o["tCsB"] = lk.local_partition(o["sB"], o["tC"], thread, (X, 1))
        o["tCgC"] = lk.local_partition(o["gC"], o["tC"], thread, (1, 1))
        return RungCute(step, cfg, thread, coord, o)
    t = trace(step, M=M, N=N, K=K, block=block, thread=thread)
    coord = (t.variables["m0"] // cfg.bm, t.variables["n0"] // cfg.bn, X)
    tiler = (S(cfg.bm), S(cfg.bn), S(cfg.bk))
    o["gA"] = lk.local_tile(o["mA"], tiler, coord, (1, X, 1))
    o["gB"] = lk.local_tile(o["mB"], tiler, coord, (X, 1, 1))
    o["gC"] = lk.local_tile(o["mC"], tiler, coord, (1, 1, X))
    sA, sB = _shared_layouts(cfg)
    o["sA"] = lk.make_tensor(None, sA)
    o["sB"] = lk.make_tensor(None, sB, S(cfg.bm * cfg.bk))
    atom = _copy_atom_name(cfg)
    if atom is not None:
        chunks = cfg.bk // 8
        o["copy_a"] = make_tiled_copy(copy_atom(atom, "f16"),
                                         lk.make_layout((S(cfg.threads // chunks), S(chunks)), (S(chunks), S(1))),
                                         lk.make_layout((S(1), S(8))))
        thr = o["copy_a"].get_slice(thread)
        o["tAgA"], o["tAsA"] = thr.partition_S(o["gA"]), thr.partition_D(o["sA"])
        o["tBgB"], o["tBsB"] = thr.partition_S(o["gB"]), thr.partition_D(o["sB"])
    o["mma"] = rung_tiled_mma(cfg)
    thr_mma = o["mma"].get_slice(thread)
    o["s2r_a"] = make_tiled_copy_A(copy_atom("SM75_U32x4_LDSM_N", "f16"), o["mma"])
    o["s2r_b"] = make_tiled_copy_B(copy_atom("SM75_U32x4_LDSM_N", "f16"), o["mma"])
    o["tXsA"] = o["s2r_a"].get_slice(thread).partition_S(o["sA"])
    o["tXsB"] = o["s2r_b"].get_slice(thread).partition_S(o["sB"])
    o["tCgC"] = thr_mma.partition_C(o["gC"])
    o["tCrC"] = thr_mma.make_fragment_C(o["tCgC"])
    return RungCute(step, cfg, thread, coord, o)


def _t(x):
    """A tensor as CuTe prints its layout, with the offset it starts at: ``layout @ offset``."""
    lay = x.layout
    return f"{lay} @ {int(x.offset)}"


def side_by_side(step, *, M, N, K, block=0, thread=0):
    """[:class:`Pair`]: each CuTe call of the mainloop rung ``step`` stands for, with the layout
    labkit computes for ``block`` and ``thread`` and the lines of the rung's source that do it.

    >>> rows = side_by_side("pipeline", M=256, N=256, K=256, block=1, thread=9)
    >>> rows[0].cute                  # the rung's raster walks down a group of tile rows first
    'gA = local_tile(mA, make_shape(_128,_128,_64), make_coord(1,0,_), Step<_1,X,_1>{})'
    >>> rows[0].value, rows[0].numba[0][1]
    ('(_128,_64,4):(256,_1,_64) @ 32768', 'm0 = int32((first_m + (pid % per_group) % rows_in_group) * 128)')
    """
    c = cute_objects(step, M=M, N=N, K=K, block=block, thread=thread)
    o, cfg = c.objects, c.config
    lines = kernel_lines(step)
    _, stmts = _statements(lines)

    def sel(**kw):
        return _select(lines, stmts, **kw)

    crd = ",".join("_" if v is _x() else str(v) for v in c.coord)
    rows = []
    if step == "naive":
        rows.append(Pair(f"gC = local_tile(mC, make_shape(_{cfg[1]},_{cfg[0]}), make_coord({crd}))", _t(o["gC"]),
                         sel(names=("m", "n"))))
        rows.append(Pair(f"tCgC = local_partition(gC, tC = {o['tC']}, {c.thread});  "
                         "tCrC = make_fragment_like(tCgC)", _t(o["tCgC"]), sel(names=("s",))[:1]))
        rows.append(Pair("for k in K: tCrC += mA(m,k) * mB(n,k)", "", sel(loops=("k",)) + sel(names=("s",))[1:]))
        rows.append(Pair("axpby(alpha, tCrC, beta, tCgC)", _t(o["tCgC"]), sel(names=("C[]",))))
        return rows
    if step == "smem":
        bm, bn, bk = cfg
        kloop = _inside(stmts, "k")
        rows.append(Pair(f"gA = local_tile(mA, make_shape(_{bm},_{bn},_{bk}), make_coord({crd}), Step<_1,X,_1>{{}})",
                         _t(o["gA"]), sel(names=("m0",))))
        rows.append(Pair("gB = local_tile(mB, ..., Step<X,_1,_1>{})", _t(o["gB"]), sel(names=("n0",))))
        rows.append(Pair(f"tAgA = local_partition(gA, tA = {o['tA']}, {c.thread})", _t(o["tAgA"]),
                         sel(names=("e", "row", "col"))[:3] + sel(names=("v",), outside=kloop)[1:2]))
        rows.append(Pair("tAsA = local_partition(sA, tA, ...);  copy(tAgA(_,_,k_tile), tAsA)", _t(o["tAsA"]),
                         sel(names=("sA[]",))))
        rows.append(Pair("for k_tile ...: copy; __syncthreads()", "", sel(loops=("k0",)) +
                         sel(calls=("cuda.syncthreads",))[:1]))
        rows.append(Pair(f"tCsA = local_partition(sA, tC = {o['tC']}, {c.thread}, Step<_1,X>{{}})", _t(o["tCsA"]),
                         sel(names=("a0", "a1", "a2", "a3"))))
        rows.append(Pair("tCsB = local_partition(sB, tC, ..., Step<X,_1>{})", _t(o["tCsB"]), sel(names=("b",))))
        rows.append(Pair("gemm(tCsA, tCsB, tCrC)", "", sel(loops=("k",)) + sel(names=("acc[]",), within=kloop)))
        rows.append(Pair("tCgC = local_partition(gC, tC, ..., Step<_1,_1>{});  axpby(alpha, tCrC, beta, tCgC)",
                         _t(o["tCgC"]), sel(names=("C[]",))))
        return rows
    loop = _inside(stmts, "kt")
    tiler = f"make_shape(_{cfg.bm},_{cfg.bn},_{cfg.bk})"
    rows.append(Pair(f"gA = local_tile(mA, {tiler}, make_coord({crd}), Step<_1,X,_1>{{}})", _t(o["gA"]),
                     sel(names=("m0",))))
    rows.append(Pair("gB = local_tile(mB, ..., Step<X,_1,_1>{})", _t(o["gB"]), sel(names=("n0",))))
    if cfg.loader == "tma":
        rows.append(Pair("copy(tma_a.with(bar), gA(_,_,k_tile), sA(_,_,k_pipe))  (one thread, the whole tile)",
                         _t(o["gA"](_x(), _x(), 0)), sel(calls=("tma_load_2d",), within=loop)))
        rows.append(Pair("wait for the stage (mbarrier, one per stage)", "",
                         sel(calls=("mbarrier_try_wait", "cuda.syncthreads"), within=loop)))
    else:
        rows.append(Pair(f"tAgA = copy_a.get_slice({c.thread}).partition_S(gA)", _t(o["tAgA"]),
                         sel(names=("crow", "cchunk", "a_idx"), prefixes=("a_src",))))
        rows.append(Pair(f"tAsA = copy_a.get_slice({c.thread}).partition_D(sA)", _t(o["tAsA"]), sel(names=("st_a",))))
        if cfg.stages > 1:
            rows.append(Pair("copy(copy_a, tAgA(_,_,_,k_tile_next), tAsA(_,_,_,k_pipe))", "",
                             sel(calls=("cp_async_16", "cp_async_cg_16"), within=loop)))
            rows.append(Pair("cp_async_fence()", "", sel(calls=("cp_async_commit_group",), within=loop)))
            rows.append(Pair(f"cp_async_wait<{cfg.stages - 2}>(); __syncthreads()", "",
                             sel(calls=("cp_async_wait_group", "cuda.syncthreads"), within=loop)))
        else:
            rows.append(Pair("copy(copy_a, tAgA(_,_,_,k_tile), tAsA(_,_,_,0));  __syncthreads()", "",
                             sel(calls=("ld_global_v4", "st_shared_v4", "cuda.syncthreads"), within=loop)))
    if cfg.stages > 1:
        rows.append(Pair("while (k_tile_count > -(K_PIPE_MAX-1)): k_pipe_read, k_pipe_write round the ring",
                         "", sel(loops=("kt",)) + sel(names=("rd", "wr"), within=loop)))
    else:
        rows.append(Pair("for each k_tile of gA(_,_,k_tile): one stage", "", sel(loops=("kt",))))
    rows.append(Pair(f"tXsA = s2r_copy_a.get_slice({c.thread}).partition_S(sA)", _t(o["tXsA"]),
                     sel(names=("arow",)) + sel(prefixes=("ld_a",))))
    nxt = "k_block_next" if cfg.double_buffer_for((9, 0)) else "k_block"
    rows.append(Pair(f"copy(s2r_atom_a, tXsA_p(_,_,{nxt}), tXrA(_,_,{nxt})), B likewise", "",
                     sel(calls=("ldmatrix_x4",), within=loop)[:2]))
    rows.append(Pair("gemm(mma, tCrA(_,_,k_block), tCrB(_,_,k_block), tCrC)", str(o["tCrC"].layout),
                     sel(calls=("mma_m16n8k16_f32f16f16f32",), within=loop)[:1]))
    rows.append(Pair(f"tCgC = mma.get_slice({c.thread}).partition_C(gC)", _t(o["tCgC"]),
                     sel(names=("erow", "ecol", "ebase"))))
    rows.append(Pair("axpby(alpha, tCrC, beta, tCgC)", "", sel(calls=("st_global_v2_f32",))))
    return rows


def _x():
    return lk.X


def listing(rows, width=84):
    """The pairs of :func:`side_by_side` as text: each CuTe call, ``=`` the layout labkit computes
    for it and ``@`` the offset it starts at, then the rung's lines after ``|`` (``N x`` before a
    line that stands for N of its kind), cut to ``width`` characters.

    >>> print(listing([Pair("axpby(alpha, tCrC, beta, tCgC)", "(_1,_1):(_0,_0) @ 273", ((1, "C[m, n] = s"),))]))
    axpby(alpha, tCrC, beta, tCgC)
        = (_1,_1):(_0,_0) @ 273
        | C[m, n] = s
    """
    out = []
    for r in rows:
        out.append(r.cute)
        if r.value:
            out.append(f"    = {r.value}")
        for n, line in r.numba:
            text = (f"{n} x " if n > 1 else "") + line
            out.append("    | " + (text if len(text) <= width else text[:width - 3] + "..."))
    return "\n".join(out)


def agreement(step, *, M, N, K, block=0, thread=0):
    """``{what: (addresses, equal)}``: for each kind of access of a tensor-core rung, how many
    distinct addresses one ``thread`` of ``block`` issues (:func:`trace`) and whether they are
    exactly the offsets of its CuTe partitions (:func:`cute_objects`): ``"copy"`` (global index and
    shared byte address of every 16-byte copy: ``tAgA``/``tAsA``, ``tBgB``/``tBsB``),
    ``"ldmatrix"`` (the row address of every ``ldmatrix.x4``: ``tXsA``, ``tXsB``) and ``"store C"``
    (``tCgC``). ``K`` must give every stage a k-tile (``K >= stages * bk``).

    >>> agreement("swizzle", M=128, N=128, K=128, block=1, thread=5)
    {'copy': (16, True), 'ldmatrix': (16, True), 'store C': (32, True)}
    """
    c = cute_objects(step, M=M, N=N, K=K, block=block, thread=thread)
    o, cfg = c.objects, c.config
    if cfg.loader == "tma" or step in ("naive", "smem"):
        raise LabkitError(f"step: agreement covers the cp.async and ld/st rungs (mma, swizzle, pipeline); got {step!r}")
    ktiles = K // cfg.bk
    if K % cfg.bk or ktiles < cfg.stages:
        raise LabkitError(f"K must be a multiple of {cfg.bk} with at least {cfg.stages} k-tiles; got {K}")
    t = trace(step, M=M, N=N, K=K, block=block, thread=thread)
    if cfg.stages > 1:
        copies = [(a[0], a[1], a[2]) for name in ("cp_async_16", "cp_async_cg_16", "cp_async_cg_16_zfill")
                  for a in t.args(name)]
    else:
        copies = [(st[0], ld[0], ld[1]) for ld, st in zip(t.args("ld_global_v4"), t.args("st_shared_v4"))]
    want = set()
    for operand, g, s in (("A", "tAgA", "tAsA"), ("B", "tBgB", "tBsB")):
        tg, ts = o[g], o[s]
        want |= {(2 * int(ts(0, p, 0, kt % cfg.stages)), operand, int(tg(0, p, 0, kt)))
                 for p in range(int(lk.size(tg.layout[1]))) for kt in range(ktiles)}
    got = {(int(d), a, int(i)) for d, a, i in copies}
    out = {"copy": (len(got), got == want)}
    rows = set()
    for name in ("tXsA", "tXsB"):
        x = o[name]
        vals, rm, rk = (int(lk.size(x.layout[i])) for i in (0, 1, 2))
        rows |= {2 * int(x(j, m, k, s)) for j in range(0, vals, 8) for m in range(rm) for k in range(rk)
                 for s in range(cfg.stages)}
    issued = {int(a[0]) for a in t.args("ldmatrix_x4")}
    out["ldmatrix"] = (len(issued), issued == rows)
    stored = {i for a in t.args("st_global_v2_f32") for i in (int(a[1]), int(a[1]) + 1)}
    out["store C"] = (len(stored), stored == {int(v) for v in o["tCgC"].offsets()})
    return out


def _key(pair):
    return pair.cute.split(",")[0].split(" = ")[0].split(":")[0]


def differences(step, than, *, M, N, K, block=0, thread=0):
    """The pairs of :func:`side_by_side` for ``step`` that are not the same in rung ``than``: a
    CuTe call ``than`` does not make, or one whose layout or lines differ (same problem, block and
    thread; calls are matched by their name and first argument).

    >>> [p.cute.split(".")[0] for p in differences("swizzle", "mma", M=128, N=128, K=128, thread=9)]
    ['tAsA = copy_a', 'tXsA = s2r_copy_a']
    """
    base = {_key(p): p for p in side_by_side(than, M=M, N=N, K=K, block=block, thread=thread)}
    rows = side_by_side(step, M=M, N=N, K=K, block=block, thread=thread)
    return [p for p in rows if _key(p) not in base or (base[_key(p)].value, base[_key(p)].numba) != (p.value, p.numba)]
