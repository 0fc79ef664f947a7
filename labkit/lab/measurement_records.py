"""The recorded runs, read: every run the book cites, and each of its measured figures by path.

:mod:`labkit.lab.measurements` is the module pages import; it gives these readers and the views of
:mod:`labkit.lab.measurement_report` under one name.

Every page reads its measured figures through this module: :data:`GEMM_RUN` is the latest GEMM
ladder run (the one constant every page reads), :data:`RUNS` names every run any page cites, and
:func:`figure` reads one figure of a run by its path (``"ladder.4096 f32 tma.tflops"``). The
book's ``{measured}`` role and the Measurements page (:func:`report`, written by
:mod:`labkit.lab.measurement_report`) print figures with the same markup, so a test can check that each figure a page cites is on the Measurements page with
the same value.

``benchmarks/results/`` holds, per run, a CSV of timings (one row per kernel, accumulator and
size, as ``python -m labkit bench gemm --csv`` writes it) and a JSON file with what the CSV
cannot carry: the machine and versions, each kernel's registers, spills, shared memory,
occupancy and SASS instruction mix, the earlier runs and the profile the book discusses, and the
CUTLASS reference run. :func:`gemm_ladder` reads both into one :class:`GemmLadderRun`.

>>> run = gemm_ladder()
>>> run.gpu, run.sm
('NVIDIA H200', 'sm_90')
>>> round(run.tflops(4096, "f32", "tma"), 1)
504.5
>>> run.kernel("mma", "f32").registers
78
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

from labkit.errors import LabkitError

__all__ = ["MeasurementError", "CUBLAS", "RESULTS", "GEMM_RUN", "STEP5_RUN", "EXPERIMENTS_RUN", "PREDICATED_COPY_RUN", "EPILOGUE_RUN",
           "HOPPER_GEMM_RUN", "HOPPER_FP8_RUN", "HOPPER_PINGPONG_RUN", "STREAMK_PROFILE_RUN", "HOPPER_PROFILE_RUN", "HOPPER_LEVERS_RUN", "HOPPER_SASS_RUN", "WGMMA_PEAK_RUN", "WGMMA_BASE_OFFSET_RUN", "WGMMA_FIXED_COST_RUN", "WGMMA_STEP_RUN",
           "RUNS", "KernelResources",
           "GemmLadderRun", "gemm_ladder", "gemm_ladder_record", "Figure", "record", "figure", "figures",
           "run_info", "run_name"]

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
GEMM_RUN = "gemm_h200_2026-12-01"
"""The latest run of the GEMM ladder: every page that shows the ladder reads this one."""
STEP5_RUN = "gemm_h200_2026-11-30"
"""The run that compared step 5's variants (tile shape, cache operator, block order), profiled the
L1-bypassing kernel and timed CUTLASS's ``sgemm_sm80`` on its own."""
EXPERIMENTS_RUN = "experiments_h200_2026-12-01"
"""The chapters' GPU experiments (:mod:`labkit.lab.experiments`): copies, transposes, bank timing."""
PREDICATED_COPY_RUN = "predicated_copy_h200_2026-12-01"
"""Chapter 2b's predicated copy (:mod:`labkit.lab.predicated_copy`) on a ragged and an aligned matrix."""
EPILOGUE_RUN = "epilogue_h200_2026-12-02"
"""Chapter 6f's epilogue kernels: accumulators through shared memory to global memory, timed."""
HOPPER_GEMM_RUN = "hopper_gemm_h200_2026-12-02"
"""Step 6 (TMA + mma.sync) and step 7 (wgmma) beside cuBLAS and CuTe's three tutorial GEMMs
(``sgemm_sm80``, ``wgmma_sm90``, ``wgmma_tma_sm90``), one process: every Hopper ratio's run."""
WGMMA_PEAK_RUN = "wgmma_peak_h200_2026-12-02"
"""Chains of ``wgmma.mma_async`` m64n256k16 from shared memory: the H200's wgmma issue ceiling."""
WGMMA_BASE_OFFSET_RUN = "wgmma_base_offset_h200_2026-12-02"
"""What ``wgmma`` reads from a swizzled A that starts off the 1024-byte boundary, per base offset."""
WGMMA_FIXED_COST_RUN = "wgmma_fixed_cost_h200_2026-12-02"
"""Step 7 and cuBLAS at M = N = 4096 over K: what of their time does not grow with K."""
WGMMA_STEP_RUN = "wgmma_step_h200_2026-12-02"
"""Step 7's variants (stages, ``setmaxnreg``) beside step 6 and cuBLAS, one process."""
HOPPER_FP8_RUN = "hopper_fp8_h100_2026-12-05"
"""Step 7 on fp8 operands and with f16 C, without raster groups and with ``setmaxnreg``, beside cuBLAS
and cuBLAS's fp8 GEMM (``torch._scaled_mm``), six problem shapes, interleaved rounds (H100)."""
HOPPER_PINGPONG_RUN = "hopper_pingpong_h100_2026-12-05"
"""Step 7's ping-pong consumers beside its cooperative ones, f16 and fp8, six shapes, interleaved rounds (H100)."""
HOPPER_ABLATION_RUN = "hopper_ablation_h100_2026-12-06b"
"""Step 7's ablation: each technique as a pair of configurations differing in it alone, one run (H100)."""
HOPPER_STREAMK_BATCHED_RUN = "hopper_ablation_h100_2026-12-06"
"""The ablation run before the current one (H100), with Nsight Compute on the one-wave stream-K kernel
whose partial sums load a batch at a time."""
HOPPER_TOP_RUN = "hopper_top_h100_2026-12-05b"
"""Step 7's top configurations (f16 and fp8 with TMA-store epilogues, four stages, stream-K, per-block scales)
at seven shapes beside cuBLAS, CuTe's tutorials and CUTLASS's warp-specialized cooperative GEMM, one run (H100)."""
STREAMK_PROFILE_RUN = "hopper_streamk_ncu_h100_2026-12-05"
"""Nsight Compute on step 7 at 4096³ without and with stream-K: time, DRAM bytes, L2 hit rate (H100)."""
HOPPER_PROFILE_RUN = "hopper_profile_ncu_h100_2026-12-05"
"""Nsight Compute on step 7, cuBLAS and CUTLASS's cooperative kernel at 4096³ (f16): cycles, clock, DRAM (H100)."""
HOPPER_LEVERS_RUN = "hopper_levers_h100_2026-12-06"
"""Step 7 in raster groups of 16, in clusters of 2, and with stream-K over the last wave (with Nsight
Compute on that stream-K kernel), beside cuBLAS at 4096³ and 8192³, interleaved rounds (H100)."""
HOPPER_SASS_RUN = "hopper_sass_h100_2026-12-06"
"""Nsight Compute's SASS source pages of step 7 and cuBLAS at 4096³: instructions and warp-stall
samples of the k-tile loop and of the epilogue (H100)."""
RUNS = {"gemm": GEMM_RUN, "gemm-step5": STEP5_RUN, "experiments": EXPERIMENTS_RUN,
        "predicated-copy": PREDICATED_COPY_RUN, "epilogue": EPILOGUE_RUN, "wgmma-peak": WGMMA_PEAK_RUN,
        "gemm-hopper": HOPPER_GEMM_RUN, "wgmma-base-offset": WGMMA_BASE_OFFSET_RUN,
        "wgmma-fixed-cost": WGMMA_FIXED_COST_RUN, "wgmma-step": WGMMA_STEP_RUN,
        "gemm-hopper-fp8": HOPPER_FP8_RUN, "gemm-hopper-pingpong": HOPPER_PINGPONG_RUN,
        "gemm-hopper-ablation": HOPPER_ABLATION_RUN, "gemm-hopper-top": HOPPER_TOP_RUN,
        "gemm-streamk-profile": STREAMK_PROFILE_RUN, "gemm-hopper-profile": HOPPER_PROFILE_RUN,
        "gemm-hopper-levers": HOPPER_LEVERS_RUN, "gemm-hopper-sass": HOPPER_SASS_RUN,
        "gemm-streamk-batched": HOPPER_STREAMK_BATCHED_RUN}
"""Every run a page cites, by the short name pages use: the Measurements page lists each."""
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


# -- every run a page cites, figure by figure ----------------------------------------------------

_INFO = ("date", "gpu", "device", "sm", "sms", "nvidia-smi", "driver", "cuda_driver_api", "max_sm_clock_mhz",
         "power_limit_w", "python", "numpy", "numba", "numba_cuda", "numba-cuda", "torch", "nvcc", "nvidia_cutlass",
         "labkit", "timing")
_SKIP = {"run", "environment", "description", "csv", "file", "what", "note", "predicted", "measured"}
# fields that name a row of a list, tried in order until the names are unique
_LABELS = (("variant",), ("size", "acc", "step"), ("step", "acc"),
           ("step", "config", "acc"),
           ("run", "config", "cache", "acc"), ("run", "config", "acc"), ("kernel",), ("size", "acc", "step", "config"))


def run_name(run: str) -> str:
    """The file name of ``run``: a short name of :data:`RUNS` or a run's own name."""
    if run in RUNS:
        return RUNS[run]
    if run in RUNS.values():
        return run
    raise MeasurementError(f"run: {run!r} is not a run the book cites (have {sorted(RUNS)} or {sorted(RUNS.values())})")


def _ladder_rows(name: str, results: Path) -> list[dict]:
    path = results / f"{name}.csv"
    if not path.is_file():
        return []
    keep = ("size", "acc", "step", "config", "ms", "tflops", "spread", "vs_cublas", "vs_cute", "reps", "runs",
            "rel_err", "host_us")
    rows = []
    for r in _read_csv_any(path):
        rows.append({k: r[k] for k in keep if k in r and r[k] not in (None, "")})
    return rows


def _read_csv_any(path: Path) -> list[dict]:
    out = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            row = {}
            for k, v in r.items():
                if k == "step":
                    row["step"], row["config"] = v.split("[")[0], v.partition("[")[2].rstrip("]")
                    continue
                try:
                    row[k] = int(v)
                except ValueError:
                    try:
                        row[k] = float(v)
                    except ValueError:
                        row[k] = v
            out.append(row)
    return out


def record(run: str, results: Path | str = RESULTS) -> dict:
    """Everything a run recorded: its JSON file, and for a ladder run its CSV as ``"ladder"``.

    >>> record("experiments")["environment"]["device"]
    'NVIDIA H200 (sm_90)'
    """
    name, results = run_name(run), Path(results)
    path = results / f"{name}.json"
    if not path.is_file():
        raise MeasurementError(f"run: no result file {path} (the results live in the repository's benchmarks/results)")
    data = json.loads(path.read_text())
    ladder = _ladder_rows(name, results)
    if ladder:
        data = {**data, "ladder": ladder}
    return data


def _labels(items: list) -> list[str]:
    if items and all(isinstance(i, dict) for i in items):
        for fields in _LABELS:
            if all(all(f in i or f == "config" for f in fields) for i in items):     # cuBLAS has no config
                names = [" ".join(str(i[f]) for f in fields if i.get(f) not in (None, "")) for i in items]
                if len(set(names)) == len(names):
                    return names
    return [str(k) for k in range(len(items))]


def _child(node, part: str):
    if isinstance(node, dict):
        return node[part]
    if isinstance(node, list):
        return node[_labels(node).index(part)]
    raise KeyError(part)


def _is_number(v) -> bool:
    """A measured number: an int or a float, not a bool and not NaN (a figure nobody measured)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v


@dataclass(frozen=True)
class Figure:
    """One measured number of a run, with the path that finds it again (parts joined by ``.``)."""

    run: str
    path: str
    value: float

    def text(self, fmt: str | None = None) -> str:
        if fmt:
            return format(self.value, fmt)
        return str(self.value) if isinstance(self.value, int) else f"{self.value:.4g}"

    def html(self, fmt: str | None = None) -> str:
        """``<span class="lk-measured" data-run=... data-figure=... data-value=...>text</span>``."""
        from html import escape
        return (f'<span class="lk-measured" data-run="{escape(self.run)}" data-figure="{escape(self.path)}" '
                f'data-value="{self.value!r}">{escape(self.text(fmt))}</span>')

    def __str__(self) -> str:
        return self.text()


def figure(run: str, path: str, results: Path | str = RESULTS) -> Figure:
    """The figure at ``path`` of ``run``: dict keys and row names (a row's ``variant``, or its
    ``size acc step``, ``step acc``, ...) joined by ``.``.

    >>> figure("gemm", "ladder.4096 f32 tma.tflops").text(".1f")
    '504.5'
    >>> figure("experiments", "copy.rows.row-major.GB/s").text(".0f")
    '2874'
    """
    name = run_name(run)
    node = record(name, results)
    try:
        for part in path.split("."):
            node = _child(node, part)
    except (KeyError, ValueError, IndexError):
        raise MeasurementError(f"path: {path!r} is not a figure of {name} (see figures({run!r}))") from None
    if not _is_number(node):
        raise MeasurementError(f"path: {path!r} of {name} is {node!r}, not a measured number")
    return Figure(name, path, node)


def _flatten(node, prefix: str):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _flatten(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(node, list):
        for label, v in zip(_labels(node), node):
            yield from _flatten(v, f"{prefix}.{label}")
    elif _is_number(node):
        yield prefix, node


def figures(run: str, results: Path | str = RESULTS) -> dict[str, float]:
    """Every measured number of ``run`` by its path (what :func:`figure` accepts)."""
    rec = record(run, results)
    return {p: v for k, v in rec.items() if k not in _SKIP for p, v in _flatten(v, k)}


def run_info(run: str, results: Path | str = RESULTS) -> dict:
    """Where and with what ``run`` was measured: date, GPU, clocks, driver and versions."""
    rec = record(run, results)
    env = rec.get("run") or rec.get("environment") or rec
    return {k: env[k] for k in _INFO if k in env}
