"""Exercise 7's shared-memory layout questions: an ldmatrix tile and a warp's transpose kernel.

Two answers graded on what they do, as :mod:`labkit.grading.staged_tile` grades the epilogue:

- :class:`LdmatrixTile` reads a layout (what CuTe prints) of a ``(rows, cols)`` tile of halves as
  ``(rows, cols, extra)``: ``extra`` is how many wavefronts the warp's ``ldmatrix.x4`` reads of
  every 16x16 block (lane ``l``: row ``l % 16``, 16 bytes from column ``8 (l // 16)``) take past
  the least, by labkit's bank model; a layout that is not a tile ldmatrix can read (two
  coordinates at one offset, an 8-half row chunk not contiguous or not 16-byte aligned) is refused.
- :class:`WarpTranspose` reads a function ``transposed(seed)`` that runs the learner's numba.cuda
  kernel (one warp, through ``lk.offset_function(sT)``) on the grader's tile :func:`tile_input`
  and returns ``(out as a tuple of rows, sT)``: the output must be the tile's transpose for every
  seed the grader picks, and it is read as ``(rows, cols, extra)`` with ``extra`` the wavefronts
  of the kernel's shared stores and loads (:func:`transpose_wavefronts`) past the least.

>>> import labkit as lk
>>> ldmatrix_wavefronts(lk.make_layout((16, 64), (72, 1)))
(16, 16)
>>> transpose_wavefronts(lk.make_layout((32, 32), (33, 1)))
(64, 64)
"""

from __future__ import annotations

import numpy as np

from labkit.errors import LabkitError
from labkit.grading import checks
from labkit.grading.answers import LabkitValue

__all__ = ["tile_input", "ldmatrix_wavefronts", "transpose_wavefronts", "LdmatrixTile", "TransposeRun", "WarpTranspose",
           "TRANSPOSE_SEEDS", "transpose_answer"]

TRANSPOSE_SEEDS = (0, 7, 2026)
"""The tiles the grader runs a transpose on (seed 0 is also what the public check calls)."""


def tile_input(seed: int, rows: int, cols: int) -> np.ndarray:
    """The grader's ``(rows, cols)`` int32 tile number ``seed`` (the same on both sides)."""
    rng = np.random.default_rng(int(seed))
    return rng.integers(-(1 << 20), 1 << 20, (int(rows), int(cols))).astype(np.int32)


def transpose_answer(kernel, sT, tile):
    """Question 13's answer made from the learner's ``kernel`` and layout ``sT`` for a ``tile`` of
    ``(rows, cols)``: ``f(seed)`` launches one warp of ``kernel(a, out, cycles)`` on the grader's
    tile ``seed`` and gives ``(out as a tuple of rows, sT)``; ``f.cycles`` keeps the last launch's
    clock64 count. While ``sT`` is unanswered (``...``) ``f(seed)`` gives ``...``.

    >>> f = transpose_answer(None, ..., (32, 32))
    >>> f(0) is ...
    True
    """
    rows, cols = (int(x) for x in tile)

    def transposed(seed):
        if sT is ...:
            return ...
        a = tile_input(seed, rows, cols)
        out = np.zeros((cols, rows), np.int32)
        cycles = np.zeros(1, np.int64)
        kernel[1, 32](a, out, cycles)               # one block of one warp
        transposed.cycles = int(cycles[0])
        return tuple(map(tuple, out.tolist())), sT

    transposed.cycles = 0
    return transposed


def _rank2(layout):
    from labkit.layout import ComposedLayout, Layout, parse_layout, size

    if isinstance(layout, str):
        layout = parse_layout(layout)
    if not isinstance(layout, (Layout, ComposedLayout)) or not isinstance(layout.shape, tuple) \
            or len(layout.shape) != 2:
        raise LabkitError(f"expected a rank-2 layout (rows, cols); got {layout}")
    return layout, int(size(layout.shape[0])), int(size(layout.shape[1]))


def _offsets(layout, rows, cols) -> np.ndarray:
    out = np.array([[int(layout(r, c)) for c in range(cols)] for r in range(rows)], np.int64)
    if out.min() < 0:
        raise LabkitError("an offset is negative")
    if len(np.unique(out)) != out.size:
        r, c = np.argwhere(out == out.flat[[i for i, v in enumerate(out.flat)
                                             if (out == v).sum() > 1][0]])[1]
        raise LabkitError(f"two coordinates share offset {int(out[r, c])} (one of them ({r}, {c}))")
    return out


def ldmatrix_wavefronts(layout) -> tuple:
    """``(wavefronts, least)`` of a warp's ``ldmatrix.x4`` of every 16x16 block of ``layout``, a
    ``(rows, cols)`` tile of halves (rows and cols multiples of 16)."""
    from labkit.banks import bank_conflicts_batch

    layout, rows, cols = _rank2(layout)
    if rows % 16 or cols % 16:
        raise LabkitError(f"the tile is {rows}x{cols}: ldmatrix.x4 reads 16x16 blocks, so both must be multiples of 16")
    off = _offsets(layout, rows, cols)
    chunks = off[:, ::8]
    if np.any(chunks % 8) or np.any(off.reshape(rows, cols // 8, 8) - chunks[:, :, None] != np.arange(8)):
        raise LabkitError("ldmatrix reads 16-byte rows: every 8 halves of a row from a column 0, 8, 16, ... "
                          "must be contiguous and start at a multiple of 8 halves")
    lanes = np.arange(32)
    addr = [2 * off[r0 + lanes % 16, c0 + 8 * (lanes // 16)]
            for r0 in range(0, rows, 16) for c0 in range(0, cols, 16)]
    b = bank_conflicts_batch(np.array(addr), 16)
    return int(b.wavefronts), int(b.min_wavefronts)


def transpose_wavefronts(layout) -> tuple:
    """``(wavefronts, least)`` of the warp transpose's shared accesses through ``layout`` (int32,
    ``(rows, cols)``, both multiples of 32): stores ``sT(r, 32 j + lane)`` row by row, then loads
    ``sT(32 j + lane, c)`` column by column."""
    from labkit.banks import bank_conflicts_batch

    layout, rows, cols = _rank2(layout)
    if rows % 32 or cols % 32:
        raise LabkitError(f"the tile is {rows}x{cols}: a warp's 32 lanes walk both, so both must be multiples of 32")
    off = _offsets(layout, rows, cols)
    lanes = np.arange(32)
    stores = [4 * off[r, 32 * j + lanes] for r in range(rows) for j in range(cols // 32)]
    loads = [4 * off[32 * j + lanes, c] for c in range(cols) for j in range(rows // 32)]
    b = bank_conflicts_batch(np.array(stores + loads), 4)
    return int(b.wavefronts), int(b.min_wavefronts)


def _layout_text(value, where):
    if isinstance(value, LabkitValue) and value.text is not None:
        return value.text
    if type(value) is str:
        return value
    raise checks.Hint(f"{where}: expected a labkit layout (or what CuTe prints of one), got "
                      f"{checks._article(checks._type_name(value))}")


def _parse(text, where):
    try:
        return _rank2(text)
    except LabkitError as e:
        raise checks.Hint(f"{where}: {text!r} is not a rank-2 layout of a tile ({e})") from None
    except Exception as e:  # noqa: BLE001 - any parse failure is a form hint
        raise checks.Hint(f"{where}: {text!r} cannot be read as a layout ({type(e).__name__})") from None


class LdmatrixTile(checks.Kind):
    """A layout of a tile of halves that ldmatrix reads, read as ``(rows, cols, extra wavefronts)``.

    >>> from labkit.grading import checks
    >>> checks.exact("(16,64):(64,1)", LdmatrixTile(), (16, 64, 0), "t")
    Traceback (most recent call last):
    ...
    labkit.grading.checks.Wrong: t: not the right answer
    """

    def describe(self):
        return "a labkit layout of the tile"

    def read_expected(self, expected, where):
        return tuple(expected)

    def read(self, value, where):
        layout, rows, cols = _parse(_layout_text(value, where), where)
        try:
            waves, least = ldmatrix_wavefronts(layout)
        except LabkitError as e:
            raise checks.Hint(f"{where}: {e}") from None
        return (rows, cols, waves - least)


class TransposeRun(checks.Function):
    """The form of the transpose answer (a public check): a function whose call on the first
    seed returns a pair (a tuple of rows of ints, a layout). Says nothing about the values."""

    def __init__(self, seeds=TRANSPOSE_SEEDS):
        self.seeds = tuple(int(s) for s in seeds)

    def describe(self):
        return "a function (seed) -> (the output tile as a tuple of rows, the layout sT)"

    def inputs(self) -> list:
        return [(s,) for s in self.seeds]

    def _call(self, fn, seed, where):
        from labkit.grading import answers

        call = f"{where}({seed})"
        try:
            got = answers.as_data(fn(seed))
        except Exception as e:  # noqa: BLE001 - the submission's function raised
            raise checks.Hint(f"{call} raised {e if isinstance(e, answers.Raised) else repr(e)}") from None
        if got is None or checks._contains_ellipsis(got):
            raise checks.NotAnswered(f"{where}: not answered yet")
        if type(got) is not tuple or len(got) != 2:
            raise checks.Hint(f"{call}: expected a pair (the output tile as a tuple of rows, sT)")
        out, text = got[0], _layout_text(got[1], f"{call}[1]")
        if type(out) is not tuple or not out or any(type(row) is not tuple for row in out) \
                or len({len(row) for row in out}) != 1 or any(type(x) is not int for row in out for x in row):
            raise checks.Hint(f"{call}[0]: expected the output tile as a tuple of rows of ints")
        return out, text

    def read(self, value, where):
        super().read(value, where)
        out, text = self._call(value, self.seeds[0], where)
        _parse(text, where)
        return value


class WarpTranspose(TransposeRun):
    """A function ``transposed(seed) -> (out rows, sT)`` that runs a warp's transpose kernel,
    read as ``(rows, cols, extra wavefronts)`` once its output is the transpose of every tile
    the grader picks (:data:`TRANSPOSE_SEEDS`); ``checks.Wrong`` when it is not.

    >>> from labkit.grading import checks
    >>> import labkit as lk
    >>> def host(seed):          # the transpose on the host, through a plain row-major sT
    ...     return tuple(map(tuple, tile_input(seed, 32, 32).T.tolist())), lk.make_layout((32, 32), (32, 1))
    >>> WarpTranspose().read(host, "f")
    (32, 32, 992)
    """

    def read_expected(self, expected, where):
        return tuple(expected)

    def read(self, value, where):
        checks.Function.read(self, value, where)
        first = None
        for seed in self.seeds:
            out, text = self._call(value, seed, where)
            layout, rows, cols = _parse(text, where)
            a = tile_input(seed, rows, cols)
            if len(out) != cols or len(out[0]) != rows or not np.array_equal(np.array(out), a.T):
                raise checks.Wrong(f"{where}: on tile {seed} the kernel's output is not the transpose of "
                                   f"the {rows}x{cols} input")
            if first is None:
                try:
                    waves, least = transpose_wavefronts(layout)
                except LabkitError as e:
                    raise checks.Hint(f"{where}: {e}") from None
                first = (rows, cols, waves - least)
        return first
