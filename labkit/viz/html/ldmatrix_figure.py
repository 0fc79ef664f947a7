"""``ldmatrix`` routing: which lane supplies each 8x8 matrix row, and which lane and slot
receive each element, for the x1, x2 and x4 variants (and ``.trans``).

>>> fig = ldmatrix_figure()
>>> k = fig.find(variant="SM75_U32x4_LDSM_N", matrix=0, row=0, col=2, view="source")[0]
>>> fig.cells[k]["info"]["destination lane"], fig.cells[k]["info"]["slot"]
(1, 0)
"""

from __future__ import annotations

from labkit.viz.html.figure import HtmlFigure
from labkit.viz.palette import thread_color
from labkit.viz.routing import routing

__all__ = ["ldmatrix_figure", "VARIANTS"]

VARIANTS = ("SM75_U32x1_LDSM_N", "SM75_U32x2_LDSM_N", "SM75_U32x4_LDSM_N", "SM75_U16x8_LDSM_T")


def ldmatrix_figure(variants=VARIANTS) -> HtmlFigure:
    """Source matrices (rows labelled by the lane whose address feeds them) and destination
    registers (32 lanes x slots). Click an element: its destination slot lights up; choose to
    highlight the source row's lane or the destination lane."""
    fig = HtmlFigure("ldmatrix", title="ldmatrix: source rows to destination lanes and slots",
                     alt="Left, the 8x8 matrices an ldmatrix reads, each row labelled with the lane that "
                         "supplies its address; right, the 32 destination lanes with their 16-bit slots, "
                         "each showing the matrix element it receives.")
    ctl = fig.control("variant", [v.replace("SM75_", "") for v in variants], default=min(2, len(variants) - 1))
    fig.relation("same source lane")
    fig.relation("same destination lane")
    cw, ch = 22, 18
    for o, name in enumerate(variants):
        atom, route = routing(name)
        when = {ctl: o}
        nmat = len(route) // 64
        nslot = len(route) // 32
        fig.text(10, 12, f"{name} ({atom.ptx}), 16-bit elements", size=10, anchor="start", when=when,
                 fill="#0072B2")
        fig.text(10, 28, f"src {atom.layout_src}, dst {atom.layout_dst}", size=10, anchor="start", when=when,
                 fill="#0072B2")
        y0 = 58
        for e, ((st, sv), (dt, dv)) in route.items():
            j, rem = divmod(e, 64)
            r, c = divmod(rem, 8)
            bx = 40 + (j % 2) * (8 * cw + 36)
            by = y0 + (j // 2) * (8 * ch + 30)
            if r == 0 and c == 0:
                fig.text(bx, by - 8, f"matrix {j}", size=10, anchor="start", weight="600", when=when)
            if c == 0:
                fig.text(bx - 3, by + r * ch + ch / 2, f"L{st}", size=10, anchor="end", fill="#555", when=when)
            info = {"variant": name, "matrix": j, "row": r, "col": c, "copy element e": e,
                    "source lane (row address)": st, "destination lane": dt, "slot": dv,
                    "register": f"r{dv // 2}, {'low' if dv % 2 == 0 else 'high'} 16 bits"}
            fig.cell(bx + c * cw, by + r * ch, cw, ch, fill=thread_color(dt), text=f"{r},{c}", font=10,
                     info={**info, "view": "source"}, link=e,
                     rel={"same source lane": st, "same destination lane": dt}, when=when)
            rx = 40 + 2 * (8 * cw + 36) + 24
            sw = 18 if nslot <= 4 else 13
            lx = rx + (dt % 2) * (nslot * sw + 30)
            ly = y0 + (dt // 2) * ch
            if dv == 0:
                fig.text(lx - 3, ly + ch / 2, f"L{dt}", size=10, anchor="end", fill="#555", when=when)
            fig.cell(lx + dv * sw, ly, sw, ch, fill=thread_color(dt), text=f"{j}" if sw >= 13 else None, font=10,
                     info={**info, "view": "destination"}, link=e,
                     rel={"same source lane": st, "same destination lane": dt}, when=when)
        fig.text(40 + 2 * (8 * cw + 36) + 10, 46, f"32 lanes x {nslot} slots (number = matrix)",
                 size=10, anchor="start", when=when)
    first = fig.find(variant=variants[fig.controls[ctl]["default"]], matrix=0, row=0, col=2, view="source")
    if first:
        fig.select(first[0])
    return fig
