"""Seed 001's 8x8 swizzle toy: 8 banks, row-major versus ``mapped_col = col XOR row``.

A column read is 8 cycles row-major and 1 cycle swizzled; the cycle counts come from
``labkit.banks.bank_conflicts`` with 8 banks, the XOR from ``Swizzle(3, 0, 3)``.

>>> fig = xor_swizzle_figure()
>>> k = fig.find(**{"logical column": 3, "view": "column index"})[0]
>>> fig.cells[k]["info"]["row-major cycles"], fig.cells[k]["info"]["XOR cycles"]
(8, 1)
"""

from __future__ import annotations

from labkit.viz.html.blocks import caption
from labkit.viz.html.figure import HtmlFigure
from labkit.viz.palette import category_color, light_color

__all__ = ["xor_swizzle_figure"]


def xor_swizzle_figure() -> HtmlFigure:
    """Two 8x8 tiles over 8 banks (``labkit.swizzle_atoms.xor_toy_layout``) (one word per bank per row): row-major and XOR
    swizzled. Click a column index: its elements light up on both sides and the panel gives
    the banks each version reads and the cycles (wavefronts) the read takes. A second
    control renumbers the swizzled side as the PTX ISA's figure does (0-63)."""
    from labkit.banks import bank_conflicts
    from labkit.swizzle_atoms import xor_toy_layout
    plain = xor_toy_layout(swizzled=False)                        # row-major words: row*8 + col
    swz = xor_toy_layout(swizzled=True)                           # mapped_col = col XOR row
    n = int(plain.shape[0])
    fig = HtmlFigure("xor_swizzle", title=f"{n}x{n} tile over {n} banks: row-major vs XOR swizzle ({swz})",
                     alt=f"Two {n}x{n} grids whose columns are banks. Left, row-major: logical column c "
                         f"sits in bank c on every row, so reading a column takes {n} cycles. Right, "
                         f"with mapped column = column XOR row, a column spreads over all {n} banks "
                         f"and takes one cycle.")
    fig.relation("same logical column")
    numbering = fig.control("numbering (swizzled side)", ["logical column 0-%d" % (n - 1),
                                                          "PTX ISA figure 0-%d" % (n * n - 1)])
    cw, ch = 34, 26
    y0 = 74

    def cycles(layout, c):
        addrs = [4 * int(layout(r, c)) for r in range(n)]
        res = bank_conflicts(addrs, 4, num_banks=n)
        banks = [a // 4 % n for a in addrs]
        return res.wavefronts, banks

    panels = [("Row-major: bank = logical_col", plain, 50), ("XOR swizzle: bank = col ^ row", swz, 50 + n * cw + 80)]
    facts_by_col = {}
    for c in range(n):
        cyc_p, b_p = cycles(plain, c)
        cyc_s, b_s = cycles(swz, c)
        facts_by_col[c] = {"logical column": c, "row-major banks": " ".join(map(str, b_p)),
                           "row-major cycles": cyc_p, "XOR banks": " ".join(map(str, b_s)), "XOR cycles": cyc_s}
    for title, layout, x0 in panels:
        caption(fig, x0, 10, title)
        for c in range(n):   # clickable column indices (logical columns)
            fig.cell(x0 + c * cw, 30, cw, 20, fill="#eeeeee", text=f"col {c}", font=10,
                     info={**facts_by_col[c], "view": "column index"}, rel={"same logical column": c})
        # "bank" once, at the left of the header row; each column's bank number above it
        fig.text(x0 - 4, y0 - 9, "bank", size=10, anchor="end", fill="#555")
        for b in range(n):
            fig.text(x0 + b * cw + cw / 2, y0 - 9, str(b), size=10, fill="#555")
        for r in range(n):
            fig.text(x0 - 4, y0 + r * ch + ch / 2, f"row {r}", size=10, anchor="end", fill="#555")
            for c in range(n):
                phys = int(layout(r, c))
                pr, pc = divmod(phys, n)
                states = [None] if layout is plain else [0, 1]
                for st in states:
                    label = str(c) if st in (None, 0) else str(r * n + c)
                    fig.cell(x0 + pc * cw, y0 + pr * ch, cw, ch,
                             fill=category_color(c) if r % 2 == 0 else light_color(c), text=label,
                             info={"element": (r, c), "logical column": c, "offset": r * n + c,
                                   "stored at": (pr, pc), "bank": pc,
                                   "layout": "row-major" if layout is plain else "XOR"},
                             link=("p" if layout is plain else "s") + f"{r},{c}",
                             rel={"same logical column": c},
                             when=None if st is None else {numbering: st})
    fig.select(fig.find(**{"logical column": 3, "view": "column index"})[0])
    return fig
