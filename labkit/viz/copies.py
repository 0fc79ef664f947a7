"""A TiledCopy as CuTe's ``print_latex`` draws it: the source and the destination
thread-value maps of one copy tile, side by side.

Source cell ``(m, n)`` names the thread that reads the element and the value index it
reads it as (for ``ldmatrix``: the lane that supplies the row address); destination cell
``(m, n)`` names the thread and value that receive it. Cells are coloured by thread.

>>> import matplotlib; matplotlib.use("Agg")
>>> import labkit as lk
>>> mma = lk.make_tiled_mma("SM80_16x8x16_F16F16F16F16_TN")
>>> copy_a = lk.make_tiled_copy_A(lk.copy_atom("SM75_U32x4_LDSM_N", "f16"), mma)
>>> fig = draw_tiled_copy(copy_a)
>>> print(fig.alt_text[fig.alt_text.index("element (0,9)"):])
element (0,9) is read by T16 V1 and received by T0 V5.
"""

from __future__ import annotations

import numpy as np

from labkit.errors import LayoutError
from labkit.viz.grid import (BOOK_WIDTH_IN, MAX_CELL_IN, MAX_HEIGHT_IN, add_block, draw_cells, finish,
                             new_figure)
from labkit.viz.palette import EMPTY, thread_color
from labkit.viz.tables import tv_table

__all__ = ["draw_tiled_copy", "copy_tables"]

ARRANGE = ("auto", "side", "stacked")
# Stacked maps may grow this tall: cells large enough for two-line labels that a phone can read.
TALL_IN = 2 * MAX_HEIGHT_IN


def copy_tables(tiled_copy):
    """``(M, N), (thr_S, val_S, count_S), (thr_D, val_D, count_D)`` of a TiledCopy: for each
    element of its ``tiler_mn`` tile, the lowest source / destination (thread, value) that
    maps there (``labkit.viz.tables.tv_table`` of ``get_layoutS_TV`` / ``get_layoutD_TV``).

    >>> import labkit as lk
    >>> cp = lk.make_tiled_copy(lk.copy_atom("SM80_CP_ASYNC_CACHEALWAYS", "f16"),
    ...                         lk.parse_layout("(_16,_8):(_8,_1)"), lk.parse_layout("(_1,_8):(_8,_1)"))
    >>> (M, N), (thr, val, _), _ = copy_tables(cp)
    >>> (M, N), int(thr[1, 9]), int(val[1, 9])
    ((16, 64), 9, 1)
    """
    for attr in ("get_layoutS_TV", "get_layoutD_TV", "tiler_mn"):
        if not hasattr(tiled_copy, attr):
            raise LayoutError(f"tiled_copy must be a TiledCopy (lk.make_tiled_copy, make_tiled_copy_A/B/C); "
                              f"{type(tiled_copy).__name__} has no {attr}")
    tiler = tuple(tiled_copy.tiler_mn)
    if len(tiler) != 2:
        raise LayoutError(f"tiled_copy: a drawing needs a rank-2 tile (M, N), got tiler_mn {tiler}")
    from labkit.layout import size
    M, N = (int(size(t)) for t in tiler)
    src = tv_table(tiled_copy.get_layoutS_TV(), (M, N))
    dst = tv_table(tiled_copy.get_layoutD_TV(), (M, N))
    return (M, N), src, dst


def _cells(thr, val, count):
    fills = [[EMPTY if t < 0 else thread_color(int(t)) for t in row] for row in thr]
    texts = [[("" if t < 0 else f"T{t}\nV{v}" + ("+" if c > 1 else "")) for t, v, c in zip(r1, r2, r3)]
             for r1, r2, r3 in zip(thr.tolist(), val.tolist(), count.tolist())]
    return fills, texts


def draw_tiled_copy(tiled_copy, *, arrange: str = "auto", ax=None, title: str | None = None):
    """Draw a TiledCopy's source and destination thread-value maps over its ``tiler_mn`` tile.

    Each cell shows ``T<thread>/V<value>``, coloured by thread; ``+`` marks an element that
    several (thread, value) pairs reach (a broadcast, e.g. ``ldmatrix.x2``'s unused lanes or
    the warps of a TiledMMA that share A). ``arrange="side"`` puts the destination to the
    right of the source, ``"stacked"`` below it; ``"auto"`` stacks tiles wider than 8
    columns so the labels stay large enough to read on a phone. Returns the figure (``fig.alt_text``;
    ``fig.blocks`` names the ``"source"`` and ``"destination"`` cell blocks).
    """
    if arrange not in ARRANGE:
        raise LayoutError(f"arrange must be one of {ARRANGE}, got {arrange!r}")
    (M, N), src, dst = copy_tables(tiled_copy)
    side = arrange == "side" or (arrange == "auto" and N <= 8)
    fs, ts = _cells(*src)
    fd, td = _cells(*dst)
    atom = getattr(getattr(tiled_copy, "atom", None), "name", "copy")
    # vertical room for the panel captions (9 pt text) in cell units, from the cell size
    width = (2 * N + 3.4) if side else (N + 1.4)
    cell_pt = 72.0 * min(MAX_CELL_IN, BOOK_WIDTH_IN / width)
    cap = 12.0 / cell_pt
    top = 1.25 + cap
    if side:
        dx, dy = N + 2, 0
        fig, ax = new_figure(-1.2, 2 * N + 2.2, -top, M + 0.2, ax=ax)
    else:
        dx, dy = 0, M + 0.5 + cap
        bottom = 2 * M + 0.5 + cap + 0.2
        cell_pt = min(cell_pt, 72.0 * TALL_IN / (bottom + top))
        cap = 12.0 / cell_pt
        top, dy = 1.25 + cap, M + 0.5 + cap
        fig, ax = new_figure(-1.2, N + 0.2, -top, dy + M + 0.2, ax=ax, max_height_in=TALL_IN)
    step = 1 if N <= 32 else 4
    cols = [j if j % step == 0 else "" for j in range(N)]
    name = title or atom
    draw_cells(ax, ts, fs, row_header=range(M), col_header=cols)
    ax.text(N / 2, -1.2, f"{name}: source (get_layoutS_TV)", ha="center", va="bottom", fontsize=9,
            color="#000")
    draw_cells(ax, td, fd, x0=dx, y0=dy, row_header=None if side else range(M),
               col_header=cols if side else None)
    ax.text(dx + N / 2, dy - (1.2 if side else 0.3), "destination (get_layoutD_TV)", ha="center",
            va="bottom", fontsize=9, color="#000")
    nthr = int(tiled_copy.num_threads)
    add_block(ax, "source", 0, 0, M, N)
    add_block(ax, "destination", dx, dy, M, N)

    def who(thr, val, i, j):
        return f"T{thr[i, j]} V{val[i, j]}" if thr[i, j] >= 0 else "no thread"

    probe = (0, 9) if N > 9 else (0, N - 1)
    same = bool(np.array_equal(src[0], dst[0]) and np.array_equal(src[1], dst[1]))
    where = "to the right of" if side else "below"
    return finish(fig, f"TiledCopy {atom} over a {M}x{N} tile, {nthr} threads: the source thread-value map "
                       f"with the destination map {where} it; each cell names a thread and value, coloured by "
                       f"thread{'; both maps are the same' if same else ''}; element ({probe[0]},{probe[1]}) "
                       f"is read by {who(src[0], src[1], *probe)} and received by {who(dst[0], dst[1], *probe)}.")
