"""Kernels as data: the tagged statements the ladder's generator emits, and their source text.

Each :class:`Statement` is one line of a generated kernel with what the generator knows about
it: its ``kind`` (a comment, plain code, or the header of a block), the ``call`` it makes (an
intrinsic of ``gemm_codegen.INTRINSICS``) and so the PTX instruction it issues (``op``), the
CuTe concept it implements (``cute``: one of :data:`CONCEPTS`, ``"gA"``, ``"tAgA"``, ``"copy"``,
``"gemm"``, ... the names of CuTe's tutorials), the part of the kernel it sits in (``phase``), and ``repeat``, a key
shared by the statements one loop of the generator writes (so a listing can say ``8 x``).
The source (:func:`render`), the instruction counts (``labkit.lab.kernel_source``) and the CuTe
side-by-side page (``labkit.lab.ladder_cute``) are all read from these fields.

>>> w = Writer()
>>> w.code("tid = int32(cuda.threadIdx.x)")
>>> with w.concept("gemm"), w.in_phase("mainloop"):
...     with w.block("for kt in range(ktiles):", cute="k_tile"):
...         w.code("d0, d1 = mma_m16n8k16_f16f16f16f16(a0, a1, a2, a3, b0, b1, d0, d1)",
...                call="mma_m16n8k16_f16f16f16f16", repeat="mma")
>>> print(render(w.statements), end="")
    tid = int32(cuda.threadIdx.x)
    for kt in range(ktiles):
        d0, d1 = mma_m16n8k16_f16f16f16f16(a0, a1, a2, a3, b0, b1, d0, d1)
>>> [(s.kind, s.cute, s.phase, s.op) for s in w.statements]
[('code', None, 'setup', None), ('block', 'k_tile', 'mainloop', None), ('code', 'gemm', 'mainloop', 'mma')]
"""

from __future__ import annotations

import contextlib
import textwrap
from dataclasses import dataclass

from labkit.errors import DeviceError

__all__ = ["KINDS", "PHASES", "CONCEPTS", "BARRIER", "NO_INSTRUCTION", "Statement", "Writer", "op_of", "render", "select"]

#: numba's ``cuda.syncthreads()`` (``bar.sync 0``): the one call outside the registry that issues an
#: instruction, counted as ``"barrier"``
BARRIER = "cuda.syncthreads"
#: the ``op`` of a call that issues no instruction (``wgmma_zeros``, ``wgmma_fence_operand``)
NO_INSTRUCTION = "(no instruction)"


def op_of(call):
    """The operation a call to ``call`` issues, from the registry (``Instruction.op``); numba's
    ``cuda.syncthreads`` is ``"barrier"``.

    >>> op_of("cp_async_cg_16_zfill"), op_of("cuda.syncthreads"), op_of("setmaxnreg_dec_40")
    ('cp.async', 'barrier', 'setmaxnreg.dec')
    """
    if call == BARRIER:
        return "barrier"
    from labkit.atoms.instructions import instruction
    from labkit.errors import InstructionError

    try:
        return instruction(call).op
    except InstructionError:
        base, _, imm = call.rpartition("_")
        if imm.isdigit() and base:      # an entry bound with its immediate: setmaxnreg_dec_40
            return instruction(base).op
        raise

#: what a statement is
KINDS = ("def", "doc", "comment", "code", "block")
#: where it sits: before the first k-tile is requested, filling the pipeline, the k-tile loop,
#: writing C
PHASES = ("setup", "prologue", "mainloop", "epilogue")
#: the CuTe concepts a statement can implement, by their names in CuTe's GEMM tutorials
CONCEPTS = {
    "gA": "local_tile of A: the block's rows of A", "gB": "local_tile of B: the block's rows of B",
    "sA": "the shared-memory tensors (sA, sB) and their base address",
    "tAgA": "TiledCopy partition_S of gA: this thread's copy sources in A", "tBgB": "the same for B",
    "tAsA": "TiledCopy partition_D of sA: this thread's copy destinations", "tBsB": "the same for B",
    "copy": "copy(tiled_copy, ...): the global -> shared copy of a k-tile",
    "cp_async_fence": "cp_async_fence(): close a group of copies",
    "cp_async_wait": "cp_async_wait<N>() and the barrier after it",
    "mbarrier": "the TMA pipeline's mbarriers: their set-up, arming and phases",
    "wait_stage": "waiting until a stage's k-tile has landed (TMA)",
    "k_tile": "the k-tile loop and its counters", "k_pipe": "k_pipe_read / k_pipe_write: the ring of stages",
    "tXsA": "s2r TiledCopy partition_S of sA: this lane's ldmatrix rows", "tXsB": "the same for B",
    "s2r_copy": "copy(s2r_atom, tXsA(_,_,k_block), tXrA(_,_,k_block)): ldmatrix into fragments",
    "tCrC": "make_fragment_C: the accumulators",
    "gemm": "gemm(tiled_mma, tCrA, tCrB, tCrC): the MMAs of a k-block",
    "tCgC": "partition_C of gC: this thread's elements of C", "axpby": "axpby: writing the accumulators to C",
    "residue": "predicates and clamps for the edges of the problem (CuTe's residue handling)",
    "tCsC": "the epilogue's staging of C in shared memory (CUTLASS's TMA-store epilogue: sC, tRS_sD)",
    "cluster": "the CTA's cluster: block_rank_in_cluster, cluster_sync, the TMA multicast of B",
    "streamk": "the stream-K scheduler (CUTLASS's StreamKScheduler): runs of k-tiles, partial sums and their flags",
}


@dataclass(frozen=True)
class Statement:
    """One line of a generated kernel and its tags (see the module text)."""

    text: str
    depth: int
    kind: str = "code"
    call: str | None = None
    op: str | None = None
    cute: str | None = None
    phase: str = "setup"
    repeat: str | None = None
    defines: tuple = ()

    def line(self) -> str:
        """The statement as a line of the source, indented four spaces a level."""
        return "    " * self.depth + self.text


class Writer:
    """Collects :class:`Statement` s; ``concept``, ``in_phase`` and ``block`` set the tags and the
    indentation of what is written inside them."""

    def __init__(self):
        self.statements = []
        self.depth = 1
        self.phase = "setup"
        self.cute = None

    def _add(self, text, kind, call=None, op=None, cute=None, repeat=None, defines=()):
        if kind not in KINDS:
            raise DeviceError(f"kind: must be one of {KINDS}, got {kind!r}")
        cute = cute if cute is not None else self.cute
        if cute is not None and cute not in CONCEPTS:
            raise DeviceError(f"cute: {cute!r} is not one of gemm_statements.CONCEPTS")
        if call is not None and op is None:
            op = op_of(call)                    # the registry says what the call issues
        elif call is not None and op != NO_INSTRUCTION:
            raise DeviceError(f"statement {text!r}: op comes from the registry ({call!r}); only a helper "
                              f"that issues nothing is tagged op={NO_INSTRUCTION!r}")
        if call is None and op is not None:
            raise DeviceError(f"statement {text!r}: an op needs the call that issues it")
        self.statements.append(Statement(text, self.depth, kind, call, op, cute, self.phase, repeat,
                                         tuple(defines)))

    def header(self, text):
        """The kernel's ``def`` line (depth 0)."""
        self.statements.append(Statement(text, 0, "def"))

    def doc(self, text):
        self._add(text, "doc")

    def comment(self, text):
        """One or more comment lines (dedented; ``#`` added)."""
        for line in textwrap.dedent(text).strip("\n").split("\n"):
            self._add(f"# {line}" if line else "#", "comment")

    def code(self, text, *, call=None, op=None, cute=None, repeat=None, defines=()):
        """One statement of plain code."""
        self._add(text, "code", call, op, cute, repeat, defines)

    def lines(self, text):
        """Untagged statements that call no intrinsic, one a line (dedented); lines that start
        with ``#`` are comments."""
        for line in textwrap.dedent(text).strip("\n").split("\n"):
            self._add(line, "comment" if line.startswith("#") else "code")

    @contextlib.contextmanager
    def block(self, header, *, call=None, op=None, cute=None):
        """A ``for``/``if``/``else``/``while`` header; what is written inside is one level deeper."""
        self._add(header, "block", call, op, cute)
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    @contextlib.contextmanager
    def concept(self, cute):
        """Statements written inside implement CuTe concept ``cute`` (unless they say otherwise)."""
        if cute not in CONCEPTS:
            raise DeviceError(f"cute: {cute!r} is not one of gemm_statements.CONCEPTS")
        old, self.cute = self.cute, cute
        try:
            yield
        finally:
            self.cute = old

    @contextlib.contextmanager
    def in_phase(self, phase):
        if phase not in PHASES:
            raise DeviceError(f"phase: must be one of {PHASES}, got {phase!r}")
        old, self.phase = self.phase, phase
        try:
            yield
        finally:
            self.phase = old


def render(statements) -> str:
    """The Python source of ``statements``, one line each."""
    return "\n".join(s.line() for s in statements) + "\n"


def select(statements, cute, *, phase=None, kind=None, call=None):
    """``((count, text), ...)``: the statements tagged ``cute`` (of ``phase``, ``kind`` and
    calling ``call``, those given), in order; consecutive ones that share a ``repeat`` key count as
    one line, shown by the first."""
    cutes = (cute,) if isinstance(cute, str) else tuple(cute)
    out = []
    for s in statements:
        if s.cute not in cutes or (phase and s.phase != phase) or (kind and s.kind != kind) or (call and s.call != call):
            continue
        key = (s.cute, s.repeat) if s.repeat else None
        if out and key is not None and out[-1][0] == key:
            out[-1][1] += 1
        else:
            out.append([key, 1, s.text])
    return tuple((n, " ".join(text.split())) for _, n, text in out)
