"""Drawings of atoms and shared-memory access: ``draw_mma``, ``draw_swizzle_atom``,
``draw_banks``.

>>> import matplotlib; matplotlib.use("Agg")
>>> import labkit as lk
>>> draw_mma(lk.mma_atom("SM80_16x8x8_F16F16F16F16_TN")).alt_text[:30]
'MMA SM80_16x8x8_F16F16F16F16_T'
"""

from __future__ import annotations

from labkit.viz.grid import draw_cells, finish, new_figure
from labkit.viz.layouts import bank_color, layout_fills
from labkit.viz.palette import EMPTY, MARK, category_color, light_color, thread_color
from labkit.viz.tables import offset_table, tv_table

__all__ = ["draw_mma", "draw_swizzle_atom", "draw_banks"]


def _tv_cells(layout, rows, cols, transpose=False):
    thr, val, _ = tv_table(layout, (rows, cols))
    if transpose:
        thr, val = thr.T, val.T
    fills = [[thread_color(int(t)) if t >= 0 else EMPTY for t in row] for row in thr]
    texts = [[f"T{t}\nV{v}" if t >= 0 else "" for t, v in zip(r1, r2)] for r1, r2 in zip(thr.tolist(), val.tolist())]
    return fills, texts, thr


def draw_mma(mma, *, ax=None):
    """An MMA atom (``lk.mma_atom``) or TiledMMA as CuTe's ``print_latex``: C (M x N) with A
    (M x K) to its left and B (drawn K x N) above it; cells ``T#/V#`` coloured by thread."""
    if hasattr(mma, "get_layoutA_TV"):
        la, lb, lc = mma.get_layoutA_TV(), mma.get_layoutB_TV(), mma.get_layoutC_TV()
        M, N, K = (int(mma.tile_size(i)) for i in range(3))
        name = str(getattr(mma, "atom", mma).name) + " (tiled)"
    else:
        la, lb, lc = mma.layout_A, mma.layout_B, mma.layout_C
        M, N, K = (int(x) for x in mma.shape_mnk)
        name = mma.name
    fa, ta, thr_a = _tv_cells(la, M, K)
    fb, tb, _ = _tv_cells(lb, N, K, transpose=True)
    fc, tc, _ = _tv_cells(lc, M, N)
    fig, ax = new_figure(-1.5, K + 1 + N + 0.2, -1.5, K + 1 + M + 0.2, ax=ax)
    draw_cells(ax, ta, fa, x0=0, y0=K + 1, title="A (M x K)")
    draw_cells(ax, tb, fb, x0=K + 1, y0=0, title="B (K x N)")
    draw_cells(ax, tc, fc, x0=K + 1, y0=K + 1)
    ax.text(K + 1 + N / 2, K + 1 + M + 0.1, "C (M x N)", ha="center", va="top", fontsize=10)
    return finish(fig, f"MMA {name}, M={M} N={N} K={K}: A to the left of C, B above it, each cell naming "
                       f"the thread and value that hold the element; A(0,0) is held by T{thr_a[0, 0]}.")


def draw_swizzle_atom(mode="SWIZZLE_128B", element="fp16", *, ax=None):
    """Before/after of a swizzle atom (``labkit.swizzle_atoms.swizzle_atom``): the plain
    row-major atom, then the swizzled one (to its right, or below it for atoms wider than 8
    elements), both coloured by bank."""
    from labkit.swizzle_atoms import element_bits, swizzle_atom
    atom = swizzle_atom(mode, element)
    plain = atom.layout_b
    eb = element_bits(element) // 8
    tp, ts = offset_table(plain), offset_table(atom)
    rows, cols = tp.shape
    stacked = cols > 8                  # wide atoms: "after" below "before", so labels stay legible
    dx, dy = (0, rows + 2.0) if stacked else (cols + 2, 0)
    fig, ax = new_figure(-1.2, dx + cols + 0.2, -1.8, dy + rows + 0.2, ax=ax)
    texts = (lambda t: [[str(v) for v in r] for r in t.tolist()]) if cols <= 32 else (lambda t: None)
    draw_cells(ax, texts(tp), layout_fills(tp, "bank", eb), title=f"before: {plain}", row_header=range(rows))
    draw_cells(ax, texts(ts), layout_fills(ts, "bank", eb), x0=dx, y0=dy, title=f"after: {atom}",
               row_header=range(rows) if stacked else None)
    return finish(fig, f"{mode} atom on {element}: {rows}x{cols} elements before and after the swizzle "
                       f"{atom}, coloured by bank; row 1 starts at offset {ts[1, 0]} after it.")


def draw_banks(result, *, ax=None):
    """A ``labkit.banks.bank_conflicts`` result: one row per wavefront of each phase, one
    column per bank; each used cell names the lane, conflicts (more than one wavefront in a
    phase) outlined."""
    rows, labels, fills, marks = [], [], [], []
    for p, hits in enumerate(result.table):
        depth = int(result.ways[p].max())
        for level in range(depth):
            row_t, row_f = [], []
            for b in range(result.num_banks):
                entries = hits.get(b, ())
                words = sorted({w for _, w in entries})
                if level < len(words):
                    lanes = [ln for ln, w in entries if w == words[level]]
                    row_t.append(f"{lanes[0]}" + ("+" if len(lanes) > 1 else ""))
                    row_f.append(category_color(lanes[0]) if level == 0 else light_color(lanes[0]))
                    if depth > 1:
                        marks.append((len(rows), b, MARK))
                else:
                    row_t.append("")
                    row_f.append(EMPTY)
            rows.append(f"p{p} w{level}")
            labels.append(row_t)
            fills.append(row_f)
    if not rows:
        rows, labels, fills = ["-"], [[""] * result.num_banks], [[EMPTY] * result.num_banks]
    fig, ax = new_figure(-2.2, result.num_banks + 0.2, -1.8, len(rows) + 0.2, ax=ax)
    draw_cells(ax, labels, fills, row_header=rows, col_header=range(result.num_banks), marks=marks,
               title=f"{result.wavefronts} wavefront(s), degree {result.degree}")
    return finish(fig, f"Bank use of one warp access of {result.access_bytes} B per lane: {result.wavefronts} "
                       f"wavefront(s) over {result.phases} phase(s), conflict degree {result.degree}; rows are "
                       f"wavefronts, columns banks, cells the lane served.")


__all__ += ["bank_color"]
