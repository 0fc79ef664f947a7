"""Seed 001's scale-factor figure: SFA (128x4 bytes) packed into a 32-lane base tile and
multicast by ``tcgen05.cp.32x128b.warpx4`` to the four 32-lane TMEM partitions.

>>> fig = sfa_tmem_figure()
>>> k = fig.find(**{"SFA[m, sfk]": (64, 2)})[0]
>>> fig.cells[k]["info"]["(TLane, TCol, byte) copies"]
'(0,2,2) (32,2,2) (64,2,2) (96,2,2)'
"""

from __future__ import annotations

from labkit.viz.html.blocks import caption
from labkit.viz.html.figure import HtmlFigure
from labkit.viz.palette import category_color, light_color

__all__ = ["sfa_tmem_figure"]


def sfa_tmem_figure(mn: int = 128, sf_k: int = 4) -> HtmlFigure:
    """``labkit.axe.scale_factor_layout(mn, sf_k)`` drawn three ways: the logical SFA (m groups
    of 32 rows side by side), the 32-lane base tile (local lane x TCol x byte) and TMEM's
    128 lanes in four partitions. Click a factor: all its copies light up."""
    from labkit.axe import scale_factor_layout
    L = scale_factor_layout(mn, sf_k)
    tab = L.table(shape=(mn, sf_k))
    lane, col, byte = tab["TLane"], tab["TCol"], tab["byte"]
    nrep = lane.shape[-1]
    ncol = int(col.max()) + 1
    fig = HtmlFigure("sfa_tmem", title=f"SFA {mn}x{sf_k} in TMEM with .warpx4: {L}",
                     alt=f"Top left, the {mn}x{sf_k} scale factors SFA; top right, the 32-lane base tile "
                         f"where factor (m, sfk) sits at local lane m%32, column m//32, byte sfk; bottom, "
                         f"the {nrep} TMEM partitions of 32 lanes, each holding a copy of the base tile.")
    fig.relation("same m")
    fig.relation("same TCol")

    def copies(m, k):
        return " ".join(f"({int(lane[m, k, r])},{int(col[m, k, r])},{int(byte[m, k, r])})" for r in range(nrep))

    def facts(m, k, view):
        return {"SFA[m, sfk]": (m, k), "local_lane = m % 32": int(lane[m, k, 0]) % 32,
                "TCol = m // 32": int(col[m, k, 0]), "byte = sfk": int(byte[m, k, 0]),
                "(TLane, TCol, byte) copies": copies(m, k), "view": view}

    def fill(m, k):
        g = int(col[m, k, 0])
        return category_color(g) if k % 2 == 0 else light_color(g)

    cw, ch = 9, 7
    ngroups = mn // 32
    y0 = 48
    # logical SFA: group g = rows 32g..32g+31 drawn as a 32 x sf_k block
    x = 40
    caption(fig, x, 10, f"SFA[m, sfk] ({mn}x{sf_k})")
    fig.text(x - 4, y0 - 10, "m", size=10, anchor="end", fill="#555")
    for g in range(ngroups):
        fig.text(x + sf_k * cw / 2, y0 - 10 - 12 * (g % 2), f"{32 * g}-{32 * g + 31}", size=10, fill="#555")
        for r in range(32):
            for k in range(sf_k):
                m = 32 * g + r
                fig.cell(x + k * cw, y0 + r * ch, cw, ch, fill=fill(m, k), info=facts(m, k, "SFA"),
                         link=m * sf_k + k, rel={"same m": m, "same TCol": int(col[m, k, 0])}, faint=True)
        x += sf_k * cw + 10
    for r in range(0, 32, 8):
        fig.text(36, y0 + r * ch + ch / 2, str(r), size=10, anchor="end", fill="#555")
    # base tile: 32 local lanes x (TCol, byte)
    bx = x + 40
    caption(fig, bx, 10, "32-lane base tile (local lane x TCol.byte)")
    place = {}
    for m in range(mn):
        for k in range(sf_k):
            place[(int(lane[m, k, 0]) % 32, int(col[m, k, 0]), int(byte[m, k, 0]))] = (m, k)
    fig.text(bx - 4, y0 - 10, "TCol", size=10, anchor="end", fill="#555")
    for c in range(ncol):
        fig.text(bx + (c * 4 + 2) * cw, y0 - 10, str(c), size=10, fill="#555")
    for (ll, c, b), (m, k) in sorted(place.items()):
        fig.cell(bx + (c * 4 + b) * cw, y0 + ll * ch, cw, ch, fill=fill(m, k), info=facts(m, k, "base tile"),
                 link=m * sf_k + k, rel={"same m": m, "same TCol": c}, faint=True)
    for c in range(ncol + 1):
        fig.line(bx + 4 * c * cw, y0, bx + 4 * c * cw, y0 + 32 * ch, width=1.5)
    # TMEM: one block per partition, side by side; one cell per 32-bit column (its 4 bytes)
    ty = y0 + 32 * ch + 50
    caption(fig, 40, ty - 28, f"TMEM after .warpx4: {nrep} partitions of 32 lanes x {ncol} TCols (4 bytes each)")
    cell_w = 4 * cw
    pw = ncol * cell_w + 18
    holds: dict[tuple[int, int], list] = {}
    for m in range(mn):
        for k in range(sf_k):
            for r in range(nrep):
                holds.setdefault((int(lane[m, k, r]), int(col[m, k, r])), []).append((int(byte[m, k, r]), m, k))
    for (tl, c), items in sorted(holds.items()):
        p = tl // 32
        items.sort()
        ms = sorted({m for _, m, _ in items})
        fig.cell(40 + p * pw + c * cell_w, ty + (tl % 32) * ch, cell_w, ch, fill=category_color(c),
                 info={"TLane": tl, "partition": p, "TCol": c,
                       "bytes 0..3 hold": " ".join(f"SFA[{m},{k}]" for _, m, k in items), "view": "TMEM"},
                 link=[m * sf_k + k for _, m, k in items], rel={"same m": ms[0] if len(ms) == 1 else None,
                                                               "same TCol": c}, faint=True)
    for p in range(nrep):
        fig.text(40 + p * pw + ncol * cell_w / 2, ty - 10, f"partition {p}: TLane {32 * p}-{32 * p + 31}",
                 size=10, fill="#555")
        fig.rect(40 + p * pw, ty, ncol * cell_w, 32 * ch, width=1.5)
    fig.select(fig.find(**{"SFA[m, sfk]": (64, 2), "view": "SFA"})[0])
    return fig
