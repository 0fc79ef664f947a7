"""A ragged matrix cut into 128x128 tiles: which blocks are partial, and in one tile how many
values each thread copies under each tiled copy of :mod:`labkit.lab.predicated_copy`.

>>> import matplotlib; matplotlib.use("Agg")
>>> fig = draw_ragged((1000, 776))
>>> print(fig.alt_text.split(". ")[0])
Three panels: the 8 by 7 blocks of a 1000 by 776 matrix in 128 by 128 tiles, 14 of them partial
"""

from __future__ import annotations

import numpy as np

from labkit.lab.predicated_copy import KINDS, ragged_tiles, value_mask
from labkit.viz.grid import BOOK_WIDTH_IN, add_block, draw_cells, finish, new_figure
from labkit.viz.palette import EMPTY, OKABE_ITO, value_color

__all__ = ["thread_counts", "draw_ragged"]

_THREADS = {"scalar": (32, 8), "vector": (16, 16)}     # the thread layouts, column-major


def thread_counts(shape, block, kind: str = "scalar") -> np.ndarray:
    """Values thread ``(tm, tn)`` copies in block ``block``, arranged as the thread layout
    (``t = tm + rows * tn``).

    >>> thread_counts((1000, 776), (7, 6), "vector")[:, 7].tolist()[11:15]
    [1, 1, 0, 0]
    """
    rows, cols = _THREADS[kind]
    return value_mask(shape, block, kind).sum(axis=1).reshape(cols, rows).T


def draw_ragged(shape, block=None, *, ax=None):
    """Left: the grid of blocks, full ones blue, partial ones orange, ``block`` outlined (default:
    the last). Middle and right: in ``block``, the values each thread copies with the scalar
    copy (threads (32,8)) and with the 16-byte copy (threads (16,16)); white: the thread copies
    nothing."""
    r = ragged_tiles(shape)
    gm, gn = r["grid"]
    block = (gm - 1, gn - 1) if block is None else tuple(block)
    counts = {k: thread_counts(shape, block, k) for k in KINDS}
    vmax = max(int(c.max()) for c in counts.values())
    gap = 3
    widths = [gn] + [_THREADS[k][1] for k in KINDS]
    height = max(gm, *(_THREADS[k][0] for k in KINDS))
    x = np.cumsum([0] + [w + gap for w in widths])
    fig, ax = new_figure(-1, x[-1] - gap, -2.5, height, ax=ax, max_height_in=BOOK_WIDTH_IN)
    partial = set(r["partial"])
    fills = [[OKABE_ITO[0] if (i, j) in partial else OKABE_ITO[1] for j in range(gn)] for i in range(gm)]
    draw_cells(ax, None, fills, x0=x[0], y0=0, title="blocks", marks=[(block[0], block[1], "#000")])
    add_block(ax, "blocks", x[0], 0, gm, gn)
    for k, x0 in zip(KINDS, x[1:]):
        c = counts[k]
        f = [[EMPTY if v == 0 else value_color(v, vmax) for v in row] for row in c]
        draw_cells(ax, [[str(v) for v in row] for row in c], f, x0=x0, y0=0, title=f"{k} copy: values per thread")
        add_block(ax, k, x0, 0, *c.shape)
    m, n = shape
    lt = r["last_tile"] if block == (gm - 1, gn - 1) else None
    idle = {k: int((counts[k] == 0).sum()) for k in KINDS}
    alt = (f"Three panels: the {gm} by {gn} blocks of a {m} by {n} matrix in 128 by 128 tiles, "
           f"{r['partial_blocks']} of them partial. "
           + (f"The last tile holds {lt[0]} by {lt[1]} elements of the matrix. " if lt else "")
           + f"In block {block}, each of the 256 threads copies between {int(counts['scalar'].min())} and "
           f"{int(counts['scalar'].max())} single halves with the scalar copy; with the 16-byte copy "
           f"{256 - idle['vector']} threads copy one vector or more and {idle['vector']} copy nothing.")
    return finish(fig, alt)
