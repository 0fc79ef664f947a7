"""Step 7's persistent tile scheduler, alone or in clusters of two CTAs.

Each CTA (or each cluster) walks the output tiles ``tile, tile + G, tile + 2G, ...`` (G: CTAs, or
clusters, in the grid). A tile index becomes tile coordinates in raster groups of ``group_m`` tile
rows: down a group's rows first, then across, so the tiles that run at the same time share rows of
A and columns of B in L2.

With ``cluster=2`` the unit is a pair of tiles one above the other: the cluster's CTAs (ranks 0 and
1, from ``%cluster_ctarank``) take the pair's upper and lower tile, both with the same columns of
B. Each CTA asks the TMA unit for half of B's rows and multicasts them to both, so every stage of
both CTAs fills with all of B; each consumer then frees its stage in both CTAs (a remote
``mbarrier.arrive`` through ``mapa``), because either producer may refill it. The cluster meets at
a cluster barrier after the mbarriers are made (no peer may signal one before it exists), and a
CTA's producer waits, after its last tile, until every stage has been freed by the consumers of
both CTAs (CUTLASS's ``load_tail``): then no remote arrival can still be on its way to a CTA that
has exited.

>>> from labkit.cuda.kernels.ladder.gemm_wgmma_config import CONFIGS
>>> [raster(CONFIGS["128x256x64s4c2"], tile, tiles_m=6, tiles_n=2) for tile in range(4)]
[((0, 0), (1, 0)), ((2, 0), (3, 0)), ((4, 0), (5, 0)), ((0, 1), (1, 1))]
"""

from __future__ import annotations

__all__ = ["tiles", "first_tile", "tile_step", "tile_coords", "load_b", "release", "meet", "producer_tail",
           "raster"]


def raster(cfg, tile, tiles_m, tiles_n):
    """The (tile row, tile column) each CTA of the cluster computes for scheduler index ``tile``:
    the arithmetic of :func:`tile_coords` in Python."""
    C = cfg.cluster
    units = -(-tiles_m // C)
    group = cfg.group_m // C
    per_group = group * tiles_n
    first = (tile // per_group) * group
    rows_in_group = min(units - first, group)
    unit = first + (tile % per_group) % rows_in_group
    col = (tile % per_group) // rows_in_group
    return tuple((unit * C + rank, col) for rank in range(C))


def tiles(w, cfg):
    """``tiles_m``, ``tiles_n``, the scheduler's ``ntiles`` and ``per_group`` (and ``rank``)."""
    w.code(f"tiles_m = int32((M + {cfg.bm - 1}) // {cfg.bm})")
    w.code(f"tiles_n = int32((N + {cfg.bn - 1}) // {cfg.bn})")
    if cfg.cluster == 1:
        w.code("ntiles = int32(tiles_m * tiles_n)")
        w.code(f"per_group = int32({cfg.group_m} * tiles_n)")
        return
    with w.concept("cluster"):
        w.comment("a cluster of 2 CTAs computes 2 tiles one above the other: the scheduler walks pairs")
        w.code("rank = int32(cluster_ctarank())", call="cluster_ctarank")
        w.code("pairs_m = int32((tiles_m + 1) // 2)")
        w.code("ntiles = int32(pairs_m * tiles_n)")
        w.code(f"per_group = int32({cfg.group_m // 2} * tiles_n)")


def first_tile(cfg):
    """The scheduler's first index for this CTA: its own, or its cluster's (CTAs 2i, 2i+1: cluster i)."""
    return "int32(cuda.blockIdx.x)" if cfg.cluster == 1 else f"int32(cuda.blockIdx.x // {cfg.cluster})"


def tile_step(cfg):
    """How far the scheduler index moves after each tile: CTAs, or clusters, in the grid."""
    return "int32(cuda.gridDim.x)" if cfg.cluster == 1 else f"int32(cuda.gridDim.x // {cfg.cluster})"


def tile_coords(w, cfg):
    """``m0``, ``n0``: the first row and column of this CTA's tile of scheduler index ``tile``."""
    C = cfg.cluster
    group = cfg.group_m // C
    units = "tiles_m" if C == 1 else "pairs_m"
    w.code(f"first_m = int32((tile // per_group) * {group})")
    w.code(f"rows_in_group = int32(min({units} - first_m, {group}))")
    unit = "(first_m + (tile % per_group) % rows_in_group)"
    m = unit if C == 1 else f"({unit} * {C} + rank)"
    w.code(f"m0 = int32({m} * {cfg.bm})", cute="gA")
    w.code(f"n0 = int32(((tile % per_group) // rows_in_group) * {cfg.bn})", cute="gB")


def load_b(w, cfg, k):
    """The producer's TMA load of B's k-tile ``k`` into the stage at ``sa`` (mbarrier ``fb``)."""
    if cfg.cluster == 1:
        w.code(f"tma_load_2d(uint32(sa + {cfg.a_bytes}), maps, 16, {k}, n0, fb)", call="tma_load_2d")
        return
    half = cfg.bn // cfg.cluster
    with w.concept("cluster"):
        w.comment(f"this CTA's {half} rows of B, multicast to both CTAs of the cluster (mask 0b11)")
        w.code(f"tma_load_2d_multicast(uint32(sa + {cfg.a_bytes} + rank * {half * 128}), maps, 16, {k}, "
               f"int32(n0 + rank * {half}), fb, 3)", call="tma_load_2d_multicast")


def release(w, cfg, stage, when):
    """The consumer frees ``stage`` once ``when`` holds: in its own CTA, or in every CTA of the cluster."""
    if cfg.cluster == 1:
        with w.block(f"if {when} and t == 0:"):
            w.code(f"mbarrier_arrive(empty0 + 8 * {stage})", call="mbarrier_arrive", cute="mbarrier")
        return
    with w.concept("cluster"), w.block(f"if {when} and t < {cfg.cluster}:"):
        w.comment("thread r frees the stage in CTA r: either producer may refill it")
        w.code(f"mbarrier_arrive_cluster(empty0 + 8 * {stage}, t)", call="mbarrier_arrive_cluster")


def meet(w, cfg):
    """Every thread of the CTA (and of its cluster) meets: ``__syncthreads`` or the cluster barrier."""
    if cfg.cluster == 1:
        w.code("cuda.syncthreads()", call="cuda.syncthreads")
    else:
        with w.concept("cluster"):
            w.code("barrier_cluster_sync()", call="barrier_cluster_sync")


def producer_tail(w, cfg, S):
    """After the producer's last tile, in a cluster: wait until the consumers of both CTAs freed every
    stage, so no remote arrival can still reach this CTA after it exits."""
    if cfg.cluster == 1:
        return
    with w.concept("cluster"):
        w.comment("no CTA leaves while a peer's consumer may still free one of its stages")
        with w.block(f"for s in range({S}):"):
            with w.block("while mbarrier_try_wait(empty0 + 8 * stage, phase ^ uint32(1)) == 0:",
                         call="mbarrier_try_wait"):
                w.code("pass")
            w.code("stage += 1")
            with w.block(f"if stage == {S}:"):
                w.code("stage = 0")
                w.code("phase ^= uint32(1)")
