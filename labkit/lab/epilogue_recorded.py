"""The epilogue's committed GPU run: where it ran, both experiments, the kernels' registers.

The newest ``epilogue_*.json`` under ``benchmarks/results`` holds the run of
:func:`labkit.lab.epilogue_smem.run_smem` and :func:`labkit.lab.epilogue_global.run_global`
on a GPU; a book page prints it instead of measuring.

>>> import tempfile
>>> empty = tempfile.mkdtemp()
>>> recorded(empty) is None, kernel_registers(empty)
(True, {})
"""

from __future__ import annotations

import json
from pathlib import Path

from labkit.errors import DeviceError
from labkit.lab.measurements import RESULTS

__all__ = ["recorded", "recorded_header", "recorded_table", "recorded_experiment", "kernel_registers",
           "kernel_registers_text", "RESULTS"]


def recorded(folder=None) -> dict | None:
    """The newest ``epilogue_*.json`` under ``benchmarks/results`` (``{"environment", "smem",
    "global"}``), or None when none is committed."""
    folder = RESULTS if folder is None else Path(folder)
    files = sorted(Path(folder).glob("epilogue_*.json"))
    if not files:
        return None
    data = json.loads(files[-1].read_text())
    for key in ("environment", "smem", "global"):
        if key not in data:
            raise DeviceError(f"{files[-1].name} does not hold {key!r}")
    return data


def recorded_header(folder=None) -> str:
    """Where and when the committed run was measured: GPU, clocks, driver, versions."""
    rec = recorded(folder)
    if rec is None:
        return "no GPU run of the epilogue is recorded in this installation"
    env = rec["environment"]
    smi = [x.strip() for x in env.get("nvidia-smi", "").split(",")]
    clocks = f"SM clock {smi[2]} (max {smi[3]}), driver {smi[1]}" if len(smi) == 4 else "clocks not recorded"
    versions = ", ".join(f"{k} {env[k]}" for k in ("python", "numba", "numba-cuda", "numpy") if k in env)
    return f"{env.get('device', '?')}, {env.get('date', '?')}; {clocks}; {versions}"


def recorded_table(folder=None) -> str:
    """The committed run as text: where, then both experiments.

    >>> import tempfile
    >>> recorded_table(tempfile.mkdtemp())
    'no GPU run of the epilogue is recorded in this installation'
    """
    if recorded(folder) is None:
        return recorded_header(folder)
    return "\n\n".join([recorded_header(folder)] + [str(recorded_experiment(w, folder)) for w in ("smem", "global")])


def recorded_experiment(which: str = "smem", folder=None):
    """One recorded experiment (``"smem"`` or ``"global"``) as an
    :class:`~labkit.lab.experiments.Experiment`, or None when no run is committed."""
    from labkit.lab.experiment import Experiment

    if which not in ("smem", "global"):
        raise DeviceError(f"which must be 'smem' or 'global'; got {which!r}")
    rec = recorded(folder)
    if rec is None:
        return None
    e = rec[which]
    return Experiment(e["name"], e["backend"], e["device"], e["rows"], tuple(e["predicted"]), tuple(e["measured"]),
                      e["note"], e.get("extra", {}))


def kernel_registers(folder=None) -> dict:
    """``{kernel: (registers, local bytes)}`` per thread of the recorded run's kernels ({} if none)."""
    rec = recorded(folder)
    if rec is None:
        return {}
    return {k["kernel"]: (k["registers"][0], k["local_bytes"][0]) for k in rec.get("kernels", []) if "registers" in k}


def kernel_registers_text(folder=None) -> str:
    """:func:`kernel_registers` as one line per kernel."""
    regs = kernel_registers(folder)
    if not regs:
        return "no compiled kernels are recorded in this installation"
    def label(name):
        parts = name.split()
        if parts[0] == "smem":
            return f"{parts[-1]} x {' '.join(parts[1:-1])} to shared"
        return f"C to global, {' '.join(parts[1:])}"

    return "\n".join(f"{label(name):<30}{r:>4} registers, {b} bytes of local memory per thread"
                     for name, (r, b) in regs.items())
