"""Drawings of plain layouts: ``draw_layout``, ``draw_tv_layout``, ``draw_tiling``.

They follow CuTe's pictures: ``print_layout``'s table (rows = mode 0, columns = mode 1,
the offset in each cell) and ``print_latex``'s thread-value maps (``T#/V#`` in each cell,
coloured by thread).

>>> import matplotlib; matplotlib.use("Agg")
>>> import labkit as lk
>>> from labkit.viz import draw_layout
>>> fig = draw_layout(lk.make_layout((4, 8), (8, 1)))
>>> fig.alt_text.startswith("Layout (4,8):(8,1)")
True
"""

from __future__ import annotations

import numpy as np

from labkit.errors import LayoutError
from labkit.viz.grid import draw_cells, finish, new_figure
from labkit.viz.palette import EMPTY, category_color, light_color, thread_color
from labkit.viz.tables import grid_shape, offset_table, tv_table

__all__ = ["draw_layout", "draw_tv_layout", "draw_tiling", "bank_color", "layout_fills"]

COLOR_BY = ("value", "bank", "none")


def bank_color(bank: int) -> str:
    """Colour of one of 32 banks: eight hues, strong for banks 0-7 and 16-23, light otherwise."""
    return category_color(bank) if (bank // 8) % 2 == 0 else light_color(bank)


def layout_fills(table: np.ndarray, color_by: str, element_bytes: int = 2):
    """Cell colours for an offset table: by value (viridis, an RGB array), by bank, or plain."""
    if color_by not in COLOR_BY:
        raise LayoutError(f"color_by must be one of {COLOR_BY}, got {color_by!r}")
    if color_by == "none":
        return [[EMPTY] * table.shape[1] for _ in range(table.shape[0])]
    if color_by == "bank":
        if element_bytes not in (1, 2, 4, 8, 16):
            raise LayoutError(f"element_bytes must be 1, 2, 4, 8 or 16, got {element_bytes!r}")
        banks = (table * element_bytes // 4) % 32
        return [[bank_color(int(b)) for b in row] for row in banks]
    from matplotlib import colormaps
    vmax = int(table.max()) if table.size else 0
    frac = table / vmax if vmax > 0 else np.zeros(table.shape)
    return colormaps["viridis"](0.15 + 0.85 * np.clip(frac, 0, 1))[..., :3]


def draw_layout(layout, *, color_by: str = "value", element_bytes: int = 2, ax=None,
                title: str | None = None, labels: bool = True):
    """Draw a rank-1 or rank-2 layout as CuTe's ``print_layout`` table: offset in each cell.

    ``color_by="value"`` shades by offset (viridis); ``"bank"`` colours by the shared-memory
    bank ``(offset * element_bytes // 4) % 32`` and writes ``offset`` and ``b<bank>``;
    ``"none"`` leaves cells white. Swizzled (composed) layouts work too. Returns the
    matplotlib figure, with ``fig.alt_text``.
    """
    table = offset_table(layout)
    rows, cols = table.shape
    fills = layout_fills(table, color_by, element_bytes)
    if not labels:
        texts = None
    elif color_by == "bank":
        banks = (table * element_bytes // 4) % 32
        texts = [[f"{v}\nb{b}" for v, b in zip(r1, r2)] for r1, r2 in zip(table.tolist(), banks.tolist())]
    else:
        texts = [[str(v) for v in row] for row in table.tolist()]
    fig, ax = new_figure(-1.2, cols + 0.2, -1.8, rows + 0.2, ax=ax)
    draw_cells(ax, texts, fills, row_header=range(rows), col_header=range(cols),
               title=title or str(layout))
    what = {"value": "shaded by offset", "bank": f"coloured by bank for {element_bytes}-byte elements",
            "none": "unshaded"}[color_by]
    return finish(fig, f"Layout {layout} drawn as a {rows}x{cols} table of offsets, {what}; "
                       f"row 0 reads {', '.join(str(v) for v in table[0, :8].tolist())}"
                       f"{' ...' if cols > 8 else ''}.")


def draw_tv_layout(tv_layout, tile_shape, *, ax=None, title: str | None = None):
    """Draw a thread-value layout over its ``(M, N)`` tile, as CuTe's ``print_latex``.

    ``tv_layout(t, v)`` gives the column-major index ``m + M*n`` of the element that thread
    ``t`` holds as value ``v``; each cell shows ``T<t>`` / ``V<v>`` coloured by thread.
    A cell reached by several (t, v) pairs (a broadcast) shows the lowest and a ``+``.
    """
    thr, val, count = tv_table(tv_layout, tile_shape)
    M, N = thr.shape
    fills = [[EMPTY if thr[i, j] < 0 else thread_color(int(thr[i, j])) for j in range(N)] for i in range(M)]
    texts = [[("" if thr[i, j] < 0 else f"T{thr[i, j]}\nV{val[i, j]}" + ("+" if count[i, j] > 1 else ""))
              for j in range(N)] for i in range(M)]
    fig, ax = new_figure(-1.2, N + 0.2, -1.8, M + 0.2, ax=ax)
    draw_cells(ax, texts, fills, row_header=range(M), col_header=range(N), title=title or str(tv_layout))
    nthr = len(set(thr[thr >= 0].tolist()))
    return finish(fig, f"Thread-value layout {tv_layout} over a {M}x{N} tile: each cell names the thread "
                       f"and value that hold it ({nthr} threads); cell (0,0) is T{thr[0, 0]} V{val[0, 0]}.")


def draw_tiling(layout, tile, *, ax=None, title: str | None = None):
    """Draw a 2-D layout cut into ``tile = (tm, tn)`` tiles: thick tile borders, each tile
    shaded in its own colour and labelled with its tile coordinate, offsets in the cells.

    Seed 001's 8x8 matrix in 2x4 tiles stored tile by tile is
    ``make_layout(((2, 4), (4, 2)), ((4, 16), (1, 8)))``.
    """
    tm, tn = (int(t) for t in tile)
    table = offset_table(layout)
    rows, cols = table.shape
    if tm <= 0 or tn <= 0 or rows % tm or cols % tn:
        raise LayoutError(f"tile {tile} must divide the layout's {rows}x{cols} table")
    ntn = cols // tn
    fills = [[light_color((i // tm) * ntn + j // tn) if ((i // tm) + (j // tn)) % 2 else
              category_color((i // tm) * ntn + j // tn) for j in range(cols)] for i in range(rows)]
    texts = [[str(v) for v in row] for row in table.tolist()]
    fig, ax = new_figure(-1.2, cols + 2.9, -1.8, rows + 1.0, ax=ax)
    draw_cells(ax, texts, fills, row_header=range(rows), col_header=range(cols), bold_rows=tm,
               bold_cols=tn, title=title or f"{layout} in {tm}x{tn} tiles")
    for ti in range(rows // tm):          # tile coordinates under the bottom row and right of each tile row
        ax.text(cols + 0.1, ti * tm + tm / 2, f"tile row {ti}", ha="left", va="center", fontsize=9, color="#333")
    for tj in range(ntn):
        ax.text(tj * tn + tn / 2, rows + 0.1, f"tile col {tj}", ha="center", va="top", fontsize=9, color="#333")
    return finish(fig, f"Layout {layout} as a {rows}x{cols} table cut into {rows // tm}x{ntn} tiles of "
                       f"{tm}x{tn}; tile (0,1) starts at offset {table[0, tn] if ntn > 1 else table[0, 0]}.")
