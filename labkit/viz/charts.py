"""Measured speeds as a chart a phone can read: horizontal bars, one row per kernel.

Labels sit on the left and values at the end of each bar, so the chart stays narrow
(``CHART_WIDTH_IN``) and its text large (``CHART_FONT_PT``, never smaller); rows grow downwards.

>>> import matplotlib; matplotlib.use("Agg")
>>> fig = draw_bars([("naive", {"f32": 0.9, "f16": 0.95}), ("cuBLAS", {"f32": 754.4})],
...                 title="GEMM", unit="TFLOP/s")
>>> fig.alt_text
'GEMM, TFLOP/s, logarithmic scale: naive f32 0.9, f16 0.95; cuBLAS f32 754.'
"""

from __future__ import annotations

import math

from labkit.errors import LabkitError
from labkit.viz.grid import _lab_figure_class, finish
from labkit.viz.palette import OKABE_ITO

__all__ = ["draw_bars", "CHART_WIDTH_IN", "CHART_FONT_PT"]

CHART_WIDTH_IN = 4.6      # narrow enough that 9 pt text stays 9 px on a 390 px phone
CHART_FONT_PT = 9.5


def _fmt(v: float) -> str:
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


def draw_bars(rows, *, title: str, unit: str, log: bool = True, colors=None):
    """Horizontal grouped bars: ``rows`` is a list of ``(label, {series: value})``; every series
    keeps one colour (Okabe-Ito, or ``colors={series: colour}``) and a legend names them.
    ``log`` draws the value axis on a logarithmic scale (speeds spanning decades)."""
    rows = list(rows)
    if not rows or any(not isinstance(r, tuple) or len(r) != 2 or not isinstance(r[1], dict) for r in rows):
        raise LabkitError("rows must be a non-empty list of (label, {series: value}) pairs")
    series: list[str] = []
    for _, vals in rows:
        for s, v in vals.items():
            if not (isinstance(v, (int, float)) and math.isfinite(v) and (v > 0 or not log)):
                raise LabkitError(f"rows: value {v!r} of series {s!r} must be a finite number"
                                  + (" > 0 (log scale)" if log else ""))
            if s not in series:
                series.append(s)
    colors = dict(colors or {})
    for i, s in enumerate(series):
        colors.setdefault(s, OKABE_ITO[(4, 1, 0, 7, 2, 5)[i % 6]])
    bar, gap = 0.19, 0.12                               # inches: one bar, between rows
    body = sum(gap + bar * len(v) for _, v in rows)
    height = body + 1.0
    fig = _lab_figure_class()(figsize=(CHART_WIDTH_IN, height))
    ax = fig.add_axes((0.36, 0.62 / height, 0.61, body / height))
    y = 0.0
    ticks, labels, seen = [], [], set()
    vmax = max(v for _, vals in rows for v in vals.values())
    vmin = min(v for _, vals in rows for v in vals.values())
    for label, vals in rows:
        top = y
        for s, v in vals.items():
            ax.barh(y + bar / 2, v, height=bar * 0.92, color=colors[s], label=None if s in seen else s)
            seen.add(s)
            ax.text(v * (1.06 if log else 1.0) + (0 if log else 0.01 * vmax), y + bar / 2, " " + _fmt(v),
                    va="center", ha="left", fontsize=CHART_FONT_PT, color="#222")
            y += bar
        ticks.append((top + y) / 2)
        labels.append(label)
        y += gap
    ax.set_yticks(ticks, labels, fontsize=CHART_FONT_PT)
    ax.set_ylim(y - gap / 2, -gap / 2)
    if log:
        from matplotlib.ticker import FuncFormatter, NullFormatter
        ax.set_xscale("log")
        ax.set_xlim(vmin / 2, vmax * 5)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))     # 1, 10, 100: no small exponents
        ax.xaxis.set_minor_formatter(NullFormatter())
    else:
        ax.set_xlim(0, vmax * 1.3)
    ax.tick_params(axis="x", labelsize=CHART_FONT_PT)
    ax.tick_params(axis="y", length=0)
    ax.set_xlabel(unit + (" (log scale)" if log else ""), fontsize=CHART_FONT_PT)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title, fontsize=CHART_FONT_PT + 1, loc="right")
    ax.legend(fontsize=CHART_FONT_PT, loc="upper right", frameon=False)
    desc = "; ".join(f"{label} " + ", ".join(f"{s} {_fmt(v)}" for s, v in vals.items()) for label, vals in rows)
    return finish(fig, f"{title}, {unit}{', logarithmic scale' if log else ''}: {desc}.")
