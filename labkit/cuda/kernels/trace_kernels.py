"""Fragment traces: kernels that record every lane's registers after ldmatrix and mma.sync.

Two experiments, each described by a *plan* (pure data: which shared-memory element
offset every lane hands to every ldmatrix) and run by a kernel generated from the plan:

- :func:`mma_plan` / :func:`run_mma`: one warp stores A (16 x K) and B (8 x K, CuTe's
  ``(n, k)``) in shared memory, loads them with a chosen ldmatrix variant, issues one
  ``mma.sync`` and writes its A, B and D registers out. Many independent warps run in
  one launch (one warp per block), which is how ``python -m labkit verify`` checks
  thousands of random inputs.
- :func:`cta_plan` / :func:`run_cta`: the sgemm_sm80 CTA (128 threads = 2x2 warps,
  ``SM80_16x8x16_F16F16F16F16_TN`` tiled 32x32x16, A and B tiles 128x64 K-major in
  Swizzle<3,3,3> shared memory filled by 128-bit ``cp.async``, ``ldmatrix.x4`` for both
  operands) recording every warp's A/B fragments and accumulators per k-block.

Register semantics used to build the plans come from the instruction registry: ldmatrix's lane
rule (:func:`labkit.atoms.instructions.lane_row`: lane ``L`` gives the address of row ``L % 8``
of matrix ``L // 8``, and register ``i`` receives matrix ``i``) and, per MMA entry, the 8x8 block
of 16-bit units each A/B register holds (``MmaInstruction.ldmatrix_blocks``, from CuTe's TV
layout). Operands are staged as 16-bit units, so one plan covers f16/bf16, tf32 and s8.

The kernels are plain ``@cuda.jit`` functions (no generated source): factories close over the
registry entry's bound intrinsic (``getattr(ptx, entry.name)``) and its register counts, so the
same function runs on a GPU and under the CUDA simulator; every launch goes through
:func:`labkit.cuda.jit` and checks the device's SM first. Shared arrays are declared 128-byte aligned on a GPU
(ldmatrix rows and cp.async destinations must be 16-byte aligned).

>>> from labkit.cuda.kernels import trace_kernels
>>> p = trace_kernels.mma_plan("mma_m16n8k16_f16f16f16f16", "x4", "x2")
>>> p.a_offsets[0, [0, 1, 8, 16, 31]].tolist()     # lane 16 starts row A(0, 8..15)
[0, 16, 128, 8, 248]
>>> p.b_offsets.tolist()[0][:9]
[0, 16, 32, 48, 64, 80, 96, 112, 8]
>>> c = trace_kernels.cta_plan()
>>> int(c.smem_offset(0, 9)), int(c.smem_offset(0, 8))   # Swizzle<3,3,3>: 64^8 = 72
(73, 72)
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass, field

import numpy as np
from numba import cuda, float32, int32, uint16, uint32

from labkit.atoms import elements, instructions
from labkit.cuda import ptx
from labkit.cuda.launch import jit
from labkit.errors import DeviceError

__all__ = [
    "LDMATRIX_VARIANTS",
    "MmaPlan",
    "mma_plan",
    "run_mma",
    "mma_kernel_source",
    "CtaPlan",
    "cta_plan",
    "run_cta",
    "cta_kernel_source",
    "ldmatrix_kernel_source",
    "run_ldmatrix",
]

WARP = 32
LDMATRIX_VARIANTS = ("x1", "x2", "x4", "x1.trans", "x2.trans", "x4.trans")
"""ldmatrix variants by the suffix of their PTX name."""


def parse_variant(variant: str, what: str = "variant") -> tuple:
    """``"x4.trans"`` -> ``(4, True)``."""
    if variant not in LDMATRIX_VARIANTS:
        raise DeviceError(f"{what} must be one of {LDMATRIX_VARIANTS}; got {variant!r}")
    return int(variant[1]), variant.endswith(".trans")


def _ld_name(num, trans):
    return f"ldmatrix_x{num}" + ("_trans" if trans else "")


# ---------------------------------------------------------------------------------------------
# one MMA


@dataclass(frozen=True)
class MmaPlan:
    """How one warp stages and loads the operands of one ``mma.sync`` (see :func:`mma_plan`).

    ``a_offsets (loads, 32)`` / ``b_offsets``: element offsets each lane gives each ldmatrix.
    ``a_major`` is ``"k"`` (A stored ``K*m + k``) or ``"m"`` (``M*k + m``, loaded with
    ``.trans``); ``b_major`` is ``"k"`` (``K*n + k``) or ``"n"`` (``N*k + n``).
    """

    instruction: str
    m: int
    n: int
    k: int
    acc_type: str
    a_variant: str
    b_variant: str
    a_major: str
    b_major: str
    a_offsets: np.ndarray = field(repr=False)
    b_offsets: np.ndarray = field(repr=False)

    @property
    def entry(self):
        """The instruction registry's entry."""
        return instructions.instruction(self.instruction, "mma")

    @property
    def ab_type(self) -> str:
        return self.entry.ab_type

    @property
    def k16(self) -> int:
        """K in 16-bit units (the staging and ldmatrix unit): ``k * bits // 16``."""
        return self.k * self.entry.ab_bits // 16

    @property
    def a_regs(self) -> int:
        return self.entry.registers("A")

    @property
    def b_regs(self) -> int:
        return self.entry.registers("B")

    @property
    def c_regs(self) -> int:
        return self.entry.registers("C")

    def _units(self, bits):
        """Element bits ``(..., rows, K)`` as ``(..., rows, K16)`` 16-bit units (little-endian:
        the lower-indexed element in the low bits, as in a register)."""
        e = elements.element(self.ab_type)
        x = np.ascontiguousarray(np.asarray(bits).astype(e.dtype))
        return x.view(np.uint16)

    def a_image(self, a_bits) -> np.ndarray:
        """Shared-memory image ``(..., M*K16)`` uint16 of A's element bits ``(..., M, K)``."""
        a = self._units(a_bits)
        t = a if self.a_major == "k" else np.swapaxes(a, -1, -2)
        return np.ascontiguousarray(t).reshape(a.shape[:-2] + (self.m * self.k16,))

    def b_image(self, b_bits) -> np.ndarray:
        """Shared-memory image ``(..., N*K16)`` uint16 of B's element bits ``(..., N, K)``."""
        b = self._units(b_bits)
        t = b if self.b_major == "k" else np.swapaxes(b, -1, -2)
        return np.ascontiguousarray(t).reshape(b.shape[:-2] + (self.n * self.k16,))


def _lane_rows(num):
    """Lane -> (matrix within the load, row): the registry's ldmatrix lane rule."""
    return instructions.lane_row(np.arange(WARP), num)


def mma_plan(instruction: str, variant: str | None = None, b_variant: str | None = None) -> MmaPlan:
    """Plan one warp's ldmatrix loads for the MMA ``instruction`` (a registry name or CuTe atom;
    anything else raises :class:`~labkit.errors.InstructionError`).

    ``variant`` loads A, ``b_variant`` loads B: ``"x1"``, ``"x2"``, ``"x4"``, optionally
    ``".trans"`` (the operand is then stored M- or N-major and transposed by ldmatrix; 16-bit
    elements only). Default: the widest load that one MMA's operand fills (one matrix per
    register). Which 8x8 block of 16-bit units each register holds is the registry's
    :meth:`~labkit.atoms.instructions.MmaInstruction.ldmatrix_blocks`.
    """
    ins = instructions.instruction(instruction, "mma")  # unknown: InstructionError
    m, n, k = ins.shape
    k16 = k * ins.ab_bits // 16
    na, nb = ins.registers("A"), ins.registers("B")
    variant = variant or f"x{na}"
    b_variant = b_variant or f"x{nb}"
    a_num, a_trans = parse_variant(variant, "variant")
    b_num, b_trans = parse_variant(b_variant, "b_variant")
    for op, num, regs in (("A", a_num, na), ("B", b_num, nb)):
        if regs % num:
            raise DeviceError(
                f"{op} of {ins.ptx} has {regs} register(s) per lane, but ldmatrix.x{num} loads {num}: "
                f"{regs} is not divisible by {num}; use x{regs} or smaller"
            )
    if (a_trans or b_trans) and ins.ab_bits != 16:
        raise DeviceError(f"ldmatrix .trans moves 16-bit elements; {ins.ptx} has {ins.ab_bits}-bit "
                          "A and B, so load them without .trans (K-major)")
    mat, row = _lane_rows(a_num)
    blocks = ins.ldmatrix_blocks("A")
    a_off = []
    for load in range(na // a_num):
        m0, k0 = (np.array(v) for v in zip(*(blocks[a_num * load + i] for i in mat)))
        a_off.append(m * (k0 + row) + m0 if a_trans else k16 * (m0 + row) + k0)
    mat, row = _lane_rows(b_num)
    blocks = ins.ldmatrix_blocks("B")
    b_off = []
    for load in range(nb // b_num):
        n0, k0 = (np.array(v) for v in zip(*(blocks[b_num * load + i] for i in mat)))
        b_off.append(n * (k0 + row) + n0 if b_trans else k16 * (n0 + row) + k0)
    return MmaPlan(
        ins.name, m, n, k, ins.acc_type, variant, b_variant,
        "m" if a_trans else "k", "n" if b_trans else "k",
        np.array(a_off, np.int32), np.array(b_off, np.int32),
    )


# ---------------------------------------------------------------------------------------------
# kernels: plain ``@cuda.jit`` functions, made by factories that close over the registry entry's
# bound intrinsic (``getattr(ptx, entry.name)``) and integer constants (register counts, sizes)


ALIGN = None if ptx.SIMULATED else 128
"""Alignment of the shared arrays: 128 bytes on a GPU, none under the simulator (it rejects one)."""
MAX_REGS = 4
"""Registers per operand a trace kernel holds (kernels keep them in 4-entry local arrays)."""

# A kernel is one function: numba-cuda compiles a called device function for the current GPU,
# so a kernel that calls one could not be compiled to PTX on a machine without a GPU. The
# register tuples an instruction takes are therefore made inside the kernel from 4-entry local
# arrays with a constant slice (``(r[0], r[1], r[2], r[3])[:n]``), and the branch on a
# constant (``if num == 1``, ldmatrix .x1 returns one register, not a tuple) is pruned by numba
# before typing. Loops over constant ranges are unrolled by the compiler: one instruction per load.


def _ldmatrix(variant):
    """The registry's ldmatrix entry for ``variant`` and its bound intrinsic."""
    num, trans = parse_variant(variant)
    entry = instructions.instruction(_ld_name(num, trans), "ldmatrix")
    return entry, getattr(ptx, entry.name)


def _check_regs(entry, counts):
    for op, n in counts.items():
        if not 1 <= n <= MAX_REGS:
            raise DeviceError(f"{entry.ptx}: {op} has {n} registers per lane; trace kernels hold 1..{MAX_REGS}")


def _kernel_source(kernel, **constants) -> str:
    """The Python source of a trace kernel and the constants it closes over (for display)."""
    import inspect

    head = "".join(f"# {name} = {value}\n" for name, value in constants.items())
    try:
        return head + inspect.getsource(kernel.py_func)
    except (OSError, TypeError):                # no source file (e.g. a frozen install)
        return head + f"# source of {kernel.__name__} is not available\n"


def _mma_kernel(plan: MmaPlan):
    """The kernel that runs ``plan`` (one warp per block), built once per instruction and variants."""
    key = ("mma", plan.instruction, plan.a_variant, plan.b_variant, ptx.SIMULATED)
    if key in _KERNELS:
        return _KERNELS[key]
    entry = plan.entry
    mma = getattr(ptx, entry.name)                               # the registry entry's intrinsic
    na, nb, nc = entry.registers("A"), entry.registers("B"), entry.registers("C")
    _check_regs(entry, {"A": na, "B": nb, "C": nc})
    creg = {"f32": float32, "s32": int32, "u32": uint32}[elements.register_kind(entry.acc_type)]
    a_entry, ld_a = _ldmatrix(plan.a_variant)
    b_entry, ld_b = _ldmatrix(plan.b_variant)
    a_num, b_num = a_entry.num, b_entry.num
    a_loads, b_loads = na // a_num, nb // b_num
    sa, sb = plan.m * plan.k16, plan.n * plan.k16
    size = sa + sb

    def trace_mma_kernel(sa_img, sb_img, a_off, b_off, c_in, out_a, out_b, out_d, bad):
        smem = cuda.shared.array(size, uint16, alignment=ALIGN)
        w = cuda.blockIdx.x
        lane = cuda.threadIdx.x
        for i in range(lane, sa, 32):
            smem[i] = sa_img[w, i]
        for i in range(lane, sb, 32):
            smem[sa + i] = sb_img[w, i]
        if ptx.smem_addr(smem, 0) % 16 != 0:
            bad[0] = 1
        cuda.syncthreads()
        ra = cuda.local.array(MAX_REGS, uint32)
        rb = cuda.local.array(MAX_REGS, uint32)
        rc = cuda.local.array(MAX_REGS, creg)
        for load in range(a_loads):                              # ldmatrix A
            if a_num == 1:
                xa = (ld_a(ptx.smem_addr(smem, a_off[load, lane])),)
            else:
                xa = ld_a(ptx.smem_addr(smem, a_off[load, lane]))
            for j in range(a_num):
                ra[a_num * load + j] = xa[j]
        for load in range(b_loads):                              # ldmatrix B
            if b_num == 1:
                xb = (ld_b(ptx.smem_addr(smem, sa + b_off[load, lane])),)
            else:
                xb = ld_b(ptx.smem_addr(smem, sa + b_off[load, lane]))
            for j in range(b_num):
                rb[b_num * load + j] = xb[j]
        for i in range(nc):
            rc[i] = c_in[w, lane, i]
        d = mma(*((ra[0], ra[1], ra[2], ra[3])[:na] + (rb[0], rb[1], rb[2], rb[3])[:nb]
                  + (rc[0], rc[1], rc[2], rc[3])[:nc]))
        for i in range(na):
            out_a[w, lane, i] = ra[i]
        for i in range(nb):
            out_b[w, lane, i] = rb[i]
        for i in range(nc):
            out_d[w, lane, i] = d[i]

    kernel = jit(trace_mma_kernel)
    kernel.source = _kernel_source(kernel, mma=f"ptx.{entry.name}", ld_a=f"ptx.{a_entry.name}", ld_b=f"ptx.{b_entry.name}",
                                   na=na, nb=nb, nc=nc, a_num=a_num, b_num=b_num, a_loads=a_loads,
                                   b_loads=b_loads, sa=sa, sb=sb, size=size)
    _KERNELS[key] = kernel
    return kernel


def mma_kernel_source(plan: MmaPlan) -> str:
    """Python source of the kernel that runs ``plan`` (one warp per block), headed by the
    constants it closes over."""
    return _mma_kernel(plan).source


_KERNELS: dict = {}


def _launch(kernel, grid, block, *args):
    """Launch with numba's performance warnings (host copies, small grids) silenced."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module=r"numba")
        kernel[grid, block](*args)


def run_mma(plan: MmaPlan, a_bits, b_bits, c_regs) -> dict:
    """Run ``plan`` on ``W`` warps: ``a_bits (W, M, K)``, ``b_bits (W, N, K)`` uint16,
    ``c_regs (W, 32, C regs)`` uint32 (f32 accumulators as bits). A and B are the element
    bits of the entry's type (uint16 for f16/bf16, uint8 for s8, uint32 for tf32).

    Returns ``{"A": (W, 32, A regs), "B": (W, 32, B regs), "D": (W, 32, C regs)}`` (uint32)
    and ``"kernel_source"``.
    """
    ab = elements.element(plan.ab_type)
    a = np.asarray(a_bits)
    b = np.asarray(b_bits)
    c = np.asarray(c_regs)
    W = a.shape[0] if a.ndim == 3 else -1
    checks = (
        (a, (W, plan.m, plan.k), ab.dtype, "a_bits"),
        (b, (W, plan.n, plan.k), ab.dtype, "b_bits"),
        (c, (W, WARP, plan.c_regs), np.uint32, "c_regs"),
    )
    for arr, shape, dtype, name in checks:
        if arr.shape != shape or W < 1:
            raise DeviceError(f"run_mma: {name} must have shape {shape} with W >= 1 warps; got {arr.shape}")
        if arr.dtype != dtype:
            raise DeviceError(f"run_mma: {name} must be {np.dtype(dtype).name} bits of {plan.ab_type if name != 'c_regs' else 'C'}; got {arr.dtype}")
    kernel = _mma_kernel(plan)
    source = kernel.source
    kernel.check()
    kind = elements.register_kind(plan.acc_type)     # how the kernel holds C/D: f32, s32 or u32
    reg_dtype = {"f32": np.float32, "s32": np.int32, "u32": np.uint32}[kind]
    c_in = c.view(reg_dtype)
    out_a = np.zeros((W, WARP, plan.a_regs), np.uint32)
    out_b = np.zeros((W, WARP, plan.b_regs), np.uint32)
    out_d = np.zeros((W, WARP, plan.c_regs), reg_dtype)
    bad = np.zeros(1, np.int32)
    _launch(kernel, W, WARP, plan.a_image(a), plan.b_image(b), plan.a_offsets, plan.b_offsets,
            np.ascontiguousarray(c_in), out_a, out_b, out_d, bad)
    if bad[0]:
        raise DeviceError("run_mma: the shared array was not 16-byte aligned on this device")
    return {"A": out_a, "B": out_b, "D": out_d.view(np.uint32), "kernel_source": source}


# ---------------------------------------------------------------------------------------------
# one ldmatrix on many warps (for verification)


def _ldmatrix_kernel(variant: str, region: int):
    """Kernel: warp ``w`` copies ``img[w]`` (``region`` 16-bit values) to shared memory and
    issues one ldmatrix with per-lane element offsets ``off[w, lane]``."""
    key = ("ld", variant, region, ptx.SIMULATED)
    if key in _KERNELS:
        return _KERNELS[key]
    entry, ld = _ldmatrix(variant)
    num = entry.num

    def ldmatrix_kernel(img, off, out, bad):
        smem = cuda.shared.array(region, uint16, alignment=ALIGN)
        w = cuda.blockIdx.x
        lane = cuda.threadIdx.x
        for i in range(lane, region, 32):
            smem[i] = img[w, i]
        if ptx.smem_addr(smem, 0) % 16 != 0:
            bad[0] = 1
        cuda.syncthreads()
        if num == 1:
            r = (ld(ptx.smem_addr(smem, off[w, lane])),)
        else:
            r = ld(ptx.smem_addr(smem, off[w, lane]))
        for i in range(num):
            out[w, lane, i] = r[i]

    kernel = jit(ldmatrix_kernel)
    kernel.source = _kernel_source(kernel, ld=f"ptx.{entry.name}", num=num, region=region)
    _KERNELS[key] = kernel
    return kernel


def ldmatrix_kernel_source(variant: str, region: int) -> str:
    """Python source of the kernel in which warp ``w`` copies ``img[w]`` (``region`` 16-bit values)
    to shared memory and issues one ldmatrix with per-lane element offsets ``off[w, lane]``."""
    return _ldmatrix_kernel(variant, region).source


def run_ldmatrix(variant: str, images, offsets) -> dict:
    """One ldmatrix per warp: ``images (W, region)`` uint16 shared contents, ``offsets (W, 32)``
    element offsets (multiples of 8). Returns ``{"regs": (W, 32, num) uint32}``."""
    num, _ = parse_variant(variant)
    img = np.asarray(images)
    off = np.asarray(offsets)
    if img.ndim != 2 or img.dtype != np.uint16 or img.shape[1] % 8 or img.shape[0] < 1:
        raise DeviceError(f"run_ldmatrix: images must be uint16 (W, region) with region % 8 == 0; got {img.dtype} {img.shape}")
    if off.shape != (img.shape[0], WARP) or off.dtype.kind not in "iu":
        raise DeviceError(f"run_ldmatrix: offsets must be integers of shape {(img.shape[0], WARP)}; got {off.shape}")
    if (off % 8).any() or (off < 0).any() or (off + 8 > img.shape[1]).any():
        raise DeviceError("run_ldmatrix: every offset must be a multiple of 8 elements (16 bytes) inside the region")
    kernel = _ldmatrix_kernel(variant, int(img.shape[1]))
    source = kernel.source
    kernel.check()
    out = np.zeros((img.shape[0], WARP, num), np.uint32)
    bad = np.zeros(1, np.int32)
    _launch(kernel, img.shape[0], WARP, np.ascontiguousarray(img), np.ascontiguousarray(off, np.int32), out, bad)
    if bad[0]:
        raise DeviceError("run_ldmatrix: the shared array was not 16-byte aligned on this device")
    return {"regs": out, "kernel_source": source}


# ---------------------------------------------------------------------------------------------
# the sgemm_sm80 CTA


@dataclass(frozen=True)
class CtaPlan:
    """sgemm_sm80's CTA on one 128x128x64 k-tile (see :func:`cta_plan`).

    ``cp_src``/``cp_dst (128, 8)``: each thread's eight 16-byte cp.async copies, as element
    offsets into the global tile (``64*m + k``) and into shared memory (swizzled).
    ``a_offsets``/``b_offsets (k_blocks, warps, 4, 32)``: each lane's ldmatrix.x4 row
    offset for A fragment ``i`` / B load ``j`` in every k-block.
    ``warp_m``/``warp_n (warps,)``: the warp's coordinate in the 2x2 warp layout.
    """

    bm: int
    bn: int
    bk: int
    warp_m: np.ndarray = field(repr=False)
    warp_n: np.ndarray = field(repr=False)
    cp_src: np.ndarray = field(repr=False)
    cp_dst: np.ndarray = field(repr=False)
    a_offsets: np.ndarray = field(repr=False)
    b_offsets: np.ndarray = field(repr=False)
    layout: object = field(repr=False, default=None)

    @property
    def k_blocks(self) -> int:
        return self.bk // 16

    def smem_offset(self, row, k):
        """Swizzled shared-memory element offset of tile element ``(row, k)`` (A or B)."""
        row = np.asarray(row)
        k = np.asarray(k)
        flat = np.vectorize(lambda r, c: int(self.layout(int(r), int(c))))
        return flat(row, k) if row.shape or k.shape else int(self.layout(int(row), int(k)))

    def a_rows(self, warp: int, i: int) -> np.ndarray:
        """Tile rows of A fragment ``i`` of ``warp``: ``32 i + 16 warp_m + (0..15)``."""
        return 32 * i + 16 * int(self.warp_m[warp]) + np.arange(16)

    def b_rows(self, warp: int, nn: int) -> np.ndarray:
        """Tile rows (n) of B fragment ``nn`` of ``warp``: ``16 nn + 8 warp_n + (0..7)``."""
        return 16 * nn + 8 * int(self.warp_n[warp]) + np.arange(8)


@functools.lru_cache(maxsize=1)
def cta_plan() -> CtaPlan:
    """The plan of sgemm_sm80's CTA (FACTS: "The official CTA configuration").

    Shared memory: ``composition(Swizzle<3,3,3>, (8,(8,8)):(8,(1,64)))`` tiled to (128, 64)
    (built with labkit.layout); gmem->smem: threads ``(16,8):(8,1)`` copy 8 halves each, rows
    ``t//8 + 16 r``; TiledMMA 2x2 warps (warp ``w`` at ``(w % 2, w // 2)``), tile 32x32x16.
    """
    from labkit.layout import S, Swizzle, composition, make_layout, tile_to_shape

    inner = make_layout((S(8), (S(8), S(8))), (S(8), (S(1), S(64))))
    layout = composition(Swizzle(3, 3, 3), tile_to_shape(inner, (S(128), S(64))))
    bm = bn = 128
    bk = 64
    table = np.array([[int(layout(r, c)) for c in range(bk)] for r in range(bm)], np.int64)
    t = np.arange(128)[:, None]
    rr = np.arange(8)[None, :]
    rows = t // 8 + 16 * rr
    cols = np.broadcast_to(8 * (t % 8), rows.shape)
    cp_src = (bk * rows + cols).astype(np.int32)
    cp_dst = table[rows, cols].astype(np.int32)
    warps = np.arange(4)
    wm, wn = warps % 2, warps // 2
    mat, row = instructions.lane_row(np.arange(WARP), 4)          # the registry's ldmatrix lane rule
    mma = instructions.instruction("mma_m16n8k16_f16f16f16f16", "mma")
    a_blk = np.array(mma.ldmatrix_blocks("A"))                   # matrix i -> register a_i's block
    b_blk = np.array(mma.ldmatrix_blocks("B"))                   # x4 = two n8 atoms' b0, b1
    kb = np.arange(bk // 16)[:, None, None, None]
    idx = np.arange(4)[None, None, :, None]
    a_row = 32 * idx + 16 * wm[None, :, None, None] + a_blk[mat, 0] + row
    a_col = 16 * kb + a_blk[mat, 1]
    b_row = 16 * (2 * idx + mat // 2) + 8 * wn[None, :, None, None] + b_blk[mat % 2, 0] + row
    b_col = 16 * kb + b_blk[mat % 2, 1]
    a_row, a_col = np.broadcast_arrays(a_row, a_col)
    b_row, b_col = np.broadcast_arrays(b_row, b_col)
    return CtaPlan(
        bm, bn, bk, wm, wn, cp_src, cp_dst,
        table[a_row, a_col].astype(np.int32), table[b_row, b_col].astype(np.int32), layout,
    )


def _cta_kernel(k_blocks: int = 4):
    """The sgemm_sm80 CTA trace kernel (128 threads, one k-tile, ``k_blocks`` k-blocks)."""
    key = ("cta", k_blocks, ptx.SIMULATED)
    if key in _KERNELS:
        return _KERNELS[key]
    ld = getattr(ptx, instructions.instruction("ldmatrix_x4", "ldmatrix").name)
    mma = getattr(ptx, instructions.instruction("mma_m16n8k16_f16f16f16f16", "mma").name)
    n = 128 * 64
    size = 2 * n

    def trace_cta_kernel(ga, gb, cp_src, cp_dst, a_off, b_off, out_a, out_b, out_d, bad):
        smem = cuda.shared.array(size, uint16, alignment=ALIGN)
        tid = cuda.threadIdx.x
        warp = tid // 32
        lane = tid % 32
        if ptx.smem_addr(smem, 0) % 16 != 0:
            bad[0] = 1
        for r in range(8):
            ptx.cp_async_16(ptx.smem_addr(smem, cp_dst[tid, r]), ga, cp_src[tid, r])
            ptx.cp_async_16(ptx.smem_addr(smem, n + cp_dst[tid, r]), gb, cp_src[tid, r])
        ptx.cp_async_commit_group()
        ptx.cp_async_wait_group(0)
        cuda.syncthreads()
        fa = cuda.local.array((4, 4), uint32)
        fb = cuda.local.array((4, 4), uint32)
        acc = cuda.local.array((4, 8, 2), uint32)
        for i in range(4):
            for j in range(8):
                acc[i, j, 0] = 0
                acc[i, j, 1] = 0
        for kb in range(k_blocks):
            for i in range(4):
                x0, x1, x2, x3 = ld(ptx.smem_addr(smem, a_off[kb, warp, i, lane]))
                fa[i, 0] = x0
                fa[i, 1] = x1
                fa[i, 2] = x2
                fa[i, 3] = x3
                y0, y1, y2, y3 = ld(ptx.smem_addr(smem, n + b_off[kb, warp, i, lane]))
                fb[i, 0] = y0
                fb[i, 1] = y1
                fb[i, 2] = y2
                fb[i, 3] = y3
            for i in range(4):
                for j in range(8):
                    d0, d1 = mma(fa[i, 0], fa[i, 1], fa[i, 2], fa[i, 3],
                                 fb[j // 2, 2 * (j % 2)], fb[j // 2, 2 * (j % 2) + 1],
                                 acc[i, j, 0], acc[i, j, 1])
                    acc[i, j, 0] = d0
                    acc[i, j, 1] = d1
            for i in range(4):
                for r in range(4):
                    out_a[kb, warp, i, lane, r] = fa[i, r]
                    out_b[kb, warp, i, lane, r] = fb[i, r]
                for j in range(8):
                    out_d[kb, warp, i, j, lane, 0] = acc[i, j, 0]
                    out_d[kb, warp, i, j, lane, 1] = acc[i, j, 1]

    kernel = jit(trace_cta_kernel)
    kernel.source = _kernel_source(kernel, ld="ptx.ldmatrix_x4", mma="ptx.mma_m16n8k16_f16f16f16f16",
                                   k_blocks=k_blocks, n=n, size=size)
    _KERNELS[key] = kernel
    return kernel


def cta_kernel_source(k_blocks: int = 4) -> str:
    """Python source of the sgemm_sm80 CTA trace kernel (128 threads, one k-tile)."""
    return _cta_kernel(k_blocks).source


def run_cta(plan: CtaPlan, a_bits, b_bits, k_blocks: int | None = None) -> dict:
    """Run the CTA plan on one 128x64 A tile and one 128x64 B tile (f16 bits, K-major).

    Returns ``{"A": (kb, 4 warps, 4, 32, 4), "B": (kb, 4, 4, 32, 4), "D": (kb, 4, 4, 8, 32, 2)}``
    (uint32; B load ``j`` holds fragments ``2j`` and ``2j+1``; D after each k-block).
    """
    kbs = plan.k_blocks if k_blocks is None else k_blocks
    if isinstance(kbs, bool) or not isinstance(kbs, (int, np.integer)) or not 1 <= kbs <= plan.k_blocks:
        raise DeviceError(f"k_blocks must be an integer in 1..{plan.k_blocks}; got {k_blocks!r}")
    kbs = int(kbs)
    for name, x in (("a_bits", a_bits), ("b_bits", b_bits)):
        x = np.asarray(x)
        if x.shape != (plan.bm, plan.bk) or x.dtype != np.uint16:
            raise DeviceError(f"run_cta: {name} must be uint16 f16 bits of shape {(plan.bm, plan.bk)}; got {x.dtype} {x.shape}")
    kernel = _cta_kernel(kbs)
    source = kernel.source
    kernel.check()
    ga = _aligned_copy(np.asarray(a_bits).reshape(-1))
    gb = _aligned_copy(np.asarray(b_bits).reshape(-1))
    out_a = np.zeros((kbs, 4, 4, WARP, 4), np.uint32)
    out_b = np.zeros((kbs, 4, 4, WARP, 4), np.uint32)
    out_d = np.zeros((kbs, 4, 4, 8, WARP, 2), np.uint32)
    bad = np.zeros(1, np.int32)
    _launch(kernel, 1, 128, ga, gb, plan.cp_src, plan.cp_dst, plan.a_offsets[:kbs].copy(),
            plan.b_offsets[:kbs].copy(), out_a, out_b, out_d, bad)
    if bad[0]:
        raise DeviceError("run_cta: the shared array was not 16-byte aligned on this device")
    return {"A": out_a, "B": out_b, "D": out_d, "kernel_source": source}


def _aligned_copy(x: np.ndarray, align: int = 128) -> np.ndarray:
    """A copy of ``x`` whose data starts on an ``align``-byte boundary (cp.async sources)."""
    raw = np.empty(x.nbytes + align, np.uint8)
    start = (-raw.ctypes.data) % align
    out = raw[start:start + x.nbytes].view(x.dtype)
    out[...] = x.reshape(-1)
    return out
