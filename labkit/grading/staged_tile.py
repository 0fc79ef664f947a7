"""Stage a learner's accumulator pairs in the ladder's swizzled C tile and read it back.

Exercise 7's capstone: the ladder's block stages its 128x128 tile of C (f16) in
``sC = Sw<3,3,4> o (128,128):(128,1)`` (rows of 256 bytes, chapter 6f). A learner's
``pair_offset(lane, h, m0, n0)`` is the byte offset in sC where lane ``lane``'s register ``h`` of
the m16n8 atom whose top-left is ``C(m0, n0)`` goes. :func:`run_epilogue` stores every pair there
with ``st.shared.b32`` (labkit.sim, and numba's kernel on a GPU or the CUDA simulator) and checks
that the image read back through sC is C. :mod:`labkit.grading.kernels` hands these names on.

>>> from labkit.grading import staged_tile
>>> row = lambda lane, h, m0, n0: 2 * (128 * (m0 + lane // 4 + 8 * h) + n0 + 2 * (lane % 4))
>>> run = staged_tile.run_epilogue(row, backend="sim")   # the plain row-major tile, no swizzle
>>> run.correct, run.backends
(False, ('sim',))
>>> staged_tile.epilogue_report(None)
'not answered yet'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from labkit.atoms import WARP
from labkit.errors import DeviceError
from labkit.grading import checks
from labkit.grading.thread_block import NOT_ANSWERED

__all__ = ["STAGED", "EPILOGUE_LAYOUT", "pair_inputs", "run_epilogue", "EpilogueRun", "epilogue_report",
           "PairAddress", "StagedTile"]

# The ladder's block stages its 128x128 tile of C (f16) in ``sC = Sw<3,3,4> o (128,128):(128,1)``
# (rows of 256 bytes, chapter 6f). Warp ``w`` holds the 64x64 tile at ``(64 (w % 2), 64 (w // 2))``
# as 4x8 m16n8 atoms; lane ``t``'s register ``h`` of the atom whose top-left is ``C(m0, n0)``
# holds a pair of neighbours in a row. A learner's ``pair_offset(lane, h, m0, n0)`` is the byte
# offset in sC where that pair goes: the warps store their registers there with
# ``st.shared.b32`` (labkit.sim, and numba's kernel on a GPU or the CUDA simulator), and the
# image read back through sC must be C.

STAGED = "the staged tile read through sC is C"
"""What :class:`StagedTile` reads a right answer as (the expected value of its hidden test)."""
EPILOGUE_LAYOUT = "rows 256 B + Sw<3,3,4>"
"""The tile of :mod:`labkit.lab.epilogue` the capstone stages C in."""
_SMEM_BYTES = 32768


def _atom_origins():
    """``(w, i, h, m0, n0)`` for every ``st.shared.b32`` of the four warps, in the order of
    :func:`labkit.lab.epilogue.instructions` (atom ``(mi, ni)`` then register ``h``)."""
    out = []
    for w in range(4):
        i = 0
        for mi in range(4):
            for ni in range(8):
                for h in range(2):
                    out.append((w, i, h, 64 * (w % 2) + 16 * mi, 64 * (w // 2) + 8 * ni))
                    i += 1
    return out


def pair_inputs() -> list:
    """Every ``(lane, h, m0, n0)`` the block calls ``pair_offset`` with (the grader's inputs)."""
    found = {(0, 0, 0, 0)}
    for _, _, h, m0, n0 in _atom_origins():
        found.update((lane, h, m0, n0) for lane in range(WARP))
    return sorted(found)


def _pair_call(fn, what, lane, h, m0, n0):
    from labkit.grading.answers import LabkitValue, Opaque, Raised, as_data

    where = f"{what}(lane={lane}, h={h}, m0={m0}, n0={n0})"
    try:
        out = fn(lane, h, m0, n0)
    except Raised as err:
        raise DeviceError(f"{where} raised {err}") from None
    except Exception as err:  # the learner's code: say where it failed, in one line
        raise DeviceError(f"{where} raised {type(err).__name__}: {err}") from None
    if out is None or out is Ellipsis:
        raise DeviceError(f"{where} returned {out!r}: {NOT_ANSWERED}")
    out = as_data(out)
    if isinstance(out, LabkitValue) and out.int is not None:
        out = out.int
    if type(out) is not int:
        got = out.name if isinstance(out, Opaque) else type(out).__name__
        raise DeviceError(f"{where} must return an int byte offset; got {got}")
    value = int(out)
    if value % 4 or not 0 <= value < _SMEM_BYTES:
        raise DeviceError(f"{where} returned {value}: a 4-byte st.shared.b32 needs a multiple of 4 "
                          f"inside the 32 KB tile (0 <= offset < {_SMEM_BYTES})")
    return value


def _pair_table(fn) -> np.ndarray:
    if not callable(fn):
        raise DeviceError(f"pair_offset must be a function (lane, h, m0, n0) -> int; got {type(fn).__name__}")
    what = getattr(fn, "__name__", "pair_offset")
    addr = np.zeros((4, 64, WARP), np.int64)
    for w, i, h, m0, n0 in _atom_origins():
        for lane in range(WARP):
            addr[w, i, lane] = _pair_call(fn, what, lane, h, m0, n0)
    return addr


@dataclass
class EpilogueRun:
    """What :func:`run_epilogue` saw. ``correct``: on every backend that ran, the image the stores
    left, read through sC, is C; ``wavefronts``: the bank model's count per warp tile."""

    backends: tuple
    correct: bool
    wrong_elements: int
    first_wrong: tuple | None
    wavefronts: int
    min_wavefronts: int

    def __str__(self) -> str:
        head = (f"4 warps stage C (128x128 f16) in {EPILOGUE_LAYOUT.split(' + ')[1]} on "
                f"{', '.join(self.backends)}: read through sC it is C: {self.correct}")
        if self.correct:
            return head + f"; wavefronts per warp tile {self.wavefronts} (conflict-free: {self.min_wavefronts})"
        return head + (f" ({self.wrong_elements} of 16384 elements differ; first: C{self.first_wrong})")


def run_epilogue(pair_offset, backend=None) -> EpilogueRun:
    """Stage the block's C with ``pair_offset``'s addresses (``st.shared.b32``, one pair a lane)
    and read it back through sC. ``backend`` as in :func:`run_capstone`."""
    from labkit import lab, sim
    from labkit.banks import bank_conflicts_batch
    from labkit.lab import epilogue as ep

    if backend not in (None, "sim", "gpu", "cudasim"):
        raise DeviceError(f"backend must be 'sim', 'gpu', 'cudasim' or None; got {backend!r}")
    addr = _pair_table(pair_offset)
    _, regs = ep.instructions(EPILOGUE_LAYOUT, "st.shared.b32")   # the accumulators: C's values
    smem = sim.SharedMemory(_SMEM_BYTES)
    smem.fill(0, np.full(_SMEM_BYTES // 2, 0xFFFF, np.uint16))
    for w in range(4):
        for i in range(addr.shape[1]):
            smem.store(addr[w, i], regs[w, i, :, 0], access_bytes=4, warp=w)
    images = {"sim": smem.read(0, _SMEM_BYTES // 2)}
    auto = lab.backend()
    numba_backend = backend if backend in ("gpu", "cudasim") else (auto if backend is None and auto != "sim" else None)
    if numba_backend is not None:
        from labkit.cuda.kernels.experiments import exp_epilogue as ke
        from labkit.lab import fragments

        fragments._resolve_backend(numba_backend)     # a clear error when it cannot run here
        images[numba_backend] = ke.run_smem("st.shared.b32", addr, regs)["smem"]
    want = ep.expected_tile()
    tiles = {name: ep.read_tile(img, EPILOGUE_LAYOUT) for name, img in images.items()}
    worst = max(tiles.values(), key=lambda t: int((t != want).sum()))
    bad = np.argwhere(worst != want)
    b = bank_conflicts_batch(addr.reshape(-1, WARP), 4)
    return EpilogueRun(tuple(images), not bad.size, int(len(bad)),
                       tuple(int(x) for x in bad[0]) if bad.size else None,
                       int(b.wavefronts // 4), int(b.min_wavefronts // 4))


def epilogue_report(pair_offset=None, backend=None) -> str:
    """One printable line: "not answered yet", why the addresses cannot run, or the run."""
    if pair_offset is None:
        return NOT_ANSWERED
    try:
        return str(run_epilogue(pair_offset, backend))
    except DeviceError as err:
        return str(err)


class PairAddress(checks.Kind):
    """The form of the epilogue capstone's answer (a public check): a function whose value for
    lane 0's first pair is a 4-byte aligned offset in the tile. Says nothing about the others.

    >>> from labkit.grading import checks
    >>> checks.form(lambda lane, h, m0, n0: 0, PairAddress(), "f")
    >>> checks.form(lambda lane, h, m0, n0: 2, PairAddress(), "f")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    labkit.grading.checks.Hint: f(lane=0, h=0, m0=0, n0=0) returned 2: a 4-byte st.shared.b32 needs ...
    """

    def describe(self):
        return "a function (lane, h, m0, n0) -> int byte offset"

    def inputs(self) -> list:
        """The calls the grader makes of the function, in the submission's process."""
        return pair_inputs()

    def read(self, value, where):
        checks.FUNCTION.read(value, where)
        try:
            _pair_call(value, where, 0, 0, 0, 0)
        except DeviceError as err:
            text = str(err)
            if text.endswith(NOT_ANSWERED):
                raise checks.NotAnswered(f"{where}: {NOT_ANSWERED}") from None
            raise checks.Hint(text) from None
        return value


class StagedTile(PairAddress):
    """The epilogue capstone graded by running it (a hidden check): reads a function as
    :data:`STAGED` when the block's stores with its addresses leave C in sC on every backend
    :func:`run_epilogue` uses; raises ``checks.Wrong`` when they do not.

    >>> from labkit.grading import checks
    >>> plain = lambda lane, h, m0, n0: 2 * (128 * (m0 + lane // 4 + 8 * h) + n0 + 2 * (lane % 4))
    >>> checks.exact(plain, StagedTile("sim"), STAGED, "f")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    labkit.grading.checks.Wrong: f: read through sC the staged tile is not C (... elements differ; first: C(1, 0))
    """

    def __init__(self, backend=None):
        self.backend = backend

    def describe(self):
        return super().describe() + " that the block's epilogue runs"

    def read_expected(self, expected, where):
        return str(expected)

    def read(self, value, where):
        super().read(value, where)
        try:
            run = run_epilogue(value, self.backend)
        except DeviceError as err:
            raise checks.Hint(str(err)) from None
        if not run.correct:
            raise checks.Wrong(f"{where}: read through sC the staged tile is not C ({run.wrong_elements} of 16384 "
                               f"elements differ; first: C{run.first_wrong})")
        return STAGED
