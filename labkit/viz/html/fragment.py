"""Seed 001's register-fragment figure: an 8x8 tile spread over 32 lanes x 2 slots.

Element (5, 3), index 43, lives in lane 21, slot 1.

>>> fig = fragment_figure()
>>> k = fig.find(coordinate=(5, 3), view="logical")[0]
>>> fig.cells[k]["info"]["laneid"], fig.cells[k]["info"]["reg (slot)"]
(21, 1)
"""

from __future__ import annotations

from labkit.viz.html.blocks import caption, headers, matrix
from labkit.viz.html.figure import HtmlFigure
from labkit.viz.palette import thread_color

__all__ = ["fragment_figure"]


def fragment_figure() -> HtmlFigure:
    """The m8n8 fragment ``labkit.axe.m8n8_fragment_layout()``: click an element of the logical
    matrix (or a register slot) to see its lane and slot; the lane's other element lights up."""
    from labkit.axe import m8n8_fragment_layout
    L = m8n8_fragment_layout()
    t = L.table(shape=(8, 8), replicas=False)
    lane, reg = t["laneid"], t["reg"]
    nreg = int(reg.max()) + 1
    fig = HtmlFigure("fragment", title=f"An 8x8 register fragment: {L}",
                     alt="Left, a logical 8x8 matrix numbered 0 to 63; right, the 32 lanes of a warp "
                         f"with {nreg} slots each, showing which element every slot holds; element (5,3) "
                         f"is in lane {int(lane[5, 3])}, slot {int(reg[5, 3])}.")
    fig.relation("same lane")

    def facts(i, j, view):
        return {"coordinate": (i, j), "x": L.index((i, j), shape=(8, 8)),
                "laneid": int(lane[i, j]), "reg (slot)": int(reg[i, j]), "view": view}

    cw, ch = 36, 28
    x0, y0 = 30, 40
    caption(fig, x0, 10, "Logical 8x8 matrix")
    headers(fig, x0, y0, 8, 8, cw, ch, row_label=lambda i: f"r{i}", col_label=lambda j: f"c{j}")
    matrix(fig, x0, y0, 8, 8, cw, ch, fill=lambda i, j: thread_color(int(lane[i, j])),
           text=lambda i, j: str(L.index((i, j), shape=(8, 8))),
           info=lambda i, j: facts(i, j, "logical"), link=lambda i, j: i * 8 + j,
           rel=lambda i, j: {"same lane": int(lane[i, j])})
    # registers: lanes in 8 rows x 4 columns, each lane a box of nreg slots
    where = {(int(lane[i, j]), int(reg[i, j])): (i, j) for i in range(8) for j in range(8)}
    nl = int(lane.max()) + 1
    rx = x0 + 8 * cw + 70
    sw, gap = 30, 26
    caption(fig, rx - 20, 10, f"Warp registers: {nl} lanes x {nreg} slots")
    for ln in range(nl):
        bx = rx + (ln % 4) * (nreg * sw + gap)
        by = y0 + (ln // 4) * ch
        fig.text(bx - 3, by + ch / 2, f"L{ln}", size=10, anchor="end", fill="#555")
        for s in range(nreg):
            i, j = where[(ln, s)]
            fig.cell(bx + s * sw, by, sw, ch, fill=thread_color(ln), text=f"{i},{j}", font=10,
                     info=facts(i, j, "registers"), link=i * 8 + j, rel={"same lane": ln})
    fig.select(fig.find(coordinate=(5, 3), view="logical")[0])
    return fig
