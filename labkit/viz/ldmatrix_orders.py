"""The mistaken and the right assignment of ``ldmatrix.x4``'s matrices to the A operand of
``mma.m16n8k16``, side by side (data from :mod:`labkit.lab.ldmatrix_order`).

>>> import matplotlib; matplotlib.use("Agg")
>>> fig = draw_x4_orders()
>>> fig.alt_text[:40]
'Two 16 by 16 grids of the A tile. Left, '
"""

from __future__ import annotations

from labkit.lab.ldmatrix_order import x4_assignment, x4_origins
from labkit.viz.grid import add_block, draw_cells, finish, new_figure
from labkit.viz.palette import category_color, light_color

__all__ = ["draw_x4_orders"]

_TITLES = {"mistaken": "mistaken: blocks row by row", "cute": "right: CuTe / the MMA's a0..a3"}


def draw_x4_orders(orders=("mistaken", "cute"), *, ax=None):
    """One 16x16 A tile per order: every element labelled with the lane that receives it and
    coloured by the destination register ``a0..a3`` (= the ldmatrix matrix); the matrix number
    is printed in the middle of each 8x8 block. Returns a figure with ``alt_text``."""
    grids = []
    for order in orders:
        asg = x4_assignment(order)
        labels = [[str(asg[m, k, 0]) for k in range(16)] for m in range(16)]
        fills = [[(category_color if asg[m, k, 2] == 0 else light_color)(asg[m, k, 1])
                  for k in range(16)] for m in range(16)]
        grids.append((order, labels, fills))
    gap = 3
    width = 16 * len(grids) + gap * (len(grids) - 1)
    fig, ax = new_figure(-1.5, width + 0.5, -2.2, 19.4, ax=ax)
    for i, (order, labels, fills) in enumerate(grids):
        x0 = i * (16 + gap)
        draw_cells(ax, labels, fills, x0=x0, row_header=[f"m{m}" if m % 4 == 0 else "" for m in range(16)],
                   col_header=[f"k{k}" if k % 4 == 0 else "" for k in range(16)], title=_TITLES.get(order, order),
                   bold_rows=8, bold_cols=8)
        add_block(ax, order, x0, 0, 16, 16)
        # which ldmatrix matrix fills each 8x8 block, said under the grid (not over its cells)
        where = {(0, 0): "top left", (0, 8): "top right", (8, 0): "bottom left", (8, 8): "bottom right"}
        blocks = sorted(((m0, k0), j) for j, (m0, k0) in enumerate(x4_origins(order)))
        for line, half in enumerate((blocks[:2], blocks[2:])):
            ax.text(x0 + 8, 16.6 + 0.9 * line, ";  ".join(f"{where[mk]}: matrix {j} → a{j}" for mk, j in half),
                    ha="center", va="center", fontsize=8, color="#000")
    ax.text(width / 2, 18.8, "cell: receiving lane; colour: register a0..a3 (dark = low half, light = high half)",
            ha="center", va="center", fontsize=8, color="#333")
    names = " and ".join(orders)
    return finish(fig, f"Two 16 by 16 grids of the A tile. Left, the {orders[0]} order, right, the "
                       f"{orders[-1]} order ({names}); each element shows the lane that receives it and is "
                       "coloured by the register. In the right order register a1 covers rows 8 to 15 at "
                       "K 0 to 7 and a2 rows 0 to 7 at K 8 to 15; in the mistaken order the two are swapped.")
