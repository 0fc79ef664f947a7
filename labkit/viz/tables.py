"""Layouts as numpy tables, the common input of every drawing.

A CuTe layout maps a coordinate to an offset; drawing it needs the whole function at
once. ``offset_table`` evaluates a rank-1 or rank-2 layout on every coordinate (rows =
mode 0, columns = mode 1, as CuTe's ``print_layout``) through the layout's vectorised
``offsets()``; ``tv_table`` inverts a thread-value layout over its tile.

>>> import labkit as lk
>>> from labkit.viz.tables import offset_table
>>> offset_table(lk.make_layout((2, 3), (3, 1))).tolist()
[[0, 1, 2], [3, 4, 5]]
"""

from __future__ import annotations

import numpy as np

from labkit.errors import LabkitError, LayoutError
from labkit.layout import ComposedLayout, Layout, flatten, product

__all__ = ["flat", "offset_table", "tv_table", "grid_shape", "text_table"]


def flat(t) -> tuple:
    """Flatten a nested tuple of ints into a tuple of Python ints (``labkit.layout.flatten``).

    >>> flat((2, (3, 4)))
    (2, 3, 4)
    """
    return tuple(int(x) for x in (flatten(t) if isinstance(t, tuple) else (t,)))


def _size(shape) -> int:
    return int(product(shape))


def grid_shape(layout) -> tuple[int, int]:
    """(rows, cols) of a layout's table: mode 0 down, mode 1 across; rank 1 is one row.

    >>> import labkit as lk
    >>> grid_shape(lk.make_layout((4, (2, 3))))
    (4, 6)
    """
    shape = layout.shape
    if not isinstance(shape, tuple):
        return (1, _size(shape))
    if len(shape) == 1:
        return (1, _size(shape[0]))
    if len(shape) == 2:
        return (_size(shape[0]), _size(shape[1]))
    raise LayoutError(f"layout {layout} has rank {len(shape)}; a table needs rank 1 or 2 "
                      "(group modes first, e.g. with a nested shape)")


def _colex_values(layout, n: int) -> np.ndarray:
    """All ``n`` values of a layout in colexicographic order (its ``offsets()`` when it has one)."""
    if isinstance(layout, (Layout, ComposedLayout)):
        return np.asarray(layout.offsets(), dtype=np.int64).reshape(-1)
    return np.array([int(layout(i)) for i in range(n)], dtype=np.int64)


def offset_table(layout) -> np.ndarray:
    """2-D int array ``T`` with ``T[i, j] = layout(i, j)`` (rank 1: ``T[0, j] = layout(j)``).

    The layout's colexicographic values ``v[i + rows*j]`` reshaped; plain and swizzled
    (composed) layouts alike.
    """
    rows, cols = grid_shape(layout)
    return _colex_values(layout, rows * cols).reshape(cols, rows).T.copy()


def tv_table(tv_layout, tile_shape) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Invert a thread-value layout over an ``(M, N)`` tile.

    ``tv_layout(t, v)`` is a column-major index ``m + M*n``. Returns ``(thr, val, count)``:
    ``M x N`` arrays holding, for each tile cell, the lowest thread (then value) that maps
    there (-1 if none) and how many (t, v) pairs map there.
    """
    M, N = (int(x) for x in tile_shape)
    shape = tv_layout.shape
    if not isinstance(shape, tuple) or len(shape) != 2:
        raise LayoutError(f"tv_layout {tv_layout} must have rank 2: (thread, value)")
    nt, nv = _size(shape[0]), _size(shape[1])
    idx = _colex_values(tv_layout, nt * nv).reshape(nv, nt).T
    if idx.min() < 0 or idx.max() >= M * N:
        raise LayoutError(f"tv_layout {tv_layout} reaches index {int(idx.max())}, "
                          f"outside the {M}x{N} tile (tile_shape)")
    thr = np.full(M * N, -1, dtype=np.int64)
    val = np.full(M * N, -1, dtype=np.int64)
    count = np.zeros(M * N, dtype=np.int64)
    # walk in reverse order so the lowest (t, v) is written last and wins
    for t in range(nt - 1, -1, -1):
        for v in range(nv - 1, -1, -1):
            q = idx[t, v]
            thr[q], val[q] = t, v
            count[q] += 1
    f = lambda a: a.reshape(N, M).T  # column-major index -> (m, n)
    return f(thr), f(val), f(count)


def text_table(rows, header=(), align: str | None = None, sep: str = "  ") -> str:
    """``rows`` (a sequence of equal-length rows) as aligned text, one line per row, no trailing
    blanks. ``header`` is one row of column titles or a list of such rows; ``align`` has one
    character per column, ``<`` (left) or ``>`` (right); by default text is left-aligned, numbers
    and lists right-aligned. Floats print as given: format them first (``f"{x:.1f}"``).

    >>> print(text_table([["naive", 1, 0.5], ["smem", 64, 32.0]], header=["step", "tile", "flop/B"]))
    step   tile  flop/B
    naive     1     0.5
    smem     64    32.0
    >>> print(text_table([["a", "b"]], align="><"))
    a  b
    >>> text_table([[1, 2], [3]])
    Traceback (most recent call last):
    ...
    labkit.errors.LabkitError: rows: every row (and header row) must have 2 cells, as the first
    """
    rows, header = [list(r) for r in rows], list(header)
    if header and not isinstance(header[0], (list, tuple)):
        header = [header]
    body = [[str(c) for c in r] for r in rows]
    lines = [[str(c) for c in h] for h in header] + body
    if not lines:
        return ""
    n = len(lines[0])
    if any(len(r) != n for r in lines):
        raise LabkitError(f"rows: every row (and header row) must have {n} cells, as the first")
    if align is None:
        first = list(rows[0]) if len(rows) else [""] * n
        align = "".join("<" if isinstance(c, str) else ">" for c in first)
    if len(align) != n or set(align) - set("<>"):
        raise LabkitError(f"align: {align!r} must be one '<' or '>' per column ({n})")
    widths = [max(len(r[i]) for r in lines) for i in range(n)]
    return "\n".join(sep.join(format(c, f"{a}{w}") for c, a, w in zip(r, align, widths)).rstrip()
                     for r in lines)
