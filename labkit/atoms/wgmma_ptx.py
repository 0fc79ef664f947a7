"""Hopper's warpgroup MMA as inline PTX: the ``WGMMA_PTX`` table (sm_90a).

``wgmma.mma_async`` is issued by a warpgroup (four consecutive warps, 128 threads, the first
warp's index a multiple of 4). A and B come from shared memory through 64-bit matrix
descriptors; the f32 accumulators stay in registers, ``m * n / 128`` per thread (N/2 for
m64nNk16). The instruction runs asynchronously: ``wgmma.fence`` orders earlier register and
shared-memory accesses before it, ``wgmma.commit_group`` closes a group of issued MMAs and
``wgmma.wait_group N`` waits until at most N groups are pending. Shared memory written by
ordinary stores is read by wgmma through the async proxy, so the writers issue
``fence.proxy.async.shared::cta`` before the barrier that precedes the MMA.

Every wgmma instruction is *arch-specific*: the PTX ISA's Target ISA notes say ``sm_90a``, a
target that only compute capability 9.0 (H100, H200) runs; newer GPUs do not have wgmma.
``arch`` names that target; ``min_sm`` is 90. ``fence.proxy.async`` is plain sm_90.

The ``asm`` text of an mma_async entry holds the PTX ISA's operands in its order: ``d`` (the
accumulator registers ``$0..$R-1``, read and written), ``a-desc``, ``b-desc``, ``scale-d``
(a predicate set from a run-time integer: 0 gives D = A*B, else D = A*B + D) and the four
immediates ``imm-scale-a``, ``imm-scale-b`` (1 or -1) and ``imm-trans-a``, ``imm-trans-b``
(0: K-major, 1: M/N-major), written as the placeholders ``$imm_scale_a`` ... that the
intrinsic replaces by the literal values it is given.

>>> from labkit.atoms.wgmma_ptx import WGMMA_PTX
>>> ins = WGMMA_PTX["wgmma_m64n256k16_f32f16f16"]
>>> ins.ptx, ins.min_sm, ins.arch, ins.shape, ins.registers("D")
('wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16', 90, 'sm_90a', (64, 256, 16), 128)
>>> print(WGMMA_PTX["wgmma_wait_group"].asm)
wgmma.wait_group.sync.aligned $n;
>>> print(WGMMA_PTX["wgmma_m64n8k16_f32f16f16"].asm)
{ .reg .pred p; setp.ne.b32 p, $10, 0; wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$0, $1, $2, $3}, $8, $9, p, $imm_scale_a, $imm_scale_b, $imm_trans_a, $imm_trans_b; }
"""

from __future__ import annotations

from dataclasses import dataclass

from .instructions import InlineInstruction

__all__ = ["WgmmaInstruction", "WGMMA_PTX", "WGMMA_N", "IMMEDIATES", "WARPGROUP"]

WARPGROUP = 128
"""Threads of a warpgroup: four consecutive warps."""

WGMMA_N = (8, 64, 128, 256)
"""The N of the ``m64nNk16`` f16 forms in the table (the PTX ISA allows every multiple of 8 up to 256)."""

IMMEDIATES = ("imm_scale_a", "imm_scale_b", "imm_trans_a", "imm_trans_b")
"""The immediate operands of ``wgmma.mma_async`` after ``scale-d``, in PTX order."""

_MODULE = "labkit.cuda._wgmma_intrinsics"


@dataclass(frozen=True)
class WgmmaInstruction(InlineInstruction):
    """Inline PTX of the wgmma family. ``arch``: the arch-specific target it needs (``"sm_90a"``:
    compute capability 9.0 exactly), ``""`` for plain sm_90 PTX. ``shape`` ``(m, n, k)`` and the
    element types (``d_type``, ``ab_type``) for ``mma_async``, empty for the fences."""

    arch: str = ""
    shape: tuple = ()
    d_type: str = ""
    ab_type: str = ""

    def registers(self, op: str = "D") -> int:
        """32-bit registers per thread: the f32 accumulator D (or C) holds ``m * n / 128``;
        A and B are descriptors (0 registers of fragment)."""
        if not self.shape:
            return 0
        if op in ("C", "D"):
            m, n, _ = self.shape
            return m * n // WARPGROUP
        if op in ("A", "B"):
            return 0
        raise ValueError(f"op must be 'A', 'B', 'C' or 'D'; got {op!r}")


def _fence(name, ptx, asm, arch="sm_90a"):
    return WgmmaInstruction(name=name, ptx=ptx, min_sm=90, kind="wgmma", asm=asm, module=_MODULE, arch=arch)


def _mma_async(n):
    ptx = f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16"
    r = 64 * n // WARPGROUP
    d = ", ".join(f"${i}" for i in range(r))
    # operands: $0..$R-1 the outputs, $R..$2R-1 the same registers as tied inputs (not in the
    # text), then a-desc, b-desc and the scale-d integer.
    a, b, s = 2 * r, 2 * r + 1, 2 * r + 2
    imm = ", ".join(f"${x}" for x in IMMEDIATES)
    asm = f"{{ .reg .pred p; setp.ne.b32 p, ${s}, 0; {ptx} {{{d}}}, ${a}, ${b}, p, {imm}; }}"
    return WgmmaInstruction(name=f"wgmma_m64n{n}k16_f32f16f16", ptx=ptx, min_sm=90, kind="wgmma", asm=asm,
                            module=_MODULE, arch="sm_90a", shape=(64, n, 16), d_type="f32", ab_type="f16")


WGMMA_PTX = {i.name: i for i in (
    _fence("wgmma_fence", "wgmma.fence.sync.aligned", "wgmma.fence.sync.aligned;"),
    _fence("wgmma_commit_group", "wgmma.commit_group.sync.aligned", "wgmma.commit_group.sync.aligned;"),
    _fence("wgmma_wait_group", "wgmma.wait_group.sync.aligned N", "wgmma.wait_group.sync.aligned $n;"),
    _fence("fence_proxy_async_shared_cta", "fence.proxy.async.shared::cta", "fence.proxy.async.shared::cta;",
           arch=""),
    *(_mma_async(n) for n in WGMMA_N),
)}
"""Hopper's warpgroup MMA and its fences by ``labkit.cuda.ptx`` name. Minimum SM and target from
the PTX ISA's Target ISA notes: wgmma needs ``sm_90a``; ``fence.proxy.async`` needs sm_90."""
