"""A matrix spread over a GPU mesh: which elements each device holds, with replicas and offsets.

``draw_mesh`` takes named-axis layouts on ``gpuid_x`` / ``gpuid_y`` (the device) and ``m``
(the local offset), such as ``labkit.axe.mesh_layout(mode)`` for the modes of
``labkit.axe.MESH_MODES``. Each panel shows the logical matrix (colour = device, number =
local offset) and every device's local memory (each slot names the element it holds).

>>> import matplotlib; matplotlib.use("Agg")
>>> fig = draw_mesh("replica")
>>> fig.alt_text[fig.alt_text.index("element (6,3)"):]
'element (6,3) is on devices (0,1) (1,1) at local offset 19.'
"""

from __future__ import annotations

import numpy as np

from labkit.errors import LayoutError
from labkit.viz.grid import (BOOK_WIDTH_IN, MAX_CELL_IN, MAX_HEIGHT_IN, add_block, draw_cells, finish,
                             new_figure)
from labkit.viz.palette import EMPTY, MARK, category_color, light_color

__all__ = ["draw_mesh", "mesh_cells", "MODE_LABELS"]

MODE_LABELS = {"sharded": "fully sharded", "replica": "shard + replica", "offset": "shard + offset"}
_AXES = ("gpuid_x", "gpuid_y", "m")


def _resolve(item, k):
    """``(key, label, layout)`` for a mode name or a named-axis layout."""
    if isinstance(item, str):
        from labkit.axe import MESH_MODES, mesh_layout
        if item not in MESH_MODES:
            raise LayoutError(f"layout: a mode must be one of {MESH_MODES}, got {item!r}")
        return item, MODE_LABELS.get(item, item), mesh_layout(item)
    if hasattr(item, "table") and hasattr(item, "axes"):
        return f"layout {k}", f"layout {k}", item
    raise LayoutError(f"layout must be a mode name, a named-axis layout (labkit.axe.AxeLayout) or a list of "
                      f"them, got {type(item).__name__}")


def mesh_cells(layout, shape=None):
    """Device coordinates and local offsets of every copy of every element.

    Returns ``(gx, gy, m)``, int arrays of shape ``shape + (num_replicas,)`` (``shape``
    defaults to 8x8 for a 64-element layout, else the layout's own shape when it has rank 2);
    an axis the layout does not use is 0 everywhere.

    >>> import labkit as lk
    >>> gx, gy, m = mesh_cells(lk.mesh_layout("offset"))
    >>> int(gx[6, 3, 0]), int(gy[6, 3, 0]), int(m[6, 3, 0])
    (1, 1, 19)
    """
    axes = tuple(layout.axes)
    extra = [a for a in axes if a not in _AXES]
    if extra:
        raise LayoutError(f"layout {layout} may only use the axes {_AXES} (device and local offset); "
                          f"it uses {tuple(extra)}")
    if shape is None:
        n = int(layout.size)
        shape = (8, 8) if n == 64 else tuple(layout.shape) if len(layout.shape) == 2 else (1, n)
    tab = layout.table(shape=tuple(shape))
    ref = next(iter(tab.values()))
    out = tuple(tab.get(a, np.zeros_like(ref)) for a in _AXES)
    for a, arr in zip(_AXES, out):
        if arr.size and arr.min() < 0:
            raise LayoutError(f"layout {layout} reaches {a} = {int(arr.min())}; device ids and offsets start at 0")
    return out


def _color(devs, nx):
    d = min(x + nx * y for x, y in devs)
    return category_color(d) if len(set(devs)) == 1 else light_color(d)


def draw_mesh(layout=("sharded", "replica", "offset"), *, shape=None, ax=None, title: str | None = None):
    """Draw how a matrix sits on a GPU mesh, one panel per layout (stacked).

    ``layout`` is a mode of ``labkit.axe.MESH_MODES`` (``"sharded"``, ``"replica"``,
    ``"offset"``), a named-axis layout on ``gpuid_x``/``gpuid_y``/``m``, or a list of them
    (default: the three modes). In each panel, left: the logical matrix, each cell coloured
    by the device that holds it (light when several devices do) and numbered with its local
    offset; right: the devices (``gpuid_x`` across, ``gpuid_y`` down), each local slot naming
    the element ``i,j`` it holds. Copies made by ``R[...]`` (replica number 1 and up) are
    outlined; an offset ``O[...]`` on a device axis is drawn as an arrow from where the
    elements would be to where they are. ``fig.blocks`` names each panel's ``"<mode>: matrix"``
    and ``"<mode>: GPU (x,y)"`` blocks.
    """
    items = list(layout) if isinstance(layout, (list, tuple)) else [layout]
    if not items:
        raise LayoutError("layout: give at least one mode or layout")
    panels = []
    for k, item in enumerate(items):
        key, label, L = _resolve(item, k)
        gx, gy, m = mesh_cells(L, shape)
        panels.append((key, label, L, gx, gy, m))
    R, C = panels[0][3].shape[:2]
    nx = max(int(p[3].max()) + 1 for p in panels)
    ny = max(int(p[4].max()) + 1 for p in panels)
    spr = C                                        # local slots drawn in rows of the matrix width
    srows = max(-(-(int(p[5].max()) + 1) // spr) for p in panels)
    width = C + 2.5 + nx * spr + (nx - 1)
    cell_pt = 72.0 * min(MAX_CELL_IN, BOOK_WIDTH_IN / (width + 1.5))
    T, H, Lg = 16.0 / cell_pt, 14.0 / cell_pt, 26.0 / cell_pt
    body = max(R, ny * srows + (ny - 1) * H)
    ph = T + H + body + Lg
    total = len(panels) * ph
    cell_pt = min(cell_pt, 72.0 * MAX_HEIGHT_IN / total)
    T, H, Lg = 16.0 / cell_pt, 14.0 / cell_pt, 26.0 / cell_pt
    ph = T + H + body + Lg
    fig, ax = new_figure(-1.3, width + 0.2, 0, len(panels) * ph, ax=ax, max_height_in=MAX_HEIGHT_IN)
    summary = []
    for k, (key, label, L, gx, gy, m) in enumerate(panels):
        Y = k * ph
        nrep = gx.shape[-1]
        devs = [[[(int(gx[i, j, r]), int(gy[i, j, r])) for r in range(nrep)] for j in range(C)] for i in range(R)]
        fills = [[_color(devs[i][j], nx) for j in range(C)] for i in range(R)]
        texts = [[str(int(m[i, j, 0])) for j in range(C)] for i in range(R)]
        head = f"{label}: {L}" if not title else (title if len(panels) == 1 else f"{title} - {label}")
        ax.text(-1.2, Y + 0.15, head, ha="left", va="top", fontsize=9, color="#000")
        my = Y + T + H
        draw_cells(ax, texts, fills, x0=0, y0=my, row_header=range(R), col_header=range(C))
        add_block(ax, f"{key}: matrix", 0, my, R, C)
        held: dict = {}
        for i in range(R):
            for j in range(C):
                for r in range(nrep):
                    dev = held.setdefault((int(gx[i, j, r]), int(gy[i, j, r])), {})
                    dev.setdefault(int(m[i, j, r]), []).append((i, j, r))
        origin = {}
        for dx in range(nx):
            for dy in range(ny):
                bx, by = C + 2.5 + dx * (spr + 1), my + dy * (srows + H)
                origin[(dx, dy)] = (bx, by)
                slots = held.get((dx, dy), {})
                f = [[EMPTY] * spr for _ in range(srows)]
                t = [[""] * spr for _ in range(srows)]
                marks = []
                for s, who in slots.items():
                    i, j, r = who[0]
                    a, b = divmod(s, spr)
                    f[a][b] = fills[i][j]
                    t[a][b] = f"{i},{j}" + ("+" if len(who) > 1 else "")
                    if r >= 1:
                        marks.append((a, b, MARK))
                draw_cells(ax, t, f, x0=bx, y0=by, marks=marks)
                add_block(ax, f"{key}: GPU ({dx},{dy})", bx, by, srows, spr)
                n = sum(len(w) for w in slots.values())
                ax.text(bx, by - 0.12, f"GPU (x={dx}, y={dy}): "
                        + (f"{n} element{'s' if n != 1 else ''}" if n else "empty"),
                        ha="left", va="bottom", fontsize=8, color="#333")
        offset = {a: v for a, v in getattr(L, "O", {}).items() if a in ("gpuid_x", "gpuid_y") and v}
        if offset:
            ox, oy = offset.get("gpuid_x", 0), offset.get("gpuid_y", 0)
            tag = " + ".join(f"O[{v}@{a}]" for a, v in offset.items())
            for (dx, dy) in held:
                src = (dx - ox, dy - oy)
                if src in origin and (dx, dy) in origin:
                    (sx, sy), (tx, ty) = origin[src], origin[(dx, dy)]
                    ax.annotate(tag, xy=(tx + spr / 2, ty + srows / 2), xytext=(sx + spr / 2, sy + srows / 2),
                                ha="center", va="center", fontsize=8, color=MARK, zorder=7,
                                bbox=dict(boxstyle="round,pad=0.2", fc="#ffffff", ec=MARK, lw=0.8),
                                arrowprops=dict(arrowstyle="-|>", color=MARK, lw=1.8))
        legend = "GPU (x, y) = (gpuid_x, gpuid_y); matrix: colour = device, number = local offset"
        if nrep > 1:
            legend += f"\nlight: held by {nrep} devices; outlined slots: the copies R[...] adds"
        if offset:
            legend += f"\narrows: {tag} moves every element to another device"
        ax.text(-1.2, my + body + 0.25, legend, ha="left", va="top", fontsize=8, color="#333")
        pi, pj = (6, 3) if (R, C) == (8, 8) else (0, 0)
        where = " ".join(f"({x},{y})" for x, y in sorted(set(devs[pi][pj])))
        plural = "s" if len(set(devs[pi][pj])) > 1 else ""
        summary.append(f"{label} ({L}): element ({pi},{pj}) is on device{plural} {where} at local offset "
                       f"{int(m[pi, pj, 0])}.")
    alt = (f"A {R}x{C} matrix on a {nx}x{ny} GPU mesh, {len(panels)} panel{'s' if len(panels) > 1 else ''}: the "
           f"logical matrix coloured by device with local offsets, and each device's memory naming the element "
           f"in every slot. " + " ".join(summary))
    return finish(fig, alt)
