"""Fragments filling up: every lane's registers after each stage of the trace lab.

>>> import matplotlib; matplotlib.use("Agg")
>>> from labkit import lab
>>> t = lab.trace_mma(backend="sim")
>>> draw_fragments(t, 1).alt_text[:40]
'Registers of 32 lanes, after ldmatrix of'
"""

from __future__ import annotations

from labkit.errors import LayoutError
from labkit.viz.grid import draw_cells, finish, new_figure
from labkit.viz.palette import EMPTY, thread_color

__all__ = ["draw_fragments", "STAGES"]

STAGES = ("before", "after ldmatrix of A", "after ldmatrix of B", "after mma.sync")


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.3g}"


def draw_fragments(trace, stage: int = 3, *, ax=None):
    """32 lanes x (A slots | B slots | D slots) of a ``labkit.lab`` MMA trace, filled up to
    ``stage`` (0 = nothing loaded, 1 = A, 2 = A and B, 3 = D too). A and B slots show the
    coordinate they hold, ``(m,k)`` / ``(n,k)``; D slots the value. Empty slots are white."""
    if stage not in range(len(STAGES)):
        raise LayoutError(f"stage must be 0..{len(STAGES) - 1} ({', '.join(STAGES)}), got {stage!r}")
    a, b = trace.coords("A"), trace.coords("B")
    d = trace.values("D")
    na, nb_, nd = a.shape[1], b.shape[1], d.shape[1]
    cols = na + 1 + nb_ + 1 + nd
    fills = [[EMPTY] * cols for _ in range(32)]
    texts = [[None] * cols for _ in range(32)]
    for t in range(32):
        for s in range(na):
            if stage >= 1:
                fills[t][s], texts[t][s] = thread_color(t), "%d,%d" % tuple(a[t, s])
        for s in range(nb_):
            if stage >= 2:
                fills[t][na + 1 + s], texts[t][na + 1 + s] = thread_color(t), "%d,%d" % tuple(b[t, s])
        for s in range(nd):
            if stage >= 3:
                fills[t][na + nb_ + 2 + s], texts[t][na + nb_ + 2 + s] = thread_color(t), _fmt(d[t, s])
    for t in range(32):
        fills[t][na] = fills[t][na + nb_ + 1] = "#ffffff"
    # value slots (V#), not PTX operand registers: two 16-bit slots share one register
    header = ([f"A V{s}" for s in range(na)] + [""] + [f"B V{s}" for s in range(nb_)] + [""]
              + [f"D V{s}" for s in range(nd)])
    fig, ax = new_figure(-2.0, cols + 0.2, -2.2, 32.2, ax=ax)
    draw_cells(ax, texts, fills, row_header=[f"L{t}" for t in range(32)], col_header=header,
               title=f"{trace.atom} ({trace.backend}): {STAGES[stage]}")
    return finish(fig, f"Registers of 32 lanes, {STAGES[stage]}: "
                       f"{na} A slots, {nb_} B slots and {nd} D slots per lane, filled "
                       f"{['none', 'A', 'A and B', 'all'][stage]}; lane 0 slot 5 of A holds "
                       f"({a[0, 5, 0]},{a[0, 5, 1]})." if na > 5 else
                       f"Registers of 32 lanes, stage {stage} of {len(STAGES) - 1}.")
