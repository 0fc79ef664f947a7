"""Stream-K for step 7: the last wave's tiles shared out by k-tiles, so no SM idles at the end.

A persistent grid of G CTAs walks T output tiles. When G does not divide T, the last wave has
``T % G`` tiles and the other SMs wait for it: at 4096³ with 128×256 tiles, 512 tiles take 4 waves
on 132 SMs, where 3.88 would do. Stream-K (Osama et al., "Stream-K: Work-centric Parallel
Decomposition for Dense Matrix-Matrix Multiplication on the GPU", 2023; CUTLASS's
``StreamKScheduler``) splits work by k-tiles instead. This is the paper's hybrid: the last partial
wave and one full wave before it, ``T % G + G`` tiles, are cut into G equal runs of k-tiles, one
per CTA, walked first; the remaining tiles follow whole, one wave after another.

A run that starts inside a tile holds that tile's last k-tiles (a CTA walks its run first, so it
computes them early); the CTA before it holds the same tile's first k-tiles, at the end of its own
run. Every run is at least one tile long, so a tile is shared by at most those two CTAs. The first
writes its f32 accumulators to a workspace and counts on a flag; the second, after its own
k-tiles, waits for the flag and adds the partial sums as its epilogue stores C (a few at a time,
so they never all sit in registers beside the accumulators). The flag takes the instructions of
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
"""

from __future__ import annotations

from labkit.atoms.instructions import GEMM_PTX as _REGISTRY
from labkit.cuda._numba import SIMULATED as _SIMULATED

__all__ = ["SPLIT", "NEXT", "split", "next_unit", "units", "red_release_gpu", "ld_acquire_gpu", "workspace_words",
           "loop", "unit", "k_range", "end"]


#: a CTA's run (``cta`` of ``grid``): the kernel's statements, and :func:`split`'s body
SPLIT = (
    "waves = int32(ntiles // grid)",
    "sk = int32(ntiles - (waves - 1) * grid if waves > 0 and ntiles % grid != 0 else 0)",
    "per_cta = int32(sk * ktiles // grid)",
    "longer = int32(sk * ktiles % grid)",
    "cur = int32(cta * per_cta + min(cta, longer))",
    "run_end = int32(cur + per_cta + (1 if cta < longer else 0))",
    "dp = int32(sk + cta)",
)
#: the next unit: the kernel's statements, and :func:`next_unit`'s body
NEXT = (
    "more = cur < run_end",
    "tile = int32(cur // ktiles if more else (dp if dp < ntiles else -1))",
    "kb = int32(cur - tile * ktiles if more else 0)",
    "ke = int32(min(ktiles, kb + run_end - cur) if more else ktiles)",
    "cur = int32(cur + ke - kb if more else cur)",
    "dp = int32(dp if more else dp + grid)",
)


def _function(name, params, lines, result, doc):
    """The kernel's ``lines`` as a Python function (the kernel program builds it; its int32 casts are
    Python's exact ints)."""
    from labkit.cuda.program import KernelProgram

    source = f"def {name}({params}):\n" + "".join(f"    {x}\n" for x in lines) + f"    return {result}\n"
    fn = KernelProgram(name, source, {"int32": int, "min": min}).function()
    fn.__doc__ = doc
    return fn


split = _function("split", "ntiles, ktiles, grid, cta", SPLIT, "sk, cur, run_end", """\
``(stream-K tiles, first k-iteration, end)`` of CTA ``cta``'s run: the ``ntiles % grid + grid``
tiles of the last two waves (none when ``grid`` divides ``ntiles`` or there is a single wave), their
k-tiles cut into ``grid`` runs whose lengths differ by at most one. Its body is :data:`SPLIT`, the
kernel's own statements.

>>> split(512, 64, 132, 0), split(512, 64, 132, 131), split(528, 64, 132, 5)
((248, 0, 121), (248, 15752, 15872), (0, 0, 0))
""")

next_unit = _function("next_unit", "cur, run_end, dp, ntiles, ktiles, grid", NEXT, "tile, kb, ke, cur, dp", """\
The next unit after run position ``cur`` (of ``run_end``) and data-parallel tile ``dp``:
``(tile, first k-tile, end k-tile, cur, dp)``, tile -1 when none is left. The run's pieces come
first, one per tile it touches, then whole tiles ``dp, dp + grid, ...``. Its body is :data:`NEXT`,
the kernel's own statements.

>>> next_unit(121, 242, 249, 512, 64, 132)         # CTA 1's run starts inside tile 1
(1, 57, 64, 128, 249)
""")


def units(tiles, ktiles, grid):
    """Every CTA's units ``(tile, first k-tile, end k-tile)`` in the order it walks them (the
    kernel's arithmetic, run in Python)."""
    out = []
    for cta in range(grid):
        sk, cur, end = split(tiles, ktiles, grid, cta)
        dp, mine = sk + cta, []
        while True:
            tile, kb, ke, cur, dp = next_unit(cur, end, dp, tiles, ktiles, grid)
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

def loop(w):
    """Open the unit loop (the caller's ``with``); the caller then emits :func:`unit`."""
    with w.concept("streamk"):
        w.comment("stream-K: this CTA's run of k-tiles over the last two waves' tiles, then whole tiles")
        w.code("grid = int32(cuda.gridDim.x)")
        w.code("cta = int32(cuda.blockIdx.x)")
        for line in SPLIT:
            w.code(line)
        w.code("tile = int32(0)")
    return w.block("while tile >= 0:")


def unit(w):
    """The next unit's ``tile``, ``kb``, ``ke``, inside the loop; leaves it when none is left."""
    with w.concept("streamk"):
        for line in NEXT:
            w.code(line)
        with w.block("if tile < 0:"):
            w.code("break")


def k_range(cfg):
    """The k-tiles of one unit: ``(range, first)``."""
    return ("range(kb, ke)", "kb") if cfg.stream_k else ("range(ktiles)", "0")


def end(w, cfg, acc, store):
    """After a unit's main loop: a run's first unit that holds a tile's last k-tiles hands its sums
    on; a run's last unit that holds only a tile's first k-tiles waits for them and adds them as it
    stores C; any other unit stores C. ``store(add)`` emits the epilogue
    (:func:`~labkit.cuda.kernels.ladder.gemm_wgmma_epilogue.store_c`), ``add`` the term added to
    accumulator ``i``: ``add.format(128 * i)``."""
    R = cfg.bn // 2
    with w.concept("streamk"):
        w.code(f"slot = int32(((cta * {cfg.consumers} + c) * {R}) * 128 + t)")
        with w.block("if kb > 0:"):
            w.comment("this run holds the tile's last k-tiles: its sums go to the CTA that holds the first;")
            w.comment("each thread releases its own (the flag counts the warpgroup's 128 threads)")
            for i in range(R):
                w.code(f"ws[slot + {128 * i}] = {acc}[{i}]", repeat="ws")
            w.code(f"red_release_gpu(flags, cta * {cfg.consumers} + c, 1)", call="red_release_gpu")
        with w.block("elif ke < ktiles:"):
            w.comment("the next CTA holds the rest of this tile: wait for its sums, add them as C is stored")
            w.code(f"peer = int32((cta + 1) * {cfg.consumers} + c)")
            with w.block("if t == 0:"):
                with w.block("while ld_acquire_gpu(flags, peer) != 128:", call="ld_acquire_gpu"):
                    w.code("pass")
                w.code("flags[peer] = uint32(0)")
            w.code("bar_sync_named(1 + c, 128)", call="bar_sync_named")
            w.code(f"other = int32(slot + {cfg.consumers * R * 128})")
            store("ws[other + {}]")
        with w.block("else:"):
            store(None)


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
