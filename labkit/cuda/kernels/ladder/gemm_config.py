"""How a tensor-core step of the GEMM ladder cuts its work: :class:`TileConfig`.

A :class:`TileConfig` says how a CTA tile of C is cut: ``bm x bn`` outputs and a ``bk`` slab
of K per k-tile, ``warps_m x warps_n`` warps, each owning a ``(bm/warps_m) x (bn/warps_n)``
warp tile made of 16x8 MMA atoms; how many shared-memory stages the k-tiles flow through;
whether shared memory is swizzled; whether the next k-block's fragments load while this one's
MMAs run; the CTA raster; and who fills shared memory (every thread with ``cp.async``, or one
thread with the Tensor Memory Accelerator). SM versions are ints (``80`` for sm_80), as
:func:`labkit.cuda.launch.device_sm` gives them.

>>> cfg = TileConfig(bm=64, bn=64, bk=64, warps_m=2, warps_n=2, stages=1, swizzle=False,
...                  double_buffer=False)
>>> cfg.warp_tile, cfg.atoms, cfg.threads, cfg.smem_bytes(90)
((32, 32), (2, 4), 128, 16384)
"""

from __future__ import annotations

from dataclasses import dataclass

from labkit.errors import ConfigError, DeviceError

__all__ = ["TileConfig", "check_sm"]


def check_sm(sm, name="sm"):
    """``sm`` as an int SM version (75, 80, 90, ...); a :class:`DeviceError` names ``name``
    and the rule otherwise (a ``(major, minor)`` tuple included).

    >>> check_sm(90)
    90
    >>> try:
    ...     check_sm((9, 0))
    ... except DeviceError as e:
    ...     print(e)
    sm: must be an int SM version such as 80 or 90 (sm_90), got (9, 0)
    """
    if isinstance(sm, bool) or not isinstance(sm, int) or not 50 <= sm < 1000:
        raise DeviceError(f"{name}: must be an int SM version such as 80 or 90 (sm_90), got {sm!r}")
    return sm


@dataclass(frozen=True)
class TileConfig:
    """How one CTA computes its tile of C (see the module text).

    ``stages``: 1 means plain 16-byte loads into one shared buffer between two barriers;
    2 or more means a ring of that many buffers filled by ``cp.async`` (sm_80+; on sm_75 the
    kernel falls back to 1). ``double_buffer``: load k-block kk+1's fragments before
    k-block kk's MMAs (needs ``stages >= 2``). ``group_m``: the CTA raster walks groups of
    ``group_m`` tile rows column by column, so CTAs running together share A and B tiles
    in L2 (1: row by row). ``cache``: ``"cg"`` copies bypass L1 (``cp.async.cg``), ``"ca"``
    ones allocate in L1 (``cp.async.ca``), which CTAs on one multiprocessor can share.
    ``max_registers``: a register cap for ptxas (None: its choice). ``loader``: ``"cp.async"``
    (every thread copies 16-byte chunks) or ``"tma"`` (sm_90: one thread asks the Tensor Memory
    Accelerator for each whole A and B tile, which lands swizzled as CuTe's
    ``Swizzle<3,3,3> o (8,64):(64,1)``, the 128-byte TMA swizzle, and completes an mbarrier;
    needs ``bk = 64``, tiles of at most 256 rows, double-buffered fragments). ``smem_layout``: the
    layout of the A and B tiles in shared memory, (row, column) -> fp16 element, any labkit layout
    (None: row-major, or ``Swizzle<b,3,3>`` with ``swizzle``, or the TMA's; see
    ``gemm_layout.smem_layout``), checked when the config is made by ``gemm_smem_check``: 16-byte
    rows for ldmatrix and cp.async, one place per element, what the TMA writes.
    ``conflict_free``: also refuse a layout whose ldmatrix reads or copy stores conflict in banks.
    A rule broken raises :class:`~labkit.errors.ConfigError`.
    """

    bm: int = 128
    bn: int = 128
    bk: int = 64
    warps_m: int = 2
    warps_n: int = 2
    stages: int = 3
    swizzle: bool = True
    double_buffer: bool = True
    group_m: int = 8
    cache: str = "cg"
    max_registers: int | None = None
    loader: str = "cp.async"
    smem_layout: object = None
    conflict_free: bool = False

    def __post_init__(self):
        def bad(rule):
            raise ConfigError(f"config: {rule} ({self})")

        if self.bk not in (16, 32, 64):
            bad("bk must be 16, 32 or 64")
        if self.bm % (16 * self.warps_m) or self.bn % (16 * self.warps_n):
            bad("each warp tile must be a multiple of 16 rows (bm/warps_m) and 16 columns (bn/warps_n)")
        if self.stages < 1 or self.group_m < 1:
            bad("stages and group_m must be >= 1")
        if self.cache not in ("ca", "cg"):
            bad("cache must be 'ca' or 'cg'")
        if self.double_buffer and self.stages < 2:
            bad("double_buffer needs stages >= 2")
        if self.double_buffer and (self.bk // 16) % 2:
            bad("double_buffer needs an even number of k-blocks (bk/16)")
        if self.loader not in ("cp.async", "tma"):
            bad("loader must be 'cp.async' or 'tma'")
        if self.loader == "tma":
            if self.bk != 64 or max(self.bm, self.bn) > 256 or not self.double_buffer or not self.swizzle:
                bad("loader='tma' needs bk=64 (128-byte rows), bm and bn <= 256 (one TMA box), "
                    "swizzle and double_buffer")
        else:
            chunks = self.bk // 8
            if self.threads % chunks or (self.threads // chunks) % 8:
                bad("threads / (bk/8) must be a multiple of 8 rows (one copy pass)")
            rows = self.threads // chunks
            if self.bm % rows or self.bn % rows:
                bad(f"bm and bn must be multiples of the {rows} rows one copy pass covers")
        if self.smem_layout is not None or self.conflict_free:
            from labkit.cuda.kernels.ladder.gemm_smem_check import check_smem_layout

            check_smem_layout(self)

    @property
    def threads(self):
        """Threads per CTA (32 per warp)."""
        return 32 * self.warps_m * self.warps_n

    @property
    def warp_tile(self):
        """(rows, columns) of C per warp."""
        return self.bm // self.warps_m, self.bn // self.warps_n

    @property
    def atoms(self):
        """(16-row, 8-column) MMA atoms per warp tile."""
        wm, wn = self.warp_tile
        return wm // 16, wn // 8

    @property
    def smem_kind(self):
        """Layout of the tiles in shared memory: the config's own (``"custom"``), or
        ``gemm_layout.smem_layout``'s plain, swizzle or tma."""
        if self.smem_layout is not None:
            return "custom"
        return "tma" if self.loader == "tma" else ("swizzle" if self.swizzle else "plain")

    def tile_elements(self, rows):
        """fp16 elements one ``rows x bk`` tile takes in shared memory (its own layout's span,
        rounded up to 128 bytes; ``rows * bk`` for the built-in layouts)."""
        if self.smem_layout is None:
            return rows * self.bk
        from labkit.cuda.kernels.ladder.gemm_smem_check import tile_elements

        return tile_elements(self.smem_layout, rows, self.bk)

    def stages_for(self, sm):
        """Stages the kernel really uses on SM ``sm`` (cp.async needs sm_80)."""
        return self.stages if check_sm(sm) >= 80 else 1

    def stage_bytes(self):
        """Bytes of one shared-memory stage (A tile, then B tile)."""
        return 2 * (self.tile_elements(self.bm) + self.tile_elements(self.bn))

    def smem_bytes(self, sm):
        """Dynamic shared memory of one CTA on SM ``sm`` (TMA: plus 1 KB of alignment slack, in
        which the stages' mbarriers also live)."""
        tiles = self.stages_for(sm) * self.stage_bytes()
        return tiles + 1024 if self.loader == "tma" else tiles

    def double_buffer_for(self, sm):
        """Whether fragments are double-buffered on SM ``sm`` (only with a cp.async ring)."""
        return self.double_buffer and self.stages_for(sm) >= 2
