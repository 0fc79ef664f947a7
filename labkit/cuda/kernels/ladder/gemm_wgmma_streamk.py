"""Stream-K for step 7: the last wave's tiles shared out by k-tiles, so no SM idles at the end.

A persistent grid of G CTAs walks T output tiles. When G does not divide T, the last wave has
``T % G`` tiles and the other SMs wait for it: at 4096³ with 128×256 tiles, 512 tiles take 4 waves
on 132 SMs, where 3.88 would do. Stream-K (Osama et al., "Stream-K: Work-centric Parallel
Decomposition for Dense Matrix-Matrix Multiplication on the GPU", 2023; CUTLASS's
``StreamKScheduler``) splits work by k-tiles instead, in one of two ways (``waves``):

- two waves, the paper's hybrid: the last partial wave and one full wave before it, ``T % G + G``
  tiles, are cut into G equal runs of k-tiles, one per CTA, walked first; the remaining tiles
  follow whole, one wave after another. A run that starts inside a tile holds that tile's last
  k-tiles (the CTA walks them first); the CTA before it holds the same tile's first k-tiles, at the
  end of its own run. Every run is at least one tile long, so a tile is shared by at most those two.
  The runs start at k-tiles all over K, so CTAs that share a band of A or B no longer ask for the
  same k-tile together.
- one wave: the whole tiles first, wave after wave, then the last partial wave's ``T % G`` tiles
  cut into G runs (only when they fill half the grid or more, so a run is at least half a tile). A
  run walks its last tile first, from k-tile 0, then the end of the tile before: every CTA starts
  its run at k-tile 0 or a few k-tiles in, and the CTAs walk K together as the whole tiles did. A
  tile is shared by at most three runs: the holder of its first k-tiles hands its sums on, a run
  that lies inside the tile adds them to its own and hands those on, and the holder of the last
  k-tiles owns the tile.

In both, the piece walked first hands its f32 accumulators on through a workspace and a flag, and
the owner, after its own k-tiles, waits for the flag and adds the partial sums as its epilogue
stores C, a batch at a time, each batch loaded before the stores that use it (so the loads overlap,
and the sums never all sit in registers beside the accumulators). The flag takes the instructions of
CUTLASS's ``GenericBarrier`` (``fence.acq_rel.gpu``, then ``red.relaxed.gpu.global.add``: a
release), issued by every writing thread for its own stores, so it counts to 128 (one releasing
thread after a named barrier made ptxas spill); the reader's thread spins on
``ld.global.acquire.gpu`` until the count is full, then its warpgroup meets. The reader sets the
flag back to 0, so the workspace is ready for the next launch. No CTA waits before it has written its own partial, and
all CTAs of the persistent grid are resident, so no wait can stall forever.

===============================================  ============================================  ======
name                                             PTX                                           min SM
===============================================  ============================================  ======
``red_release_gpu(flags, index, value)``         ``fence.acq_rel.gpu`` then                    70
                                                 ``red.relaxed.gpu.global.add.u32``
``ld_acquire_gpu(flags, index)``                 ``ld.global.acquire.gpu.b32``                 70
===============================================  ============================================  ======

>>> runs = units(tiles=512, ktiles=64, grid=132)
>>> max(sum(ke - kb for _, kb, ke in r) for r in runs), 4 * 64     # k-tiles of the busiest CTA
(249, 256)
>>> units(tiles=512, ktiles=64, grid=132, waves=1)[1]               # 3 whole tiles, then its run
[(1, 0, 64), (133, 0, 64), (265, 0, 64), (397, 0, 50), (396, 57, 64)]
"""

from __future__ import annotations

from labkit.atoms.instructions import GEMM_PTX as _REGISTRY
from labkit.cuda._numba import SIMULATED as _SIMULATED
from labkit.errors import ConfigError

__all__ = ["SPLIT", "NEXT", "WAVES", "split", "next_unit", "units", "red_release_gpu", "ld_acquire_gpu", "workspace_words",
           "loop", "unit", "k_range", "end"]


#: a CTA's run (``cta`` of ``grid``), by the waves dealt out by k-tiles: the kernel's statements,
#: and :func:`split`'s body. Two: the last partial wave and one full wave before it (runs of at least
#: a tile); one: the last partial wave alone, when it fills at least half the grid (runs of at least
#: half a tile), its tiles the last ones, after the whole tiles
SPLIT = {
    2: ("waves = int32(ntiles // grid)",
        "sk = int32(ntiles - (waves - 1) * grid if waves > 0 and ntiles % grid != 0 else 0)",
        "per_cta = int32(sk * ktiles // grid)",
        "longer = int32(sk * ktiles % grid)",
        "cur = int32(cta * per_cta + min(cta, longer))",
        "run_end = int32(cur + per_cta + (1 if cta < longer else 0))",
        "dp = int32(sk + cta)"),
    1: ("waves = int32(ntiles // grid)",
        "sk = int32(ntiles % grid if waves > 0 and 2 * (ntiles % grid) >= grid else 0)",
        "per_cta = int32(sk * ktiles // grid)",
        "longer = int32(sk * ktiles % grid)",
        "cur = int32(cta * per_cta + min(cta, longer))",
        "run_end = int32(cur + per_cta + (1 if cta < longer else 0))",
        "first = int32(ntiles - sk)",
        "dp = int32(cta)"),
}
#: the next unit: the kernel's statements, and :func:`next_unit`'s body. Two waves: the run's pieces
#: first, in k order, then whole tiles; one wave: whole tiles first, then the run's pieces, its last
#: tile first (so every CTA starts its run near k-tile 0, and the CTAs walk K together)
NEXT = {
    2: ("more = cur < run_end",
        "tile = int32(cur // ktiles if more else (dp if dp < ntiles else -1))",
        "kb = int32(cur - tile * ktiles if more else 0)",
        "ke = int32(min(ktiles, kb + run_end - cur) if more else ktiles)",
        "cur = int32(cur + ke - kb if more else cur)",
        "dp = int32(dp if more else dp + grid)"),
    1: ("more = dp < first",
        "last = int32((run_end - 1) // ktiles)",
        "tile = int32(dp if more else (first + last if cur < run_end else -1))",
        "kb = int32(0 if more else max(cur, last * ktiles) - last * ktiles)",
        "ke = int32(ktiles if more else run_end - last * ktiles)",
        "run_end = int32(run_end if more else max(cur, last * ktiles))",
        "dp = int32(dp + grid if more else dp)"),
}
WAVES = tuple(SPLIT)


def _function(name, params, lines, result, doc):
    """The kernel's ``lines`` as a Python function (the kernel program builds it; its int32 casts are
    Python's exact ints)."""
    from labkit.cuda.program import KernelProgram

    source = f"def {name}({params}):\n" + "".join(f"    {x}\n" for x in lines) + f"    return {result}\n"
    fn = KernelProgram(name, source, {"int32": int, "min": min, "max": max}).function()
    fn.__doc__ = doc
    return fn


_SPLIT = {w: _function("split", "ntiles, ktiles, grid, cta", SPLIT[w], "sk, cur, run_end, dp", "")
          for w in WAVES}
_NEXT = {w: _function("next_unit", "cur, run_end, dp, ntiles, ktiles, grid" + (", first" if w == 1 else ""),
                      NEXT[w], "tile, kb, ke, cur, run_end, dp", "") for w in WAVES}


def _waves(waves):
    if waves not in WAVES or isinstance(waves, bool):
        raise ConfigError(f"waves: the waves stream-K deals out by k-tiles are 1 or 2; got {waves!r}")
    return waves


def split(ntiles, ktiles, grid, cta, waves=2):
    """``(stream-K tiles, first k-iteration, end)`` of CTA ``cta``'s run: with ``waves=2`` the
    ``ntiles % grid + grid`` tiles of the last two waves (none when ``grid`` divides ``ntiles`` or
    there is a single wave), with ``waves=1`` the ``ntiles % grid`` tiles of the last wave (none
    unless they fill half the grid), their k-tiles cut into ``grid`` runs whose lengths differ by at
    most one. Its body is :data:`SPLIT`, the kernel's own statements.

    >>> split(512, 64, 132, 0), split(512, 64, 132, 131), split(528, 64, 132, 5)
    ((248, 0, 121), (248, 15752, 15872), (0, 0, 0))
    >>> split(512, 64, 132, 0, waves=1), split(512, 64, 132, 131, waves=1), split(450, 64, 132, 0, waves=1)
    ((116, 0, 57), (116, 7368, 7424), (0, 0, 0))
    """
    return _SPLIT[_waves(waves)](ntiles, ktiles, grid, cta)[:3]


def next_unit(cur, run_end, dp, ntiles, ktiles, grid, waves=2):
    """The next unit after run ``[cur, run_end)`` and data-parallel tile ``dp``:
    ``(tile, first k-tile, end k-tile, cur, run_end, dp)``, tile -1 when none is left. Its body is
    :data:`NEXT`, the kernel's own statements.

    >>> next_unit(121, 242, 249, 512, 64, 132)[:3]         # CTA 1's run starts inside tile 1
    (1, 57, 64)
    >>> next_unit(57, 114, 397, 512, 64, 132, waves=1)[:3]  # after its whole tiles, CTA 1 starts tile 397 at k-tile 0
    (397, 0, 50)
    """
    fn = _NEXT[_waves(waves)]
    if waves == 1:
        sk = split(ntiles, ktiles, grid, 0, 1)[0]
        return fn(cur, run_end, dp, ntiles, ktiles, grid, ntiles - sk)
    return fn(cur, run_end, dp, ntiles, ktiles, grid)


def units(tiles, ktiles, grid, waves=2):
    """Every CTA's units ``(tile, first k-tile, end k-tile)`` in the order it walks them (the
    kernel's arithmetic, run in Python)."""
    out = []
    for cta in range(grid):
        _, cur, end, dp = _SPLIT[_waves(waves)](tiles, ktiles, grid, cta)
        mine = []
        while True:
            tile, kb, ke, cur, end, dp = next_unit(cur, end, dp, tiles, ktiles, grid, waves)
            if tile < 0:
                break
            mine.append((tile, kb, ke))
        out.append(mine)
    return out


def workspace_words(cfg, grid):
    """f32 words of the partial-sum workspace: each CTA's consumers' accumulators (one slot a CTA:
    only a run's first unit can hand its sums on)."""
    return grid * cfg.consumers * (cfg.bn // 2) * 128


# --- the kernel's statements ---------------------------------------------------------------------

def loop(w, cfg):
    """Open the unit loop (the caller's ``with``); the caller then emits :func:`unit`."""
    with w.concept("streamk"):
        w.comment("stream-K: this CTA's run of k-tiles over the last two waves' tiles, then whole tiles"
                  if cfg.stream_k == 2 else
                  "stream-K: whole tiles, then this CTA's run of k-tiles of the last wave's tiles, last tile first")
        w.code("grid = int32(cuda.gridDim.x)")
        w.code("cta = int32(cuda.blockIdx.x)")
        for line in SPLIT[cfg.stream_k]:
            w.code(line)
        w.code("tile = int32(0)")
    return w.block("while tile >= 0:")


def unit(w, cfg):
    """The next unit's ``tile``, ``kb``, ``ke``, inside the loop; leaves it when none is left."""
    with w.concept("streamk"):
        for line in NEXT[cfg.stream_k]:
            w.code(line)
        with w.block("if tile < 0:"):
            w.code("break")


def k_range(cfg):
    """The k-tiles of one unit: ``(range, first)``."""
    return ("range(kb, ke)", "kb") if cfg.stream_k else ("range(ktiles)", "0")


def end(w, cfg, acc, store):
    """After a unit's main loop: a unit that hands its sums on writes them to the CTA's slot of the
    workspace, the unit that owns a shared tile waits for the sums of the CTA before or after it and
    adds them as it stores C, any other unit stores C. Two waves: the run's first unit, holding a
    tile's last k-tiles, hands on to the run before, whose last unit holds the tile's first k-tiles
    and owns it. One wave: a unit that holds a tile's first k-tiles (walked first) hands on to the
    run after it; one that holds middle k-tiles (a whole run inside the tile) first adds the sums of
    the run before, then hands on; the unit that holds the tile's last k-tiles owns it. So an owner
    reads one slot, and a slot is read once. ``store(add)`` emits the epilogue
    (:func:`~labkit.cuda.kernels.ladder.gemm_wgmma_epilogue.store_c`), ``add`` the term added to
    accumulator ``i``: ``add.format(128 * i)``."""
    R, C = cfg.bn // 2, cfg.consumers
    two = cfg.stream_k == 2
    with w.concept("streamk"):
        w.code(f"slot = int32(((cta * {C} + c) * {R}) * 128 + t)")
        with w.block(f"if {'kb > 0' if two else 'ke < ktiles'}:"):
            if two:
                w.comment("this run holds the tile's last k-tiles: its sums go to the CTA that holds the first;")
                _hand_on(w, cfg, acc, None)
            else:
                w.comment("a middle piece: the run before holds the tile's first k-tiles; add its sums to these")
                with w.block("if kb > 0:"):
                    _wait(w, f"(cta - 1) * {C} + c", -C * R * 128)
                    _hand_on(w, cfg, acc, "ws[other + {}]")
                with w.block("else:"):
                    _hand_on(w, cfg, acc, None)
        with w.block(f"elif {'ke < ktiles' if two else 'kb > 0'}:"):
            w.comment("the next CTA holds the rest of this tile: wait for its sums, add them as C is stored" if two
                      else "the run before holds the rest of this tile: wait for its sums, add them as C is stored")
            _wait(w, *((f"(cta + 1) * {C} + c", C * R * 128) if two else (f"(cta - 1) * {C} + c", -C * R * 128)))
            store("ws[other + {}]")
        with w.block("else:"):
            store(None)


def _hand_on(w, cfg, acc, add):
    """Write the accumulators (plus ``add``, loaded a batch at a time before the batch is stored) to
    this CTA's slot and release them: each thread releases its own stores, so the flag counts the
    warpgroup's 128 threads."""
    from labkit.cuda.kernels.ladder.gemm_wgmma_epilogue import ADD_BATCH, preload

    R = cfg.bn // 2
    for i0 in range(0, R, ADD_BATCH):
        terms = preload(w, add, list(range(i0, min(i0 + ADD_BATCH, R))))
        for i in range(i0, min(i0 + ADD_BATCH, R)):
            term = f"{acc}[{i}] + {terms[i]}" if terms else f"{acc}[{i}]"
            w.code(f"ws[slot + {128 * i}] = {term}", repeat="ws")
    w.code(f"red_release_gpu(flags, cta * {cfg.consumers} + c, 1)", call="red_release_gpu")


def _wait(w, index, offset):
    """One thread of the warpgroup spins until the flag of slot ``index`` counts 128 releases and
    resets it; then the warpgroup meets, so every thread may read the slot (``other``: this thread's
    place in it, ``offset`` words from its own)."""
    w.code(f"peer = int32({index})")
    with w.block("if t == 0:"):
        with w.block("while ld_acquire_gpu(flags, peer) != 128:", call="ld_acquire_gpu"):
            w.code("pass")
        w.code("flags[peer] = uint32(0)")
    w.code("bar_sync_named(1 + c, 128)", call="bar_sync_named")
    w.code(f"other = int32(slot + {offset})")


def _gpu_bindings():
    from labkit.cuda._numba import TypingError, element_pointer_as_int, intrinsic, ir, types

    i32, i64 = ir.IntType(32), ir.IntType(64)

    def flag_array(name, flags, index):
        if not (isinstance(flags, types.Array) and flags.dtype == types.uint32 and flags.ndim == 1):
            raise TypingError(f"{name}: flags must be a 1-D uint32 array; got {flags}")
        if not isinstance(index, types.Integer):
            raise TypingError(f"{name}: index must be an integer; got {index}")

    @intrinsic
    def red_release_gpu(typingctx, flags, index, value):
        """Add ``value`` to ``flags[index]`` after every earlier write of this thread (and those it
        has seen) is visible GPU-wide."""
        flag_array("red_release_gpu", flags, index)

        def codegen(context, builder, sig, args):
            addr = element_pointer_as_int(context, builder, sig.args[0], args[0], sig.args[1], args[1])
            v = context.cast(builder, args[2], sig.args[2], types.uint32)
            asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), [i64, i32]), _REGISTRY["red_release_gpu"].asm,
                               "l,r,~{memory}", side_effect=True)
            builder.call(asm, [addr, v])
            return context.get_dummy_value()

        return types.void(flags, index, value), codegen

    @intrinsic
    def ld_acquire_gpu(typingctx, flags, index):
        """``flags[index]``, read so that later reads see what the releasing writer wrote before it."""
        flag_array("ld_acquire_gpu", flags, index)

        def codegen(context, builder, sig, args):
            addr = element_pointer_as_int(context, builder, sig.args[0], args[0], sig.args[1], args[1])
            asm = ir.InlineAsm(ir.FunctionType(i32, [i64]), _REGISTRY["ld_acquire_gpu"].asm, "=r,l,~{memory}",
                               side_effect=True)
            return builder.call(asm, [addr])

        return types.uint32(flags, index), codegen

    return red_release_gpu, ld_acquire_gpu


def _sim_bindings():
    from labkit.cuda._twins import no_twin

    why = "stream-K's flags have no CUDA-simulator twin (the simulator runs no wgmma kernel)"
    return no_twin("red_release_gpu", why), no_twin("ld_acquire_gpu", why)


red_release_gpu, ld_acquire_gpu = _sim_bindings() if _SIMULATED else _gpu_bindings()
