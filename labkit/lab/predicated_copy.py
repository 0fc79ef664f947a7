"""A ragged matrix copied tile by tile: which tiles are partial, which thread values are
masked, and how many 32-byte sectors each warp request touches, predicted from the layouts.

A matrix of halves ``(M, N)`` is cut into 128x128 tiles, one block each, on a grid of
``ceil_div(M, 128)`` by ``ceil_div(N, 128)`` blocks. A block's 256 threads copy its tile with one
of two tiled copies (:func:`tiled_copy`):

- ``"scalar"``: ``UniversalCopy`` of one half, threads ``(_32,_8):(_1,_32)``: a thread copies
  ``4 x 16`` single elements;
- ``"vector"``: ``UniversalCopy<u128>`` (8 halves), threads ``(_16,_16):(_1,_16)``, values
  ``(_8,_1)``: a thread copies 8 vectors of 8 halves down a column.

A value is copied only when its coordinate is inside the matrix. :func:`predict` counts the
sectors of every warp request from the layouts alone; :func:`run` launches
:mod:`labkit.cuda.kernels.experiments.exp_predicated_copy` and, on a GPU, times it; under numba's CUDA
simulator it checks that every element inside the matrix was copied exactly once and that nothing
outside was touched. :func:`recorded` reads the committed GPU figures, when there are any.

>>> r = ragged_tiles((1000, 776))
>>> r["grid"], r["last_tile"], r["partial_blocks"]
((8, 7), (104, 8), 14)
>>> p = predict((1024, 776), "vector")           # a warp: 2 columns x 256 aligned bytes
>>> p["sectors_per_request"], p["efficiency"]
(16.0, 1.0)
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

from labkit.atoms import copy_atom
from labkit.lab.measurements import RESULTS
from labkit.errors import DeviceError, LayoutError
from labkit.layout import S, idx2crd, make_identity_tensor, make_layout, parse_layout, size
from labkit.sectors import SECTOR_BYTES, sector_count
from labkit.tiled import make_tiled_copy

__all__ = ["TILE", "KINDS", "tiled_copy", "tile_coords", "ragged_tiles", "value_mask",
           "predict", "run", "recorded", "recorded_table", "RESULTS"]

TILE = (128, 128)
KINDS = ("scalar", "vector")
ELEMENT_BYTES = 2
"""Where a GPU run of :func:`run` is committed, as ``predicated_copy_<tag>_<date>.json``."""

_COPIES = {
    "scalar": ("UniversalCopy", "(_32,_8):(_1,_32)", (1, 1)),
    "vector": ("UniversalCopy<u128>", "(_16,_16):(_1,_16)", (8, 1)),
}


def _kind(kind):
    if kind not in KINDS:
        raise LayoutError(f"kind must be one of {KINDS}; got {kind!r}")
    return kind


def _shape(shape):
    if not (isinstance(shape, tuple) and len(shape) == 2 and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v > 0 for v in shape)):
        raise LayoutError(f"shape must be a pair of positive integers (M, N); got {shape!r}")
    return int(shape[0]), int(shape[1])


def tiled_copy(kind: str = "scalar"):
    """The block's :class:`labkit.TiledCopy` for ``kind`` (halves).

    >>> print(tiled_copy("vector").get_layoutS_TV())
    (_256,(_8,_1)):(_8,(_1,_0))
    """
    atom, thr, val = _COPIES[_kind(kind)]
    return make_tiled_copy(copy_atom(atom, "f16"), parse_layout(thr), make_layout(tuple(S(v) for v in val)))


def tile_coords(kind: str = "scalar") -> np.ndarray:
    """``coords[t, v] = (m, n)``: where in a 128x128 tile value ``v`` of thread ``t`` starts (for
    ``"vector"``, the first of its 8 halves), from the thread's ``partition_S`` of the tile.

    >>> c = tile_coords("scalar")
    >>> c.shape, c[33, :3].tolist()
    ((256, 64, 2), [[1, 1], [33, 1], [65, 1]])
    """
    return _tile_coords(_kind(kind)).copy()


@functools.lru_cache(maxsize=None)
def _tile_coords(kind):
    cp = tiled_copy(kind)
    tile = make_identity_tensor((S(TILE[0]), S(TILE[1])))       # element (m, n) holds (m, n)
    out = []
    for t in range(int(size(cp.layout_tv[0]))):
        part = cp.get_slice(t).partition_S(tile)                # (CPY, CPY_M, CPY_N)
        rest = tuple(part.layout.shape[1:])
        out.append([tuple(part((0,) + tuple(idx2crd(r, rest)))) for r in range(int(size(rest)))])
    return np.asarray(out, np.int32)


def ragged_tiles(shape, tile=TILE) -> dict:
    """The grid (``ceil_div`` per mode), the extent of the last tile, and which blocks are partial.

    >>> ragged_tiles((256, 200))["partial"][:2]
    [(0, 1), (1, 1)]
    """
    m, n = _shape(shape)
    tm, tn = _shape(tuple(tile))
    g = (-(-m // tm), -(-n // tn))
    last = (m - (g[0] - 1) * tm, n - (g[1] - 1) * tn)
    partial = [(i, j) for j in range(g[1]) for i in range(g[0])
               if (i == g[0] - 1 and last[0] < tm) or (j == g[1] - 1 and last[1] < tn)]
    return {"grid": g, "blocks": g[0] * g[1], "last_tile": last, "partial": partial,
            "partial_blocks": len(partial), "full_blocks": g[0] * g[1] - len(partial)}


def value_mask(shape, block, kind: str = "scalar") -> np.ndarray:
    """``mask[t, v]``: True where value ``v`` of thread ``t`` of block ``block`` = ``(bm, bn)`` is
    inside the matrix (the predicate ``elem_less(coordinate, shape)``).

    >>> mask = value_mask((1000, 776), (7, 6))
    >>> int(mask.sum()), int(mask[0].sum()), int(mask[8].sum())
    (832, 4, 3)
    """
    m, n = _shape(shape)
    c = tile_coords(kind)
    bm, bn = block
    return (bm * TILE[0] + c[:, :, 0] < m) & (bn * TILE[1] + c[:, :, 1] < n)


def _offsets(shape, stride, kind, bn):
    """``(blocks, threads, values)`` element offsets of the blocks of block column ``bn``, -1
    where masked, in the kernel's block order (``blockIdx.x`` along M)."""
    m, n = shape
    c = tile_coords(kind)
    bm = np.arange(-(-m // TILE[0]))[:, None, None]
    i = bm * TILE[0] + c[None, :, :, 0]
    j = bn * TILE[1] + c[None, :, :, 1]
    ok = (i < m) & (j < n)
    return np.where(ok, i * stride[0] + j * stride[1], -1).astype(np.int64)


def _requests(offsets):
    """Warp requests ``(requests, 32)`` of element offsets: one per (block, warp, value)."""
    b, t, v = offsets.shape
    return offsets.reshape(b, t // 32, 32, v).transpose(0, 1, 3, 2).reshape(-1, 32)


def _count(req, kind):
    width = 16 if kind == "vector" else ELEMENT_BYTES
    live = req[(req >= 0).any(axis=1)]
    return sector_count(np.where(live >= 0, ELEMENT_BYTES * live, -1), width)


def predict(shape, kind: str = "scalar", stride=None) -> dict:
    """Warp requests and 32-byte sectors of the whole copy, from the layouts alone (``stride``
    defaults to column-major ``(1, M)``). A request is one (block, warp, value); requests whose
    32 lanes are all masked issue nothing and are left out.

    >>> p = predict((1024, 776), "scalar")           # 32 lanes x 2 B = 64 aligned bytes
    >>> p["sectors_per_request"], p["requests"], p["copied"]
    (2.0, 24832, 794624)
    """
    m, n = _shape(shape)
    stride = (1, m) if stride is None else _stride(stride)
    width = 16 if _kind(kind) == "vector" else ELEMENT_BYTES
    requests = sectors = asked = copied = masked = values = 0
    last = (m - 1) * stride[0] + (n - 1) * stride[1] + width // ELEMENT_BYTES
    seen = np.zeros(ELEMENT_BYTES * last // SECTOR_BYTES + 1, bool)     # sectors touched so far
    for bn in range(-(-n // TILE[1])):                   # one block column at a time: bounded memory
        offs = _offsets((m, n), stride, kind, bn)
        req = _requests(offs)
        live = req[(req >= 0).any(axis=1)]
        if live.size:
            sc = sector_count(np.where(live >= 0, ELEMENT_BYTES * live, -1), width)
            requests += sc.requests
            sectors += sc.sectors
            asked += int(sc.requested_bytes.sum())
            seen[ELEMENT_BYTES * live[live >= 0] // SECTOR_BYTES] = True
        copied += int((offs >= 0).sum())
        masked += int((offs < 0).sum())
        values += int(offs.size)
    return {"requests": requests, "sectors_per_request": sectors / requests, "sectors": sectors,
            "distinct_sectors": int(seen.sum()), "efficiency": asked / (SECTOR_BYTES * sectors),
            "copied": copied * width // ELEMENT_BYTES, "masked_values": masked, "values": values}


def _stride(stride):
    if not (isinstance(stride, tuple) and len(stride) == 2 and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 0 for v in stride)):
        raise LayoutError(f"stride must be a pair of non-negative integers (s0, s1); got {stride!r}")
    return int(stride[0]), int(stride[1])


def run(shape=None, backend=None, reps: int = 20):
    """Both copies of a ragged ``(M, N)`` matrix of halves (column-major), on the backend
    :func:`labkit.lab.backend` finds. Default shape: ``(8008, 7768)`` on a GPU, ``(200, 136)``
    under the simulator. Returns a :class:`labkit.lab.experiments.Experiment`: on a GPU the median
    time and bandwidth (bytes read + written); under the simulator the witness of the kernel's
    trace (copied once, out of bounds untouched) and the sectors it counted."""
    from numba import cuda

    from labkit.cuda.kernels.experiments import exp_predicated_copy as kp
    from labkit.lab.experiment import TWIN_NOTE, Experiment, _backend, _time_ms

    name, device = _backend(backend)
    big = name == "gpu"
    m, n = _shape((8008, 7768) if big else (200, 136)) if shape is None else _shape(shape)
    guard = 64                                   # poisoned elements after the matrix
    rng = np.random.default_rng(0)
    host = rng.integers(0, 1 << 16, m * n + guard, dtype=np.uint16)
    rows = []
    for kind in KINDS:
        pred = predict((m, n), kind)
        coords = tile_coords(kind)
        src = cuda.to_device(host)
        dst = cuda.to_device(np.full(m * n + guard, 0xDEAD, np.uint16))
        g = kp.grid((m, n))
        trace = None if big else cuda.to_device(np.full((g[0] * g[1], kp.THREADS, coords.shape[1]), -1, np.int64))
        go = kp.launch(kind, src, dst, (m, n), (1, m), cuda.to_device(coords), trace)
        go()
        out = dst.copy_to_host()
        row = {"variant": kind, "sectors/request": pred["sectors_per_request"], "requests": pred["requests"],
               "correct": bool(np.array_equal(out[:m * n], host[:m * n]))}
        if big:
            ms = _time_ms(go, reps)
            row["ms"] = ms
            row["GB/s"] = 2 * ELEMENT_BYTES * m * n / (ms * 1e-3) / 1e9
        else:
            t = trace.copy_to_host()
            width = 8 if kind == "vector" else 1
            starts = t[t >= 0]
            hits = np.bincount((starts[:, None] + np.arange(width)[None, :]).ravel(), minlength=m * n)
            row["copied once"] = bool(hits.size == m * n and (hits == 1).all())
            row["outside untouched"] = bool((out[m * n:] == 0xDEAD).all())
            row["counted sectors/request"] = _count(_requests(t), kind).mean_per_request
        rows.append(row)
    measured = ("correct", "ms", "GB/s") if big else ("correct", "copied once", "outside untouched",
                                                      "counted sectors/request")
    note = (f"{m}x{n} halves, column-major, 128x128 tiles; GB/s counts each element read once and "
            "written once" if big else f"{m}x{n} halves, column-major, 128x128 tiles. " + TWIN_NOTE +
            "; timing needs a GPU")
    return Experiment("predicated copy", name, device, rows, ("sectors/request", "requests"), measured, note,
                      {"shape": [m, n]})


def recorded(folder=None) -> dict | None:
    """The newest ``predicated_copy_*.json`` (written by the benchmark script of this experiment on
    a GPU): ``{"environment": ..., "experiment": Experiment dict}``, or None when none is committed."""
    folder = RESULTS if folder is None else Path(folder)
    files = sorted(Path(folder).glob("predicated_copy_*.json"))
    if not files:
        return None
    data = json.loads(files[-1].read_text())
    if "experiment" not in data or "environment" not in data:
        raise DeviceError(f"{files[-1].name} does not hold an 'environment' and an 'experiment'")
    return data


def recorded_table(folder=None) -> str:
    """The recorded GPU run as text (where, when, the table), or a sentence saying there is none.

    >>> import tempfile
    >>> recorded_table(tempfile.mkdtemp())
    'no GPU run of the predicated copy is recorded in this installation'
    """
    from labkit.lab.experiment import Experiment

    rec = recorded(folder)
    if rec is None:
        return "no GPU run of the predicated copy is recorded in this installation"
    env = rec["environment"]
    parts = []
    for key in ("experiment", "aligned"):
        if key in rec:
            e = rec[key]
            parts.append(str(Experiment(e["name"], e["backend"], e["device"], e["rows"], tuple(e["predicted"]),
                                        tuple(e["measured"]), e["note"], e.get("extra", {}))))
    versions = ", ".join(f"{k} {env[k]}" for k in ("python", "numba", "numba-cuda", "numpy") if k in env)
    return f"recorded {env.get('date', '?')} ({versions}):\n" + "\n\n".join(parts)
