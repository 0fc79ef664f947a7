"""Seed 001's bank-conflict stepper: one column of 16-byte sectors read from a 128B atom,
cycle by cycle, row-major versus SWIZZLE_128B.

Eight lanes each read one 16 B sector of a logical column (rows 0-7). Row-major, all eight
sectors sit in the same four banks: 8 wavefronts. Swizzled, they cover all 32 banks: 1.
Which lane is served in which wavefront comes from ``labkit.banks.bank_conflicts``.

>>> fig = bank_stepper_figure("SWIZZLE_128B")
>>> [fig.cells[k]["info"]["cycles for this column"] for k in fig.find(**{"sector": (0, 3)})]
[8, 1]
"""

from __future__ import annotations

from labkit.viz.html.blocks import caption
from labkit.viz.html.figure import HtmlFigure
from labkit.viz.palette import category_color, light_color

__all__ = ["bank_stepper_figure"]


def _cycle_of_lanes(result) -> dict[int, int]:
    """Wavefront (0-based) in which each lane is served, from a BankConflicts table."""
    out: dict[int, int] = {}
    for hits in result.table:
        for bank, entries in hits.items():
            words = sorted({w for _, w in entries})
            for lane, w in entries:
                out[lane] = max(out.get(lane, 0), words.index(w))
    # phases run one after another: add the wavefronts of earlier phases
    base, shift = 0, {}
    for p, n in enumerate(result.phase_wavefronts):
        for lane in range(p * result.lanes_per_phase, (p + 1) * result.lanes_per_phase):
            shift[lane] = base
        base += n
    return {lane: c + shift.get(lane, 0) for lane, c in out.items()}


def bank_stepper_figure(mode="SWIZZLE_128B") -> HtmlFigure:
    """Step through the read cycles of one logical column of 16-byte sectors in one atom of
    swizzle ``mode`` (``labkit.swizzle_atoms.byte_swizzle``: 8 rows x the mode's row bytes).

    Controls: the layout (row-major or swizzled), the logical column, and the cycle.
    """
    from labkit.banks import bank_conflicts
    from labkit.layout import composition, make_layout
    from labkit.swizzle_atoms import byte_swizzle, swizzle_mode
    m = swizzle_mode(mode)
    swizzle, swizzle_name = byte_swizzle(m), m.name
    rows, row_bytes, sector = 8, 128, 16     # the XOR source is the 128-byte line: draw whole lines
    ncol = row_bytes // sector
    plain = make_layout((rows, ncol), (row_bytes, sector))          # byte address of sector (r, c)
    layouts = [("row-major", plain), (swizzle_name, composition(swizzle, plain))]
    fig = HtmlFigure("bank_stepper", title=f"Reading one column of {sector} B sectors: "
                                           f"row-major vs {swizzle_name}",
                     alt=f"An atom of {rows} rows x {row_bytes} bytes drawn as {sector}-byte sectors over "
                         f"the 32 banks. Eight lanes read one logical column; row-major the reads pile "
                         f"into four banks and take one cycle per row, swizzled they spread over all "
                         f"banks and finish in one cycle.")
    c_lay = fig.control("layout", [name for name, _ in layouts])
    c_col = fig.control("logical column", [str(c) for c in range(ncol)], default=min(3, ncol - 1))
    c_cyc = fig.control("cycle", [f"cycle {i + 1}" for i in range(rows)], kind="step")
    fig.relation("same logical column")
    cw, ch = 68, 30
    x0, y0 = 54, 48
    fig.text(x0 - 4, y0 - 10, "banks", size=10, anchor="end", fill="#555")
    for b in range(ncol):
        bl = b * sector // 4
        fig.text(x0 + b * cw + cw / 2, y0 - 10, f"{bl % 32}-{(bl + sector // 4 - 1) % 32}", size=10,
                 fill="#555")
    for r in range(rows):
        fig.text(x0 - 4, y0 + r * ch + ch / 2, f"row {r}", size=10, anchor="end", fill="#555")
    for o, (name, L) in enumerate(layouts):
        caption(fig, x0, 14, f"{name}: {L}", when={c_lay: o})
        for r in range(rows):
            for c in range(ncol):
                addrs = [int(L(rr, c)) for rr in range(rows)]
                res = bank_conflicts(addrs, sector)
                cyc = _cycle_of_lanes(res)
                pr, rem = divmod(addrs[r], row_bytes)
                pc = rem // sector
                bl = rem // 4
                fig.cell(x0 + pc * cw, y0 + pr * ch, cw, ch,
                         fill=category_color(c) if r % 2 == 0 else light_color(c), text=f"{r},{c}", font=10,
                         info={"sector": (r, c), "byte address": addrs[r], "stored at": (pr, pc),
                               "banks": f"{bl % 32}-{(bl + sector // 4 - 1) % 32}",
                               "read by lane": r, "served in cycle": cyc[r] + 1,
                               "cycles for this column": res.wavefronts, "layout": name},
                         rel={"same logical column": c}, when={c_lay: o})
        # the sectors read in each cycle, outlined over the cells (drawn after them)
        for c in range(ncol):
            addrs = [int(L(r, c)) for r in range(rows)]
            res = bank_conflicts(addrs, sector)
            cyc = _cycle_of_lanes(res)
            for st_c in range(rows):
                reads = [r for r in range(rows) if cyc.get(r) == st_c]
                when = {c_lay: o, c_col: c, c_cyc: st_c}
                if reads:
                    fig.text(x0, y0 + rows * ch + 16, f"cycle {st_c + 1} of {res.wavefronts}: lanes read rows "
                             f"{', '.join(map(str, reads))}", size=11, anchor="start", when=when)
                else:
                    fig.text(x0, y0 + rows * ch + 16, f"no read in cycle {st_c + 1}: the column took "
                             f"{res.wavefronts} cycle{'s' if res.wavefronts > 1 else ''}", size=11,
                             anchor="start", when=when)
                for r in reads:
                    pr, rem = divmod(addrs[r], row_bytes)
                    fig.rect(x0 + (rem // sector) * cw + 2, y0 + pr * ch + 2, cw - 4, ch - 4, stroke="#D55E00",
                             width=4, when=when, cls="lkf-cur")
    return fig
