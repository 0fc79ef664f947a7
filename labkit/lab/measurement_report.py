"""The recorded runs as a person reads them: the Measurements page's tables, the ladder table of a
GEMM run, and the few views the chapters print (a run's compiler notes, the ``setmaxnreg`` pair).

Every number is a :meth:`~labkit.lab.measurements.Figure.html` span that names its run and its
path in the record, so a test can match each figure a chapter cites with this page; what the
reader sees is a label (``TFLOP/s``, ``registers``, ``per k-tile: HMMA``), never the record's key.
A figure nobody measured (``None``, NaN) is an empty cell, and a run's date, GPU and versions are
said once, at its head.

>>> print(str(report("predicated-copy")).splitlines()[0])
run predicated_copy_h200_2026-12-01
"""

from __future__ import annotations

from dataclasses import replace
from html import escape
from pathlib import Path

from labkit.lab.measurement_records import (CUBLAS, RESULTS, Figure, MeasurementError, _child, _is_number, _labels,
                                     _INFO, _SKIP, record, run_info, run_name)

__all__ = ["Report", "table", "report", "ladder", "build_notes", "setmaxnreg_table", "label"]

_WORDS = {
    "tflops": "TFLOP/s", "ms": "ms", "median_ms": "median ms", "best_ms": "best ms", "us": "µs",
    "vs_cublas": "vs cuBLAS", "vs_cute": "vs CuTe", "rel_err": "relative error", "reps": "launches",
    "sm": "architecture", "sms": "SMs", "gpu": "GPU", "acc": "accumulator", "ok": "correct",
    "registers": "registers", "local_bytes": "local memory (bytes)", "dynamic_smem_bytes": "shared memory (bytes)",
    "smem_bytes": "shared memory (bytes)", "threads": "threads", "ctas_per_sm": "CTAs per SM",
    "ctas": "CTAs", "sass": "SASS", "sass_total": "SASS instructions", "per_ktile": "per k-tile",
    "mma_rate": "mma.sync issue rate", "profiles": "Nsight Compute profiles", "kernels": "kernels",
    "ladder": "the ladder", "earlier_runs": "earlier runs", "reference": "reference", "sweep": "tile sweep",
    "cuda_driver_api": "CUDA driver API", "max_sm_clock_mhz": "max SM clock (MHz)",
    "power_limit_w": "power limit (W)", "python": "Python", "numpy": "NumPy", "numba": "Numba",
    "numba_cuda": "numba-cuda", "numba-cuda": "numba-cuda", "torch": "PyTorch", "nvcc": "nvcc",
    "nvidia_cutlass": "CUTLASS (Python)", "nvidia-smi": "nvidia-smi", "labkit": "labkit", "date": "date",
    "device": "GPU", "driver": "driver", "timing": "timing", "compile_s": "compile s",
    "hmma_per_ktile": "HMMA per k-tile", "hgmma_per_ktile": "HGMMA per k-tile", "ldsm_per_ktile": "LDSM per k-tile",
    "ldgsts_per_ktile": "LDGSTS per k-tile", "utmaldg_per_ktile": "UTMALDG per k-tile",
    "sass_per_ktile": "SASS per k-tile", "step": "step", "config": "configuration", "size": "size",
    "fixed_us": "fixed part (µs)", "per_k64_us": "per 64 of K (µs)", "best_tflops": "best TFLOP/s",
    "d_right": "D right", "launches": "launches", "extra": "", "rows": "", "run": "run",
}
# strings a section repeats from the run's head: said once there
_REPEATS = {"backend", "device", "name"}


_TOKENS = {"pct": "%", "smem": "shared memory", "ktile": "k-tile", "sm": "SM", "sms": "SMs", "us": "µs",
           "tflops": "TFLOP/s", "gbps": "GB/s", "l1tex": "L1/tex", "l2": "L2", "dram": "DRAM", "ghz": "GHz",
           "mhz": "MHz", "cta": "CTA", "ctas": "CTAs", "w": "W", "k64": "64 of K", "acc": "accumulator",
           "gpu": "GPU", "cuda": "CUDA", "api": "API", "ncu": "Nsight Compute", "sass": "SASS"}


def label(key) -> str:
    """The words a reader sees for a record's key (``"ctas_per_sm"`` -> ``"CTAs per SM"``,
    ``"tensor_pipe_pct_elapsed"`` -> ``"tensor pipe % elapsed"``).

    >>> label("ctas_per_sm"), label("tensor_pipe_pct_elapsed"), label("l2_throughput_pct")
    ('CTAs per SM', 'tensor pipe % elapsed', 'L2 throughput (%)')
    """
    key = str(key)
    if key in _WORDS:
        return _WORDS[key]
    for suffix, words in (("_pct", " (%)"), ("_us", " (µs)"), ("_ms", " (ms)"), ("_tflops", " (TFLOP/s)"),
                          ("_mhz", " (MHz)"), ("_w", " (W)"), ("_bytes", " (bytes)")):
        if key.endswith(suffix):
            return label(key[: -len(suffix)]) + words
    return " ".join(_TOKENS.get(t.lower(), t) for t in key.split("_"))


def _path_label(parts) -> str:
    words = [label(p) for p in parts]
    return " · ".join(w for w in words if w) or "figures"


class Report:
    """HTML (a notebook or the book) or text (a terminal) of a run's figures; every number is a
    :meth:`Figure.html` span."""

    def __init__(self, title: str, parts: list):
        self.title, self.parts = title, parts

    def _repr_html_(self) -> str:
        return "".join(p if isinstance(p, str) else p[1] for p in self.parts)

    def __str__(self) -> str:
        return "\n".join(p[0] for p in self.parts if not isinstance(p, str))

    __repr__ = __str__


def _cell(run: str, path: str, v, fmt: str | None) -> tuple[str, str]:
    if _is_number(v):
        f = Figure(run, path, v)
        return f.text(fmt), f.html(fmt)
    if v is None or isinstance(v, float) or v == "":
        return "", ""                         # not measured: an empty cell, not "None" or "nan"
    if isinstance(v, bool):
        return ("yes", "yes") if v else ("no", "no")
    return str(v), escape(str(v))


def _grid(head: list[str], rows: list[list[tuple[str, str]]], title: str = "") -> tuple[str, str]:
    """(text, html) of a table: ``head`` labels, each row's cells as (text, html)."""
    text_rows = [head] + [[t for t, _ in r] for r in rows]
    widths = [max(len(r[i]) for r in text_rows) for i in range(len(head))]
    text = "\n".join("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
                     for r in text_rows)
    cap = f"<caption>{escape(title)}</caption>" if title else ""
    html = (f'<div class="lk-table"><table>{cap}<thead><tr>' + "".join(f"<th>{escape(h)}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join("<tr>" + "".join(f"<td>{h}</td>" for _, h in r) + "</tr>"
                                               for r in rows) + "</tbody></table></div>")
    return (f"\n{title}\n{text}" if title else text), html


def _row_fields(row: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in row.items():
        if isinstance(v, dict):
            out.update(_row_fields(v, f"{prefix}{k}."))
        elif not isinstance(v, list):
            out[f"{prefix}{k}"] = v
    return out


def _table(name, path, rows, columns, formats, title="") -> Report:
    flat = [_row_fields(r) for r in rows]
    if columns is None:
        columns = []
        for r in flat:
            columns += [c for c in r if c not in columns]
        # a column nobody measured in any row says nothing
        columns = [c for c in columns if any(_cell(name, "", r.get(c), None)[0] for r in flat)]
    cells = [[_cell(name, f"{path}.{lab}.{c}", r.get(c, ""), formats.get(c)) for c in columns]
             for lab, r in zip(_labels(rows), flat)]
    head = [" ".join(label(p) for p in c.split(".")) for c in columns]
    return Report(path, [_grid(head, cells, title)])


def table(run: str, path: str, columns: list[str] | None = None, formats: dict | None = None,
          results: Path | str = RESULTS) -> Report:
    """The rows at ``path`` of ``run`` (a list of dicts) as a table, one figure per cell.

    >>> print(table("predicated-copy", "experiment.rows", ["variant", "GB/s"], {"GB/s": ".0f"}))
    variant  GB/s
    scalar    397
    vector   1322
    """
    name, formats = run_name(run), formats or {}
    node = record(name, results)
    for part in path.split("."):
        node = _child(node, part)
    if not isinstance(node, list) or not all(isinstance(r, dict) for r in node):
        raise MeasurementError(f"path: {path!r} of {name} is not a list of rows")
    return _table(name, path, node, columns, formats)


def _is_grid(node) -> bool:
    """A dict of at least two dicts of numbers with the same keys: a table, rows by columns."""
    if not isinstance(node, dict):
        return False
    inner = [v for k, v in node.items() if k not in _SKIP]
    return len(inner) >= 2 and all(isinstance(v, dict) and v and all(_is_number(x) for x in v.values())
                                   and list(v) == list(inner[0]) for v in inner)


def _grid_table(name: str, path: str, node: dict, title: str, what: str) -> tuple[str, str]:
    keys = [k for k in node if k not in _SKIP]
    cols = list(node[keys[0]])
    rows = [[(str(k), escape(str(k)))] + [_cell(name, f"{path}.{k}.{c}", node[k][c], None) for c in cols]
            for k in keys]
    return _grid([what or "", *map(str, cols)], rows, title)


def _scalars(name: str, path: str, node, parts: tuple) -> list:
    """(label, cell) of every scalar under ``node`` that is not in a table of rows: nested dicts
    flattened into labels, a list of numbers kept as one row of comma-separated values."""
    out = []
    if isinstance(node, dict):
        for k, v in node.items():
            if k in _SKIP or (k in _REPEATS and isinstance(v, str)):
                continue
            if (isinstance(v, list) and v and all(isinstance(r, dict) for r in v)) or _is_grid(v):
                continue
            out += _scalars(name, f"{path}.{k}" if path else str(k), v, parts + (k,))
    elif isinstance(node, list):
        if node and all(isinstance(v, list) and not any(isinstance(x, (dict, list)) for x in v) for v in node):
            # a list of tuples (a lane's elements, an order of pairs): one row, each tuple in brackets
            groups = [[_cell(name, f"{path}.{i}.{j}", x, None) for j, x in enumerate(v)] for i, v in enumerate(node)]
            out.append((_path_label(parts), (", ".join("(" + ", ".join(t for t, _ in g) + ")" for g in groups),
                                             ", ".join("(" + ", ".join(h for _, h in g) + ")" for g in groups))))
        elif any(isinstance(v, (dict, list)) for v in node):
            for lab, v in zip(_labels(node), node):
                out += _scalars(name, f"{path}.{lab}", v, parts + (lab,))
        else:
            cells = [_cell(name, f"{path}.{i}", v, None) for i, v in enumerate(node)]
            out.append((_path_label(parts), (", ".join(t for t, _ in cells if t), ", ".join(h for _, h in cells if h))))
    else:
        out.append((_path_label(parts), _cell(name, path, node, None)))
    return out


def _tables(name: str, path: str, node, parts: tuple) -> list:
    """A table for every list of rows under ``node``, titled by where it sits."""
    out = []
    if _is_grid(node):
        return [_grid_table(name, path, node, _path_label(parts), "")]
    if isinstance(node, dict):
        for k, v in node.items():
            if k in _SKIP:
                continue
            if _is_grid(v) and isinstance(node.get("what"), str):
                # the record says what its rows and columns are
                out.append(_grid_table(name, f"{path}.{k}" if path else str(k), v, _path_label(parts + (k,)),
                                       node["what"]))
                continue
            out += _tables(name, f"{path}.{k}" if path else str(k), v, parts + (k,))
    elif isinstance(node, list) and node and all(isinstance(r, dict) for r in node):
        out += _table(name, path, node, None, {}, _path_label(parts)).parts
    elif isinstance(node, list) and any(isinstance(v, (dict, list)) for v in node):
        for lab, v in zip(_labels(node), node):
            out += _tables(name, f"{path}.{lab}", v, parts + (lab,))
    return out


def report(run: str, results: Path | str = RESULTS) -> Report:
    """Every figure of ``run``, readable: where and with what it was measured (once), what it
    measured, each list of rows as a table under its name, and the remaining figures in one table
    of label and value (the Measurements page shows one report per run of ``RUNS``)."""
    name = run_name(run)
    rec = record(name, results)
    info = run_info(name, results)
    top = not (rec.get("run") or rec.get("environment"))      # the run's facts are top-level keys
    head = [(label(k), _cell(name, k, v, None) if top else (str(v), escape(str(v)))) for k, v in info.items()]
    parts = [(f"run {name}\n" + "\n".join(f"{k:<20} {t}" for k, (t, _) in head),
              f'<dl class="lk-run"><dt>run</dt><dd><code>{escape(name)}</code></dd>'
              + "".join(f"<dt>{escape(k)}</dt><dd>{h}</dd>" for k, (_, h) in head) + "</dl>")]
    if rec.get("description"):
        parts.append(("", f"<p>{escape(str(rec['description']))}</p>"))
    body = {k: v for k, v in rec.items() if k not in _SKIP and not (top and k in info)}
    parts += _tables(name, "", body, ())
    rows = _scalars(name, "", body, ())
    if rows:
        parts.append(_grid(["figure", "value"], [[(lab, escape(lab)), cell] for lab, cell in rows],
                           "other figures of the run"))
    return Report(name, parts)


def _problem(size) -> tuple:
    """``(M * N * K, label)`` of a ladder row's size: ``4096`` (a cube, labelled ``4096³``) or
    ``"4096x14336x4096"``.

    >>> _problem(4096)[1], _problem("4096x14336x4096")[1]
    ('4096³', '4096×14336×4096')
    """
    if isinstance(size, str) and "x" in size:
        m, n, k = (int(x) for x in size.split("x"))
        return m * n * k, f"{m}×{n}×{k}"
    return int(size) ** 3, f"{size}³"


def ladder(run: str = "gemm", results: Path | str = RESULTS, sizes=None) -> Report:
    """The ladder of a GEMM run: one row per step and accumulator (and configuration, where the
    run timed several of one step), then cuBLAS (and CuTe's tutorials where the run timed them);
    per size TFLOP/s and the run's ratios to them (``sizes``: only these problems, in this order).

    >>> print(str(ladder()).splitlines()[6])
    tma                     f32             504.5       0.669     1.351           488.5       0.655     1.448
    """
    name = run_name(run)
    rows = record(name, results).get("ladder")
    if not rows:
        raise MeasurementError(f"run: {name} is not a GEMM ladder run (no CSV of timings)")
    every = sorted({r["size"] for r in rows}, key=_problem)
    if sizes is not None:
        missing = [n for n in sizes if n not in every]
        if missing:
            raise MeasurementError(f"sizes: {missing} not in {name}; it has {every}")
        every = list(sizes)
    sizes = every
    ratios = [c for c in ("vs_cublas", "vs_cute") if any(c in r for r in rows)]
    heads = {"tflops": "TFLOP/s", "vs_cublas": "vs cuBLAS", "vs_cute": "vs CuTe"}
    fmts = {"tflops": ".1f", "vs_cublas": ".3f", "vs_cute": ".3f"}
    seen = [(r["size"], r["step"], r["acc"]) for r in rows]
    several = {k[1:] for k in seen if seen.count(k) > 1}
    order, labels, by = [], {}, {}
    for lab, r in zip(_labels(rows), rows):
        step = f"{r['step']} [{r['config']}]" if (r["step"], r["acc"]) in several and r.get("config") else r["step"]
        key = (step, r["acc"])
        if key not in order:
            order.append(key)
        labels[r["size"], key], by[r["size"], key] = lab, r
    reference = [k for k in order if k[0] == CUBLAS or k[0].startswith("CuTe")]
    order = [k for k in order if k not in reference] + reference
    cols = [(n, c) for n in sizes for c in ("tflops", *ratios)]
    text = [["step", "acc"] + [f"{_problem(n)[1]} {heads[c]}" if c == "tflops" else heads[c] for n, c in cols]]
    html = ['<div class="lk-table"><table><thead><tr><th>step</th><th>acc</th>']
    html += [f"<th>{_problem(n)[1]} {heads[c]}</th>" if c == "tflops" else f"<th>{heads[c]}</th>" for n, c in cols]
    html.append("</tr></thead><tbody>")
    for key in order:
        cells = []
        for n, c in cols:
            r = by.get((n, key))
            cells.append(_cell(name, f"ladder.{labels[n, key]}.{c}", r[c], fmts[c]) if r and c in r else ("", ""))
        text.append([key[0], key[1]] + [t for t, _ in cells])
        html.append(f"<tr><td>{escape(key[0])}</td><td>{key[1]}</td>" + "".join(f"<td>{h}</td>" for _, h in cells)
                    + "</tr>")
    html.append("</tbody></table></div>")
    widths = [max(len(r[i]) for r in text) for i in range(len(text[0]))]
    lines = ["".join((c.ljust(w + 2) if i < 2 else c.rjust(w + 3)) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
             for r in text]
    return Report(name, [("\n".join(lines), "".join(html))])


def build_notes(run: str, kernel: str, results: Path | str = RESULTS) -> str:
    """The compiler's notes on ``kernel`` in the log of ``run`` (the log beside its record), each
    line as the run's log wrote it.

    >>> print(build_notes("gemm-hopper", "wgmma_sm90"))  # doctest: +ELLIPSIS
    anchor: wgmma_sm90 built ...; nvcc: (C7510) Potential Performance Loss: wgmma.mma_async ...
    """
    name = run_name(run)
    log = Path(results) / f"{name}.log"
    if not log.is_file():
        raise MeasurementError(f"run: {name} has no log ({log})")
    lines = [line.strip() for line in log.read_text(encoding="utf-8", errors="replace").splitlines()
             if f"{kernel} built" in line and "nvcc:" in line]
    if not lines:
        raise MeasurementError(f"kernel: the log of {name} has no compiler note on {kernel}")
    return "\n".join(dict.fromkeys(lines))


def setmaxnreg_table(run: str = "wgmma-step", results: Path | str = RESULTS) -> Report:
    """Step 7 with and without ``setmaxnreg`` in one run: registers (producer, consumer) after it,
    TFLOP/s per size and the share of cuBLAS's.

    >>> print(str(setmaxnreg_table()).splitlines()[0])  # doctest: +NORMALIZE_WHITESPACE
    configuration  setmaxnreg (producer, consumer)  4096³ TFLOP/s  vs cuBLAS  8192³ TFLOP/s  vs cuBLAS
    """
    from labkit.cuda.kernels.ladder.gemm_wgmma import CONFIGS, STEP

    name = run_name(run)
    rows = record(name, results).get("ladder") or []
    labels = dict(zip(((r["size"], r["step"], r.get("config")) for r in rows), _labels(rows)))
    mine = [r for r in rows if r["step"] == STEP and r.get("config") in CONFIGS]
    timed = list(dict.fromkeys(r["config"] for r in mine))
    # each variant with setmaxnreg, and the same kernel without it
    with_it = [c for c in timed if CONFIGS[c].setmaxnreg]
    configs = [c for c in timed if c in with_it or any(replace(CONFIGS[w], setmaxnreg=None) == CONFIGS[c]
                                                       for w in with_it)]
    sizes = sorted({r["size"] for r in mine})
    head = ["configuration", "setmaxnreg (producer, consumer)"]
    for n in sizes:
        head += [f"{n}³ TFLOP/s", "vs cuBLAS"]
    out = []
    for c in configs:
        regs = CONFIGS[c].setmaxnreg
        cells = [(c, escape(c)), (f"{regs[0]}, {regs[1]}" if regs else "not used",) * 2]
        for n in sizes:
            lab = labels[n, STEP, c]
            r = next(r for r in mine if r["size"] == n and r["config"] == c)
            cells += [_cell(name, f"ladder.{lab}.tflops", r["tflops"], ".1f"),
                      _cell(name, f"ladder.{lab}.vs_cublas", r["vs_cublas"], ".3f")]
        out.append(cells)
    return Report(name, [_grid(head, out)])


def ablation(run: str = "gemm-hopper-ablation", results: Path | str = RESULTS) -> Report:
    """Step 7's ablation from one run: per technique (:data:`labkit.cuda.kernels.ladder.gemm_wgmma_config.ABLATION`), the
    configuration without it and with it, TFLOP/s of each per size and the change, with the larger of
    the two figures' spreads ((max - min) / median of the run's rounds) beside it: a change smaller
    than that spread is not told apart from the noise. A pair the run did not time at any size
    (one added to :data:`ABLATION` after the run) is left out, not shown empty.

    >>> print(str(ablation()).splitlines()[0])  # doctest: +NORMALIZE_WHITESPACE
    technique  without  with  4096³ without  with  change (spread)  8192³ without  with  change (spread)
    """
    from labkit.cuda.kernels.ladder.gemm_wgmma import STEP
    from labkit.cuda.kernels.ladder.gemm_wgmma_config import ABLATION

    name = run_name(run)
    rows = record(name, results).get("ladder") or []
    labels = dict(zip(((r["size"], r["step"], r.get("config")) for r in rows), _labels(rows)))
    by = {(r["size"], r.get("config")): r for r in rows if r["step"] == STEP}
    sizes = sorted({s for s, _ in by}, key=_problem)
    head = ["technique", "without", "with"]
    for n in sizes:
        head += [f"{_problem(n)[1]} without", "with", "change (spread)"]
    out = []
    for what, without, with_ in ABLATION:
        if not any((n, without) in by and (n, with_) in by for n in sizes):
            continue
        cells = [(what, escape(what)), (without, escape(without)), (with_, escape(with_))]
        for n in sizes:
            a, b = by.get((n, without)), by.get((n, with_))
            if a is None or b is None:
                cells += [("", "")] * 3
                continue
            cells += [_cell(name, f"ladder.{labels[n, STEP, c]}.tflops", r["tflops"], ".1f")
                      for c, r in ((without, a), (with_, b))]
            change = f"{(float(b['tflops']) - float(a['tflops'])) / float(a['tflops']):+.1%}"
            spread = max(float(a.get("spread") or 0), float(b.get("spread") or 0))
            change += f" ({spread:.0%})" if spread else ""
            cells.append((change, change))
        out.append(cells)
    if not any(c[0] for r in out for c in r[3:]):
        raise MeasurementError(f"run: {name} timed no pair of the ablation")
    return Report(name, [_grid(head, out)])
