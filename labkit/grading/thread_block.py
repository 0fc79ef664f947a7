"""Run a learner's per-lane ``ldmatrix`` addresses inside sgemm_sm80's thread block.

Exercise 6's capstone asks for the address arithmetic of a real kernel: the element offset,
in the ``Swizzle<3,3,3>`` shared-memory tile of sgemm_sm80 (128 rows x 64 fp16, FACTS:
"The official CTA configuration"), of the 16-byte row each lane hands to ``ldmatrix.x4``:

- ``a_offset(lane, m0, k0)`` for the A fragment of rows ``m0..m0+15`` and K ``k0..k0+15``
  (registers 0..3 of the load become the MMA's ``a0..a3``);
- ``b_offset(lane, n0, k0)`` for the two B fragments of rows ``n0..n0+7`` (registers 0, 1
  become that fragment's ``b0, b1``) and ``n0+16..n0+23`` (registers 2, 3).

:func:`run_capstone` puts those offsets into the trace plan of
:func:`labkit.cuda.kernels.probes.trace_kernels.cta_plan` (the other operand keeps the plan's own offsets),
runs the thread block on one 128x128x64 tile of small random integers (exact in fp16) and
checks the accumulators against ``A @ B.T`` computed by numpy. It always runs labkit's numpy
model (``labkit.sim``); on a CUDA GPU (sm_80+) or under numba's CUDA simulator it also runs
the numba kernel, and the result is correct only if every backend that ran is.

>>> from labkit.grading import thread_block
>>> print(thread_block.smem_layout())
Sw<3,3,3> o _0 o ((_8,_16),((_8,_8),_1)):((_8,_512),((_1,_64),_0))
>>> def a_rows(lane, m0, k0):              # a deliberately wrong answer: the rows of a plain tile
...     return 64 * (m0 + lane % 16) + k0 + 8 * (lane // 16)
>>> run = thread_block.run_capstone(a_offset=a_rows, backend="sim")
>>> run.correct, run.backends
(False, ('sim',))
>>> thread_block.check_offsets(None) is None
True
"""

from __future__ import annotations

import dataclasses
import operator
from dataclasses import dataclass, field

import numpy as np

from labkit.atoms import WARP
from labkit.errors import DeviceError
from labkit.grading import checks

__all__ = ["NOT_ANSWERED", "COMPUTES", "smem_layout", "offset_table", "call_inputs", "run_capstone", "CapstoneRun", "check_offsets",
           "report", "RowAddress", "ThreadBlock", "form", "exact"]

NOT_ANSWERED = "not answered yet"
COMPUTES = "the thread block computes A·Bᵀ"
"""What :class:`ThreadBlock` reads a right answer as (the expected value of its hidden test)."""
TILE_ROWS, TILE_K = 128, 64
_SEED = 2026


def smem_layout():
    """sgemm_sm80's shared-memory tile of A (and of B): ``Sw<3,3,3> o (8,(8,8)):(8,(1,64))``
    tiled to 128x64 (element offsets of fp16)."""
    from labkit.cuda.kernels.probes import trace_kernels as kt

    return kt.cta_plan().layout


def offset_table(fn, operand: str) -> np.ndarray:
    """``(k_blocks, warps, loads, 32)`` int32: ``fn`` called for every ldmatrix.x4 of the
    thread block, as :class:`~labkit.cuda.kernels.probes.trace_kernels.CtaPlan` stores its offsets.

    A: load ``i`` of warp ``w`` is the fragment of rows ``m0 = 32 i + 16 warp_m``;
    B: load ``j`` covers the fragments of rows ``n0 = 32 j + 8 warp_n`` and ``n0 + 16``;
    both at ``k0 = 16 * k_block``.
    """
    from labkit.cuda.kernels.probes import trace_kernels as kt

    if operand not in ("A", "B"):
        raise DeviceError(f"operand must be 'A' or 'B'; got {operand!r}")
    if not callable(fn):
        raise DeviceError(f"the {operand} offset must be a function (lane, {'m0' if operand == 'A' else 'n0'}, k0) -> int; "
                          f"got {type(fn).__name__}")
    plan = kt.cta_plan()
    what = getattr(fn, "__name__", "offset")
    out = np.zeros((plan.k_blocks, 4, 4, WARP), np.int32)
    for kb in range(plan.k_blocks):
        for w in range(4):
            for i in range(4):
                x0 = 32 * i + (16 * int(plan.warp_m[w]) if operand == "A" else 8 * int(plan.warp_n[w]))
                name = "m0" if operand == "A" else "n0"
                for lane in range(WARP):
                    out[kb, w, i, lane] = _call(fn, what, lane, name, x0, 16 * kb)
    return out


def call_inputs(operand: str) -> list:
    """Every ``(lane, m0 or n0, k0)`` the thread block calls an ``operand`` offset function with
    (the inputs the grader calls a submission's function on, in the submission's process)."""
    from labkit.cuda.kernels.probes import trace_kernels as kt

    _operand_arg(operand)
    plan = kt.cta_plan()
    found = {(0, 0, 0)}                      # what the public check calls
    for kb in range(plan.k_blocks):
        for w in range(4):
            for i in range(4):
                x0 = 32 * i + (16 * int(plan.warp_m[w]) if operand == "A" else 8 * int(plan.warp_n[w]))
                found.update((lane, x0, 16 * kb) for lane in range(WARP))
    return sorted(found)


def _call(fn, what, lane, name, x0, k0):
    from labkit.grading.answers import Raised

    try:
        out = fn(lane, x0, k0)
    except Raised as err:    # raised in the submission's process, where the grader called it
        raise DeviceError(f"{what}(lane={lane}, {name}={x0}, k0={k0}) raised {err}") from None
    except Exception as err:  # the learner's code: say where it failed, in one line
        raise DeviceError(f"{what}(lane={lane}, {name}={x0}, k0={k0}) raised {type(err).__name__}: {err}") from None
    where = f"{what}(lane={lane}, {name}={x0}, k0={k0})"
    if out is None or out is Ellipsis:
        raise DeviceError(f"{where} returned {out!r}: {NOT_ANSWERED}")
    from labkit.grading.answers import LabkitValue, Opaque, as_data

    out = as_data(out)                  # what the grader reads: numpy ints, labkit's S as int
    if isinstance(out, LabkitValue) and out.int is not None:
        out = out.int
    if type(out) is not int:
        got = out.name if isinstance(out, Opaque) else type(out).__name__
        raise DeviceError(f"{where} must return an int element offset; got {got}")
    value = int(operator.index(out))
    if value % 8 or not 0 <= value < TILE_ROWS * TILE_K:
        raise DeviceError(f"{where} returned {value}: an ldmatrix row address must be 16-byte aligned "
                          f"(a multiple of 8 fp16 elements) and inside the 128x64 tile "
                          f"(0 <= offset < {TILE_ROWS * TILE_K})")
    return value


@dataclass
class CapstoneRun:
    """What :func:`run_capstone` saw. ``correct``: the 128x128 accumulators equal ``A @ B.T``
    on every backend that ran; ``wrong``: ``(operand, k_block, warp, load, lanes)`` for the
    first loads whose registers are not the fragment the MMA needs."""

    backends: tuple
    correct: bool
    wrong_elements: int
    wrong: list = field(default_factory=list)     # (operand, k_block, warp, load, lanes as text)
    wavefronts: int = 0
    min_wavefronts: int = 0
    d: np.ndarray = field(default=None, repr=False)
    expected: np.ndarray = field(default=None, repr=False)

    def __str__(self) -> str:
        head = (f"sgemm_sm80 thread block (4 warps, 4 k-blocks, Swizzle<3,3,3>) on {', '.join(self.backends)}: "
                f"D == A·Bᵀ: {self.correct}")
        if self.correct:
            return head + f"; ldmatrix wavefronts {self.wavefronts} (conflict-free: {self.min_wavefronts})"
        lines = [head + f" ({self.wrong_elements} of {TILE_ROWS * TILE_ROWS} elements of D differ)"]
        for op, kb, w, i, lanes in self.wrong:
            lines.append(f"  {op}: k-block {kb}, warp {w}, ldmatrix.x4 number {i}: the rows addressed by lanes "
                         f"{lanes} are not the ones the MMA fragment needs")
        return "\n".join(lines)


def _inputs():
    rng = np.random.default_rng(_SEED)
    a = rng.integers(-3, 4, (TILE_ROWS, TILE_K)).astype(np.float64)
    b = rng.integers(-3, 4, (TILE_ROWS, TILE_K)).astype(np.float64)
    return a, b


def _d_tile(plan, d_regs):
    from labkit.sim import unpack_fragment

    out = np.zeros((plan.bm, plan.bn))
    for w in range(4):
        for i in range(4):
            for nn in range(8):
                blk = unpack_fragment("mma_m16n8k16_f16f16f16f16", "C", d_regs[w, i, nn])
                out[np.ix_(plan.a_rows(w, i), plan.b_rows(w, nn))] = blk
    return out


def _ranges(xs):
    """``[0, 1, 2, 5]`` -> ``"0-2, 5"``."""
    parts, start = [], None
    for j, x in enumerate(xs):
        if start is None:
            start = x
        if j + 1 == len(xs) or xs[j + 1] != x + 1:
            parts.append(str(start) if start == x else f"{start}-{x}")
            start = None
    return ", ".join(parts)


def _wrong_loads(plan, regs, a, b, limit=3):
    """Compare each load's registers with the fragments the MMA's layout (PTX ISA) asks for."""
    from labkit.sim import pack_fragment

    spec = "mma_m16n8k16_f16f16f16f16"
    found = []
    for kb in range(regs["A"].shape[0]):
        ks = slice(16 * kb, 16 * kb + 16)
        for w in range(4):
            for i in range(4):
                want_a = pack_fragment(spec, "A", a[plan.a_rows(w, i)][:, ks])
                rows0, rows1 = plan.b_rows(w, 2 * i), plan.b_rows(w, 2 * i + 1)
                want_b = np.concatenate([pack_fragment(spec, "B", b[rows0][:, ks]),
                                         pack_fragment(spec, "B", b[rows1][:, ks])], axis=-1)
                for op, want in (("A", want_a), ("B", want_b)):
                    lane, reg = np.nonzero(regs[op][kb, w, i] != want)      # register j <- matrix j, row lane // 4
                    if lane.size:
                        found.append((op, kb, w, i, _ranges(sorted(set((8 * reg + lane // 4).tolist())))))
                        if len(found) >= limit:
                            return found
    return found


def run_capstone(a_offset=None, b_offset=None, backend=None) -> CapstoneRun:
    """Run sgemm_sm80's thread block with ``a_offset`` / ``b_offset`` (functions
    ``(lane, m0 or n0, k0) -> element offset``; None keeps the plan's own) on one tile.

    ``backend``: ``"sim"`` (labkit's numpy model only), ``"gpu"``/``"cudasim"`` (the numba
    kernel as well), or None: the numba kernel too when a GPU of sm_80 or newer is visible or
    the CUDA simulator is on.
    """
    from labkit import lab
    from labkit.cuda.kernels.probes import trace_kernels as kt
    from labkit.sim import to_bits
    from labkit.sim import fragment_trace as st

    if backend not in (None, "sim", "gpu", "cudasim"):
        raise DeviceError(f"backend must be 'sim', 'gpu', 'cudasim' or None; got {backend!r}")
    plan = kt.cta_plan()
    changes = {}
    if a_offset is not None:
        changes["a_offsets"] = offset_table(a_offset, "A")
    if b_offset is not None:
        changes["b_offsets"] = offset_table(b_offset, "B")
    plan = dataclasses.replace(plan, **changes)
    a, b = _inputs()
    a_bits, b_bits = to_bits(a, "f16"), to_bits(b, "f16")
    expected = a @ b.T
    runs = {"sim": st.run_cta(plan, a_bits, b_bits)}
    auto = lab.backend()
    numba_backend = backend if backend in ("gpu", "cudasim") else None
    if backend is None and auto in ("gpu", "cudasim"):
        from labkit.cuda.launch import device_sm

        numba_backend = auto if auto == "cudasim" or device_sm() >= 80 else None   # cp.async, m16n8k16
    if numba_backend is not None:
        from labkit.lab import fragments
        fragments._resolve_backend(numba_backend)    # a clear error when it cannot run here
        runs[numba_backend] = kt.run_cta(plan, a_bits, b_bits)
    sim = runs["sim"]
    d_all = {name: _d_tile(plan, out["D"][-1]) for name, out in runs.items()}
    correct = all(np.array_equal(d, expected) for d in d_all.values())
    d = d_all[numba_backend] if numba_backend is not None else d_all["sim"]
    worst = max(d_all.values(), key=lambda x: int((x != expected).sum()))
    wrong = [] if correct else _wrong_loads(plan, {"A": sim["A"], "B": sim["B"]}, a, b)
    ld = [acc for acc in sim["smem"].log if acc.op.startswith("ldmatrix")]
    return CapstoneRun(tuple(runs), bool(correct), int((worst != expected).sum()), wrong,
                       int(sum(x.wavefronts for x in ld)), int(sum(x.min_wavefronts for x in ld)), d, expected)


def check_offsets(a_offset=None, b_offset=None, backend=None):
    """The capstone's verdict for a notebook: ``None`` when neither function is given,
    else the :class:`CapstoneRun` (or the one-line reason it could not run, as a string)."""
    if a_offset is None and b_offset is None:
        return None
    try:
        return run_capstone(a_offset, b_offset, backend)
    except DeviceError as err:
        return str(err)


def report(a_offset=None, b_offset=None, backend=None) -> str:
    """One printable line (or a few): "not answered yet", why the offsets cannot run, or the run."""
    out = check_offsets(a_offset, b_offset, backend)
    return NOT_ANSWERED if out is None else str(out)


def _operand_arg(operand):
    if operand not in ("A", "B"):
        raise DeviceError(f"operand must be 'A' or 'B'; got {operand!r}")
    return "a_offset" if operand == "A" else "b_offset"


class RowAddress(checks.Kind):
    """The form of a capstone answer (a public check): a function whose value for lane 0 of the
    first load is an int that can be an ldmatrix row address. Says nothing about the others.

    >>> from labkit.grading import checks
    >>> checks.form(lambda lane, m0, k0: 0, RowAddress("A"), "f")
    >>> def blank(lane, m0, k0):
    ...     ...
    >>> checks.form(blank, RowAddress("A"), "f")
    Traceback (most recent call last):
    ...
    labkit.grading.checks.NotAnswered: f: not answered yet
    """

    def __init__(self, operand: str):
        _operand_arg(operand)
        self.operand = operand

    def describe(self):
        x0 = "m0" if self.operand == "A" else "n0"
        return f"a function (lane, {x0}, k0) -> int element offset"

    def inputs(self) -> list:
        """The calls the grader makes of the function, in the submission's process."""
        return call_inputs(self.operand)

    def read(self, value, where):
        checks.FUNCTION.read(value, where)
        try:
            _call(value, where, 0, "m0" if self.operand == "A" else "n0", 0, 0)
        except DeviceError as err:
            text = str(err)
            if text.endswith(NOT_ANSWERED):
                raise checks.NotAnswered(f"{where}: {NOT_ANSWERED}") from None
            raise checks.Hint(text) from None
        return value


class ThreadBlock(RowAddress):
    """A capstone answer graded by running it (a hidden check): reads a function as
    :data:`COMPUTES` when sgemm_sm80's thread block, with the function's addresses for the
    operand, computes ``A @ B.T`` on every backend :func:`run_capstone` uses; raises
    ``checks.Wrong`` (saying where the first wrong load is) when it does not.

    >>> from labkit.grading import checks
    >>> checks.exact(lambda lane, m0, k0: 0, ThreadBlock("A"), COMPUTES, "f")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    labkit.grading.checks.Wrong: f: the thread block's D is not A·Bᵀ (... elements differ; first wrong: A, k-block 0, warp 0, load 0)
    """

    def __init__(self, operand: str, backend=None):
        super().__init__(operand)
        self.backend = backend

    def describe(self):
        return super().describe() + " that the thread block runs"

    def read_expected(self, expected, where):
        return str(expected)            # COMPUTES: what a right answer is read as

    def read(self, value, where):
        super().read(value, where)
        try:
            run = run_capstone(**{_operand_arg(self.operand): value}, backend=self.backend)
        except DeviceError as err:
            raise checks.Hint(str(err)) from None
        if not run.correct:
            first = run.wrong[0] if run.wrong else None
            where_wrong = (f"; first wrong: {first[0]}, k-block {first[1]}, warp {first[2]}, load {first[3]}"
                           if first else "")
            raise checks.Wrong(f"{where}: the thread block's D is not A·Bᵀ ({run.wrong_elements} of "
                               f"{TILE_ROWS * TILE_ROWS} elements differ{where_wrong})")
        return COMPUTES


def form(fn, operand: str, name: str) -> None:
    """``checks.form(fn, RowAddress(operand), name)``."""
    checks.form(fn, RowAddress(operand), name)


def exact(fn, operand: str, name: str, backend=None) -> None:
    """``checks.exact(fn, ThreadBlock(operand, backend), COMPUTES, name)``."""
    checks.exact(fn, ThreadBlock(operand, backend), COMPUTES, name)
