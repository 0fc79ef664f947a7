"""The A, B and C thread-value layouts of an MMA atom, arranged as CuTe's ``print_latex``:
C in the middle, A to its left, B (drawn K x N) on top. Click a cell: every element of the
same thread lights up in all three operands.

>>> fig = mma_figure()
>>> k = fig.find(atom="SM80_16x8x16_F16F16F16F16_TN", operand="A", coordinate=(0, 9))[0]
>>> fig.cells[k]["info"]["thread"], fig.cells[k]["info"]["value"], fig.cells[k]["info"]["register"]
(0, 5, 'a2, high 16 bits')
"""

from __future__ import annotations

from labkit.viz.html.figure import HtmlFigure
from labkit.viz.palette import thread_color
from labkit.viz.tables import tv_table

__all__ = ["mma_figure", "ATOMS"]

ATOMS = ("SM80_16x8x16_F16F16F16F16_TN", "SM80_16x8x8_F16F16F16F16_TN")


def _register(atom, operand: str, v: int) -> str:
    """Operand register and half of value ``v`` (values packed into 32-bit registers in order)."""
    from labkit.atoms import ELEMENT_BITS
    ty = dict(zip("ABCD", atom.types))[operand]
    per = 32 // ELEMENT_BITS[ty]
    name = f"{operand.lower() if operand != 'C' else 'c'}{v // per}"
    if per == 1:
        return name
    return f"{name}, {'low' if v % per == 0 else 'high'} 16 bits" if per == 2 else f"{name}, part {v % per}"


def mma_figure(atoms=ATOMS) -> HtmlFigure:
    """One panel set per atom (``labkit.atoms.mma_atom``); buttons switch atoms."""
    from labkit.atoms import mma_atom
    fig = HtmlFigure("mma_tv", title="MMA atom operands: which thread holds which element",
                     alt="An MMA atom's operands drawn as CuTe's print_latex does: C (M x N) with A (M x K) "
                         "to its left and B (K x N) above it; every cell names the thread T and value V "
                         "that hold the element, coloured by thread.")
    ctl = fig.control("atom", list(atoms))
    fig.relation("same thread")
    for o, name in enumerate(atoms):
        atom = mma_atom(name)
        M, N, K = (int(x) for x in atom.shape_mnk)
        when = {ctl: o}
        cw, ch = 28, 24
        ax, ay = 34, 34 + K * ch + 30           # A's top-left; C sits to its right, B above C
        cx = ax + K * cw + 24
        for i, line in enumerate((name, f"A {atom.layout_A}", f"B {atom.layout_B}", f"C {atom.layout_C}")):
            fig.text(ax, 44 + 18 * i, line, size=11 if i == 0 else 10, anchor="start", when=when, fill="#0072B2")
        for operand, layout, rows, cols, x0, y0, transpose in (
                ("A", atom.layout_A, M, K, ax, ay, False),
                ("B", atom.layout_B, N, K, cx, 34, True),
                ("C", atom.layout_C, M, N, cx, ay, False)):
            thr, val, _ = tv_table(layout, (rows, cols))
            fig.text(x0 - 6, y0 - 8, operand, size=12, anchor="end", weight="600", when=when)
            for i in range(rows):
                for j in range(cols):
                    t, v = int(thr[i, j]), int(val[i, j])
                    r, c = (j, i) if transpose else (i, j)
                    coord_name = {"A": "(m,k)", "B": "(n,k)", "C": "(m,n)"}[operand]
                    fig.cell(x0 + c * cw, y0 + r * ch, cw, ch, fill=thread_color(t), text=f"T{t}\nV{v}",
                             font=10, info={"atom": name, "operand": operand, "coordinate": (i, j),
                                           "coordinate is": coord_name, "thread": t, "value": v,
                                           "register": _register(atom, operand, v)},
                             rel={"same thread": t}, when=when)
    fig.select(fig.find(atom=atoms[0], operand="A", coordinate=(0, 9))[0])
    return fig
