"""One warpgroup issues ``wgmma.mma_async`` (an entry of the ``GMMA`` table) on operands that
CuTe's GMMA layout atoms place in shared memory, K- or MN-major, in any swizzle mode; in the RS
form A comes from registers instead.

The host builds a shared-memory *image* (:func:`make_plan`): A (64 x K) at byte 0 and B (N x K)
at byte 8192, each written through :class:`labkit.atoms.gmma_smem.GmmaOperand` (the atom tiled
over the operand, the swizzle on the byte address), and the descriptors of the wgmma steps (one
per 32 bytes of K: 16 f16/bf16, 8 tf32 or 32 fp8/int8 elements; ``make_gmma_desc`` of each
slice, ``GmmaDescriptor.encode``), relative to the image's byte 0. K is at most one 128-byte row
(four steps) of every element type. The kernel copies the image into a 1024-byte aligned shared array (the swizzle repeats
every 1024 bytes, so the layout holds at the array's real address), adds the array's address
(>> 4) to each descriptor, issues ``wgmma.fence``, the mma_async steps (scale-d 0 on the
first: D = A*B), ``commit_group`` and ``wait_group 0``, and writes each thread's accumulator
registers out as they are (``regs[thread, i]``). ``imm-trans-a``/``imm-trans-b`` are 1 for an
MN-major operand (PTX ISA: the transpose immediates), 0 for K-major. Which element of D register
value ``v`` of thread ``t`` holds is the PTX ISA's fragment rule (:func:`d_coords`), applied on
the host by :func:`place`.

In the RS form the plan has no A operand in shared memory (``a`` is None, A's descriptor column
is 0): the host packs each step's slice of A into the warpgroup's registers by CuTe's
``ALayout_64x{K}`` (``labkit.atoms.gmma_fragment.a_registers``, :meth:`Plan.a_registers`), each thread
loads its four registers of every step, then ``wgmma.fence`` and the chain of mma_async steps
run as in CuTe's RS mainloop (A must stay unchanged until ``wait_group``).

The image is the input of ``labkit.sim.wgmma`` too, so the twin and the device read the very same
bytes through the very same descriptors (``python -m labkit verify``).

>>> from labkit.cuda.kernels.probes import wgmma_probe as wp
>>> p = wp.make_plan("wgmma_m64n64k16_f32f16f16_ss", "MN", "SW64", "MN", "SW64")
>>> p.trans, p.steps, [hex(int(d)) for d in p.descs[0]]
((1, 1), 4, ['0x8000004000200000', '0x8000004000200200'])
>>> wp.d_coords(37, 6)      # thread 37 (warp 1, lane 5: group 1, thread 1 in group), value 6
(25, 10)
>>> r = wp.make_plan("wgmma_m64n64k16_f32f16f16_rs", b_major="MN", b_swizzle="SW64")
>>> r.a is None, r.trans, [hex(int(d)) for d in r.descs[0]]
(True, (0, 1), ['0x0', '0x8000004000200200'])
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import numba
from numba import cuda

from labkit.atoms.gmma_smem import GmmaOperand, gmma_operand
from labkit.atoms.instructions import WARPGROUP, MmaInstruction, instruction
from labkit.elements import element, to_bits
from labkit.cuda import ptx
from labkit.cuda.program import KernelProgram
from labkit.errors import LayoutError

__all__ = ["SMEM_BYTES", "A_START", "B_START", "K_TILE", "Plan", "make_plan", "d_coords", "place",
           "values", "wgmma_registers", "wgmma_run", "wgmma_matmul", "k_tile"]

K_TILE_BYTES = 128
"""Bytes of K in the probe's tile: four wgmma steps of 32 bytes (one 128-byte row)."""
K_TILE = K_TILE_BYTES // 2
"""K of the probe's tile for 16-bit elements (:func:`k_tile` for the others)."""
A_START = 0
B_START = 64 * K_TILE_BYTES
"""Byte offsets of A and B in the image (both 1024-byte aligned)."""
SMEM_BYTES = B_START + 256 * K_TILE_BYTES
"""The image's size: A (64 x 128 bytes) and the largest B (256 x 128 bytes), 40 KiB."""
_SMEM_WORDS = SMEM_BYTES // 4


def k_tile(entry) -> int:
    """The largest K of the probe for ``entry``'s element type: 128 bytes of it."""
    return K_TILE_BYTES * 8 // element(instruction(entry, "wgmma").a_type).bits


def _entry(entry) -> MmaInstruction:
    return instruction(entry, "wgmma")


@dataclass(frozen=True)
class Plan:
    """What one probe launch needs: the entry, the two operands' layouts (``a`` None in the RS
    form), the descriptors of each k16 step (``descs[s] = (desc_a, desc_b)``, uint64, relative to
    image byte 0; ``desc_a`` 0 in the RS form) and the transpose immediates."""

    entry: MmaInstruction
    a: GmmaOperand | None
    b: GmmaOperand
    descs: np.ndarray

    @property
    def n(self) -> int:
        return self.entry.shape_mnk[1]

    @property
    def steps(self) -> int:
        return self.descs.shape[0]

    @property
    def k(self) -> int:
        return self.entry.k * self.steps

    @property
    def a_major(self) -> str:
        """A's major: ``"K"`` always in the RS form."""
        return "K" if self.a is None else self.a.major

    @property
    def trans(self) -> tuple:
        """``(imm-trans-a, imm-trans-b)``: 1 for an MN-major operand (RS: imm-trans-a is 0)."""
        return (int(self.a_major == "MN"), int(self.b.major == "MN"))

    def image(self, a_bits, b_bits) -> np.ndarray:
        """The shared-memory image (uint8, :data:`SMEM_BYTES`) holding A's and B's element codes
        (``64 x K`` and ``N x K``) at CuTe's addresses (A not at all in the RS form); every other
        byte 0."""
        img = np.zeros(SMEM_BYTES, np.uint8)
        if self.a is not None:
            self.a.store(img, a_bits)
        self.b.store(img, b_bits)
        return img

    def a_registers(self, A) -> np.ndarray:
        """RS form: A (64 x K values) as ``(steps, 128, 4)`` uint32, step ``s`` holding its K
        columns in CuTe's ``ALayout_64x{K}`` (``labkit.atoms.gmma_fragment.a_registers``)."""
        from labkit.atoms.gmma_fragment import a_registers

        A = np.asarray(A)
        if A.shape != (64, self.k):
            raise LayoutError(f"A must be 64 x {self.k}; got shape {A.shape}")
        ks = self.entry.k
        return np.stack([a_registers(A[:, ks * s:ks * (s + 1)], self.entry.a_type) for s in range(self.steps)])


def make_plan(entry, a_major="K", a_swizzle="SW128", b_major="K", b_swizzle="SW128", k: int | None = None) -> Plan:
    """The :class:`Plan` of ``entry`` (a ``GMMA`` entry) with A and B in CuTe's GMMA layouts
    ``{a,b}_major`` (``"K"`` or ``"MN"``) and ``{a,b}_swizzle`` (INTER, SW32, SW64, SW128); an
    RS entry takes A from registers (``a_major`` must be ``"K"``, ``a_swizzle`` is unused).
    A layout that does not tile its operand (an MN-major atom wider than N) is a LayoutError."""
    g = _entry(entry)
    top = k_tile(g)
    k = top if k is None else k
    if isinstance(k, bool) or not isinstance(k, int) or k <= 0 or k % g.k or k > top:
        raise LayoutError(f"k={k!r} must be a multiple of {g.k} up to {top} ({g.name})")
    n = g.shape_mnk[1]
    bits = element(g.a_type).bits
    b = gmma_operand(b_major, b_swizzle, n, k, B_START, bits)
    if g.form == "RS":
        if a_major != "K":
            raise LayoutError(f"a_major={a_major!r}: in the RS form ({g.name}) A comes from registers, "
                              "K-major only (the instruction has no imm-trans-a)")
        descs = np.array([[0, db.encode()] for db in b.descriptors()], np.uint64)
        return Plan(g, None, b, descs)
    a = gmma_operand(a_major, a_swizzle, 64, k, A_START, bits)
    descs = np.array([[da.encode(), db.encode()] for da, db in zip(a.descriptors(), b.descriptors())],
                     np.uint64)
    return Plan(g, a, b, descs)


def d_coords(thread: int, v: int):
    """(m, n) of D held by accumulator value ``v`` of warpgroup thread ``thread`` (PTX ISA, wgmma
    D fragment of m64nNk16: warp ``w`` holds rows 16w..16w+15; in the warp, mma.sync m16n8's C
    fragment repeated over N/8 column blocks). For an f16 accumulator register ``i`` holds values
    ``2i`` (low half) and ``2i + 1``."""
    warp, lane = divmod(thread, 32)
    group, tig = divmod(lane, 4)
    return 16 * warp + group + 8 * ((v // 2) % 2), 8 * (v // 4) + 2 * tig + (v % 2)


def _coords_table(n):
    return np.array([[d_coords(t, v) for v in range(n // 2)] for t in range(WARPGROUP)], np.int64)


def values(regs, entry) -> np.ndarray:
    """``(128, N/2)`` float64 accumulator values from the registers ``regs`` (float32, int32, or
    uint32 holding two f16 each)."""
    g = _entry(entry)
    regs = np.asarray(regs)
    if g.acc_type in ("f32", "s32"):
        return regs.astype(np.float64)
    halves = np.stack([regs & 0xFFFF, regs >> 16], axis=-1).reshape(regs.shape[0], -1)
    return halves.astype(np.uint16).view(np.float16).astype(np.float64)


def place(regs, entry) -> np.ndarray:
    """D (64 x N, float64) from the registers ``regs`` of the 128 threads, by :func:`d_coords`."""
    g = _entry(entry)
    n = g.shape_mnk[1]
    vals = values(regs, g)
    xy = _coords_table(n)
    D = np.full((64, n), np.nan)
    D[xy[..., 0], xy[..., 1]] = vals
    return D


_SOURCE = """
def {name}(image, descs, aregs, regs, addrs):
    smem = cuda.shared.array(SMEM_WORDS, numba.uint32, alignment=1024)
    t = cuda.threadIdx.x
    for w in range(t, SMEM_WORDS, WARPGROUP):
        smem[w] = image[w]
    ptx.fence_proxy_async_shared_cta()        # generic-proxy stores, read next by the async proxy
    cuda.syncthreads()
    base = ptx.smem_addr(smem, 0)
    unit = numba.uint64(base >> 4)            # the descriptors' start address is in 16-byte units
    acc = ptx.{zeros}({r})
{body}
    ptx.wgmma_commit_group()
    ptx.wgmma_wait_group(0)
    acc = ptx.wgmma_fence_operand(acc)
    for i in range({r}):
        regs[t, i] = acc[i]
    if t == 0:
        addrs[0] = base
"""

_SS_BODY = """    ptx.wgmma_fence()
    for s in range(descs.shape[0] // 2):      # scale-d 0 on the first step: D = A*B
        acc = ptx.{mma}(descs[2 * s] + unit, descs[2 * s + 1] + unit, acc, s{imm})"""

# RS: every step's A registers are loaded before wgmma.fence (the registers must not change
# until wait_group), then the chain; one kernel per step count.
_RS_LOAD = "    a{s} = (aregs[{s}, t, 0], aregs[{s}, t, 1], aregs[{s}, t, 2], aregs[{s}, t, 3])"
_RS_MMA = "    acc = ptx.{mma}(a{s}, descs[{b}] + unit, acc, {s}{imm})"

_KERNELS: dict = {}


_ZEROS = {"f32": "wgmma_zeros", "s32": "wgmma_zeros_s32", "u32": "wgmma_zeros_u32"}


def _immediates(g, trans_a, trans_b) -> str:
    """The entry's immediates as literals: scales 1, transposes as asked."""
    value = {"imm_scale_a": 1, "imm_scale_b": 1, "imm_trans_a": int(trans_a), "imm_trans_b": int(trans_b)}
    return "".join(f", {value[x]}" for x in g.immediates)


def _kernel(entry, trans_a: int, trans_b: int, steps: int = 4):
    """The probe kernel of ``entry`` with the transpose immediates (literals in PTX); an RS kernel
    is made for its number of ``steps``."""
    g = _entry(entry)
    rs = g.form == "RS"
    key = (g.name, int(trans_a), int(trans_b), int(steps) if rs else 0)
    if key not in _KERNELS:
        r, kind = g.registers("C"), g.register_type("C")
        name = f"wgmma_probe_{g.name}_t{int(trans_a)}{int(trans_b)}" + (f"_s{int(steps)}" if rs else "")
        imm = _immediates(g, trans_a, trans_b)
        if rs:
            body = "\n".join([_RS_LOAD.format(s=s) for s in range(steps)] + ["    ptx.wgmma_fence()"]
                             + [_RS_MMA.format(mma=g.name, s=s, b=2 * s + 1, imm=imm) for s in range(steps)])
        else:
            body = _SS_BODY.format(mma=g.name, imm=imm)
        scope = {"cuda": cuda, "numba": numba, "ptx": ptx, "SMEM_WORDS": _SMEM_WORDS, "WARPGROUP": WARPGROUP}
        _KERNELS[key] = KernelProgram(name, _SOURCE.format(name=name, r=r, zeros=_ZEROS[kind], body=body),
                                      scope).kernel()
    return _KERNELS[key]


def wgmma_registers(plan: Plan, image, descs=None, a_regs=None):
    """Run the probe on ``image`` (uint8, :data:`SMEM_BYTES`) with the plan's descriptors (or
    ``descs``, ``(steps, 2)`` uint64, e.g. a deliberately wrong one) and, in the RS form, A's
    registers ``a_regs`` (``(steps, 128, 4)`` uint32, :meth:`Plan.a_registers`):
    ``(regs, address)``, ``regs[t, i]`` accumulator register ``i`` (float32, or uint32 for f16)
    of thread ``t``, ``address`` the shared address of the image (a multiple of 1024)."""
    image = np.ascontiguousarray(image, np.uint8)
    if image.shape != (SMEM_BYTES,):
        raise LayoutError(f"image must be {SMEM_BYTES} bytes (uint8); got shape {image.shape}")
    descs = plan.descs if descs is None else np.asarray(descs, np.uint64)
    if descs.ndim != 2 or descs.shape[1] != 2 or not 1 <= descs.shape[0] <= 4:
        raise LayoutError(f"descs must be (steps, 2) with 1..4 steps; got shape {descs.shape}")
    steps = descs.shape[0]
    if plan.entry.form == "RS":
        if a_regs is None:
            raise LayoutError(f"a_regs: the RS form ({plan.entry.name}) takes A from registers: pass "
                              "plan.a_registers(A)")
        a_regs = np.asarray(a_regs)
        if a_regs.shape != (steps, WARPGROUP, 4) or a_regs.dtype != np.uint32:
            raise LayoutError(f"a_regs must be ({steps}, {WARPGROUP}, 4) uint32 (four registers per thread "
                              f"per step); got {a_regs.dtype} of shape {a_regs.shape}")
    elif a_regs is not None:
        raise LayoutError(f"a_regs: the SS form ({plan.entry.name}) reads A from shared memory; pass None")
    else:
        a_regs = np.zeros((1, 1, 4), np.uint32)
    r, kind = plan.entry.registers("C"), plan.entry.register_type("C")
    regs = {"f32": np.full((WARPGROUP, r), np.nan, np.float32),
            "s32": np.full((WARPGROUP, r), np.iinfo(np.int32).min, np.int32),
            "u32": np.full((WARPGROUP, r), 0xFFFFFFFF, np.uint32)}[kind]        # unwritten: NaN, f16 NaN pairs
    addrs = np.zeros(1, np.uint32)
    d_regs, d_addrs = cuda.to_device(regs), cuda.to_device(addrs)
    kernel = _kernel(plan.entry, *plan.trans, steps=steps)
    with warnings.catch_warnings():             # numba's performance warning: one CTA, on purpose
        warnings.filterwarnings("ignore", module=r"numba")
        kernel[1, WARPGROUP](cuda.to_device(image.view(np.uint32)),
                             cuda.to_device(np.ascontiguousarray(descs).reshape(-1)),
                             cuda.to_device(np.ascontiguousarray(a_regs)), d_regs, d_addrs)
    cuda.synchronize()
    return d_regs.copy_to_host(), int(d_addrs.copy_to_host()[0])


def wgmma_run(plan: Plan, image, descs=None, a_regs=None) -> np.ndarray:
    """D (64 x N, float64) the device computes from ``image`` (:func:`wgmma_registers`, then
    :func:`place`); an element no register held stays NaN."""
    regs, addr = wgmma_registers(plan, image, descs, a_regs)
    if addr % 1024:
        raise LayoutError(f"the shared array starts at {addr}, not 1024-byte aligned: the swizzle "
                          "would not hold")
    return place(regs, plan.entry)


def wgmma_matmul(A, B, entry="wgmma_m64n64k16_f32f16f16_ss", a_major="K", a_swizzle="SW128",
                 b_major="K", b_swizzle="SW128") -> np.ndarray:
    """D = A @ B.T (64 x N, float64 of the accumulator type) through one warpgroup's wgmma:
    ``A`` 64 x K, ``B`` N x K (K a multiple of the entry's K, up to 128 bytes of the element type),
    coded as the entry's A and B types; an RS ``entry`` takes A from registers."""
    g = _entry(entry)
    A, B = np.asarray(A), np.asarray(B)
    n = g.shape_mnk[1]
    if A.ndim != 2 or A.shape[0] != 64 or B.ndim != 2 or B.shape != (n, A.shape[1]):
        raise LayoutError(f"A must be 64 x K and B {n} x K (N x K) for {g.name}; got {A.shape} and {B.shape}")
    plan = make_plan(g, a_major, a_swizzle, b_major, b_swizzle, k=int(A.shape[1]))
    img = plan.image(to_bits(np.asarray(A, np.float64), g.a_type), to_bits(np.asarray(B, np.float64), g.b_type))
    return wgmma_run(plan, img, a_regs=plan.a_registers(A) if g.form == "RS" else None)
