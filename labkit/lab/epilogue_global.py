"""The epilogue's second half: the C tile out to global memory.

C goes out straight from the registers (``st.global.b32`` per f16 pair, or ``st.global.v2.f32``
for the f32 pairs) or staged in the ``Swizzle<3,3,4>`` shared tile of
:mod:`labkit.lab.epilogue_smem`, read back with ``ld.shared.v4`` and copied out with 16-byte
``st.global.v4``: :func:`predict_global` counts the 32-byte sectors of each warp request,
:func:`readout_conflicts` the banks of the read-back, :func:`run_global` runs the three kernels.

>>> g = predict_global()
>>> g["direct"]["efficiency"], g["staged"]["efficiency"]
(0.5, 1.0)
"""

from __future__ import annotations

import numpy as np

from labkit.banks import bank_conflicts_batch
from labkit.lab.epilogue_smem import _backend, accumulator_pairs, layouts
from labkit.sectors import sector_count

__all__ = ["readout_conflicts", "predict_global", "global_prediction_table", "run_global"]


def readout_conflicts():
    """Bank conflicts of warp 0's 16 ``ld.shared.v4`` reading the ``Swizzle<3,3,4>`` tile back row
    by row (thread ``t``: chunk ``t % 16`` of row ``8p + t // 16`` in pass ``p``).

    >>> r = readout_conflicts()
    >>> r.accesses, r.wavefronts, r.degree
    (16, 64, 1)
    """
    lay = layouts()["rows 256 B + Sw<3,3,4>"]
    t = np.arange(32)
    req = [[2 * lay(int(8 * p + x // 16), int(8 * (x % 16))) for x in t] for p in range(16)]
    return bank_conflicts_batch(np.asarray(req), 16)


def _global_addresses(kind, n_cols):
    """Byte addresses of warp 0's global store requests for block (0, 0) of a C with ``n_cols``."""
    t = np.arange(32)
    if kind in ("direct", "direct f32"):
        eb = 2 if kind == "direct" else 4
        pairs = accumulator_pairs()
        req = [eb * ((16 * mi + pairs[:, h, 0]) * n_cols + 8 * ni + pairs[:, h, 1])
               for mi in range(4) for ni in range(8) for h in range(2)]
        return np.asarray(req), 2 * eb
    req = [2 * ((8 * p + t // 16) * n_cols + 8 * (t % 16)) for p in range(16)]
    return np.asarray(req), 16               # warp 0: rows 8p and 8p + 1 of every pass p


def predict_global(n_cols: int = 8192) -> dict:
    """Global store requests of a warp (one 64x64 warp tile) and the 32-byte sectors each touches:
    ``"direct"`` (one ``st.global.b32`` per f16 pair: 8 rows x 16 bytes), ``"direct f32"`` (the
    f32 pairs, ``st.global.v2.f32``: 8 rows x 32 bytes) and ``"staged"`` (``st.global.v4``, 16 lanes
    to a 256-byte row of halves).

    >>> g = predict_global()
    >>> g["direct"]["sectors/request"], g["direct"]["efficiency"], g["staged"]["sectors/request"]
    (8.0, 0.5, 16.0)
    """
    out = {}
    for kind in ("direct", "direct f32", "staged"):
        req, width = _global_addresses(kind, n_cols)
        sc = sector_count(req, width)
        out[kind] = {"requests/warp": int(req.shape[0]),
                     "bytes/request": 32 * width, "sectors/request": sc.mean_per_request,
                     "efficiency": float(sc.requested_bytes.sum()) / (32 * sc.sectors)}
    return out


def global_prediction_table(n_cols: int = 8192) -> str:
    """:func:`predict_global` as text."""
    lines = [f"{'store':<12}{'requests/warp':>14}{'bytes/request':>14}{'sectors/request':>16}{'bytes used':>11}"]
    for kind, p in predict_global(n_cols).items():
        lines.append(f"{kind:<12}{p['requests/warp']:>14}{p['bytes/request']:>14}{p['sectors/request']:>16g}"
                     f"{p['efficiency']:>11.0%}")
    return "\n".join(lines)


def run_global(shape=None, backend=None, reps: int = 20):
    """Write a whole C of halves three ways (:data:`labkit.cuda.kernels.experiments.exp_epilogue.GLOBAL_KINDS`)
    and check every element; on a GPU also the median time and GB/s written. Default shape
    ``(8192, 8192)`` on a GPU, ``(128, 256)`` under the simulator."""
    from numba import cuda

    from labkit.cuda import SIMULATED, device_sm, simulate_sm
    from labkit.cuda.kernels.experiments import exp_epilogue as ke
    from labkit.lab.experiment import Experiment, _time_ms

    name, device = _backend(backend)
    gpu = name == "gpu"
    m, n = ((8192, 8192) if gpu else (128, 256)) if shape is None else shape
    pred = predict_global(n)
    i, j = np.meshgrid(np.arange(m), np.arange(n), indexing="ij")
    want = ke.value(i, j).astype(np.uint16)
    rows = []
    for kind in ke.GLOBAL_KINDS:
        p = pred["direct" if kind == "direct" else "staged"]
        row = {"variant": kind, "sectors/request": p["sectors/request"], "efficiency": p["efficiency"]}
        if kind == "staged_stmatrix" and device_sm() < 90 and not SIMULATED:
            row["ran"] = f"no: stmatrix needs sm_90, this GPU is sm_{device_sm()}"
            rows.append(row)
            continue
        c16 = cuda.to_device(np.zeros(m * n, np.uint16))
        c32 = c16.view(np.uint32)
        if SIMULATED and kind == "staged_stmatrix":
            with simulate_sm(max(90, device_sm())):
                go = ke.launch_global(kind, c32, c16, (m, n))
                go()
        else:
            go = ke.launch_global(kind, c32, c16, (m, n))
            go()
        row["correct"] = bool(np.array_equal(c16.copy_to_host().reshape(m, n), want))
        if gpu:
            ms = _time_ms(go, reps)
            row["ms"] = ms
            row["GB/s"] = 2 * m * n / (ms * 1e-3) / 1e9
        rows.append(row)
        del c16, c32
    measured = ("correct", "ms", "GB/s") if gpu else ("correct",)
    note = (f"{m}x{n} halves, 128x128 tiles of 4 warps; GB/s counts the bytes of C written" if gpu
            else f"{m}x{n} halves, 128x128 tiles of 4 warps, in the CUDA simulator; timing needs a GPU")
    return Experiment("epilogue: C to global memory", name, device, rows, ("sectors/request", "efficiency"),
                      measured, note, {"shape": [m, n]})
