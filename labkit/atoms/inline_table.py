"""PTX bound as written (``InlineInstruction``): the timing probes, the GEMM ladder's own PTX and
Hopper's warpgroup fences.

Minimum SMs and targets from the PTX ISA's Target ISA notes: cp.async and mbarrier sm_80;
``expect_tx``, ``try_wait``, TMA (loads, stores and their bulk groups), ``setmaxnreg`` and
``fence.proxy.async`` sm_90; the wgmma
fences arch-specific ``sm_90a`` (compute capability 9.0 only).

``wgmma.mma_async`` runs asynchronously, issued by a warpgroup. ``wgmma.fence`` orders the
warpgroup's earlier register accesses (the accumulators, and A in the RS form) before the
wgmma that follows; ``wgmma.commit_group`` closes a group of issued MMAs and ``wgmma.wait_group
N`` waits until at most N groups are pending. Shared memory written by ordinary stores (the
generic proxy) is read by wgmma and TMA through the async proxy: the writers issue
``fence.proxy.async.shared::cta`` before the barrier that precedes the read.

>>> ins = WGMMA_PTX["wgmma_wait_group"]
>>> ins.min_sm, ins.arch, ins.threads
(90, 'sm_90a', 128)
>>> print(ins.asm)
wgmma.wait_group.sync.aligned $n;
"""

from __future__ import annotations

from .records import WARPGROUP, InlineInstruction

__all__ = ["PROBE", "GEMM_PTX", "WGMMA_PTX"]


def _inline(module, kind, name, ptx, min_sm, asm, arch="", threads=1):
    return InlineInstruction(name=name, ptx=ptx, min_sm=min_sm, kind=kind, asm=asm, module=module,
                             arch=arch, threads=threads)


PROBE = {i.name: i for i in (
    _inline("labkit.cuda.probe", "probe", "clock64", "mov.u64 %clock64", 0, "mov.u64 $0, %clock64;"),
    _inline("labkit.cuda.probe", "probe", "ld_volatile_shared_u32", "ld.volatile.shared.u32", 0,
            "{ .reg .u64 t; cvta.to.shared.u64 t, $1; ld.volatile.shared.u32 $0, [t]; }"),
)}
"""The timing probes of :mod:`labkit.cuda.probe` (any SM)."""

_G = "labkit.cuda.kernels.ladder.gemm_ptx"
_C = "labkit.cuda.kernels.ladder.gemm_cluster"
_S = "labkit.cuda.kernels.ladder.gemm_wgmma_streamk"
GEMM_PTX = {i.name: i for i in (
    _inline(_G, "ld", "ld_global_v4", "ld.global.v4.u32", 0,
            "{ .reg .pred p; .reg .u64 g; setp.ne.u32 p, $5, 0; cvta.to.global.u64 g, $4; "
            "mov.b32 $0, 0; mov.b32 $1, 0; mov.b32 $2, 0; mov.b32 $3, 0; "
            "@p ld.global.v4.u32 {$0, $1, $2, $3}, [g]; }"),
    _inline(_G, "st", "st_shared_v4", "st.shared.v4.b32", 0, "st.shared.v4.b32 [$0], {$1, $2, $3, $4};"),
    _inline(_G, "cp.async", "cp_async_cg_16_zfill", "cp.async.cg.shared.global [dst], [src], 16, src_bytes", 80,
            "{ .reg .u64 g; cvta.to.global.u64 g, $1; cp.async.cg.shared.global [$0], [g], 16, $2; }"),
    _inline(_G, "st", "st_global_u32", "st.global.b32", 0,
            "{ .reg .u64 g; cvta.to.global.u64 g, $0; st.global.b32 [g], $1; }"),
    _inline(_G, "st", "st_global_v2_f32", "st.global.v2.f32", 0,
            "{ .reg .u64 g; cvta.to.global.u64 g, $0; st.global.v2.f32 [g], {$1, $2}; }"),
    _inline(_G, "st", "st_shared_u32", "st.shared.b32", 0, "st.shared.b32 [$0+$off], $1;"),
    _inline(_G, "bar", "bar_sync_named", "bar.sync", 0, "bar.sync $0, $1;"),
    _inline(_G, "tma", "tma_store_2d", "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", 90,
            "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$0, {$1, $2}], [$3];"),
    _inline(_G, "tma", "cp_async_bulk_commit_group", "cp.async.bulk.commit_group", 90,
            "cp.async.bulk.commit_group;"),
    _inline(_G, "tma", "cp_async_bulk_wait_group_read", "cp.async.bulk.wait_group.read N", 90,
            "cp.async.bulk.wait_group.read $n;"),
    _inline(_G, "tma", "cp_async_bulk_wait_group", "cp.async.bulk.wait_group 0", 90,
            "cp.async.bulk.wait_group 0;"),
    _inline(_G, "cvt", "cvt_rn_f16x2_f32", "cvt.rn.f16x2.f32", 80, "cvt.rn.f16x2.f32 $0, $1, $2;"),
    _inline(_G, "cvt", "cvt_rn_bf16x2_f32", "cvt.rn.bf16x2.f32", 80, "cvt.rn.bf16x2.f32 $0, $1, $2;"),
    _inline(_G, "mbarrier", "mbarrier_init", "mbarrier.init.shared::cta.b64", 80,
            "mbarrier.init.shared::cta.b64 [$0], $1;"),
    _inline(_G, "mbarrier", "fence_mbarrier_init",
            "fence.mbarrier_init.release.cluster; fence.proxy.async.shared::cta", 90,
            "fence.mbarrier_init.release.cluster; fence.proxy.async.shared::cta;"),
    _inline(_G, "mbarrier", "mbarrier_arrive_expect_tx", "mbarrier.arrive.expect_tx.shared::cta.b64", 90,
            "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;"),
    _inline(_G, "mbarrier", "mbarrier_arrive", "mbarrier.arrive.shared::cta.b64", 80,
            "mbarrier.arrive.shared::cta.b64 _, [$0];"),
    _inline(_G, "mbarrier", "mbarrier_try_wait", "mbarrier.try_wait.parity.shared::cta.b64", 90,
            "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2; selp.u32 $0, 1, 0, p; }"),
    _inline(_G, "setmaxnreg", "setmaxnreg_inc", "setmaxnreg.inc.sync.aligned.u32", 90,
            "setmaxnreg.inc.sync.aligned.u32 $n;"),
    _inline(_G, "setmaxnreg", "setmaxnreg_dec", "setmaxnreg.dec.sync.aligned.u32", 90,
            "setmaxnreg.dec.sync.aligned.u32 $n;"),
    _inline(_G, "tma", "tma_load_2d",
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", 90,
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
            "[$0], [$1, {$2, $3}], [$4];"),
    _inline(_S, "red", "red_release_gpu", "red.relaxed.gpu.global.add.u32", 70,
            "fence.acq_rel.gpu; red.relaxed.gpu.global.add.u32 [$0], $1;"),
    _inline(_S, "ld", "ld_acquire_gpu", "ld.global.acquire.gpu.b32", 70, "ld.global.acquire.gpu.b32 $0, [$1];"),
    _inline(_C, "cluster", "cluster_ctarank", "mov.u32 %cluster_ctarank", 90, "mov.u32 $0, %cluster_ctarank;"),
    _inline(_C, "cluster", "barrier_cluster_sync",
            "barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned", 90,
            "barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;"),
    _inline(_C, "mbarrier", "mbarrier_arrive_cluster", "mbarrier.arrive.shared::cluster.b64", 90,
            "{ .reg .b32 a; mapa.shared::cluster.u32 a, $0, $1; mbarrier.arrive.shared::cluster.b64 _, [a]; }"),
    _inline(_C, "tma", "tma_load_2d_multicast",
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster", 90,
            "{ .reg .b16 m; cvt.u16.u32 m, $5; "
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
            "[$0], [$1, {$2, $3}], [$4], m; }"),
)}
"""The GEMM ladder's own PTX (:mod:`labkit.cuda.kernels.ladder.gemm_ptx`): minimum SMs from the PTX
ISA's Target ISA notes (cp.async, mbarrier and the f16x2/bf16x2 conversions sm_80; expect_tx, try_wait, TMA and the
fences sm_90)."""


_W = "labkit.cuda.ptx"
WGMMA_PTX = {i.name: i for i in (
    _inline(_W, "wgmma", "wgmma_fence", "wgmma.fence.sync.aligned", 90, "wgmma.fence.sync.aligned;",
            "sm_90a", WARPGROUP),
    _inline(_W, "wgmma", "wgmma_commit_group", "wgmma.commit_group.sync.aligned", 90,
            "wgmma.commit_group.sync.aligned;", "sm_90a", WARPGROUP),
    _inline(_W, "wgmma", "wgmma_wait_group", "wgmma.wait_group.sync.aligned N", 90,
            "wgmma.wait_group.sync.aligned $n;", "sm_90a", WARPGROUP),
    _inline(_W, "fence", "fence_proxy_async_shared_cta", "fence.proxy.async.shared::cta", 90,
            "fence.proxy.async.shared::cta;"),
)}
"""The fences of Hopper's warpgroup MMA, bound into ``labkit.cuda.ptx``."""
