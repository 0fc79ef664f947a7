"""Seed 001's mesh figure: an 8x8 matrix on a 2x2 GPU mesh, in three modes.

>>> fig = mesh_figure()
>>> k = fig.find(coordinate=(6, 3), mode="replica")[0]
>>> fig.cells[k]["info"]["devices (gpuid_x, gpuid_y)"], fig.cells[k]["info"]["local offset"]
('(0,1) (1,1)', 19)
"""

from __future__ import annotations

from labkit.viz.html.blocks import caption, headers, matrix
from labkit.viz.html.figure import HtmlFigure
from labkit.viz.palette import EMPTY, category_color, light_color

__all__ = ["mesh_figure"]

_LABELS = {"sharded": "fully sharded", "replica": "shard + replica", "offset": "shard + offset"}


def mesh_figure() -> HtmlFigure:
    """``labkit.axe.mesh_layout(mode)`` for the three modes (buttons switch): click an element
    of the matrix or of a device's memory; every device holding it lights up."""
    from labkit.axe import MESH_MODES, mesh_layout
    fig = HtmlFigure("mesh", title="An 8x8 matrix on a 2x2 GPU mesh",
                     alt="An 8x8 matrix and the local memories of four GPUs in a 2x2 mesh, for three "
                         "placements: fully sharded, shard plus replica over gpuid_x, shard plus offset "
                         "on gpuid_x; element (1,2,3) is at local offset 19.")
    modes = list(MESH_MODES)
    start = modes.index("replica") if "replica" in modes else 0
    ctl = fig.control("mode", [_LABELS.get(m, m) for m in modes], default=start)
    fig.relation("same device")
    cw, ch = 30, 24
    x0, y0 = 30, 60
    dcw = 24                      # device cells: narrower, so the figure fits a book column
    dw = 8 * dcw + 20
    for o, mode in enumerate(modes):
        L = mesh_layout(mode)
        when = {ctl: o}
        tab = L.table(shape=(8, 8))
        gx, gy, off = tab["gpuid_x"], tab["gpuid_y"], tab["m"]
        nrep = gx.shape[-1]
        fig.text(x0, 32, str(L), size=11, anchor="start", when=when, fill="#0072B2")

        def devs(i, j):
            return " ".join(f"({int(gx[i, j, r])},{int(gy[i, j, r])})" for r in range(nrep))

        def facts(i, j, view):
            return {"coordinate": (i, j), "(y, row, col)": (i // 4, i % 4, j),
                    "devices (gpuid_x, gpuid_y)": devs(i, j), "local offset": int(off[i, j, 0]),
                    "mode": mode, "view": view}

        def fill(i, j):
            d = int(gx[i, j, 0]) + 2 * int(gy[i, j, 0])
            return category_color(d) if nrep == 1 else light_color(2 * int(gy[i, j, 0]) + 1)

        caption(fig, x0, 10, "Logical 8x8 matrix", when=when)
        headers(fig, x0, y0, 8, 8, cw, ch, when=when)
        matrix(fig, x0, y0, 8, 8, cw, ch, fill=fill, text=lambda i, j: str(int(off[i, j, 0])), font=10,
               info=lambda i, j: facts(i, j, "matrix"), link=lambda i, j: i * 8 + j,
               rel=lambda i, j: {"same device": f"{int(gx[i, j, 0])},{int(gy[i, j, 0])}"}, when=when)
        # devices: a 2x2 grid, each with 32 local offsets drawn as 4 x 8
        mx = x0 + 8 * cw + 40
        caption(fig, mx, 10, "Device memories (element held at each local offset)", when=when)
        held = {}
        for i in range(8):
            for j in range(8):
                for r in range(nrep):
                    held[(int(gx[i, j, r]), int(gy[i, j, r]), int(off[i, j, r]))] = (i, j)
        for dx in range(2):
            for dy in range(2):
                bx = mx + dx * dw
                by = y0 + dy * (4 * ch + 34)
                fig.text(bx, by - 10, f"GPU (gpuid_x={dx}, gpuid_y={dy})", size=10, anchor="start", when=when)
                for slot in range(32):
                    r_, c_ = divmod(slot, 8)
                    e = held.get((dx, dy, slot))
                    if e is None:
                        fig.cell(bx + c_ * dcw, by + r_ * ch, dcw, ch, fill=EMPTY, text="", when=when,
                                 info={"device": (dx, dy), "local offset": slot, "holds": "nothing",
                                       "mode": mode, "view": "device"}, faint=True)
                    else:
                        i, j = e
                        fig.cell(bx + c_ * dcw, by + r_ * ch, dcw, ch, fill=fill(i, j), text=f"{i},{j}", font=10,
                                 info={**facts(i, j, "device"), "device": (dx, dy)},
                                 link=i * 8 + j, rel={"same device": f"{dx},{dy}"}, when=when)
    fig.select(fig.find(coordinate=(6, 3), mode=modes[start], view="matrix")[0])
    return fig
