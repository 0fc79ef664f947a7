"""The measured figures the book cites, read from the committed result files.

``benchmarks/results/`` holds, per run, a CSV of timings (one row per kernel, accumulator and
size, as ``python -m labkit bench gemm --csv`` writes it) and a JSON file with what the CSV
cannot carry: the machine and versions, each kernel's registers, spills, shared memory,
occupancy and SASS instruction mix, the earlier runs and the profile the book discusses, and the
CUTLASS reference run. :func:`gemm_ladder` reads both into one :class:`GemmLadderRun`.

>>> run = gemm_ladder()
>>> run.gpu, run.sm
('NVIDIA H200', 'sm_90')
>>> round(run.tflops(4096, "f32", "pipeline"), 1)
395.0
>>> run.kernel("mma", "f32").registers
78
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

from labkit.errors import LabkitError

__all__ = ["RESULTS", "GEMM_RUN", "KernelResources", "GemmLadderRun", "gemm_ladder", "gemm_ladder_record"]

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
GEMM_RUN = "gemm_h200_2026-11-30"
CUBLAS = "cuBLAS (torch)"


class MeasurementError(LabkitError):
    """A result file is missing or does not hold what the reader expects."""


@dataclass(frozen=True)
class KernelResources:
    """What the compiler and the occupancy query reported for one kernel."""

    step: str
    acc: str
    config: str | None
    registers: int
    local_bytes: int
    dynamic_smem_bytes: int
    threads: int
    ctas_per_sm: int
    sass: dict
    sass_total: int


@dataclass(frozen=True)
class GemmLadderRun:
    """One run of the GEMM ladder: timings per ``(size, acc, step)`` and the run's metadata."""

    name: str
    run: dict
    rows: list = field(repr=False)
    kernels: dict = field(repr=False)
    earlier_runs: list = field(repr=False)
    profile: dict = field(repr=False)
    reference: dict = field(repr=False)

    @property
    def gpu(self) -> str:
        return self.run["gpu"]

    @property
    def sm(self) -> str:
        return self.run["sm"]

    @property
    def date(self) -> str:
        return self.run["date"]

    @property
    def steps(self) -> list[str]:
        """The ladder's steps in the order of the CSV (cuBLAS left out)."""
        seen: list[str] = []
        for r in self.rows:
            if r["step"] != CUBLAS and r["step"] not in seen:
                seen.append(r["step"])
        return seen

    @property
    def sizes(self) -> list[int]:
        return sorted({r["size"] for r in self.rows})

    @property
    def all_correct(self) -> bool:
        """Every kernel's result was within its float64 tolerance."""
        return all(r["ok"] for r in self.rows if r["step"] != CUBLAS)

    def _row(self, size: int, acc: str, step: str) -> dict:
        if step == "cuBLAS":
            step, acc = CUBLAS, "f32"
        for r in self.rows:
            if (r["size"], r["acc"], r["step"]) == (size, acc, step):
                return r
        raise MeasurementError(f"no measurement for size={size!r}, acc={acc!r}, step={step!r} in {self.name}.csv")

    def tflops(self, size: int, acc: str, step: str) -> float:
        """Median TFLOP/s of ``step`` (``"cuBLAS"`` for the reference) at ``size``³."""
        return self._row(size, acc, step)["tflops"]

    def vs_cublas(self, size: int, acc: str, step: str) -> float:
        """TFLOP/s divided by cuBLAS's of the same size in the same run."""
        return self.tflops(size, acc, step) / self.tflops(size, "f32", "cuBLAS")

    def kernel(self, step: str, acc: str) -> KernelResources:
        try:
            return self.kernels[step, acc]
        except KeyError:
            raise MeasurementError(f"no kernel report for step={step!r}, acc={acc!r} in {self.name}.json "
                                   f"(have {sorted(self.kernels)})") from None


def _read_csv(path: Path) -> list[dict]:
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rows.append({"size": int(r["size"]), "acc": r["acc"], "step": r["step"].split("[")[0],
                         "config": r["step"].partition("[")[2].rstrip("]") or None,
                         "ms": float(r["ms"]), "tflops": float(r["tflops"]), "reps": int(r["reps"]),
                         "rel_err": float(r["rel_err"]), "ok": r["ok"] == "True", "note": r["note"]})
    return rows


def gemm_ladder(name: str = GEMM_RUN, results: Path | str = RESULTS) -> GemmLadderRun:
    """Read ``<results>/<name>.csv`` and ``<name>.json`` (the committed H200 run by default)."""
    results = Path(results)
    paths = results / f"{name}.csv", results / f"{name}.json"
    for p in paths:
        if not p.is_file():
            raise MeasurementError(f"name: no result file {p} (the results live in the repository's "
                                   "benchmarks/results)")
    meta = json.loads(paths[1].read_text())
    try:
        kernels = {(k["step"], k["acc"]): KernelResources(**k) for k in meta["kernels"]}
        return GemmLadderRun(name, meta["run"], _read_csv(paths[0]), kernels, meta.get("earlier_runs", []),
                             meta.get("profile", {}), meta.get("reference", {}))
    except (KeyError, TypeError, ValueError) as e:
        raise MeasurementError(f"name: {name} does not have the fields of a GEMM ladder run ({e})") from None


def gemm_ladder_record(name: str = GEMM_RUN, results: Path | str = RESULTS) -> dict:
    """The whole JSON record of a ladder run: what :class:`GemmLadderRun` does not model, such as
    the SASS counted per k-tile (``per_ktile``), Nsight Compute profiles (``profiles``) and the
    ``mma.sync`` issue rates (``mma_rate``) of the runs that measured them.

    >>> record = gemm_ladder_record("gemm_h200_2026-12-01")
    >>> [round(p["tensor_pipe_pct_elapsed"], 1) for p in record["profiles"]]
    [62.6, 80.8]
    >>> round(record["mma_rate"]["tflops"]["32"]["8"])
    615
    """
    path = Path(results) / f"{name}.json"
    if not path.is_file():
        raise MeasurementError(f"name: no result file {path} (the results live in the repository's "
                               "benchmarks/results)")
    try:
        record = json.loads(path.read_text())
    except ValueError as e:
        raise MeasurementError(f"name: {path} is not valid JSON ({e})") from None
    if not isinstance(record, dict) or "run" not in record:
        raise MeasurementError(f"name: {name} is not the record of a GEMM ladder run (no 'run' field)")
    return record
