"""A Hopper GEMM's mainloop in time: the producer, the copy engine and the consumer warpgroup as a
schematic schedule (what :func:`labkit.viz.draw_timeline` draws), and the measured costs step 7
pays beside cuBLAS (read from :mod:`labkit.lab.measurements`).
"""

from __future__ import annotations

from dataclasses import dataclass

from labkit.errors import LayoutError

__all__ = ["fixed_cost_split", "ktile_times", "Event", "Schedule", "pipeline_schedule", "consumer_schedule",
           "ceiling_ratio"]


@dataclass(frozen=True)
class Event:
    """One bar (``start < end``) or mark (``start == end``) of a timeline row."""

    row: str
    start: float
    end: float
    label: str
    kind: str


@dataclass(frozen=True)
class Schedule:
    """Rows, events and a title: what :func:`labkit.viz.draw_timeline` draws."""

    title: str
    rows: tuple
    events: tuple

    def text(self) -> str:
        """The events in time order, one line each."""
        return "\n".join(f"t={e.start:>4g}  {e.row:<22} {e.label}" for e in sorted(
            self.events, key=lambda e: (e.start, self.rows.index(e.row))))


ROWS = ("producer thread", "copy engine (TMA)", "consumer warpgroup", "tensor cores")


def _rows(stages):
    return (ROWS[0],) + tuple(f"TMA into stage {s}" for s in range(stages)) + ROWS[2:]


def pipeline_schedule(stages: int = 2, ktiles: int = 4, load: float = 4.0, mma: float = 3.0) -> Schedule:
    """A schematic of the mainloop of a Hopper GEMM (unit times, not a measurement): one producer
    thread arms ``full[s]`` with ``mbarrier.arrive.expect_tx`` and issues the copy of k-tile
    ``k`` into stage ``s = k % stages`` once ``empty[s]`` says the consumers are done with it;
    the copy engine takes ``load`` and completes the bytes on ``full[s]``; the consumer
    warpgroup waits on ``full[s]``, issues ``wgmma.fence``, the k-tile's wgmma, ``commit_group``
    and ``wait_group 1``, after which the previous k-tile's group is done and its stage is
    released with an arrive on ``empty``. The tensor cores run a group for ``mma``.

    >>> s = pipeline_schedule(2, 3)
    >>> [e.label for e in s.events if e.row == "consumer warpgroup"][:4]
    ['wait full[0]', 'fence', 'wgmma k0', 'commit']
    """
    if ktiles < 1:
        raise LayoutError(f"ktiles={ktiles!r} must be at least 1")
    if stages < 2:
        raise LayoutError(f"stages={stages!r}: with one stage, wait_group 1 keeps the group that reads it "
                          "running, its stage is never released and the producer waits forever (a "
                          "deadlock); one stage needs wait_group 0. Use stages >= 2")
    released: dict = {}
    for _ in range(2 * ktiles + 2):       # the producer waits on releases the consumer makes: iterate
        events, now = _plan(stages, ktiles, load, mma, released)
        if now == released:
            break
        released = now
    return Schedule(f"{stages} stages, {ktiles} k-tiles (schematic units)", _rows(stages), tuple(events))


def _plan(stages, ktiles, load, mma, released):
    ev, landed, producer_t = [], {}, 0.0
    for k in range(ktiles):
        s = k % stages
        if k >= stages:
            producer_t = max(producer_t, released.get(k - stages, 0.0))
            ev.append(Event(ROWS[0], producer_t, producer_t, f"wait empty[{s}]", "wait"))
        ev.append(Event(ROWS[0], producer_t, producer_t + 0.5, f"expect_tx full[{s}]", "sync"))
        ev.append(Event(f"TMA into stage {s}", producer_t + 0.5, producer_t + 0.5 + load, f"k{k}", "copy"))
        landed[k] = producer_t + 0.5 + load
        producer_t += 1.0
    now, consumer_t, tc_free, done = {}, 0.0, 0.0, {}
    for k in range(ktiles):
        s = k % stages
        consumer_t = max(consumer_t, landed[k])
        ev.append(Event(ROWS[2], consumer_t, consumer_t, f"wait full[{s}]", "wait"))
        ev.append(Event(ROWS[2], consumer_t, consumer_t + 0.3, "fence", "sync"))
        ev.append(Event(ROWS[2], consumer_t + 0.3, consumer_t + 0.8, f"wgmma k{k}", "mma"))
        ev.append(Event(ROWS[2], consumer_t + 0.8, consumer_t + 1.0, "commit", "sync"))
        start = max(consumer_t + 0.3, tc_free)
        tc_free = start + mma
        done[k] = tc_free
        ev.append(Event(ROWS[3], start, tc_free, f"group k{k}", "mma"))
        consumer_t += 1.0
        if k >= 1:                        # wait_group 1: group k-1 is done, its stage is free
            consumer_t = max(consumer_t, done[k - 1])
            ev.append(Event(ROWS[2], consumer_t, consumer_t, "wait_group 1", "wait"))
            ev.append(Event(ROWS[2], consumer_t, consumer_t + 0.2, f"arrive empty[{(k - 1) % stages}]", "sync"))
            now[k - 1] = consumer_t + 0.2
            consumer_t += 0.2
    return ev, now


def consumer_schedule(design: str = "pingpong", tiles: int = 4, mainloop: float = 6.0,
                      epilogue: float = 2.0) -> Schedule:
    """Two consumer warpgroups over ``tiles`` output tiles of equal work, in time (schematic units,
    not a measurement): a tile's main loop keeps the tensor cores busy for ``mainloop``, its
    epilogue stores C for ``epilogue`` while they wait for it.

    ``"cooperative"`` (CUTLASS's ``KernelTmaWarpSpecializedCooperative``, step 7's default): the two
    warpgroups split every tile, so they multiply together and store together, and the tensor cores
    idle through every epilogue. ``"pingpong"`` (``KernelTmaWarpSpecializedPingpong``): each takes
    every other tile whole; a warpgroup waits for its turn (the other has issued its main loop),
    multiplies, hands the turn over and stores while the other multiplies, so the tensor cores idle
    only where an epilogue is longer than the other's main loop, and after the last tile.

    >>> [round(consumer_schedule(d, 4, 6, 2).events[-1].end, 1) for d in ("cooperative", "pingpong")]
    [32.0, 26.0]
    """
    if design not in ("cooperative", "pingpong"):
        raise LayoutError(f"design must be 'cooperative' or 'pingpong'; got {design!r}")
    if isinstance(tiles, bool) or not isinstance(tiles, int) or tiles < 1:
        raise LayoutError(f"tiles={tiles!r} must be a positive int")
    if not (mainloop > 0 and epilogue >= 0):
        raise LayoutError(f"mainloop={mainloop!r} must be > 0 and epilogue={epilogue!r} >= 0")
    rows = ("consumer 1", "consumer 2", "tensor cores")
    ev = []
    if design == "cooperative":
        t = 0.0
        for k in range(tiles):
            for r in rows[:2]:
                ev.append(Event(r, t, t + mainloop, f"tile {k}: main loop (half the rows)", "mma"))
                ev.append(Event(r, t + mainloop, t + mainloop + epilogue, f"tile {k}: epilogue", "store"))
            ev.append(Event(rows[2], t, t + mainloop, f"tile {k}", "mma"))
            t += mainloop + epilogue
        ev.sort(key=lambda e: (e.end, e.start))
        return Schedule(f"cooperative: {tiles} tiles (schematic units)", rows, tuple(ev))
    free = [0.0, 0.0]                     # when each warpgroup has stored its last tile
    turn = 0.0                            # when the tensor cores' turn passes
    for k in range(tiles):
        c = k % 2
        start = max(free[c], turn)
        if start > free[c]:
            ev.append(Event(rows[c], free[c], free[c], "wait for the turn", "wait"))
        ev.append(Event(rows[c], start, start + mainloop, f"tile {k}: main loop", "mma"))
        ev.append(Event(rows[2], start, start + mainloop, f"tile {k}", "mma"))
        ev.append(Event(rows[c], start + mainloop, start + mainloop, "arrive: the other's turn", "sync"))
        ev.append(Event(rows[c], start + mainloop, start + mainloop + epilogue, f"tile {k}: epilogue", "store"))
        turn = start + mainloop
        free[c] = start + mainloop + epilogue
    ev.sort(key=lambda e: (e.end, e.start))
    return Schedule(f"ping-pong: {tiles} tiles (schematic units)", rows, tuple(ev))


def fixed_cost_split(k: int = 4096) -> str:
    """Step 7's gap to cuBLAS at M = N = 4096 and ``k``, split by the recorded run
    ``wgmma-fixed-cost`` into the part that does not grow with K (the fits' fixed times) and the
    part that does (``k / 64`` k-tiles at each fit's time per 64 of K), and what writing C in f32
    rather than f16 cost cuBLAS at the same ``k``.

    >>> print(fixed_cost_split(4096).splitlines()[0])
    K = 4096, measured: step 7 192.8 us (f32 C); cuBLAS 178.9 us (f16 C), 185.3 us (f32 C)
    """
    from labkit.lab import measurements

    def fig(path):
        return measurements.figure("wgmma-fixed-cost", path).value

    names = {"wgmma": "wgmma", "cuBLAS": "cuBLAS", "f32": "cuBLAS f32 out"}
    try:
        us = {s: fig(f"runs.{v}, K {k}.ms") * 1e3 for s, v in names.items()}
    except measurements.MeasurementError:
        raise LayoutError(f"k={k!r}: the run timed K = 512, 1024, 2048, 4096 and 8192") from None
    fixed = {s: fig(f"fit.{s}.fixed_us") for s in ("wgmma", "cuBLAS")}
    per = {s: fig(f"fit.{s}.per_k64_us") * k / 64 for s in ("wgmma", "cuBLAS")}
    return "\n".join([
        f"K = {k}, measured: step 7 {us['wgmma']:.1f} us (f32 C); cuBLAS {us['cuBLAS']:.1f} us (f16 C), "
        f"{us['f32']:.1f} us (f32 C)",
        f"gap to cuBLAS (f16 C): {us['wgmma'] - us['cuBLAS']:.1f} us; in the fits:",
        f"  fixed part: {fixed['wgmma']:.1f} vs {fixed['cuBLAS']:.1f} us, difference "
        f"{fixed['wgmma'] - fixed['cuBLAS']:.1f}",
        f"  {k // 64} k-tiles: {per['wgmma']:.1f} vs {per['cuBLAS']:.1f} us, difference "
        f"{per['wgmma'] - per['cuBLAS']:.1f}",
        f"f32 C instead of f16 cost cuBLAS {us['f32'] - us['cuBLAS']:.1f} us; step 7 is "
        f"{us['wgmma'] - us['f32']:.1f} us behind cuBLAS writing f32"])


def ceiling_ratio() -> str:
    """The measured wgmma ceiling over the best ``mma.sync`` issue rate of the same GPU, both
    read from the recorded runs (:mod:`labkit.lab.measurements`).

    >>> ceiling_ratio().startswith("wgmma / mma.sync: ")
    True
    """
    from labkit.lab import measurements
    wg = measurements.figure("wgmma-peak", "best_tflops").value
    rates = {p: v for p, v in measurements.figures("gemm").items() if p.startswith("mma_rate.tflops.")}
    best = max(rates.values())
    return f"wgmma / mma.sync: {wg / best:.2f}x, against the best of the recorded mma.sync chains"


def ktile_times(run: str, size: int, configs) -> str:
    """Microseconds per k-tile of step 7's busiest CTA at ``size``³ for each configuration timed in
    ``run``: the run's median time over the k-tiles of a CTA that runs ``ceil(tiles / SMs)`` tiles
    (the persistent grid has one CTA per SM).

    >>> print(ktile_times("gemm-hopper-ablation", 8192, ["128x128x128s6-e4m3"]))
    128x128x128s6-e4m3: 1.176 ms / (32 tiles x 64 k-tiles) = 0.574 us a k-tile
    """
    import math

    from labkit.cuda.kernels.ladder.gemm_wgmma_config import pick
    from labkit.lab import measurements

    sms = int(measurements.run_info(run)["sms"])
    lines = []
    for config in configs:
        cfg = pick(config)
        ms = measurements.figure(run, f"ladder.{size} f32 wgmma {config}.ms").value
        tiles = math.ceil(math.ceil(size / cfg.bm) * math.ceil(size / cfg.bn) / sms)
        k_tiles = math.ceil(size / cfg.bk)
        lines.append(f"{config}: {ms:.3f} ms / ({tiles} tiles x {k_tiles} k-tiles) = "
                     f"{1e3 * ms / (tiles * k_tiles):.3f} us a k-tile")
    return "\n".join(lines)
