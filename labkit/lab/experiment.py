"""One experiment of the labs: the :class:`Experiment` record and what every experiment shares.

An :class:`Experiment` holds a prediction and what the kernel did, one row per variant, and
prints them side by side; ``_backend`` picks where the kernels run (a CUDA GPU or numba's CUDA
simulator), ``_time_ms`` times a launch with CUDA events, and :func:`recorded` /
:func:`recorded_table` read back the runs committed in ``benchmarks/results``. The experiments
themselves are :mod:`labkit.lab.experiments`, :mod:`labkit.lab.predicated_copy` and
:mod:`labkit.lab.epilogue`.

>>> from labkit.lab.experiment import Experiment
>>> e = Experiment("copy", "gpu", "H200", [{"variant": "row-major", "sectors": 4, "us": 12.5}],
...                ("sectors",), ("us",))
>>> print(e)
copy: measured on H200 (backend gpu)
variant    sectors    us
------------------------
row-major        4  12.5
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from labkit.lab.measurements import RESULTS
from labkit.errors import DeviceError

__all__ = ["Experiment", "recorded", "recorded_table", "TWIN_NOTE"]

TWIN_NOTE = ("CUDA simulator: the kernels ran on the CPU; no time is measured there, so the counts the "
             "prediction is about are taken from the addresses the kernels actually used")


@dataclass
class Experiment:
    """A prediction and what the kernel did, variant by variant.

    ``rows``: one dict per variant; ``predicted``/``measured``: the keys that hold the
    prediction and the measurement (``measured`` differs between a GPU and the simulator).
    """

    name: str
    backend: str
    device: str
    rows: list
    predicted: tuple
    measured: tuple
    note: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def on_gpu(self) -> bool:
        return self.backend == "gpu"

    def row(self, variant: str) -> dict:
        for r in self.rows:
            if r["variant"] == variant:
                return r
        raise DeviceError(f"variant must be one of {[r['variant'] for r in self.rows]}; got {variant!r}")

    def table(self) -> str:
        cols = ("variant",) + tuple(self.predicted) + tuple(self.measured)
        cells = [[_fmt(r.get(c, "")) for c in cols] for r in self.rows]
        width = [max(len(c), *(len(x[i]) for x in cells)) for i, c in enumerate(cols)]
        lines = ["  ".join(f"{x:<{w}}" if i == 0 else f"{x:>{w}}" for i, (x, w) in enumerate(zip(xs, width)))
                 for xs in [list(cols)] + cells]
        return "\n".join([lines[0], "-" * len(lines[0])] + lines[1:])

    def __str__(self) -> str:
        where = "measured on" if self.on_gpu else "ran on"
        text = [f"{self.name}: {where} {self.device} (backend {self.backend})"]
        if self.note:
            text.append(self.note)
        text.append(self.table())
        return "\n".join(text)

    def to_dict(self) -> dict:
        return {"name": self.name, "backend": self.backend, "device": self.device, "rows": self.rows,
                "predicted": list(self.predicted), "measured": list(self.measured), "note": self.note,
                "extra": self.extra}


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"
    return str(v)


def _backend(backend):
    from labkit.lab.fragments import _resolve_backend

    name = _resolve_backend(backend)
    if name == "sim":
        raise DeviceError(
            "the experiments run real kernels: they need a CUDA GPU, or numba's CUDA simulator "
            "(set NUMBA_ENABLE_CUDASIM=1 before numba is first imported, then restart the kernel)")
    from labkit.cuda import device_name

    return name, device_name()


def _time_ms(run, reps=20, warmup=3):
    """Median milliseconds of ``reps`` launches between CUDA events (GPU only)."""
    from numba import cuda

    for _ in range(warmup):
        run()
    cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = cuda.event(), cuda.event()
        a.record()
        run()
        b.record()
        b.synchronize()
        times.append(cuda.event_elapsed_time(a, b))
    return float(np.median(times))


def recorded(folder=None) -> dict | None:
    """The newest ``experiments_*.json`` under ``benchmarks/results`` (a clone of the repository
    has it; a pip-installed labkit does not): ``{"environment": ..., "copy": Experiment dict,
    ...}``, or None."""
    folder = RESULTS if folder is None else Path(folder)
    files = sorted(folder.glob("experiments_*.json"))
    if not files:
        return None
    return json.loads(files[-1].read_text())


def recorded_table(name: str, folder=None) -> str:
    """One recorded experiment as text (``"copy"``, ``"broadcast"``, ``"transpose"``,
    ``"fragment"``, ``"banks"``), with where and when it was measured."""
    rec = recorded(folder)
    if rec is None or name not in rec:
        return ("no recorded figures in this installation (a clone of the repository has them in "
                "benchmarks/results)")
    e = rec[name]
    env = rec["environment"]
    exp = Experiment(e["name"], e["backend"], e["device"], e["rows"], tuple(e["predicted"]), tuple(e["measured"]),
                     e["note"], e.get("extra", {}))
    versions = ", ".join(f"{k} {env[k]}" for k in ("python", "numba", "numba-cuda", "numpy") if k in env)
    return f"recorded {env['date']} ({versions}; driver {env.get('nvidia-smi', '?')}):\n{exp}"
