"""Run the lab's trace plans in the numpy model (the ``"sim"`` backend).

A plan (from :mod:`labkit.cuda.kernels.probes.trace_kernels`; here it is plain data: shapes, variants and
per-lane element offsets) says what each lane hands to each instruction. These functions
execute it with :mod:`labkit.sim` and return the same dictionary the GPU kernels return,
plus the :class:`~labkit.sim.SharedMemory` whose ``log`` accounts every access (the
``st.shared.b16`` fill, cp.async, ldmatrix).

>>> import numpy as np
>>> from types import SimpleNamespace
>>> from labkit.sim import fragment_trace
>>> lane = np.arange(32)
>>> plan = SimpleNamespace(instruction="mma_m16n8k8_f32f16f16f32", m=16, n=8, k=8, a_variant="x2",
...     b_variant="x1", a_major="k", b_major="k", a_offsets=((lane % 16) * 8)[None],
...     b_offsets=((lane % 8) * 8)[None])
>>> a = np.ones((1, 16, 8), np.float16).view(np.uint16); b = a[:, :8]
>>> out = fragment_trace.run_mma(plan, a, b, np.zeros((1, 32, 4), np.uint32))
>>> out["D"].view(np.float32)[0, 0].tolist()
[8.0, 8.0, 8.0, 8.0]
"""

from __future__ import annotations

import numpy as np

from labkit.atoms import WARP
from labkit.elements import element
from labkit.errors import DeviceError
from labkit.sim.cp_async import CpAsync
from labkit.sim.ldmatrix import ldmatrix
from labkit.sim.mma_fragments import mma_spec, mma_sync
from labkit.sim.smem import SharedMemory

__all__ = ["run_mma", "run_ldmatrix", "run_cta"]



def _variant(v):
    return int(v[1]), v.endswith(".trans")


def _fill(smem, base, images):
    """The kernels' fill loop: lane ``l`` stores elements ``l, l+32, ...`` with st.shared.b16."""
    W, count = images.shape
    steps = -(-count // WARP)
    idx = np.arange(steps)[:, None] * WARP + np.arange(WARP)[None, :]        # (steps, 32)
    ok = idx < count
    for s in range(steps):
        lanes = np.nonzero(ok[s])[0]
        addrs = base[:, None] + 2 * idx[s, lanes][None, :]
        smem.store(addrs, images[:, idx[s, lanes]], access_bytes=2, warp=np.arange(W))


def run_mma(plan, a_bits, b_bits, c_regs) -> dict:
    """Execute an MMA trace plan on ``W`` warps (see ``labkit.cuda.kernels.probes.trace_kernels.run_mma``)."""
    spec = mma_spec(plan.instruction)
    a = np.asarray(a_bits)
    b = np.asarray(b_bits)
    c = np.asarray(c_regs, np.uint32)
    W = a.shape[0]
    if a.shape != (W, plan.m, plan.k) or b.shape != (W, plan.n, plan.k) or c.shape[:2] != (W, WARP):
        raise DeviceError(f"run_mma: operand shapes {a.shape}, {b.shape}, {c.shape} do not match the plan")
    dtype = element(spec.ab_type).dtype          # stage as 16-bit units, low element first
    a = np.ascontiguousarray(a.astype(dtype)).view(np.uint16)
    b = np.ascontiguousarray(b.astype(dtype)).view(np.uint16)
    a_img = (a if plan.a_major == "k" else np.swapaxes(a, 1, 2)).reshape(W, -1)
    b_img = (b if plan.b_major == "k" else np.swapaxes(b, 1, 2)).reshape(W, -1)
    region = 2 * (a_img.shape[1] + b_img.shape[1])
    smem = SharedMemory(W * region)
    base = np.arange(W) * region
    _fill(smem, base, np.concatenate([a_img, b_img], axis=1))
    warps = np.arange(W)
    regs = {}
    for op, offs, variant, start in (("A", plan.a_offsets, plan.a_variant, 0),
                                     ("B", plan.b_offsets, plan.b_variant, 2 * a_img.shape[1])):
        num, trans = _variant(variant)
        parts = [ldmatrix(smem, base[:, None] + start + 2 * np.asarray(o)[None, :], num, trans, warp=warps)
                 for o in offs]
        regs[op] = np.concatenate(parts, axis=-1)
    d = mma_sync(spec, regs["A"], regs["B"], c)
    return {"A": regs["A"], "B": regs["B"], "D": d, "smem": smem}


def run_ldmatrix(variant: str, images, offsets) -> dict:
    """One ldmatrix per warp on ``images (W, region)`` with ``offsets (W, 32)`` (elements)."""
    img = np.asarray(images, np.uint16)
    off = np.asarray(offsets)
    W, count = img.shape
    smem = SharedMemory(W * 2 * count)
    base = np.arange(W) * 2 * count
    _fill(smem, base, img)
    num, trans = _variant(variant)
    regs = ldmatrix(smem, base[:, None] + 2 * off, num, trans, warp=np.arange(W))
    return {"regs": regs, "smem": smem}


def run_cta(plan, a_bits, b_bits, k_blocks: int | None = None) -> dict:
    """Execute the sgemm_sm80 CTA plan (see ``labkit.cuda.kernels.probes.trace_kernels.run_cta``)."""
    kbs = plan.k_blocks if k_blocks is None else int(k_blocks)
    n = plan.bm * plan.bk
    smem = SharedMemory(4 * n)
    q = CpAsync(smem)
    warp_of = np.arange(4)[None, :]
    for src, base in ((a_bits, 0), (b_bits, 2 * n)):
        src = np.ascontiguousarray(src, np.uint16)
        dst = (base + 2 * plan.cp_dst).reshape(4, WARP, 8).transpose(2, 0, 1)   # (copy, warp, lane)
        so = (2 * plan.cp_src).reshape(4, WARP, 8).transpose(2, 0, 1)
        q.copy(dst, src, so, warp=warp_of)
    q.commit_group()
    q.wait_group(0)
    spec = mma_spec("mma_m16n8k16_f16f16f16f16")
    acc = np.zeros((4, 4, 8, WARP, 2), np.uint32)
    out = {"A": [], "B": [], "D": []}
    warps = np.arange(4)[:, None]
    for kb in range(kbs):
        fa = ldmatrix(smem, 2 * plan.a_offsets[kb], 4, warp=warps)              # (warp, i, 32, 4)
        fb = ldmatrix(smem, 2 * n + 2 * plan.b_offsets[kb], 4, warp=warps)      # (warp, j, 32, 4)
        frag_b = fb.reshape(4, 4, WARP, 2, 2).transpose(0, 1, 3, 2, 4).reshape(4, 8, WARP, 2)
        acc = mma_sync(spec, fa[:, :, None], frag_b[:, None], acc)
        out["A"].append(fa)
        out["B"].append(fb)
        out["D"].append(acc)
    res = {k: np.stack(v) for k, v in out.items()}
    res["smem"] = smem
    return res
