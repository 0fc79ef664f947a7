"""One GPU experiment per chapter: labkit predicts, a real kernel runs, the two are printed together.

================  =========================================  ==================================
function          kernel                                      prediction (labkit)
================  =========================================  ==================================
layout_copy       ``exp_copy``: ``dst(i,j) = src(L(i,j))``    32-byte sectors per warp request,
                  (chapter 1: row/column-major, padded rows;  distinct sectors (bytes fetched)
                  chapter 4: stride-0 broadcast, offset)      (:mod:`labkit.sectors`)
transpose         ``exp_transpose``: naive, tiled by          sectors per read and write request,
                  ``zipped_divide``, tiled + padded           shared wavefronts (:mod:`labkit.banks`)
fragment          ``ldmatrix.x1`` (``trace.run_ldmatrix``)    the m8n8 fragment's (lane, slot)
                                                              of every element (Axe layout)
bank_timing       ``exp_banks``: ``clock64`` around 32-bit    wavefronts per access; cycles =
                  shared loads, one pattern per layout        wavefronts x one wavefront's cycles
================  =========================================  ==================================

Each runs where :func:`labkit.lab.backend` says: on a CUDA GPU (sm_75 or newer) it measures
(time, bandwidth, cycles); under numba's CUDA simulator the same kernels run on the CPU, and
the counts the prediction is about (sectors, wavefronts, registers) are taken from what the
kernels actually read and wrote, with no time at all. Without either, a
:class:`labkit.errors.DeviceError` says how to switch the simulator on.
:func:`recorded` reads the figures measured on an H200, committed in ``benchmarks/results``.

>>> import labkit as lk
>>> from labkit.lab import experiments as ex
>>> p = ex.predict_copy(lk.parse_layout("(8,64):(1,8)"))        # column-major: a warp reads 32 columns
>>> p["sectors_per_request"], p["distinct_sectors"]
(32.0, 64)
>>> ex.predict_banks()["swizzled 32x32"]
1
"""

from __future__ import annotations

import datetime
import platform

import numpy as np

from labkit._version import __version__
from labkit.axe import m8n8_fragment_layout
from labkit.banks import bank_conflicts, bank_conflicts_batch
from labkit.lab.experiment import (  # noqa: F401 - Experiment, recorded, recorded_table: re-exported
    TWIN_NOTE, Experiment, _backend, _time_ms, recorded, recorded_table,
)
from labkit.lab.measurements import RESULTS
from labkit.errors import DeviceError, LayoutError
from labkit.layout import Swizzle, composition, layout_offsets, make_layout, parse_layout, zipped_divide
from labkit.sectors import SECTOR_BYTES, sector_count

__all__ = [
    "Experiment",
    "predict_copy",
    "layout_copy",
    "copy_layouts",
    "predict_transpose",
    "transpose",
    "fragment",
    "bank_patterns",
    "predict_banks",
    "bank_timing",
    "recorded",
    "RESULTS",
    "TOLERANCE",
]

TOLERANCE = 0.15
"""Bank timing: cycles must lie within 15% of wavefronts x one wavefront's measured cycles."""


def _layout(x, what="layout"):
    lay = parse_layout(x) if isinstance(x, str) else x
    if not (hasattr(lay, "shape") and hasattr(lay, "stride")):
        raise LayoutError(f"{what} must be a Layout or layout text such as '(64,64):(64,1)'; got {x!r}")
    shp, std = lay.shape, lay.stride
    if not (isinstance(shp, tuple) and len(shp) == 2 and not any(isinstance(s, tuple) for s in shp)):
        raise LayoutError(f"{what} must have rank 2 with integer modes (rows, columns); got {lay}")
    return lay, (int(shp[0]), int(shp[1])), (int(std[0]), int(std[1]))




# ---------------------------------------------------------------------------------------------
# chapters 1 and 4: a copy through a layout


def copy_layouts(m: int, n: int) -> dict:
    """Chapter 1's three layouts of an ``(m, n)`` matrix, as text: row-major, rows padded by one
    element, column-major.

    >>> copy_layouts(8, 32)
    {'row-major': '(8,32):(32,1)', 'padded +1': '(8,32):(33,1)', 'column-major': '(8,32):(1,8)'}
    """
    return {"row-major": f"({m},{n}):({n},1)", "padded +1": f"({m},{n}):({n + 1},1)",
            "column-major": f"({m},{n}):(1,{m})"}


def _copy_addresses(shape, stride, offset, rows):
    """Byte addresses of the warp requests of rows ``rows`` (lanes along the columns)."""
    j = np.arange(shape[1], dtype=np.int64)
    offs = offset + rows[:, None] * stride[0] + j[None, :] * stride[1]
    return 4 * offs.reshape(-1, 32)


def predict_copy(layout, offset: int = 0) -> dict:
    """What :func:`layout_copy` should see, from the layout alone (4-byte elements, lanes along
    the columns, 32 lanes per request): sectors per read request (mean, min, max), distinct
    sectors read, and the bytes a request asks for over those it touches.

    >>> p = predict_copy("(8,64):(65,1)")      # rows padded by one element
    >>> p["sectors_per_request"], p["min_sectors"], p["max_sectors"]
    (4.875, 4, 5)
    """
    _, shape, stride = _layout(layout)
    total = sectors = 0
    lo, hi = 1 << 30, 0
    reach = offset + (shape[0] - 1) * stride[0] + (shape[1] - 1) * stride[1]
    seen = np.zeros(reach * 4 // SECTOR_BYTES + 1, bool)
    step = 4 * stride[1]                      # bytes between neighbouring lanes
    chunk = max(1, (1 << 20) // shape[1])
    for r0 in range(0, shape[0], chunk):
        rows = np.arange(r0, min(shape[0], r0 + chunk), dtype=np.int64)
        # a request is 32 addresses start + step * lane: an arithmetic progression. With a step of
        # at most one sector it touches every sector from its first to its last byte; with a
        # larger one, one sector per lane
        start = 4 * (offset + rows[:, None] * stride[0] + 32 * np.arange(shape[1] // 32)[None, :] * stride[1])
        if step >= SECTOR_BYTES:
            per = np.full(start.shape, 32)
        else:
            per = (start + 31 * step) // SECTOR_BYTES - start // SECTOR_BYTES + 1
        total += per.size
        sectors += int(per.sum())
        lo, hi = min(lo, int(per.min())), max(hi, int(per.max()))
        seen[_copy_addresses(shape, stride, offset, rows).ravel() // SECTOR_BYTES] = True
    return {"sectors_per_request": sectors / total, "min_sectors": lo, "max_sectors": hi,
            "requests": total, "distinct_sectors": int(seen.sum()),
            "efficiency": 128 * total / (SECTOR_BYTES * sectors)}


def layout_copy(layouts: dict, backend=None, reps: int = 20) -> Experiment:
    """Copy one matrix through each layout (``{name: layout, layout text, or (layout, offset)}``,
    all of one shape) with :mod:`labkit.cuda.kernels.experiments.exp_copy`.

    Predicted: sectors per read request, distinct sectors read, and the megabytes memory must
    move at least (the distinct sectors read plus the output written). On a GPU: the median time
    and the effective bandwidth (bytes read + bytes written, 4 each per element, over the
    time), after checking that every element got the offset the layout gives. Under the
    simulator: the same counts, from the offsets the kernel read (``src[k] = k``).
    """
    from numba import cuda

    from labkit.cuda.kernels.experiments import exp_copy

    name, device = _backend(backend)
    if not isinstance(layouts, dict) or not layouts:
        raise DeviceError("layouts must be a non-empty dict {name: layout}")
    parsed = {}
    for key, v in layouts.items():
        lay, off = (v if isinstance(v, tuple) else (v, 0))
        parsed[key] = (*_layout(lay, f"layouts[{key!r}]"), int(off))
    shapes = {p[1] for p in parsed.values()}
    if len(shapes) != 1:
        raise DeviceError(f"every layout must have one shape (one output matrix); got {sorted(shapes)}")
    m, n = shapes.pop()
    rows = []
    for key, (lay, shape, stride, off) in parsed.items():
        pred = predict_copy(lay, off)
        last = off + (m - 1) * stride[0] + (n - 1) * stride[1]
        src = cuda.to_device(np.arange(last + 1, dtype=np.int32))
        dst = cuda.to_device(np.full(m * n, -1, np.int32))
        run = exp_copy.launch(src, dst, shape, stride, off)
        run()
        got = dst.copy_to_host()
        i = np.arange(m, dtype=np.int64)[:, None]
        j = np.arange(n, dtype=np.int64)[None, :]
        expect = (off + i * stride[0] + j * stride[1]).ravel()
        row = {"variant": key, "layout": str(lay) + (f" + {off}" if off else ""),
               "sectors/request": pred["sectors_per_request"], "distinct sectors": pred["distinct_sectors"],
               "MB moved": (SECTOR_BYTES * pred["distinct_sectors"] + 4 * m * n) / 1e6,
               "correct": bool(np.array_equal(got, expect))}
        if name == "gpu":
            ms = _time_ms(run, reps)
            row["ms"] = ms
            row["GB/s"] = 2 * 4 * m * n / (ms * 1e-3) / 1e9
        else:
            counted = sector_count(4 * got.reshape(-1, 32).astype(np.int64), 4)
            row["counted sectors/request"] = counted.mean_per_request
            row["counted distinct"] = counted.distinct
        rows.append(row)
        del src, dst
    measured = ("correct", "ms", "GB/s") if name == "gpu" else ("correct", "counted sectors/request", "counted distinct")
    note = (f"{m}x{n} int32, 4 bytes per element; GB/s counts each element read once and written once"
            if name == "gpu" else f"{m}x{n} int32. " + TWIN_NOTE)
    return Experiment("layout copy", name, device, rows, ("layout", "sectors/request", "distinct sectors", "MB moved"),
                      measured, note, {"shape": [m, n]})


# ---------------------------------------------------------------------------------------------
# chapter 2: transpose through tiles


def _transpose_layouts(m, n):
    return make_layout((m, n), (n, 1)), make_layout((n, m), (m, 1))


def _transpose_addresses(kind, m, n):
    """Per warp request: (global read, global write) byte addresses and, for the tiled kinds,
    (shared store, shared load) word indices, from the layouts and the thread mapping."""
    src_l, dst_l = _transpose_layouts(m, n)
    tx = np.arange(32)
    if kind == "naive":
        src_t, dst_t = np.asarray(src_l.offsets()).reshape(n, m).T, np.asarray(dst_l.offsets()).reshape(m, n).T
        # thread (i, j) of a warp: i fixed, j = 32 lanes
        i = np.arange(m)[:, None, None]
        jb = np.arange(n // 32)[None, :, None] * 32 + tx
        reads = src_t[i, jb].reshape(-1, 32)
        writes = dst_t[jb, i].reshape(-1, 32)
        return 4 * reads, 4 * writes, None, None
    pitch = 32 + (kind == "tiled_padded")
    zs = zipped_divide(src_l, (32, 32))
    zd = zipped_divide(dst_l, (32, 32))
    zs_off = np.asarray(zs.offsets()).reshape(m // 32, n // 32, 32, 32)   # [ti, tj, c, r] colex
    zd_off = np.asarray(zd.offsets()).reshape(n // 32, m // 32, 32, 32)
    rr = np.arange(32)[:, None]
    reads = zs_off[:, :, tx[None, :], rr].reshape(-1, 32)         # warp: row r, lanes = column
    writes = zd_off.transpose(1, 0, 2, 3)[:, :, tx[None, :], rr].reshape(-1, 32)
    stores = (rr * pitch + tx[None, :])
    loads = (tx[None, :] * pitch + rr)
    return 4 * reads, 4 * writes, 4 * stores, 4 * loads


def predict_transpose(m: int = 64, n: int = 64) -> dict:
    """Sectors per warp read and write request and shared-memory wavefronts per warp access
    for each kind (4-byte elements; tiles from ``zipped_divide(layout, (32, 32))``).

    >>> p = predict_transpose(64, 64)
    >>> p["naive"]["write sectors/request"], p["tiled"]["write sectors/request"]
    (32.0, 4.0)
    >>> p["tiled"]["smem load wavefronts"], p["tiled_padded"]["smem load wavefronts"]
    (32.0, 1.0)
    """
    from labkit.cuda.kernels.experiments.exp_transpose import KINDS

    out = {}
    for kind in KINDS:
        r, w, st, ld = _transpose_addresses(kind, m, n)
        row = {"read sectors/request": sector_count(r, 4).mean_per_request,
               "write sectors/request": sector_count(w, 4).mean_per_request}
        if st is not None:
            row["smem store wavefronts"] = float(bank_conflicts_batch(st, 4).per_access.mean())
            row["smem load wavefronts"] = float(bank_conflicts_batch(ld, 4).per_access.mean())
        else:
            row["smem store wavefronts"] = row["smem load wavefronts"] = 0.0
        out[kind] = row
    return out


def transpose(m: int | None = None, n: int | None = None, backend=None, reps: int = 20) -> Experiment:
    """Transpose an ``(m, n)`` float32 matrix three ways (naive; 32x32 tiles from
    ``zipped_divide`` through a shared tile of pitch 32; the same with pitch 33).

    Default size: 8192x8192 on a GPU, 64x64 under the simulator. On a GPU: median time and
    effective bandwidth (read + write); under the simulator: the sectors and wavefronts of the
    addresses the kernels recorded.
    """
    from numba import cuda

    from labkit.cuda.kernels.experiments import exp_transpose as kt

    name, device = _backend(backend)
    big = name == "gpu"
    m = (8192 if big else 64) if m is None else m
    n = m if n is None else n
    src_l, dst_l = _transpose_layouts(m, n)
    pred = predict_transpose(m, n) if (m * n <= 1 << 22) else predict_transpose(256, 256)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, n)).astype(np.float32)
    rows = []
    for kind in kt.KINDS:
        src = cuda.to_device(a.ravel())
        dst = cuda.to_device(np.full(m * n, np.nan, np.float32))
        blocks = (m // 32) * (n // 32)
        trace = None if big else cuda.to_device(np.full((blocks, 4, 256, 4), -1, np.int64))
        run = kt.launch(kind, src, dst, src_l, dst_l, trace)
        run()
        ok = bool(np.array_equal(dst.copy_to_host().reshape(n, m), a.T))
        row = {"variant": kind, **pred[kind], "correct": ok}
        if big:
            ms = _time_ms(run, reps)
            row["ms"] = ms
            row["GB/s"] = 2 * 4 * m * n / (ms * 1e-3) / 1e9
        else:
            t = trace.copy_to_host()
            # per warp request: trace[block, step, 32*warp + lane, field]
            req = t.reshape(blocks, 4, 8, 32, 4).reshape(-1, 32, 4)
            row["counted read"] = sector_count(4 * req[:, :, 0], 4).mean_per_request
            row["counted write"] = sector_count(4 * req[:, :, 1], 4).mean_per_request
            if kind != "naive":
                row["counted smem load wf"] = float(bank_conflicts_batch(4 * req[:, :, 3], 4).per_access.mean())
            else:
                row["counted smem load wf"] = 0.0
        rows.append(row)
    measured = ("correct", "ms", "GB/s") if big else ("correct", "counted read", "counted write", "counted smem load wf")
    note = (f"{m}x{n} float32; GB/s counts each element read once and written once" if big
            else f"{m}x{n} float32. " + TWIN_NOTE)
    return Experiment("transpose", name, device, rows,
                      ("read sectors/request", "write sectors/request", "smem load wavefronts"),
                      measured, note, {"shape": [m, n]})


# ---------------------------------------------------------------------------------------------
# chapter 3: who holds which element of an m8n8 fragment


def fragment(backend=None) -> Experiment:
    """``ldmatrix.x1`` on an 8x8 matrix of 16-bit values ``8*row + col``: each lane's two
    16-bit halves say which elements it holds. The prediction is chapter 3's Axe layout
    ``S[(8,4,2):(4@laneid,1@laneid,1@reg)]``: element ``x = 8*row + col`` -> (lane, slot).

    ``extra["held"]`` is the ``(32, 2)`` element index each lane's slot received and
    ``extra["matches"]`` whether all 64 agree with the layout; ``rows`` show the ``(8, 8)`` grid
    as ``lane.slot``, predicted and received.
    """
    from labkit.cuda.kernels.probes import trace_kernels as kt

    name, device = _backend(backend)
    frag = m8n8_fragment_layout()
    table = frag.table(replicas=False)
    img = np.arange(64, dtype=np.uint16)[None, :]                     # row r at offset 8r
    offsets = (8 * (np.arange(32) % 8))[None, :].astype(np.int32)     # lanes 0-7 give the rows
    regs = kt.run_ldmatrix("x1", img, offsets)["regs"][0, :, 0]
    held = np.stack([regs & 0xFFFF, regs >> 16], axis=1).astype(np.int64)     # (lane, slot) -> x
    holder = np.empty((8, 8), object)
    pred = np.empty((8, 8), object)
    for x in range(64):
        pred[x // 8, x % 8] = f"{int(table['laneid'][x])}.{int(table['reg'][x])}"
    for lane in range(32):
        for slot in range(2):
            x = int(held[lane, slot])
            holder[x // 8, x % 8] = f"{lane}.{slot}"
    matches = bool(np.array_equal(holder, pred))
    rows = [{"variant": f"row {r}", "predicted lane.slot": " ".join(f"{v:>4}" for v in pred[r]),
             "kernel lane.slot": " ".join(f"{v:>4}" for v in holder[r])} for r in range(8)]
    note = ("ldmatrix.sync.aligned.m8n8.x1.shared.b16 " + ("on the GPU" if name == "gpu" else "in the CUDA simulator")
            + f"; kernel == Axe layout {frag}: {matches}")
    return Experiment("m8n8 fragment", name, device, rows, ("predicted lane.slot",), ("kernel lane.slot",), note,
                      {"matches": matches, "held": held.tolist()})


# ---------------------------------------------------------------------------------------------
# chapter 5: bank conflicts, timed


def bank_patterns() -> dict:
    """Chapter 5's patterns: lane ``l`` reads element ``(l, 0)`` (a column) of a 32-row fp32
    tile. ``{name: layout}``: rows of 1, 2, 4, 8, 16, 32 words (1, 2, 4, 8, 16, 32-way), 33
    words (padded) and 32 words through ``Swizzle<5,0,5>``."""
    pats = {f"pitch {p}": make_layout((32, p), (p, 1)) for p in (1, 2, 4, 8, 16, 32)}
    pats["padded 33"] = make_layout((32, 33), (33, 1))
    pats["swizzled 32x32"] = composition(Swizzle(5, 0, 5), make_layout((32, 32), (32, 1)))
    return pats


def _pattern_words(layout):
    return layout_offsets(layout, [(lane, 0) for lane in range(32)]).astype(np.int64)


def predict_banks() -> dict:
    """Wavefronts of one warp access for each of :func:`bank_patterns`.

    >>> predict_banks()["pitch 8"], predict_banks()["padded 33"]
    (8, 1)
    """
    return {k: bank_conflicts(4 * _pattern_words(v), 4).wavefronts for k, v in bank_patterns().items()}


def bank_timing(backend=None, warps: int = 32, reps: int = 256, launches: int = 5) -> Experiment:
    """Time each of :func:`bank_patterns` with :mod:`labkit.cuda.kernels.experiments.exp_banks`.

    On a GPU: the median over ``launches`` of the block's cycles per warp access; the one-
    wavefront cost ``c1`` is the measured cycles of ``pitch 1``; the prediction for a pattern
    of ``w`` wavefronts is ``w * c1``, and ``error %`` is 100 (cycles - w c1) / (w c1). Under the
    simulator (one warp, one trip): the wavefronts of the words the kernel read.
    """
    from labkit.cuda.kernels.experiments import exp_banks

    name, device = _backend(backend)
    if name != "gpu":
        warps, reps, launches = 1, 1, 1
    pats = bank_patterns()
    pred = predict_banks()
    rows = []
    measured = {}
    for key, lay in pats.items():
        words = _pattern_words(lay)
        run, out, cycles = exp_banks.launch(words, warps, reps)
        per_access = []
        for _ in range(launches):
            run()
            per_access.append(int(cycles.copy_to_host()[0]) / (warps * reps * exp_banks.UNROLL))
        sums = out.copy_to_host().astype(np.int64)
        read = sums[:32] // (reps * exp_banks.UNROLL)                # word[i] = i
        ok = bool(np.array_equal(read, words) and np.array_equal(sums.reshape(warps, 32), np.tile(sums[:32], (warps, 1))))
        row = {"variant": key, "wavefronts": pred[key], "correct": ok}
        if name == "gpu":
            measured[key] = float(np.median(per_access))
        else:
            row["counted wavefronts"] = bank_conflicts(4 * read, 4).wavefronts
        rows.append(row)
    extra = {"warps": warps, "reps": reps, "unroll": exp_banks.UNROLL, "launches": launches}
    if name == "gpu":
        c1 = measured["pitch 1"]
        for row in rows:
            cyc = measured[row["variant"]]
            row["cycles/access"] = cyc
            row["predicted cycles"] = row["wavefronts"] * c1
            row["error %"] = 100 * (cyc - row["wavefronts"] * c1) / (row["wavefronts"] * c1)
        extra["single_wavefront_cycles"] = c1
        note = (f"one block of {warps} warps, {reps}x{exp_banks.UNROLL} loads per thread; cycles per warp access "
                f"(clock64, median of {launches} launches); one wavefront = pitch 1 = {c1:.3g} cycles")
        cols = ("correct", "cycles/access", "predicted cycles", "error %")
    else:
        note = "one warp, one trip. " + TWIN_NOTE
        cols = ("correct", "counted wavefronts")
    return Experiment("bank timing", name, device, rows, ("wavefronts",), cols, note, extra)


# ---------------------------------------------------------------------------------------------
# recorded figures


def environment() -> dict:
    """GPU, date and versions, for a results file."""
    import numba

    env = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "python": platform.python_version(), "numpy": np.__version__, "numba": numba.__version__,
           "labkit": __version__}
    try:
        from importlib.metadata import version

        env["numba-cuda"] = version("numba-cuda")
    except Exception:  # noqa: BLE001 - a missing distribution only leaves the field out
        pass
    from labkit.lab import backend

    if backend() == "gpu":
        from labkit.cuda import _numba, device_name

        env["device"] = device_name()
        try:
            env["cuda_driver_api"] = ".".join(str(v) for v in _numba.driver_version())
        except Exception:  # noqa: BLE001 - the version is a courtesy, not a requirement
            pass
    return env
