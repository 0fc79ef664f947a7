"""A step of the GEMM ladder in CuTe's words: its mainloop beside the CuTe calls that do the same.

CuTe's GEMM tutorials say in a handful of calls what a ladder step (``labkit.cuda.kernels.ladder.gemm_*``)
spells out index by index: ``local_tile`` picks the thread block's tile of A, B and C;
``partition_S`` / ``partition_D`` of a TiledCopy give each thread its part of the copy into shared
memory; ``cp_async_fence`` / ``cp_async_wait<N>`` bound the copies in flight; a k-tile loop runs over
the third mode of the block's tile and a k-block loop over shared memory's K; ``gemm(tiled_mma, ...)``
multiplies the TiledMMA's partitions; ``axpby`` writes the accumulators to C.

:func:`cute_objects` builds those objects with labkit for a step's configuration (its CTA tile,
threads and stages, read from the kernel module), :func:`trace` runs the step's own kernel source
for one thread in plain Python, with every PTX call recorded instead of issued, and
:func:`side_by_side` pairs each CuTe call (and the layout labkit computes for it) with the lines
of the step's source that do the same work; :func:`agreement` checks that every address the step
computes is an offset of the thread's CuTe partitions, and :func:`differences` lists what one step
changes against another.

>>> from labkit.lab import ladder_cute
>>> mma = ladder_cute.step_tiled_mma(ladder_cute.step_config("pipeline"))
>>> print(mma.permutation_mnk[0], mma.permutation_mnk[1])
(_16,_2,_4):(_1,_64,_16) (_8,_2,_8):(_1,_64,_8)
>>> rows = ladder_cute.side_by_side("pipeline", M=256, N=256, K=256, block=1, thread=9)
>>> rows[-1].numba                # the epilogue's vector stores, 64 of one kind
((64, 'st_global_v2_f32(C, int32(ebase + 0 * N + 0), c_0_0_0, c_0_0_1)'),)
"""

from __future__ import annotations

from dataclasses import dataclass

from labkit import layout as lk
from labkit.atoms import copy_atom
from labkit.cuda.kernels.ladder.gemm_statements import select
from labkit.errors import LabkitError
from labkit.lab.ladder_source import loop_lines, pick_lines, source_statements
from labkit.lab.ladder_trace import (_tensorcore, gemm_block_dim, kernel_lines, kernel_statements,
                                     step_config, trace)
from labkit.tiled import make_tiled_copy, make_tiled_copy_A, make_tiled_copy_B, make_tiled_mma

__all__ = ["ATOM", "step_tiled_mma", "warp_coverage", "ranges", "StepCute", "cute_objects", "Pair",
           "side_by_side", "differences", "listing", "agreement"]

#: the MMA atom of the tensor-core steps with fp32 accumulation (sm_80 and later)
ATOM = "SM80_16x8x16_F32F16F16F32_TN"


def step_tiled_mma(cfg, atom=ATOM):
    """The TiledMMA of a tensor-core step: ``atom`` on ``warps_m x warps_n`` warps (warp ``w`` at
    M ``w % warps_m``, N ``w // warps_m``), with the permutation that gives every warp one
    contiguous warp tile, as the step does: M index ``i + 16 w + 16 warps_m r`` (atom row ``i``,
    warp ``w``, repeat ``r``) is row ``i + (bm / warps_m) w + 16 r``; N likewise with 8.

    >>> print(step_tiled_mma(step_config("mma")).permutation_mnk[0])
    (_16,_2,_2):(_1,_32,_16)
    """
    cfg = _tensorcore(cfg, "step_tiled_mma")
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


@dataclass(frozen=True)
class Pair:
    """One CuTe call, the layout labkit computes for it, and the step's source lines that do the
    same work (each ``(count, first line)``: ``count`` lines of the same kind, the first shown)."""

    cute: str
    value: str
    numba: tuple


def _shared_layouts(cfg):
    """(sA, sB) of a tensor-core step, (row, k, stage) -> element of its shared memory: the step's
    tile layout (``gemm_layout.smem_layout``) with a stage mode whose stride is one stage,
    A then B; B starts ``bm * bk`` elements after A."""
    from labkit.cuda.kernels.ladder.gemm_layout import smem_layout

    stage = (cfg.bm + cfg.bn) * cfg.bk
    out = []
    for rows in (cfg.bm, cfg.bn):
        tile = smem_layout(cfg.smem_kind, cfg.bk, rows=rows)
        swz, inner = (tile.layout_a, tile.layout_b) if hasattr(tile, "layout_b") else (None, tile)
        staged = lk.make_layout(inner[0], inner[1], lk.make_layout(lk.S(cfg.stages), lk.S(stage)))
        out.append(lk.composition(swz, staged) if swz is not None else staged)
    return tuple(out)


@dataclass
class StepCute:
    """The CuTe objects of one step for one block and one thread (see :func:`cute_objects`)."""

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
    """The CuTe objects that describe step ``step`` for ``block`` and ``thread``, built with labkit.

    ``objects`` holds, by their names in CuTe's tutorials: ``mA, mB, mC`` (the row-major global
    tensors, coordinate-only), ``gA, gB, gC`` (``local_tile`` at the block's tile coordinate),
    and then per kind of step: for steps 3-6 ``sA, sB`` (shared memory, with a stage mode),
    ``copy_a`` (the TiledCopy of 16-byte copies, thread layout ``(T/(bk/8), bk/8)`` row-major)
    with ``tAgA, tAsA, tBgB, tBsB`` (its ``partition_S`` / ``partition_D``), ``mma`` (the
    step's TiledMMA, :func:`step_tiled_mma`), ``s2r_a, s2r_b`` (``ldmatrix.x4`` copies made from
    it) with ``tXsA, tXsB``, ``tCrC`` and ``tCgC``; for step 2 the thread layouts ``tA`` (copy)
    and ``tC`` (compute) and ``local_partition`` views ``tAgA, tAsA, tCsA, tCsB, tCgC``; for
    step 1 ``tC`` and ``tCgC``. The block's tile coordinate is the one the step's own raster
    gives ``block`` (:func:`trace`).
    """
    S, X = lk.S, lk.X
    cfg = step_config(step)
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
        return StepCute(step, cfg, thread, coord, o)
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
        return StepCute(step, cfg, thread, coord, o)
    t = trace(step, M=M, N=N, K=K, block=block, thread=thread)
    # the tile origin is what the statements the generator tags gA and gB compute, for this block
    origin = {s.cute: t.variables[s.defines[0]] for s in kernel_statements(step) if s.cute in ("gA", "gB")}
    coord = (origin["gA"] // cfg.bm, origin["gB"] // cfg.bn, X)
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
    o["mma"] = step_tiled_mma(cfg)
    thr_mma = o["mma"].get_slice(thread)
    o["s2r_a"] = make_tiled_copy_A(copy_atom("SM75_U32x4_LDSM_N", "f16"), o["mma"])
    o["s2r_b"] = make_tiled_copy_B(copy_atom("SM75_U32x4_LDSM_N", "f16"), o["mma"])
    o["tXsA"] = o["s2r_a"].get_slice(thread).partition_S(o["sA"])
    o["tXsB"] = o["s2r_b"].get_slice(thread).partition_S(o["sB"])
    o["tCgC"] = thr_mma.partition_C(o["gC"])
    o["tCrC"] = thr_mma.make_fragment_C(o["tCgC"])
    return StepCute(step, cfg, thread, coord, o)


def _t(x):
    """A tensor as CuTe prints its layout, with the offset it starts at: ``layout @ offset``."""
    lay = x.layout
    return f"{lay} @ {int(x.offset)}"


def side_by_side(step, *, M, N, K, block=0, thread=0):
    """[:class:`Pair`]: each CuTe call of the mainloop step ``step`` stands for, with the layout
    labkit computes for ``block`` and ``thread`` and the lines of the step's source that do it.

    >>> rows = side_by_side("pipeline", M=256, N=256, K=256, block=1, thread=9)
    >>> rows[0].cute                  # the step's raster walks down a group of tile rows first
    'gA = local_tile(mA, make_shape(_128,_128,_64), make_coord(1,0,_), Step<_1,X,_1>{})'
    >>> rows[0].value, rows[0].numba[0][1]
    ('(_128,_64,4):(256,_1,_64) @ 32768', 'm0 = int32((first_m + (pid % per_group) % rows_in_group) * 128)')
    """
    c = cute_objects(step, M=M, N=N, K=K, block=block, thread=thread)
    o, cfg = c.objects, c.config
    crd = ",".join("_" if v is _x() else str(v) for v in c.coord)
    if step in ("naive", "smem"):
        return _hand_written_pairs(step, c, crd)
    stmts = kernel_statements(step)

    def sel(cute, **kw):
        return select(stmts, cute, **kw)

    loop = "mainloop"
    rows = []
    tiler = f"make_shape(_{cfg.bm},_{cfg.bn},_{cfg.bk})"
    rows.append(Pair(f"gA = local_tile(mA, {tiler}, make_coord({crd}), Step<_1,X,_1>{{}})", _t(o["gA"]), sel("gA")))
    rows.append(Pair("gB = local_tile(mB, ..., Step<X,_1,_1>{})", _t(o["gB"]), sel("gB")))
    if cfg.loader == "tma":
        rows.append(Pair("copy(tma_a.with(bar), gA(_,_,k_tile), sA(_,_,k_pipe))  (one thread, the whole tile)",
                         _t(o["gA"](_x(), _x(), 0)), sel("copy", phase=loop, call="tma_load_2d")))
        rows.append(Pair("wait for the stage (mbarrier, one per stage)", "", sel("wait_stage", phase=loop)))
    else:
        rows.append(Pair(f"tAgA = copy_a.get_slice({c.thread}).partition_S(gA)", _t(o["tAgA"]), sel("tAgA")))
        rows.append(Pair(f"tAsA = copy_a.get_slice({c.thread}).partition_D(sA)", _t(o["tAsA"]), sel("tAsA")))
        if cfg.stages > 1:
            rows.append(Pair("copy(copy_a, tAgA(_,_,_,k_tile_next), tAsA(_,_,_,k_pipe))", "",
                             sel("copy", phase=loop, kind="code")))
            rows.append(Pair("cp_async_fence()", "", sel("cp_async_fence", phase=loop)))
            rows.append(Pair(f"cp_async_wait<{cfg.stages - 2}>(); __syncthreads()", "",
                             sel("cp_async_wait", phase=loop)))
        else:
            rows.append(Pair("copy(copy_a, tAgA(_,_,_,k_tile), tAsA(_,_,_,0));  __syncthreads()", "",
                             sel("copy", phase=loop, kind="code")))
    k_tile_loop = sel("k_tile", phase=loop, kind="block")
    if cfg.stages > 1:
        rows.append(Pair("while (k_tile_count > -(K_PIPE_MAX-1)): k_pipe_read, k_pipe_write round the ring",
                         "", k_tile_loop + sel("k_pipe", phase=loop, kind="code")))
    else:
        rows.append(Pair("for each k_tile of gA(_,_,k_tile): one stage", "", k_tile_loop))
    rows.append(Pair(f"tXsA = s2r_copy_a.get_slice({c.thread}).partition_S(sA)", _t(o["tXsA"]), sel("tXsA")))
    nxt = "k_block_next" if cfg.double_buffer_for(90) else "k_block"
    rows.append(Pair(f"copy(s2r_atom_a, tXsA_p(_,_,{nxt}), tXrA(_,_,{nxt})), B likewise", "",
                     sel("s2r_copy", phase=loop)[:2]))
    rows.append(Pair("gemm(mma, tCrA(_,_,k_block), tCrB(_,_,k_block), tCrC)", str(o["tCrC"].layout),
                     sel("gemm", phase=loop)[:1]))
    rows.append(Pair(f"tCgC = mma.get_slice({c.thread}).partition_C(gC)", _t(o["tCgC"]), sel("tCgC")))
    rows.append(Pair("axpby(alpha, tCrC, beta, tCgC)", "", sel("axpby", call="st_global_v2_f32")))
    return rows


def _hand_written_pairs(step, c, crd):
    """The pairs of steps 1 and 2, whose kernels are hand-written ``@cuda.jit`` functions: their
    lines are picked from the function's own source by the variables they assign."""
    o, cfg = c.objects, c.config
    lines = kernel_lines(step)
    _, stmts = source_statements(lines)

    def sel(**kw):
        return pick_lines(lines, stmts, **kw)

    rows = []
    if step == "naive":
        rows.append(Pair(f"gC = local_tile(mC, make_shape(_{cfg[1]},_{cfg[0]}), make_coord({crd}))", _t(o["gC"]),
                         sel(names=("m", "n"))))
        rows.append(Pair(f"tCgC = local_partition(gC, tC = {o['tC']}, {c.thread});  "
                         "tCrC = make_fragment_like(tCgC)", _t(o["tCgC"]), sel(names=("s",))[:1]))
        rows.append(Pair("for k in K: tCrC += mA(m,k) * mB(n,k)", "", sel(loops=("k",)) + sel(names=("s",))[1:]))
        rows.append(Pair("axpby(alpha, tCrC, beta, tCgC)", _t(o["tCgC"]), sel(names=("C[]",))))
        return rows
    # step 2
    bm, bn, bk = cfg
    kloop = loop_lines(stmts, "k")
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


def _x():
    return lk.X


def listing(rows, width=84):
    """The pairs of :func:`side_by_side` as text: each CuTe call, ``=`` the layout labkit computes
    for it and ``@`` the offset it starts at, then the step's lines after ``|`` (``N x`` before a
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
    """``{what: (addresses, equal)}``: for each kind of access of a tensor-core step, how many
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
        raise LabkitError(f"step: agreement covers the cp.async and ld/st steps (mma, swizzle, pipeline); got {step!r}")
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
    """The pairs of :func:`side_by_side` for ``step`` that are not the same in step ``than``: a
    CuTe call ``than`` does not make, or one whose layout or lines differ (same problem, block and
    thread; calls are matched by their name and first argument).

    >>> [p.cute.split(".")[0] for p in differences("swizzle", "mma", M=128, N=128, K=128, thread=9)]
    ['tAsA = copy_a', 'tXsA = s2r_copy_a']
    """
    base = {_key(p): p for p in side_by_side(than, M=M, N=N, K=K, block=block, thread=thread)}
    rows = side_by_side(step, M=M, N=N, K=K, block=block, thread=thread)
    return [p for p in rows if _key(p) not in base or (base[_key(p)].value, base[_key(p)].numba) != (p.value, p.numba)]
