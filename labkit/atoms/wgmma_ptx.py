"""Hopper's warpgroup MMA fences as inline PTX: the ``WGMMA_PTX`` table (sm_90a).

``wgmma.mma_async`` itself is the ``GMMA`` table of :mod:`labkit.atoms.gmma_instructions` (PTX
text, shape, types, register counts, CuTe's layouts and the inline assembly of each SS form);
this table holds the instructions that order it. ``wgmma.mma_async`` is issued by a warpgroup
(four consecutive warps, 128 threads, the first warp's index a multiple of 4) and runs
asynchronously: ``wgmma.fence`` orders earlier register and shared-memory accesses before it,
``wgmma.commit_group`` closes a group of issued MMAs and ``wgmma.wait_group N`` waits until at
most N groups are pending. Shared memory written by ordinary stores is read by wgmma through the
async proxy, so the writers issue ``fence.proxy.async.shared::cta`` before the barrier that
precedes the MMA.

Every wgmma instruction is *arch-specific*: the PTX ISA's Target ISA notes say ``sm_90a``, a
target that only compute capability 9.0 (H100, H200) runs; newer GPUs do not have wgmma.
``arch`` names that target; ``min_sm`` is 90. ``fence.proxy.async`` is plain sm_90.

>>> from labkit.atoms.wgmma_ptx import WGMMA_PTX
>>> ins = WGMMA_PTX["wgmma_wait_group"]
>>> ins.min_sm, ins.arch
(90, 'sm_90a')
>>> print(ins.asm)
wgmma.wait_group.sync.aligned $n;
"""

from __future__ import annotations

from dataclasses import dataclass

from .gmma_instructions import WARPGROUP
from .instructions import InlineInstruction

__all__ = ["WgmmaInstruction", "WGMMA_PTX", "WARPGROUP"]

_MODULE = "labkit.cuda._wgmma_intrinsics"


@dataclass(frozen=True)
class WgmmaInstruction(InlineInstruction):
    """A wgmma fence as inline PTX. ``arch``: the arch-specific target it needs (``"sm_90a"``:
    compute capability 9.0 exactly), ``""`` for plain sm_90 PTX."""

    arch: str = ""


def _fence(name, ptx, asm, arch="sm_90a"):
    return WgmmaInstruction(name=name, ptx=ptx, min_sm=90, kind="wgmma", asm=asm, module=_MODULE, arch=arch)


WGMMA_PTX = {i.name: i for i in (
    _fence("wgmma_fence", "wgmma.fence.sync.aligned", "wgmma.fence.sync.aligned;"),
    _fence("wgmma_commit_group", "wgmma.commit_group.sync.aligned", "wgmma.commit_group.sync.aligned;"),
    _fence("wgmma_wait_group", "wgmma.wait_group.sync.aligned N", "wgmma.wait_group.sync.aligned $n;"),
    _fence("fence_proxy_async_shared_cta", "fence.proxy.async.shared::cta", "fence.proxy.async.shared::cta;",
           arch=""),
)}
"""The fences of Hopper's warpgroup MMA by ``labkit.cuda.ptx`` name. Minimum SM and target from
the PTX ISA's Target ISA notes: wgmma needs ``sm_90a``; ``fence.proxy.async`` needs sm_90."""
