"""Building blocks shared by the interactive figures: a matrix of cells with headers.

>>> from labkit.viz.html.figure import HtmlFigure
>>> fig = HtmlFigure("demo", title="2x2", alt="a 2x2 matrix")
>>> ks = matrix(fig, 0, 0, 2, 2, 20, 20, fill=lambda i, j: "#ffffff", text=lambda i, j: f"{i}{j}",
...             info=lambda i, j: {"coordinate": (i, j)})
>>> fig.cells[ks[1][0]]["info"]["coordinate"]
(1, 0)
"""

from __future__ import annotations

__all__ = ["matrix", "headers", "caption"]


def matrix(fig, x0, y0, rows, cols, cw, ch, *, fill, info, text=None, link=None, rel=None,
           when=None, font=None) -> list[list[int]]:
    """Add ``rows x cols`` cells; the callables get ``(i, j)``. Returns the cell indices."""
    out = []
    for i in range(rows):
        row = []
        for j in range(cols):
            row.append(fig.cell(x0 + j * cw, y0 + i * ch, cw, ch, fill=fill(i, j),
                                text=None if text is None else text(i, j), info=info(i, j),
                                link=None if link is None else link(i, j),
                                rel=None if rel is None else rel(i, j), when=when, font=font))
        out.append(row)
    return out


def headers(fig, x0, y0, rows, cols, cw, ch, *, row_label=str, col_label=str, size=10, when=None,
            every: int = 1):
    """Row labels left of and column labels above a matrix drawn at ``(x0, y0)``."""
    for i in range(0, rows, every):
        fig.text(x0 - 4, y0 + i * ch + ch / 2, row_label(i), size=size, anchor="end", fill="#555", when=when)
    for j in range(0, cols, every):
        fig.text(x0 + j * cw + cw / 2, y0 - size * 0.8, col_label(j), size=size, fill="#555", when=when)


def caption(fig, x, y, s, *, size=12, when=None, anchor="start"):
    """A bold caption above a panel."""
    fig.text(x, y, s, size=size, anchor=anchor, weight="600", when=when)
