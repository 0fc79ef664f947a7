"""``ldmatrix`` routing as data and as a drawing: which source lane's row feeds each element,
and which destination lane and slot receive it.

>>> import matplotlib; matplotlib.use("Agg")
>>> atom, route = routing("SM75_U32x1_LDSM_N")
>>> route[2]                # element 2 of matrix 0, row 0: from lane 0, to lane 1 slot 0
((0, 2), (1, 0))
>>> draw_ldmatrix_routing("SM75_U32x1_LDSM_N").alt_text[:24]
'ldmatrix SM75_U32x1_LDSM'
"""

from __future__ import annotations

import numpy as np

from labkit.viz.grid import draw_cells, finish, new_figure
from labkit.viz.palette import thread_color
from labkit.viz.tables import _colex_values, flat

__all__ = ["routing", "draw_ldmatrix_routing"]


def routing(name: str, element_type: str = "f16"):
    """``(atom, {e: ((src_lane, src_value), (dst_lane, dst_slot))})`` for copy atom ``name``,
    from its source and destination TV layouts (where a layout broadcasts, the lowest lane)."""
    from labkit.atoms import copy_atom
    atom = copy_atom(name, element_type)
    out: dict[int, dict] = {}
    for side, L in (("src", atom.layout_src), ("dst", atom.layout_dst)):
        nt = int(np.prod(flat(L.shape[0])))
        vals = _colex_values(L, 0)
        tab = vals.reshape(len(vals) // nt, nt).T
        for t in range(nt - 1, -1, -1):
            for v in range(tab.shape[1] - 1, -1, -1):
                out.setdefault(int(tab[t, v]), {})[side] = (t, v)
    return atom, {e: (d["src"], d["dst"]) for e, d in sorted(out.items())}


def draw_ldmatrix_routing(name: str = "SM75_U32x4_LDSM_N", *, ax=None):
    """Left: the 8x8 source matrices, rows labelled with the lane that supplies the address,
    each element labelled with its destination ``lane:slot``; right: the 32 destination lanes
    with the matrix element each slot receives. Colour = destination lane."""
    atom, route = routing(name)
    nmat, nslot = len(route) // 64, len(route) // 32
    src_fill = [["#ffffff"] * (8 * nmat + nmat - 1) for _ in range(8)]
    src_text = [[None] * (8 * nmat + nmat - 1) for _ in range(8)]
    dst_fill = [["#ffffff"] * nslot for _ in range(32)]
    dst_text = [[None] * nslot for _ in range(32)]
    row_lane = {}
    for e, ((st, _), (dt, dv)) in route.items():
        j, rem = divmod(e, 64)
        r, c = divmod(rem, 8)
        col = j * 9 + c
        src_fill[r][col] = thread_color(dt)
        src_text[r][col] = f"{dt}:{dv}"
        dst_fill[dt][dv] = thread_color(dt)
        dst_text[dt][dv] = f"m{j}\n{r},{c}"
        row_lane.setdefault((j, r), st)
    width = 8 * nmat + nmat - 1
    fig, ax = new_figure(-2.5, width + 4 + nslot, -2.0, 32.3, ax=ax)
    draw_cells(ax, src_text, src_fill, title=f"{name}: source matrices (dst lane:slot)")
    for j in range(nmat):
        for r in range(8):
            ax.text(j * 9 - 0.1, r + 0.5, f"L{row_lane[(j, r)]}", ha="right", va="center", fontsize=5, color="#444")
    draw_cells(ax, dst_text, dst_fill, x0=width + 3, row_header=[f"L{t}" for t in range(32)],
               col_header=range(nslot), title="destination slots")
    return finish(fig, f"ldmatrix {name}: {nmat} source matrices of 8x8, each row read from one lane's "
                       f"address, routed to 32 lanes x {nslot} slots; element (0,2) of matrix 0 goes to "
                       f"lane {route[2][1][0]} slot {route[2][1][1]}.")
