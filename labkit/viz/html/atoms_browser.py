"""Seed 001's swizzle atom browser: pick a mode and an element type, hover over an element
to see where the atom puts it.

>>> fig = swizzle_atom_figure()
>>> k = fig.find(mode="SWIZZLE_128B", element="fp16", coordinate=(1, 0))[0]
>>> fig.cells[k]["info"]["stored at"]       # 16-byte chunk 0 of row 1 moves to chunk 1
(1, 8)
"""

from __future__ import annotations

from labkit.viz.html.figure import HtmlFigure
from labkit.viz.palette import category_color, light_color

__all__ = ["swizzle_atom_figure"]

ELEMENTS = ("fp8", "fp16", "fp32")


def swizzle_atom_figure(elements=ELEMENTS, width: float = 680) -> HtmlFigure:
    """Every ``labkit.swizzle_atoms.swizzle_atom(mode, element)`` (K-major, 8 rows x N bytes) drawn
    at its physical positions; each element shows its logical column and is coloured by its
    logical 16-byte chunk, so the XOR permutation of chunks is visible row by row. Rows of
    more than 64 elements (fp8 in SWIZZLE_128B) are drawn one 16-byte chunk per cell."""
    from labkit.swizzle_atoms import SWIZZLE_MODES, element_bits, swizzle_atom
    fig = HtmlFigure("swizzle_atoms", title="Swizzle atoms by mode and element type",
                     alt="One swizzle atom of 8 rows at a time, for the chosen mode (INTERLEAVE, "
                         "SWIZZLE_32B, SWIZZLE_64B, SWIZZLE_128B) and element type; each element is "
                         "drawn where the atom stores it and coloured by its logical 16-byte chunk.")
    c_mode = fig.control("mode", [m.name for m in SWIZZLE_MODES], default=len(SWIZZLE_MODES) - 1)
    c_elem = fig.control("element", list(elements), default=list(elements).index("fp16") if "fp16" in elements else 0)
    fig.relation("same 16 B chunk")
    fig.relation("same bank")
    ch, x0, y0 = 24, 50, 40
    for i, m in enumerate(SWIZZLE_MODES):
        for j, e in enumerate(elements):
            when = {c_mode: i, c_elem: j}
            atom = swizzle_atom(m, e)
            eb = element_bits(e) // 8
            rows, n = (int(v) for v in atom.shape)
            cw = min(40.0, width / n)
            per_chunk = 16 // eb
            fig.text(x0, 12, f"{m.name} on {e}: {atom}   (8 rows x {m.row_bytes} B, {n} elements per row)",
                     size=11, anchor="start", when=when, fill="#0072B2")
            for r in range(rows):
                fig.text(x0 - 4, y0 + r * ch + ch / 2, f"row {r}", size=10, anchor="end", fill="#555", when=when)
            for ck in range(n // per_chunk):
                fig.text(x0 + (ck + 0.5) * per_chunk * cw, y0 - 8, f"chunk {ck}", size=10, fill="#555", when=when)
            by_chunk = n > 64        # too narrow to tell elements apart: one cell per 16-byte chunk
            step = per_chunk if by_chunk else 1
            cw_cell = cw * step
            for r in range(rows):
                for c in range(0, n, step):
                    phys = int(atom(r, c))
                    pr, pc = divmod(phys, n)
                    chunk = c // per_chunk
                    bank = phys * eb // 4 % 32
                    info = {"mode": m.name, "element": e,
                            "coordinate": (r, c) if not by_chunk else f"row {r}, columns {c}-{c + step - 1}",
                            "swizzled offset": phys, "stored at": (pr, pc),
                            "16 B chunk": f"{chunk} -> {pc // per_chunk}",
                            "bank": bank if not by_chunk else f"{bank}-{bank + 3}"}
                    fig.cell(x0 + pc * cw, y0 + pr * ch, cw_cell, ch,
                             fill=category_color(chunk) if r % 2 == 0 else light_color(chunk),
                             text=str(c) if cw_cell >= 17 else None, font=10,
                             info=info, rel={"same 16 B chunk": f"{r}:{chunk}", "same bank": bank}, when=when,
                             faint=cw_cell < 12)
            for ck in range(n // per_chunk + 1):
                fig.line(x0 + ck * per_chunk * cw, y0, x0 + ck * per_chunk * cw, y0 + rows * ch, width=1.5, when=when)
    first = fig.find(mode=SWIZZLE_MODES[-1].name, element=elements[fig.controls[c_elem]["default"]],
                     coordinate=(1, 0))
    if first:
        fig.select(first[0])
    return fig
