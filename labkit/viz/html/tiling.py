"""Seed 001's tiling figure: an 8x8 matrix stored as 2x4 tiles, logical view and memory.

>>> fig = tiling_figure()
>>> k = fig.find(coordinate=(3, 5), view="logical")[0]
>>> fig.cells[k]["info"]["address f_D(x)"], fig.cells[k]["info"]["tile coordinate"]
(29, (1, 1))
"""

from __future__ import annotations

from labkit.viz.html.blocks import caption, headers, matrix
from labkit.viz.html.figure import HtmlFigure
from labkit.viz.palette import category_color, light_color

__all__ = ["tiling_figure"]


def tiling_figure(matrix_shape=(8, 8), tile_shape=(2, 4)) -> HtmlFigure:
    """A matrix stored tile by tile (``labkit.axe.axe_tiled_layout``): click a cell of the logical
    matrix or of memory to see its index ``x``, the unflattened coordinate
    ``(tile_row, row_in_tile, tile_col, col_in_tile)``, the tile coordinate and the address
    ``f_D(x)``; the other view of the same element and the rest of its tile light up.
    """
    from labkit.axe import axe_tiled_layout
    L = axe_tiled_layout(matrix_shape, tile_shape)
    M, N = (int(v) for v in matrix_shape)
    tm, tn = (int(v) for v in tile_shape)
    addr = L.table(shape=(M, N), replicas=False)["m"]
    ntc = N // tn
    fig = HtmlFigure("tiling", title=f"A {M}x{N} matrix stored as {tm}x{tn} tiles: {L}",
                     alt=f"Left, the logical {M}x{N} matrix cut into {tm}x{tn} tiles, each cell showing "
                         f"its memory address under {L}; right, memory addresses 0 to {M * N - 1} in "
                         f"order, each showing which matrix element it holds.")
    fig.relation("same tile")

    def facts(i, j):
        x = L.index((i, j), shape=(M, N))
        c = L.coordinate(x)
        return {"coordinate": (i, j), "x = i*%d + j" % N: x,
                "unflatten(x; %s)" % ",".join(str(e) for e in L.shape): c,
                "tile coordinate": (c[0], c[2]), "in tile": (c[1], c[3]),
                "address f_D(x)": int(addr[i, j])}

    def tile_of(i, j):
        return (i // tm) * ntc + j // tn

    def fill(i, j):
        t = tile_of(i, j)
        return category_color(t) if ((i // tm) + (j // tn)) % 2 == 0 else light_color(t)

    cw, ch = 34, 26
    x0, y0 = 30, 40
    caption(fig, x0, 10, "Logical matrix (address in each cell)")
    headers(fig, x0, y0, M, N, cw, ch)
    matrix(fig, x0, y0, M, N, cw, ch, fill=fill, text=lambda i, j: str(addr[i, j]),
           info=lambda i, j: {**facts(i, j), "view": "logical"},
           link=lambda i, j: i * N + j, rel=lambda i, j: {"same tile": tile_of(i, j)})
    for ti in range(M // tm + 1):
        fig.line(x0, y0 + ti * tm * ch, x0 + N * cw, y0 + ti * tm * ch, width=2.5)
    for tj in range(N // tn + 1):
        fig.line(x0 + tj * tn * cw, y0, x0 + tj * tn * cw, y0 + M * ch, width=2.5)
    # memory: addresses in rows of N, the element each holds
    where = {int(addr[i, j]): (i, j) for i in range(M) for j in range(N)}
    mx = x0 + N * cw + 60
    caption(fig, mx, 10, "Memory (element held at each address)")
    headers(fig, mx, y0, M, N, cw, ch, row_label=lambda r: f"{r * N}", col_label=lambda c: f"+{c}")

    def mem(r, c):
        return where[r * N + c]

    matrix(fig, mx, y0, M, N, cw, ch, fill=lambda r, c: fill(*mem(r, c)),
           text=lambda r, c: "%d,%d" % mem(r, c), font=10,
           info=lambda r, c: {**facts(*mem(r, c)), "view": "memory"},
           link=lambda r, c: mem(r, c)[0] * N + mem(r, c)[1],
           rel=lambda r, c: {"same tile": tile_of(*mem(r, c))})
    sel = fig.find(coordinate=(3, 5), view="logical") if M > 3 and N > 5 else [0]
    fig.select(sel[0] if sel else 0)
    return fig
