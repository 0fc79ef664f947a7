"""The fragment lab: watch ldmatrix and mma.sync fill every lane's registers, on any machine.

:func:`backend` says where the lab runs: ``"gpu"`` (a CUDA GPU through numba), ``"cudasim"``
(numba's CUDA simulator, ``NUMBA_ENABLE_CUDASIM=1`` set before numba is imported: the
same kernel source runs on the CPU) or ``"sim"`` (labkit's numpy model, no numba kernel).
:func:`trace_mma` and :func:`trace_cta` return the same trace objects on every backend,
and every trace also carries the numpy model's registers (``sim_regs``) and bank account,
so a notebook can print "GPU == sim" next to the figure.

>>> from labkit import lab
>>> t = lab.trace_mma(backend="sim")                 # SM80_16x8x16_F16F16F16F16_TN, ldmatrix x4/x2
>>> t.coords("A")[0].tolist()                         # lane 0 holds A(0,0) A(0,1) A(8,0) A(8,1) ...
[[0, 0], [0, 1], [8, 0], [8, 1], [0, 8], [0, 9], [8, 8], [8, 9]]
>>> t.coords("B")[5].tolist()                         # lane 5 holds B(n=1, k=2, 3, 10, 11)
[[1, 2], [1, 3], [1, 10], [1, 11]]
>>> t.backend, t.matches_sim
('sim', True)

On a GPU (or under the simulator) the call is the same (skipped here)::

    >>> t = lab.trace_mma(variant="x1", b_variant="x2.trans")    # doctest: +SKIP
    >>> print(t.backend, t.device)                               # doctest: +SKIP
    gpu NVIDIA H200 (sm_90)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from labkit.errors import DeviceError

__all__ = ["BACKENDS", "backend", "default_atom", "trace_mma", "trace_cta", "MmaTrace", "CtaTrace"]

BACKENDS = ("gpu", "cudasim", "sim")
"""Where a lab can run: a CUDA GPU, numba's CUDA simulator, labkit's numpy model."""


def backend() -> str:
    """``"cudasim"`` when numba's CUDA simulator is on, else ``"gpu"`` when numba sees a CUDA
    GPU, else ``"sim"``."""
    from labkit.cuda import SIMULATED

    if SIMULATED:
        return "cudasim"
    from numba import cuda

    return "gpu" if cuda.is_available() else "sim"


def _resolve_backend(name):
    auto = backend()
    if name is None:
        return auto
    if name not in BACKENDS:
        raise DeviceError(f"backend must be one of {BACKENDS} or None (automatic); got {name!r}")
    if name == "sim" or name == auto:
        return name
    if name == "cudasim":
        raise DeviceError("backend 'cudasim' needs NUMBA_ENABLE_CUDASIM=1 set before numba is imported")
    raise DeviceError("backend 'gpu' needs a CUDA GPU visible to numba (and the CUDA simulator off)")


def _device(name):
    if name == "sim":
        return "labkit.sim (numpy)"
    from labkit.cuda import device_name

    return device_name()


def default_atom(sm: int | None = None) -> str:
    """The MMA the lab uses on an SM: ``SM80_16x8x16_F16F16F16F16_TN`` from sm_80,
    ``SM75_16x8x8_F32F16F16F32_TN`` on sm_75 (Turing has m16n8k8 but not m16n8k16).

    >>> default_atom(75), default_atom(90)
    ('SM75_16x8x8_F32F16F16F32_TN', 'SM80_16x8x16_F16F16F16F16_TN')
    """
    if sm is None:
        b = backend()
        if b == "sim":
            sm = 80
        else:
            from labkit.cuda import device_sm

            sm = device_sm()
    if sm < 75:
        raise DeviceError(f"the fragment lab needs sm_75 or newer (ldmatrix, mma.sync); this device is sm_{sm}")
    return "SM80_16x8x16_F16F16F16F16_TN" if sm >= 80 else "SM75_16x8x8_F32F16F16F32_TN"


# ---------------------------------------------------------------------------------------------
# one MMA


@dataclass
class MmaTrace:
    """Every lane's registers after ldmatrix of A, ldmatrix of B and mma.sync.

    ``regs[stage]`` (``stage`` in ``"A"``, ``"B"``, ``"D"``) is ``(32, registers)`` uint32
    from the backend that ran; ``sim_regs`` the numpy model's for the same inputs.
    ``a (M, K)``, ``b (N, K)``, ``c (M, N)`` are the inputs as rounded to their types;
    ``a_offsets``/``b_offsets`` the element offset each lane gave each ldmatrix;
    ``b_scale`` the factor of the default B encoding (``B[n, k] = (16 n + k) * b_scale``).
    """

    atom: str
    instruction: str
    backend: str
    device: str
    variant: str
    b_variant: str
    a: np.ndarray = field(repr=False)
    b: np.ndarray = field(repr=False)
    c: np.ndarray = field(repr=False)
    regs: dict = field(repr=False)
    sim_regs: dict = field(repr=False)
    a_offsets: np.ndarray = field(repr=False)
    b_offsets: np.ndarray = field(repr=False)
    accesses: list = field(repr=False)
    b_scale: float = 1.0
    kernel_source: str | None = field(default=None, repr=False)

    @property
    def spec(self):
        from labkit.sim import mma_spec

        return mma_spec(self.instruction)

    @property
    def codes_coords(self) -> bool:
        """True when the default inputs ``16 m + k`` fit the A/B element type exactly (not s8)."""
        from labkit.elements import element

        return element(self.spec.ab_type).kind == "float"

    @property
    def matches_sim(self) -> bool:
        """True when every register equals the numpy model's, bit for bit."""
        return all(np.array_equal(self.regs[s], self.sim_regs[s]) for s in ("A", "B", "D"))

    def values(self, stage: str) -> np.ndarray:
        """``(32, elements)`` float64: the elements each lane holds after ``stage``."""
        from labkit.sim import numbers as nb

        s = _stage(stage)
        kind = self.spec.element_type("C" if s == "D" else s)      # the registry entry's type
        return nb.from_bits(nb.unpack_registers(self.regs[s], kind), kind)

    def matrix(self, stage: str) -> np.ndarray:
        """The operand read back from the registers (A ``(M, K)``, B ``(N, K)``, D ``(M, N)``)."""
        from labkit.sim import unpack_fragment

        s = _stage(stage)
        return unpack_fragment(self.spec, "C" if s == "D" else s, self.regs[s])

    def coords(self, stage: str) -> np.ndarray:
        """``(32, elements, 2)``: decode the default coordinate inputs, A as ``(m, k)`` from
        ``16 m + k``, B as ``(n, k)`` from ``(16 n + k) * b_scale``."""
        s = _stage(stage)
        if s == "D":
            raise DeviceError("coords: D holds sums, not coordinates; use values('D') or matrix('D')")
        if not self.codes_coords:
            raise DeviceError(f"coords: {self.spec.ab_type} elements cannot hold every coordinate 16 m + k "
                              f"of {self.atom}; use values() or matrix()")
        v = self.values(s) / (self.b_scale if s == "B" else 1.0)
        iv = np.rint(v).astype(np.int64)
        return np.stack([iv // 16, iv % 16], axis=-1)

    def table(self, stage: str, lanes=range(32)) -> str:
        """Text table: one row per lane, one column per element."""
        vals = self.values(stage)
        width = max(len(_fmt(x)) for x in vals.reshape(-1))
        head = "lane " + " ".join(f"{'v' + str(i):>{width}}" for i in range(vals.shape[1]))
        rows = [f"{t:>4} " + " ".join(f"{_fmt(x):>{width}}" for x in vals[t]) for t in lanes]
        return "\n".join([head] + rows)

    def __str__(self) -> str:
        return (f"{self.atom} on {self.backend} ({self.device}); A via ldmatrix.{self.variant}, "
                f"B via ldmatrix.{self.b_variant}; registers == labkit.sim: {self.matches_sim}")


def _fmt(x):
    return str(int(x)) if float(x).is_integer() else f"{x:.4g}"


def _stage(stage):
    s = str(stage).upper()
    if s not in ("A", "B", "D"):
        raise DeviceError(f"stage must be 'A' (after ldmatrix of A), 'B' or 'D' (after mma); got {stage!r}")
    return s


def _matrix_arg(x, shape, name):
    if x is None:
        return None
    arr = np.asarray(x, dtype=np.float64)
    if arr.shape != shape:
        raise DeviceError(f"{name} must have shape {shape}; got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise DeviceError(f"{name} must hold finite numbers")
    return arr


def _default_operand(rows, cols, kind):
    """``16 r + c``; for integer elements (s8) the same wrapped into the type's range."""
    from labkit.elements import element

    x = 16.0 * np.arange(rows)[:, None] + np.arange(cols)[None, :]
    e = element(kind)
    if e.kind == "int":
        half = 1 << (e.bits - 1)
        x = (x + half) % (2 * half) - half
    return x


def trace_mma(atom=None, variant=None, b_variant=None, a=None, b=None, c=None, backend=None) -> MmaTrace:
    """One warp: ldmatrix A (``variant``), ldmatrix B (``b_variant``), one ``mma.sync`` of ``atom``.

    ``atom``: a CuTe MMA name (default :func:`default_atom` for the device: m16n8k8 on sm_75).
    ``variant`` / ``b_variant``: ``"x1"``, ``"x2"``, ``"x4"``, with ``".trans"`` to store the
    operand M-/N-major and let ldmatrix transpose it (defaults: the widest that fits).
    ``a (M, K)``, ``b (N, K)``, ``c (M, N)``: inputs; by default A[m, k] = 16 m + k,
    B[n, k] = 16 n + k (times 2^-10 with an f16 accumulator, so D stays in range; wrapped into
    -128..127 for s8), C = 0. Element types, registers and packing are the registry entry's.
    ``backend``: ``"gpu"``, ``"cudasim"``, ``"sim"`` or None (:func:`backend`).
    """
    from labkit.cuda.kernels.probes import trace_kernels as kt
    from labkit.sim import mma_spec, pack_fragment, to_bits
    from labkit.sim import fragment_trace as st

    name = _resolve_backend(backend)
    atom = default_atom(80 if name == "sim" else None) if atom is None else atom
    spec = mma_spec(atom)
    plan = kt.mma_plan(spec.name, variant, b_variant)
    m, n, k = spec.shape_mnk
    scale = 2.0 ** -10 if spec.acc_type == "f16" else 1.0
    A = _matrix_arg(a, (m, k), "a")
    B = _matrix_arg(b, (n, k), "b")
    C = _matrix_arg(c, (m, n), "c")
    A = _default_operand(m, k, spec.ab_type) if A is None else A
    B = _default_operand(n, k, spec.ab_type) * scale if B is None else B
    C = np.zeros((m, n)) if C is None else C
    a_bits = to_bits(A, spec.ab_type)[None]
    b_bits = to_bits(B, spec.ab_type)[None]
    c_regs = pack_fragment(spec, "C", C)[None]
    ref = st.run_mma(plan, a_bits, b_bits, c_regs)
    sim_regs = {s: ref[s][0] for s in ("A", "B", "D")}
    source = None
    if name == "sim":
        regs = sim_regs
    else:
        out = kt.run_mma(plan, a_bits, b_bits, c_regs)
        regs = {s: out[s][0] for s in ("A", "B", "D")}
        source = out["kernel_source"]
    from labkit.sim import numbers as nb

    rounded = (nb.from_bits(a_bits[0], spec.ab_type), nb.from_bits(b_bits[0], spec.ab_type))
    c_back = pack_fragment(spec, "C", C)
    from labkit.sim import unpack_fragment

    return MmaTrace(
        atom, spec.name, name, _device(name), plan.a_variant, plan.b_variant,
        rounded[0], rounded[1], unpack_fragment(spec, "C", c_back), regs, sim_regs,
        plan.a_offsets, plan.b_offsets, list(ref["smem"].log), scale if b is None else 1.0, source,
    )


# ---------------------------------------------------------------------------------------------
# the sgemm_sm80 CTA


@dataclass
class CtaTrace:
    """sgemm_sm80's CTA on one 128x128x64 k-tile: every warp's fragments per k-block.

    ``regs["A"] (k_blocks, warp, i, 32, 4)``: A fragment ``i`` (rows ``32 i + 16 warp_m``);
    ``regs["B"] (k_blocks, warp, j, 32, 4)``: ldmatrix.x4 ``j`` = B fragments ``2j``, ``2j+1``;
    ``regs["D"] (k_blocks, warp, i, nn, 32, 2)``: accumulators after each k-block.
    ``accesses``: the shared-memory account (cp.async and ldmatrix) from labkit.sim.
    """

    backend: str
    device: str
    a: np.ndarray = field(repr=False)
    b: np.ndarray = field(repr=False)
    regs: dict = field(repr=False)
    sim_regs: dict = field(repr=False)
    plan: object = field(repr=False)
    accesses: list = field(repr=False)
    kernel_source: str | None = field(default=None, repr=False)

    @property
    def codes_coords(self) -> bool:
        """True when the default inputs ``16 m + k`` fit the A/B element type exactly (not s8)."""
        from labkit.elements import element

        return element(self.spec.ab_type).kind == "float"

    @property
    def matches_sim(self) -> bool:
        return all(np.array_equal(self.regs[s], self.sim_regs[s]) for s in ("A", "B", "D"))

    @property
    def k_blocks(self) -> int:
        return int(self.regs["A"].shape[0])

    def d(self, k_block: int = -1) -> np.ndarray:
        """The 128x128 accumulator tile after ``k_block``, assembled from every warp's fragments."""
        from labkit.sim import unpack_fragment

        spec = "mma_m16n8k16_f16f16f16f16"
        out = np.zeros((self.plan.bm, self.plan.bn))
        regs = self.regs["D"][k_block]
        for w in range(4):
            for i in range(4):
                for nn in range(8):
                    blk = unpack_fragment(spec, "C", regs[w, i, nn])
                    out[np.ix_(self.plan.a_rows(w, i), self.plan.b_rows(w, nn))] = blk
        return out

    def conflicts(self) -> dict:
        """``{op: (accesses, wavefronts, conflict-free wavefronts, worst degree)}``."""
        from labkit.sim.smem import summarize

        return summarize(self.accesses)

    def __str__(self) -> str:
        return (f"sgemm_sm80 CTA (128x128x64, 2x2 warps, Swizzle<3,3,3>) on {self.backend} ({self.device}), "
                f"{self.k_blocks} k-block(s); registers == labkit.sim: {self.matches_sim}")


def trace_cta(a=None, b=None, k_blocks: int = 4, backend=None) -> CtaTrace:
    """Run sgemm_sm80's CTA on one k-tile: ``a``, ``b`` are 128x64 (K-major, f16; default small
    integers from a fixed seed) and ``k_blocks`` of its 4 k-blocks are traced."""
    from labkit.cuda.kernels.probes import trace_kernels as kt
    from labkit.sim import from_bits, to_bits
    from labkit.sim import fragment_trace as st

    name = _resolve_backend(backend)
    plan = kt.cta_plan()
    rng = np.random.default_rng(0)
    A = _matrix_arg(a, (128, 64), "a")
    B = _matrix_arg(b, (128, 64), "b")
    A = rng.integers(-2, 3, (128, 64)).astype(np.float64) if A is None else A
    B = rng.integers(-2, 3, (128, 64)).astype(np.float64) if B is None else B
    if isinstance(k_blocks, bool) or not isinstance(k_blocks, (int, np.integer)) or not 1 <= k_blocks <= 4:
        raise DeviceError(f"k_blocks must be an integer in 1..4; got {k_blocks!r}")
    a_bits, b_bits = to_bits(A, "f16"), to_bits(B, "f16")
    ref = st.run_cta(plan, a_bits, b_bits, int(k_blocks))
    sim_regs = {s: ref[s] for s in ("A", "B", "D")}
    source = None
    if name == "sim":
        regs = sim_regs
    else:
        from labkit.cuda.launch import device_sm, device_name
        if device_sm() < 80:
            raise DeviceError(
                f"trace_cta runs sgemm_sm80's CTA (cp.async, mma m16n8k16), which needs sm_80 "
                f"or newer; the current device is {device_name()} (sm_{device_sm()}). Pass "
                "backend='sim' for the same trace from the CPU model, or use trace_mma, which "
                "runs on sm_75")
        out = kt.run_cta(plan, a_bits, b_bits, int(k_blocks))
        regs = {s: out[s] for s in ("A", "B", "D")}
        source = out["kernel_source"]
    return CtaTrace(name, _device(name), from_bits(a_bits, "f16"), from_bits(b_bits, "f16"), regs, sim_regs, plan,
                    list(ref["smem"].log), source)
