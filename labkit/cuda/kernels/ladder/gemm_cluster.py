"""Hopper's thread-block clusters, as step 7 uses them: CTAs launched together on one GPC that read
and signal each other's shared memory, and a TMA load that lands in several of them at once.

===============================================  ==================================================  ======
name                                             PTX                                                 min SM
===============================================  ==================================================  ======
``cluster_ctarank()``                            ``mov.u32 %cluster_ctarank``: this CTA's rank in    90
                                                 its cluster
``barrier_cluster_sync()``                       ``barrier.cluster.arrive.release.aligned`` then     90
                                                 ``barrier.cluster.wait.acquire.aligned``: every
                                                 thread of every CTA of the cluster meets
``mbarrier_arrive_cluster(bar, rank)``           ``mapa.shared::cluster`` (the CTA ``rank``'s copy   90
                                                 of shared address ``bar``) then ``mbarrier.arrive
                                                 .shared::cluster.b64`` (release, CTA scope)
``tma_load_2d_multicast(dst, maps, index,        ``cp.async.bulk.tensor.2d.shared::cluster.global    90
c0, c1, bar, mask)``                             .tile.mbarrier::complete_tx::bytes.multicast::
                                                 cluster``: the box lands at ``dst`` and completes
                                                 the mbarrier at ``bar`` in every CTA whose rank
                                                 bit is set in ``mask``
===============================================  ==================================================  ======

The multicast writes the same shared-memory offset in each destination CTA, and each destination's
own mbarrier at offset ``bar`` counts the bytes (the PTX ISA, ``cp.async.bulk.tensor``: "the
mbarrier object ... in each destination CTA"). So a stage of a CTA may be written by its peer's
TMA: its "empty" barrier must hear from the consumers of every CTA the stage's data goes to before
any producer of the cluster refills it (CUTLASS's ``PipelineTmaAsync`` counts those arrivals the
same way). None of these has a CUDA-simulator twin.

>>> from labkit.atoms.instructions import GEMM_PTX
>>> GEMM_PTX["tma_load_2d_multicast"].min_sm, GEMM_PTX["mbarrier_arrive_cluster"].op
(90, 'mbarrier.arrive')
"""

from __future__ import annotations

from labkit.atoms.instructions import GEMM_PTX as _REGISTRY
from labkit.cuda._numba import SIMULATED as _SIMULATED

__all__ = ["cluster_ctarank", "barrier_cluster_sync", "mbarrier_arrive_cluster", "tma_load_2d_multicast"]


def _gpu_bindings():
    from labkit.cuda._numba import TypingError, element_pointer_as_int, intrinsic, ir, types

    i32, i64 = ir.IntType(32), ir.IntType(64)

    def u32_args(name, **args):
        for what, t in args.items():
            if not isinstance(t, (types.Integer, types.Boolean)):
                raise TypingError(f"{name}: {what} must be an integer; got {t}")

    @intrinsic
    def cluster_ctarank(typingctx):
        """This CTA's rank in its cluster (0 .. cluster size - 1)."""
        def codegen(context, builder, sig, args):
            return builder.call(ir.InlineAsm(ir.FunctionType(i32, []), _REGISTRY["cluster_ctarank"].asm, "=r"), [])

        return types.uint32(), codegen

    @intrinsic
    def barrier_cluster_sync(typingctx):
        """Every thread of every CTA in the cluster arrives (release) and waits (acquire)."""
        def codegen(context, builder, sig, args):
            asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), []), _REGISTRY["barrier_cluster_sync"].asm,
                               "~{memory}", side_effect=True)
            builder.call(asm, [])
            return context.get_dummy_value()

        return types.void(), codegen

    @intrinsic
    def mbarrier_arrive_cluster(typingctx, bar, rank):
        """One arrival on the mbarrier at shared offset ``bar`` of the cluster's CTA ``rank``."""
        u32_args("mbarrier_arrive_cluster", bar=bar, rank=rank)

        def codegen(context, builder, sig, args):
            vals = [context.cast(builder, v, t, types.uint32) for v, t in zip(args, sig.args)]
            asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), [i32, i32]), _REGISTRY["mbarrier_arrive_cluster"].asm,
                               "r,r,~{memory}", side_effect=True)
            builder.call(asm, vals)
            return context.get_dummy_value()

        return types.void(bar, rank), codegen

    @intrinsic
    def tma_load_2d_multicast(typingctx, dst, maps, index, c0, c1, bar, mask):
        """TMA: the box at (c0, c1) of the tensor map at ``&maps[index]`` into shared ``dst`` of every
        CTA of the cluster in ``mask``, completing the mbarrier at ``bar`` in each."""
        if not isinstance(maps, types.Array) or not isinstance(index, types.Integer):
            raise TypingError(f"tma_load_2d_multicast: maps must be an array and index an integer; "
                              f"got {maps}, {index}")
        u32_args("tma_load_2d_multicast", dst=dst, c0=c0, c1=c1, bar=bar, mask=mask)
        sig = types.void(types.uint32, maps, index, types.int32, types.int32, types.uint32, types.uint32)

        def codegen(context, builder, sig, args):
            addr = element_pointer_as_int(context, builder, sig.args[1], args[1], sig.args[2], args[2])
            fnty = ir.FunctionType(ir.VoidType(), [i32, i64, i32, i32, i32, i32])
            asm = ir.InlineAsm(fnty, _REGISTRY["tma_load_2d_multicast"].asm, "r,l,r,r,r,r,~{memory}",
                               side_effect=True)
            builder.call(asm, [args[0], addr, args[3], args[4], args[5], args[6]])
            return context.get_dummy_value()

        return sig, codegen

    return cluster_ctarank, barrier_cluster_sync, mbarrier_arrive_cluster, tma_load_2d_multicast


def _sim_bindings():
    from labkit.cuda._twins import no_twin

    return tuple(no_twin(n, "thread-block clusters have no CUDA-simulator twin (sm_90 GPUs only)") for n in __all__)


(cluster_ctarank, barrier_cluster_sync, mbarrier_arrive_cluster,
 tma_load_2d_multicast) = _sim_bindings() if _SIMULATED else _gpu_bindings()
