"""The path of one A element from shared memory to its ``mma.sync`` operand (seed 000, the
single-warp example): A(0,9) at offset 9 -> source lane 16, row element 1 -> e=129 ->
reference TV 160 -> q=144 -> destination lane 0, slot 5 -> tCrA(5,0,0) -> a2, high half.

>>> fig = path_figure()
>>> k = fig.find(**{"A(m,k)": (0, 9), "view": "shared memory"})[0]
>>> fig.cells[k]["info"]["destination lane, slot"]
(0, 5)
"""

from __future__ import annotations

import functools

from labkit.viz.html.figure import HtmlFigure
from labkit.viz.palette import thread_color

__all__ = ["path_figure"]


@functools.lru_cache(maxsize=4)
def _paths(mma_name: str, copy: str):
    from labkit.tiled import make_tiled_mma, trace_element
    mma = make_tiled_mma(mma_name)
    M, K = int(mma.tile_size(0)), int(mma.tile_size(2))
    return M, K, {(m, k): trace_element("A", (m, k), mma=mma, copy=copy) for m in range(M) for k in range(K)}


def path_figure(mma: str = "SM80_16x8x16_F16F16F16F16_TN", copy: str = "SM75_U32x4_LDSM_N") -> HtmlFigure:
    """Every element of A traced by ``labkit.trace_element``: click one in shared memory (or
    in the destination registers) to see the whole path; both ends light up."""
    M, K, paths = _paths(mma, copy)
    fig = HtmlFigure("a_path", title=f"From shared memory to the MMA operand: A through {copy} into {mma}",
                     alt=f"Left, the {M}x{K} A tile in shared memory, each cell coloured by the source lane "
                         f"that supplies its row address; right, the 32 destination lanes with their slots. "
                         f"Clicking an element shows its full path; A(0,9) goes to lane 0, slot 5, the high "
                         f"half of operand a2.")
    fig.relation("same destination lane")
    fig.relation("same source lane")
    cw, ch = 23, 22
    x0, y0 = 40, 40
    nslot = 1 + max(p.dst_value for p in paths.values())

    def facts(p, view):
        return {"A(m,k)": p.coord, "shared-memory offset": p.smem_offset,
                "source lane, row element": (p.src_thread, p.src_value), "copy element e": p.copy_element,
                "reference TV index": p.ref_tv, "matrix index q": p.matrix_index,
                "destination lane, slot": (p.dst_thread, p.dst_value),
                "fragment": "tCr%s(%s)" % (p.operand, ",".join(map(str, p.fragment_coord))),
                "operand": f"{p.operand.lower()}{p.register}, {p.half} 16 bits", "view": view}

    fig.text(x0, 14, "A in shared memory (offset; colour = source lane)", size=11, anchor="start",
             weight="600")
    for (m, k), p in paths.items():
        fig.cell(x0 + k * cw, y0 + m * ch, cw, ch, fill=thread_color(p.src_thread), text=str(p.smem_offset),
                 font=10, info=facts(p, "shared memory"), link=m * K + k,
                 rel={"same destination lane": p.dst_thread, "same source lane": p.src_thread})
    rx = x0 + K * cw + 50
    sw = 33
    fig.text(rx - 30, 14, f"registers: 32 lanes x {nslot} slots", size=11,
             anchor="start", weight="600")
    for (m, k), p in paths.items():
        lx, ly = rx, y0 + p.dst_thread * ch
        if p.dst_value == 0:
            fig.text(lx - 3, ly + ch / 2, f"L{p.dst_thread}", size=10, anchor="end", fill="#555")
        fig.cell(lx + p.dst_value * sw, ly, sw, ch, fill=thread_color(p.dst_thread), text=f"{m},{k}", font=10,
                 info=facts(p, "registers"), link=m * K + k,
                 rel={"same destination lane": p.dst_thread, "same source lane": p.src_thread})
    fig.select(fig.find(**{"A(m,k)": (0, 9), "view": "shared memory"})[0])
    return fig
