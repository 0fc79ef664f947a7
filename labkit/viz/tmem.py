"""Blackwell tensor memory as a picture: 128 lanes x 32-bit columns, in four partitions.

``draw_tmem`` takes a named-axis layout (``labkit.axe``) that places elements on ``TLane``
and ``TCol`` (and, for sub-word data such as one-byte scale factors, on ``byte`` inside a
column) and fills every TMEM position with the element it holds. The 128 lanes fall into
four partitions of 32 lanes, one per warp of a warpgroup; replicas (``R[...]``) show up as
the same colours in several partitions.

>>> import matplotlib; matplotlib.use("Agg")
>>> import labkit as lk
>>> fig = draw_tmem(lk.scale_factor_layout(128, 4), shape=(128, 4), name="SFA", highlight=(64, 2))
>>> fig.alt_text[fig.alt_text.index("SFA[64,2]"):]
'SFA[64,2] sits at (TLane, TCol, byte) (0,2,2) (32,2,2) (64,2,2) (96,2,2).'
"""

from __future__ import annotations

import numpy as np

from labkit.errors import LayoutError
from labkit.viz.grid import (BOOK_WIDTH_IN, MAX_CELL_IN, MAX_HEIGHT_IN, _cell_points, add_block, draw_cells,
                             finish, new_figure)
from labkit.viz.palette import EMPTY, MARK, category_color

__all__ = ["draw_tmem", "tmem_table", "TMEM_LANES", "TMEM_COLS", "PARTITION_LANES"]

TMEM_LANES = 128          # lanes of a CTA's tensor memory
TMEM_COLS = 512           # 32-bit columns per lane
PARTITION_LANES = 32      # lanes per partition; warp w of a warpgroup reaches partition w % 4
COLOR_BY = ("element", "replica")
ARRANGE = ("auto", "side", "stacked")
_AXES = ("TLane", "TCol", "byte")


def _coord(x, shape):
    return tuple(int(v) for v in np.unravel_index(int(x), shape))


def tmem_table(layout, shape=None):
    """Where a TMEM layout puts each element, as arrays over TMEM positions.

    Returns ``(elem, rep, count, nbytes)``: ``elem[lane, col, byte]`` is the logical index
    (row-major over ``shape``) of the lowest element placed there, ``-1`` where nothing is;
    ``rep`` is that copy's replica number; ``count`` how many copies land there (more than
    one means two elements collide); ``nbytes`` is 4 when the layout uses the ``byte`` axis,
    else 1. ``shape`` is the logical shape (default: the layout's own shape).

    >>> import labkit as lk
    >>> elem, rep, count, nbytes = tmem_table(lk.scale_factor_layout(128, 4))
    >>> elem.shape, nbytes, int(elem[96, 2, 2]), int(rep[96, 2, 2])   # SFA[64, 2] = 64*4 + 2
    ((128, 4, 4), 4, 258, 3)
    """
    if not (hasattr(layout, "table") and hasattr(layout, "axes")):
        raise LayoutError(f"layout must be a named-axis layout (labkit.axe.AxeLayout), got "
                          f"{type(layout).__name__}")
    axes = tuple(layout.axes)
    extra = [a for a in axes if a not in _AXES]
    if "TLane" not in axes or "TCol" not in axes or extra:
        raise LayoutError(f"layout {layout} must place elements on TLane and TCol (and optionally byte); "
                          f"its axes are {axes}")
    shape = tuple(layout.shape) if shape is None else shape
    tab = layout.table(shape=shape)            # checks shape against the layout's size
    n = int(layout.size)
    lane = tab["TLane"].reshape(n, -1)
    col = tab["TCol"].reshape(n, -1)
    nbytes = 4 if "byte" in axes else 1
    byte = tab["byte"].reshape(n, -1) if "byte" in axes else np.zeros_like(lane)
    if byte.min() < 0 or byte.max() > 3:
        raise LayoutError(f"layout {layout} reaches byte {int(byte.min())}..{int(byte.max())}; a 32-bit "
                          "TMEM column holds bytes 0..3")
    if lane.min() < 0 or lane.max() >= TMEM_LANES or col.min() < 0 or col.max() >= TMEM_COLS:
        raise LayoutError(f"layout {layout} reaches outside TMEM's {TMEM_LANES} lanes x {TMEM_COLS} columns")
    ncols = int(col.max()) + 1
    elem = np.full((TMEM_LANES, ncols, nbytes), -1, dtype=np.int64)
    rep = np.full((TMEM_LANES, ncols, nbytes), -1, dtype=np.int64)
    count = np.zeros((TMEM_LANES, ncols, nbytes), dtype=np.int64)
    xs = np.broadcast_to(np.arange(n)[:, None], lane.shape)
    rs = np.broadcast_to(np.arange(lane.shape[1])[None, :], lane.shape)
    flat = (lane * ncols + col) * nbytes + byte
    np.add.at(count.reshape(-1), flat.ravel(), 1)
    order = np.lexsort((rs.ravel(), xs.ravel()))[::-1]        # lowest (x, r) written last, so it wins
    elem.reshape(-1)[flat.ravel()[order]] = xs.ravel()[order]
    rep.reshape(-1)[flat.ravel()[order]] = rs.ravel()[order]
    return elem, rep, count, nbytes


def _viridis(values, vmax):
    from matplotlib import colormaps
    frac = values / vmax if vmax > 0 else np.zeros(values.shape)
    return colormaps["viridis"](0.15 + 0.85 * np.clip(frac, 0, 1))[..., :3]


def draw_tmem(layout, *, shape=None, name: str = "x", highlight=None, tcols=None, color_by: str = "element",
              arrange: str = "auto", ax=None, title: str | None = None):
    """Draw TMEM as a layout fills it: 128 lanes x TCols (x 4 bytes when the layout uses ``byte``).

    The lanes are drawn as four partitions of 32 (one per warp; side by side when the
    columns are few, stacked otherwise, or as ``arrange`` says). ``color_by="element"``
    shades each position by the logical index of the element it holds (viridis), so
    replicas repeat the same colours; ``"replica"`` colours by replica number (Okabe-Ito).
    Cells large enough carry the element's logical coordinate (over ``shape``, default the
    layout's shape). ``highlight``, one coordinate or a list, outlines every copy of those
    elements; ``tcols=(lo, hi)`` draws only columns ``lo..hi-1``. ``fig.blocks`` names the
    blocks ``"partition 0"`` .. ``"partition 3"`` (rows = local lanes, columns = TCol x byte).
    """
    if color_by not in COLOR_BY:
        raise LayoutError(f"color_by must be one of {COLOR_BY}, got {color_by!r}")
    if arrange not in ARRANGE:
        raise LayoutError(f"arrange must be one of {ARRANGE}, got {arrange!r}")
    shape = tuple(layout.shape) if shape is None and hasattr(layout, "shape") else shape
    elem, rep, count, nbytes = tmem_table(layout, shape)
    shape = tuple(int(s) for s in shape)
    ncols_all = elem.shape[1]
    if tcols is None:
        lo, hi = 0, ncols_all
    elif isinstance(tcols, (tuple, list)) and len(tcols) == 2:
        lo, hi = tcols
    else:
        lo = hi = None
    if not (isinstance(lo, (int, np.integer)) and isinstance(hi, (int, np.integer)) and 0 <= lo < hi <= TMEM_COLS):
        raise LayoutError(f"tcols must be a pair (lo, hi) with 0 <= lo < hi <= {TMEM_COLS}, got {tcols!r}")
    lo, hi = int(lo), int(hi)
    if hi > ncols_all:                              # columns the layout leaves empty
        pad = ((0, 0), (0, hi - ncols_all), (0, 0))
        elem, rep, count = (np.pad(a, pad, constant_values=v) for a, v in ((elem, -1), (rep, -1), (count, 0)))
    elem, rep, count = elem[:, lo:hi], rep[:, lo:hi], count[:, lo:hi]
    ncols = hi - lo
    width = ncols * nbytes                          # cells per lane
    held = elem >= 0
    if color_by == "element":
        rgb = _viridis(elem.astype(float), float(max(1, int(np.prod(shape)) - 1)))
    else:
        rgb = np.zeros(elem.shape + (3,))
        for r in np.unique(rep[held]):
            h = category_color(int(r)).lstrip("#")
            rgb[rep == r] = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    rgb[~held] = 1.0
    rgb = rgb.reshape(TMEM_LANES, width, 3)
    texts = None
    if width * PARTITION_LANES <= 4096:
        lab = [",".join(str(c) for c in _coord(x, shape)) if x >= 0 else "" for x in elem.reshape(-1)]
        plus = count.reshape(-1) > 1
        lab = [s + "+" if p else s for s, p in zip(lab, plus)]
        texts = [lab[i * width:(i + 1) * width] for i in range(TMEM_LANES)]

    # geometry: partitions side by side (few columns) or stacked; margins sized in points
    side = arrange == "side" or (arrange == "auto" and width <= 32)
    if side:
        gap = 2
        w_units = 4 * width + 3 * gap
        cell_pt = min(72.0 * min(MAX_CELL_IN, BOOK_WIDTH_IN / (w_units + 2.5)),
                      (72.0 * MAX_HEIGHT_IN - 80.0) / PARTITION_LANES)   # captions take about 80 pt
        left = 30.0 / cell_pt
        narrow = width * cell_pt < 100              # partition caption on two lines
        top = (46.0 if narrow else 36.0) / cell_pt
        h_units = PARTITION_LANES
        origins = [(p * (width + gap), 0.0) for p in range(4)]
    else:
        cell_pt = 72.0 * min(MAX_CELL_IN, (BOOK_WIDTH_IN - 0.9) / width,
                             (MAX_HEIGHT_IN - 0.9) / (TMEM_LANES + 2))
        left = 64.0 / cell_pt
        top = 36.0 / cell_pt
        gap = 4.0 / cell_pt
        narrow = False
        h_units = TMEM_LANES + 3 * gap
        w_units = width
        origins = [(0.0, p * (PARTITION_LANES + gap)) for p in range(4)]
    bottom = 22.0 / cell_pt
    fig, ax = new_figure(-left, w_units + 0.3, -top, h_units + bottom, ax=ax, max_height_in=MAX_HEIGHT_IN)
    marks_by_part: list[list] = [[] for _ in range(4)]
    spots = []
    if highlight is None:
        hl = []
    elif isinstance(highlight, list) or (isinstance(highlight, tuple) and highlight
                                         and isinstance(highlight[0], (tuple, list))):
        hl = list(highlight)
    else:
        hl = [highlight]
    for h in hl:
        try:
            x = int(np.ravel_multi_index(tuple(int(c) for c in h), shape))
        except (TypeError, ValueError):
            raise LayoutError(f"highlight: {h!r} is not a coordinate of shape {shape}") from None
        where = []
        for lane, c, b in zip(*np.nonzero(elem == x)):
            marks_by_part[lane // PARTITION_LANES].append((lane % PARTITION_LANES, c * nbytes + b, MARK))
            where.append((int(lane), int(c) + lo, int(b)))
        spots.append((h, sorted(where)))
    pts = _cell_points(ax)
    fs = None
    if texts:
        longest = max((len(t) for row in texts for t in row), default=1)
        fs = max(4.5, min(10.0, 0.95 * pts / max(1, longest) * 1.6, 0.8 * pts))
    step = next(s for s in (1, 2, 4, 8, 16, 32, 64, 128, 256) if s * nbytes * cell_pt >= 22 or s == 256)
    for p, (x0, y0) in enumerate(origins):
        rows = slice(p * PARTITION_LANES, (p + 1) * PARTITION_LANES)
        draw_cells(ax, texts[rows] if texts else None, rgb[rows], x0=x0, y0=y0,
                   bold_rows=PARTITION_LANES, bold_cols=nbytes if nbytes > 1 else None,
                   marks=marks_by_part[p], fontsize=fs, border="#666" if width * PARTITION_LANES <= 4096 else "#bbb")
        add_block(ax, f"partition {p}", x0, y0, PARTITION_LANES, width)
        tag = f"warp {p}: TLane {p * PARTITION_LANES}-{(p + 1) * PARTITION_LANES - 1}"
        if side:
            ax.text(x0 + width / 2, y0 - 14.0 / cell_pt, tag.replace(": ", "\n") if narrow else tag,
                    ha="center", va="bottom", fontsize=8, color="#333")
        else:
            ax.text(x0 - 4.0 / cell_pt, y0 + PARTITION_LANES / 2, tag.replace(": ", "\n"), ha="right",
                    va="center", fontsize=8, color="#333")
        if side or p == 0:
            for c in range(0, ncols, step):
                ax.text(x0 + (c + 0.5) * nbytes if nbytes > 1 else x0 + c + 0.5, y0 - 2.0 / cell_pt,
                        str(c + lo), ha="center", va="bottom", fontsize=8, color="#444")
        if side and p == 0:
            for r in range(0, PARTITION_LANES, 8):
                ax.text(x0 - 3.0 / cell_pt, y0 + r + 0.5, str(r), ha="right", va="center", fontsize=8, color="#444")
    what = f"{name} {'x'.join(str(s) for s in shape)}"
    head = title or f"{what} in TMEM: {layout}"
    ax.text(-left + 2.0 / cell_pt, -top + 2.0 / cell_pt, head, ha="left", va="top", fontsize=9, color="#000")
    foot = "columns: TCol" + (" (4 bytes each)" if nbytes > 1 else "")
    if spots:
        foot += "; outlined: " + ", ".join(f"{name}[{','.join(str(int(c)) for c in h)}]" for h, _ in spots)
    ax.text(-left + 2.0 / cell_pt, h_units + 4.0 / cell_pt, foot, ha="left", va="top", fontsize=8, color="#333")

    nrep = int(getattr(layout, "num_replicas", 1))
    filled = int(held.sum())
    alt = (f"{what} in Blackwell tensor memory ({layout}): 128 lanes in four 32-lane partitions, one per warp, "
           f"{'side by side' if side else 'stacked'}, by {ncols} TCols {lo}..{hi - 1}"
           f"{' of 4 bytes' if nbytes > 1 else ''}; {filled} positions filled, each element in {nrep} "
           f"{'copy' if nrep == 1 else 'copies'}, "
           f"{'shaded by element' if color_by == 'element' else 'coloured by replica'}.")
    for h, where in spots:
        alt += (f" {name}[{','.join(str(int(c)) for c in h)}] sits at (TLane, TCol{', byte' if nbytes > 1 else ''}) "
                + " ".join("(" + ",".join(str(v) for v in (w if nbytes > 1 else w[:2])) + ")" for w in where) + ".")
    return finish(fig, alt)
