"""One drawing primitive: a block of labelled, coloured cells on matplotlib axes.

Every ``draw_*`` function builds on :func:`draw_cells`. Fills are drawn as one image
(fast even for 128x128), borders as line collections, and labels only where a cell is
large enough to read. Rows grow downwards, as in CuTe's ``print_layout``.

>>> import matplotlib; matplotlib.use("Agg")
>>> fig, ax = new_figure(-1, 3, -1, 2)
>>> draw_cells(ax, [["0", "1", "2"], ["3", "4", "5"]], [["#E69F00"] * 3, ["#56B4E9"] * 3])
>>> fig = finish(fig, "two rows of three cells")
>>> fig.alt_text
'two rows of three cells'
"""

from __future__ import annotations

import functools
import numpy as np


__all__ = ["BOOK_WIDTH_IN", "MAX_HEIGHT_IN", "new_figure", "draw_cells", "finish", "fit_texts", "to_rgb_array",
           "alt_text", "add_block", "locate"]

BOOK_WIDTH_IN = 7.0       # the text width of the book's pages, in inches
MAX_CELL_IN = 0.42        # a cell is never larger than this
MIN_LABEL_PT = 9.0        # below this a cell is too small to carry its label
MAX_HEIGHT_IN = 9.0       # tall drawings (128 TMEM lanes, stacked panels) shrink to this height
MIN_CELL_TEXT_PT = 4.5    # a cell label smaller than this is left out


def _rgb(c: str) -> tuple[float, float, float]:
    h = c.lstrip("#")
    return tuple(int(h[i:i + 2], 16) / 255 for i in (0, 2, 4))


def to_rgb_array(fills) -> np.ndarray:
    """``rows x cols`` colour strings (or an RGB array, passed through) → float RGB image."""
    if isinstance(fills, np.ndarray):
        return fills[..., :3].astype(float)
    cache: dict[str, tuple] = {}
    rows = [[cache.setdefault(c, _rgb(c)) for c in row] for row in fills]
    return np.asarray(rows, dtype=float)


@functools.cache
def _lab_figure_class():
    from matplotlib.figure import Figure

    class LabFigure(Figure):
        """A Figure that shows itself in Jupyter without pyplot, with its alt text: as SVG in a
        page (``labkit.viz.svg.figure_html``), as a PNG where HTML is not shown."""

        def _png_bytes(self) -> bytes:
            import io
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            FigureCanvasAgg(self)
            from PIL import Image
            buf = io.BytesIO()
            self.savefig(buf, format="png", dpi=100)
            # flat colours and text: a 256-colour palette looks the same at a quarter of the bytes
            img = Image.open(io.BytesIO(buf.getvalue())).convert("RGB")
            img = img.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
            out = io.BytesIO()
            img.save(out, format="PNG", optimize=True)
            return out.getvalue()

        def _repr_png_(self):
            return self._png_bytes()

        def _repr_html_(self):
            from labkit.viz.svg import figure_html
            return figure_html(self, getattr(self, "alt_text", "") or "", getattr(self, "name", "drawing"))

    return LabFigure


def new_figure(xmin: float, xmax: float, ymin: float, ymax: float, *, ax=None,
               max_height_in: float | None = None):
    """Axes showing the region ``[xmin, xmax] x [ymin, ymax]`` (one unit = one cell, y down).

    A new figure is sized to the book width (cells at most ``MAX_CELL_IN`` inches, and the
    whole figure at most ``max_height_in`` tall when given); with ``ax`` given, that axes is
    set up instead. Returns ``(fig, ax)``.
    """
    w, h = xmax - xmin, ymax - ymin
    if ax is None:
        cell = min(MAX_CELL_IN, BOOK_WIDTH_IN / w, (max_height_in or float("inf")) / h)
        fig = _lab_figure_class()(figsize=(w * cell, h * cell))
        ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(xmin, xmax)
    ax.set_ylim(ymax, ymin)
    ax.set_aspect("equal")
    ax.axis("off")
    return ax.figure, ax


def _cell_points(ax) -> float:
    """Size of one data unit in points (the drawing's cell size)."""
    fig = ax.figure
    w_in = fig.get_figwidth() * ax.get_position().width
    x0, x1 = ax.get_xlim()
    return 72.0 * w_in / max(1e-9, abs(x1 - x0))


def draw_cells(ax, labels, fills, *, x0: float = 0, y0: float = 0, row_header=None, col_header=None,
               title: str | None = None, border: str = "#555", fontsize: float | None = None,
               marks=None, bold_rows: int | None = None, bold_cols: int | None = None):
    """Draw ``len(fills) x len(fills[0])`` cells with their top-left corner at ``(x0, y0)``.

    ``labels`` (same shape, strings or ``None``) go inside cells when they fit;
    ``row_header``/``col_header`` label rows on the left and columns on top; ``marks`` is a
    list of ``(i, j, colour)`` outlines (conflicts, selections); ``bold_rows``/``bold_cols``
    draw a thicker line every that many rows/columns (tile borders).
    """
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Rectangle
    img = to_rgb_array(fills)
    rows, cols = img.shape[:2]
    lim = (ax.get_xlim(), ax.get_ylim())
    ax.imshow(img, extent=(x0, x0 + cols, y0 + rows, y0), interpolation="nearest", zorder=1)
    ax.set_xlim(*lim[0])
    ax.set_ylim(*lim[1])
    ax.set_aspect("equal")
    segs = [((x0, y0 + i), (x0 + cols, y0 + i)) for i in range(rows + 1)] + \
           [((x0 + j, y0), (x0 + j, y0 + rows)) for j in range(cols + 1)]
    thin = 0.5 if rows * cols <= 4096 else 0.15
    ax.add_collection(LineCollection(segs, colors=border, linewidths=thin, zorder=2))
    thick = []
    if bold_rows:
        thick += [((x0, y0 + i), (x0 + cols, y0 + i)) for i in range(0, rows + 1, bold_rows)]
    if bold_cols:
        thick += [((x0 + j, y0), (x0 + j, y0 + rows)) for j in range(0, cols + 1, bold_cols)]
    if thick:
        ax.add_collection(LineCollection(thick, colors="#000", linewidths=2.0, zorder=3))
    for (i, j, c) in marks or ():
        ax.add_patch(Rectangle((x0 + j + 0.06, y0 + i + 0.06), 0.88, 0.88, fill=False,
                               edgecolor=c, linewidth=2.2, zorder=4))
    pts = _cell_points(ax)
    if labels is not None and pts >= MIN_LABEL_PT:
        longest = max((len(line) for row in labels for s in row if s is not None
                       for line in str(s).split("\n")), default=1)
        nlines = max((len(str(s).split("\n")) for row in labels for s in row if s is not None), default=1)
        # the label fits its cell, or the cells go unlabelled (the colours remain) rather than run
        # into each other
        fit = min(10.0, 0.95 * pts / max(1, longest) * 1.6, 0.8 * pts / nlines)
        fs = fontsize or (fit if fit >= MIN_CELL_TEXT_PT else None)
        for i in range(rows if fs else 0):
            for j in range(cols):
                s = labels[i][j]
                if s is None or s == "":
                    continue
                r, g, b = img[i, j]
                dark = 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.45
                ax.text(x0 + j + 0.5, y0 + i + 0.5, str(s), ha="center", va="center", fontsize=fs,
                        color="#000000" if dark else "#ffffff", zorder=5, linespacing=0.95)
    hdr_fs = max(8.0, min(9.0, 0.55 * pts))      # 8 pt: legible where the page shows the drawing whole
    if row_header is not None and pts >= MIN_LABEL_PT * 0.7:
        for i, s in enumerate(row_header):
            ax.text(x0 - 0.15, y0 + i + 0.5, str(s), ha="right", va="center", fontsize=hdr_fs, color="#444")
    if col_header is not None and pts >= MIN_LABEL_PT * 0.7:
        # column labels wider than a column: label every step-th column only
        widest = max((len(str(s)) for s in col_header), default=1)
        step = max(1, int(np.ceil(widest * 0.62 * hdr_fs / (0.95 * pts))))
        for j, s in enumerate(col_header):
            if j % step:
                continue
            ax.text(x0 + j + 0.5, y0 - 0.15, str(s), ha="center", va="bottom", fontsize=hdr_fs, color="#444")
    if title:
        # above the column labels' full height (their descenders included), not into them
        above = 0.3 + 1.3 * hdr_fs / pts if col_header is not None else 0.35
        ax.text(x0 + cols / 2, y0 - max(1.0, above), title, ha="center", va="bottom", fontsize=10, color="#000")


def fit_texts(fig, pad_px: float = 3.0) -> None:
    """Grow ``fig`` so that no text runs past its edges (a long title over a narrow grid, a row
    header left of the first column): the axes keep their size in inches, so the cells keep
    their scale, and the figure gains the margins its texts need."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.text import Text
    canvas = fig.canvas if hasattr(fig.canvas, "get_renderer") else FigureCanvasAgg(fig)
    renderer = canvas.get_renderer()
    W, H = fig.get_size_inches() * fig.dpi
    x0, y0, x1, y1 = 0.0, 0.0, W, H
    for t in fig.findobj(Text):
        if t.get_visible() and t.get_text().strip():
            bb = t.get_window_extent(renderer)
            x0, y0, x1, y1 = min(x0, bb.x0), min(y0, bb.y0), max(x1, bb.x1), max(y1, bb.y1)
    if x0 >= 0 and y0 >= 0 and x1 <= W and y1 <= H:
        return
    left, right = (pad_px - x0 if x0 < 0 else 0.0), (x1 - W + pad_px if x1 > W else 0.0)
    bottom, top = (pad_px - y0 if y0 < 0 else 0.0), (y1 - H + pad_px if y1 > H else 0.0)
    # no wider than the book's text (or than the drawing already was): past that, the drawing
    # itself narrows a little to make room for the margins
    cap = max(W, BOOK_WIDTH_IN * fig.dpi)
    nw = min(W + left + right, cap)
    sx = (nw - left - right) / W
    nh = H + bottom + top
    for ax in fig.axes:
        p = ax.get_position()
        ax.set_position(((left + p.x0 * W * sx) / nw, (bottom + p.y0 * H) / nh, p.width * W * sx / nw,
                         p.height * H / nh))
    fig.set_size_inches(nw / fig.dpi, nh / fig.dpi)


def finish(fig, alt: str, name: str | None = None):
    """Attach the alt text (``fig.alt_text``) and a name (``fig.name``, the page's
    ``data-figure``; default: the drawing function's name) and return the figure, grown where
    a text would run past its edges (:func:`fit_texts`)."""
    import sys
    fit_texts(fig)
    fig.alt_text = alt
    fig.name = name or sys._getframe(1).f_code.co_name
    return fig


def add_block(ax, name: str, x0: float, y0: float, rows: int, cols: int) -> None:
    """Record that block ``name`` (a grid of ``rows x cols`` cells, top-left at ``(x0, y0)``)
    was drawn on ``ax``: ``ax.figure.blocks[name] = (x0, y0, rows, cols)``, read by ``locate``."""
    blocks = getattr(ax.figure, "blocks", None)
    if blocks is None:
        blocks = ax.figure.blocks = {}
    blocks[name] = (x0, y0, rows, cols)


def locate(fig, x: float, y: float):
    """``(block, row, col)`` of the recorded cell that contains the data point ``(x, y)``,
    or ``None``: turns a label's or outline's position back into a cell of the drawing.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig, ax = new_figure(0, 4, 0, 2)
    >>> add_block(ax, "left", 0, 0, 2, 2)
    >>> locate(fig, 1.5, 0.5), locate(fig, 3.5, 0.5)
    (('left', 0, 1), None)
    """
    for name, (x0, y0, rows, cols) in getattr(fig, "blocks", {}).items():
        i, j = int(np.floor(y - y0)), int(np.floor(x - x0))
        if 0 <= i < rows and 0 <= j < cols:
            return name, i, j
    return None


def alt_text(fig) -> str:
    """The alt text a ``draw_*`` function attached to ``fig``."""
    return getattr(fig, "alt_text", "")
