"""A timeline: rows of actors (a thread, the copy engine, a warpgroup, the tensor cores), bars for
what takes time and ticks for what happens at an instant (a wait, an arrive).

The input is anything with ``title``, ``rows`` (names, top to bottom) and ``events`` (each with
``row``, ``start``, ``end``, ``label`` and ``kind``), such as
:func:`labkit.lab.wgmma.pipeline_schedule`'s schedule.

>>> import matplotlib; matplotlib.use("Agg")
>>> from labkit.lab.wgmma import pipeline_schedule
>>> draw_timeline(pipeline_schedule(2, 3)).alt_text[:40]
'Timeline of 2 stages, 3 k-tiles (schemat'
"""

from __future__ import annotations

from labkit.errors import LabkitError
from labkit.viz.charts import CHART_FONT_PT
from labkit.viz.grid import BOOK_WIDTH_IN, _lab_figure_class, finish
from labkit.viz.palette import OKABE_ITO

__all__ = ["draw_timeline", "KIND_COLORS"]

KIND_COLORS = {"copy": OKABE_ITO[1], "mma": OKABE_ITO[2], "sync": OKABE_ITO[0], "wait": OKABE_ITO[5],
               "store": OKABE_ITO[6]}
"""Bar colours by event kind: copies sky blue, MMAs green, fences/arrives/commits orange, waits
vermillion ticks."""


def draw_timeline(schedule, *, width_in: float = BOOK_WIDTH_IN):
    """One row per actor; a bar per event with a duration (its label inside when it fits, else
    above), a tick per instant event (its label below). Returns the figure, with alt text."""
    rows = list(getattr(schedule, "rows", ()))
    events = list(getattr(schedule, "events", ()))
    if not rows or not events:
        raise LabkitError("schedule must have rows and events (e.g. labkit.lab.wgmma.pipeline_schedule())")
    for e in events:
        if e.row not in rows or e.end < e.start or e.kind not in KIND_COLORS:
            raise LabkitError(f"event {e!r}: its row must be one of {rows}, end >= start, kind one of "
                              f"{sorted(KIND_COLORS)}")
    t_end = max(e.end for e in events)
    row_h = 0.62
    height = row_h * len(rows) + 1.1
    fig = _lab_figure_class()(figsize=(width_in, height))
    ax = fig.add_axes((0.22, 0.55 / height, 0.76, row_h * len(rows) / height))
    ax.set_xlim(-0.2, t_end + 0.4)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    per_unit = 0.76 * width_in * 72 / (t_end + 0.6)          # points per time unit
    font = CHART_FONT_PT - 1
    for e in events:
        y = rows.index(e.row)
        if e.end > e.start:
            ax.barh(y, e.end - e.start, left=e.start, height=0.5, color=KIND_COLORS[e.kind],
                    edgecolor="#333", linewidth=0.5)
            fits = len(e.label) * font * 0.55 < (e.end - e.start) * per_unit
            if fits:
                ax.text((e.start + e.end) / 2, y, e.label, ha="center", va="center", fontsize=font, color="#000")
        else:
            ax.plot([e.start, e.start], [y - 0.3, y + 0.3], color=KIND_COLORS[e.kind], linewidth=2)
    ax.set_yticks(range(len(rows)), rows, fontsize=CHART_FONT_PT)
    ax.tick_params(axis="x", labelsize=CHART_FONT_PT)
    ax.tick_params(axis="y", length=0)
    ax.set_xlabel(f"time: {schedule.title}", fontsize=CHART_FONT_PT)
    ax.spines[["top", "right"]].set_visible(False)
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(color=c, label=k) for k, c in KIND_COLORS.items()], fontsize=font,
              loc="lower right", ncol=len(KIND_COLORS), frameon=False, bbox_to_anchor=(1.0, 1.02))
    first = sorted(events, key=lambda e: e.start)[:3]
    return finish(fig, f"Timeline of {schedule.title}: rows {', '.join(rows)}; it starts with "
                       + "; ".join(f"{e.row}: {e.label} at {e.start:g}" for e in first) + ".")
