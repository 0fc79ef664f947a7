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

The plans live in :mod:`~labkit.cuda.kernels.probes.trace_plans`, what the kernels share in
:mod:`~labkit.cuda.kernels.probes.trace_launch`, the CTA kernel in :mod:`~labkit.cuda.kernels.probes.trace_cta`;
this module holds the one-warp kernels and hands every name on.

>>> from labkit.cuda.kernels.probes import trace_kernels
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

import numpy as np
from numba import cuda, float32, int32, uint16, uint32

from labkit import elements
from labkit.atoms import WARP
from labkit.cuda import ptx
from labkit.cuda.kernels.probes.trace_cta import _aligned_copy, _cta_kernel, cta_kernel_source, run_cta  # noqa: F401
from labkit.cuda.kernels.probes.trace_launch import (ALIGN, MAX_REGS, _KERNELS, _check_regs,  # noqa: F401
                                              _kernel_source, _launch, _ldmatrix)
from labkit.cuda.kernels.probes.trace_plans import (LDMATRIX_VARIANTS, CtaPlan, MmaPlan,  # noqa: F401
                                             _lane_rows, _ld_name, cta_plan, mma_plan, parse_variant)
from labkit.cuda.program import jit
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
