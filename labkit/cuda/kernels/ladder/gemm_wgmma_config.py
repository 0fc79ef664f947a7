"""Step 7's configurations: the CTA tile, the pipeline and the operand types of the wgmma kernel.

A :class:`WgmmaConfig` says how many consumer warpgroups share a CTA tile, its columns, the
stages, the raster order, the registers, and the element types: f16 operands, or Hopper's 8-bit
floats (e4m3, e5m2; K = 32 a wgmma, so a 128-byte k-tile holds 128 of them), with C in f32, f16
or bf16. :data:`CONFIGS` names the ones the book and the benchmark use.

>>> cfg = CONFIGS["128x256x128s4-e4m3"]
>>> (cfg.bm, cfg.bn, cfg.bk), cfg.a, cfg.c, cfg.stage_bytes
((128, 256, 128), 'e4m3', 'bf16', 49152)
>>> WgmmaConfig(a="float_e4m3_t", b="fp8_e5m2").b
'e5m2'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from labkit.atoms.instructions import WARPGROUP
from labkit.errors import ConfigError

__all__ = ["WgmmaConfig", "CONFIGS", "DEFAULT", "RULES", "BK", "ABLATION", "pick", "operand_dtypes"]

BK = 64                    # one 128-byte swizzled row of f16 (128 of an 8-bit type: ``cfg.bk``)

_AB8 = ("e4m3", "e5m2")
_AB = ("f16",) + _AB8
_C = ("f32", "f16", "bf16")


@dataclass(frozen=True)
class WgmmaConfig:
    """A CTA tile of ``consumers`` warpgroups, each ``m64 x bn`` (one wgmma m64nBNk16 per k16),
    ``stages`` shared-memory stages of ``bm x 64`` A and ``bn x 64`` B, one producer warpgroup.
    ``group_m``: tile rows per raster group (L2 reuse; 1: row after row); ``max_registers``: the cap
    ptxas gets; ``setmaxnreg``: (producer, consumer) registers after ``setmaxnreg`` (None: not used);
    ``a``, ``b``: the operands' element type (f16, or the 8-bit floats e4m3 and e5m2, any spelling of
    :mod:`labkit.elements`); ``c``: what C holds (f32, or f16 / bf16 rounded from the f32
    accumulators); ``scaled``: C = ``alpha`` * A B, ``alpha`` a run-time f32 (the product of
    per-tensor scales of fp8 operands); ``pingpong``: the two consumer warpgroups take alternate
    tiles of 128 rows instead of sharing each (CUTLASS's ``KernelTmaWarpSpecializedPingpong``): the
    producer fills the stages tile after tile, so one warpgroup's epilogue runs while the other's
    main loop has the tensor cores; ``epilogue``: ``"direct"`` (each thread stores its accumulators
    to global memory) or ``"tma"`` (a warpgroup writes its rows of C, rounded to f16 or bf16, into
    shared memory in the 128-byte swizzle and one thread stores them with TMA, CUTLASS's
    TMA-store epilogue); ``stages_d``: slots of one 64 x 64 box of C each that a consumer's TMA-store
    epilogue cycles through, a box a bulk group (CUTLASS's ``StagesD``; 0: room for all ``bn / 64``
    boxes of its rows, stored as one group): fewer leave room for a fourth stage of A and B; ``block_scales``: 8-bit operands with a scale per 1 x 128 block of A and per
    128 x 128 block of B (the fp8 training recipe): each k-tile's products are summed apart and added
    to the f32 accumulators times their two scales; ``cluster``: CTAs launched as one cluster, on
    tiles one above the other (CUTLASS's ``ClusterShape`` of (2, 1, 1)): they share the tile of B,
    each loading 1/cluster of its rows and multicasting them to both (TMA multicast), so B crosses
    L2 once for two tiles; ``stream_k``: the last waves whose tiles are cut into equal runs of
    k-tiles, one a CTA, a tile shared by CTAs summed through a workspace
    (:mod:`~labkit.cuda.kernels.ladder.gemm_wgmma_streamk`): 0 (none), 2 (the last partial wave and
    one full wave, walked first) or 1 (the last partial wave alone, walked after the whole tiles);
    ``stmatrix``: the TMA-store epilogue stages C with ``stmatrix.m8n8.x4`` (four 8 x 8 blocks of 16-bit
    C a warp, CuTe's ``SM90_U32x4_STSM_N``) instead of one 4-byte ``st.shared`` a pair; ``overlap_store``:
    a consumer rounds a finished tile to 16-bit pairs in registers (64 words beside its 128
    accumulators, so it needs ``setmaxnreg``) and stages and stores them while the next tile's first
    k-tile is on the tensor cores; that tile starts with wgmma's scale-d off (D = A B) instead of
    zeroed accumulators."""

    consumers: int = 2
    bn: int = 256
    stages: int = 4
    group_m: int = 8
    max_registers: int = 168
    setmaxnreg: tuple | None = None
    a: str = "f16"
    b: str = "f16"
    c: str = "f32"
    scaled: bool = False
    pingpong: bool = False
    epilogue: str = "direct"
    stages_d: int = 0
    block_scales: bool = False
    cluster: int = 1
    stream_k: int = 0
    stmatrix: bool = False
    overlap_store: bool = False

    def __post_init__(self):
        from labkit.elements import element

        try:
            a, b, c = element(self.a), element(self.b), element(self.c)
        except Exception as e:  # noqa: BLE001 - one message for every spelling mistake
            raise ConfigError(f"config: {e}") from None
        if a.name not in _AB or b.name not in _AB or (a.bits != b.bits) or (a.bits == 16 and a != b):
            raise ConfigError(f"config: a and b must both be f16, or both 8-bit floats (e4m3, e5m2); "
                              f"got a={self.a!r}, b={self.b!r}")
        if self.pingpong and self.consumers != 2:
            raise ConfigError(f"config: pingpong alternates two consumer warpgroups; got consumers={self.consumers}")
        if self.epilogue not in ("direct", "tma"):
            raise ConfigError(f"config: epilogue must be 'direct' or 'tma'; got {self.epilogue!r}")
        if self.epilogue == "tma" and (c.bits != 16 or self.pingpong):
            raise ConfigError("config: the TMA-store epilogue stores 16-bit C (f16, bf16) from cooperative "
                              f"consumers; got c={self.c!r}, pingpong={self.pingpong}")
        boxes = self.bn // 64
        if self.stages_d and (self.epilogue != "tma" or not 1 <= self.stages_d <= boxes or boxes % self.stages_d):
            raise ConfigError(f"config: stages_d is a divisor of bn / 64 = {boxes}, the slots of C's boxes the "
                              f"TMA-store epilogue cycles through (0: room for all); got stages_d={self.stages_d!r}, "
                              f"epilogue={self.epilogue!r}")
        if self.block_scales and (a.bits != 8 or self.pingpong or self.scaled or self.bn != 128):
            raise ConfigError("config: block scales are for 8-bit operands, cooperative consumers, N = 128 "
                              "(a partial and a total accumulator a thread) and no per-tensor alpha; got "
                              f"a={self.a!r}, pingpong={self.pingpong}, scaled={self.scaled}, bn={self.bn}")
        if self.cluster not in (1, 2) or (self.cluster == 2 and (self.pingpong or self.block_scales
                                                                  or self.group_m % 2)):
            raise ConfigError("config: cluster is 1 or 2 (two cooperative CTAs sharing B, raster groups of "
                              f"an even number of tile rows); got cluster={self.cluster!r}, pingpong={self.pingpong}, "
                              f"block_scales={self.block_scales}, group_m={self.group_m}")
        if isinstance(self.stream_k, bool) or self.stream_k not in (0, 1, 2):
            raise ConfigError("config: stream_k is how many last waves are dealt out by k-tiles: 0, 1 (the partial "
                              f"wave) or 2 (it and one full wave before it); got {self.stream_k!r}")
        if self.stream_k and (self.pingpong or self.block_scales or self.cluster != 1):
            raise ConfigError("config: stream_k runs cooperative consumers of one CTA on one accumulator; got "
                              f"pingpong={self.pingpong}, block_scales={self.block_scales}, cluster={self.cluster}")
        if self.stmatrix and self.epilogue != "tma":
            raise ConfigError(f"config: stmatrix stages C for the TMA-store epilogue; got epilogue={self.epilogue!r}")
        if self.overlap_store and (self.epilogue != "tma" or self.stream_k or self.block_scales or self.cluster != 1
                                   or not self.setmaxnreg or self.setmaxnreg[1] < 232):
            raise ConfigError("config: overlap_store keeps a tile's 16-bit C in registers for the TMA-store epilogue "
                              "of one CTA's cooperative consumers, beside 128 accumulators (setmaxnreg of at least "
                              f"232 for them); got epilogue={self.epilogue!r}, stream_k={self.stream_k}, "
                              f"block_scales={self.block_scales}, cluster={self.cluster}, setmaxnreg={self.setmaxnreg}")
        if c.name not in _C:
            raise ConfigError(f"config: c must be one of {', '.join(_C)}; got {self.c!r}")
        for f, v in (("a", a.name), ("b", b.name), ("c", c.name)):
            object.__setattr__(self, f, v)

    @property
    def bm(self):
        """Rows of a tile: 64 a consumer warpgroup, or 128 for each warpgroup in ping-pong."""
        return 128 if self.pingpong else 64 * self.consumers

    @property
    def bk(self):
        """Elements of K in a k-tile: one 128-byte swizzled row."""
        return 128 if self.a in _AB8 else BK

    @property
    def threads(self):
        return WARPGROUP * (1 + self.consumers)

    @property
    def a_bytes(self):
        return self.bm * 128

    @property
    def stage_bytes(self):
        return (self.bm + self.bn) * 128

    def smem_bytes(self, sm=90):
        """Dynamic shared memory: the stages, C's staging of the TMA-store epilogue, two mbarriers a
        stage (and the two turn mbarriers of ping-pong), 1024 bytes of alignment slack."""
        return (self.stages * self.stage_bytes + self.staging_bytes + 16 * self.stages + (16 if self.pingpong else 0)
                + 1024)

    @property
    def boxes_d(self):
        """Boxes of 64 rows x 64 columns of 16-bit C a consumer has room for."""
        return (self.stages_d or self.bn // 64) if self.epilogue == "tma" else 0

    @property
    def staging_bytes(self):
        """Shared memory the TMA-store epilogue stages C in: each consumer's room of boxes.

        >>> CONFIGS["128x256x64s3-tma"].staging_bytes, CONFIGS["128x256x64s4-tma"].staging_bytes
        (65536, 32768)
        """
        return self.consumers * self.boxes_d * 64 * 128


CONFIGS = {
    "128x256x64s4": WgmmaConfig(),
    "128x256x64s4r": WgmmaConfig(setmaxnreg=(40, 232)),
    "128x256x64s3": WgmmaConfig(stages=3),
    "128x128x64s6": WgmmaConfig(bn=128, stages=6),
    "128x256x64s4g1": WgmmaConfig(group_m=1),
    "128x256x64s3-tma": WgmmaConfig(stages=3, c="f16", epilogue="tma"),
    "128x256x128s3-e4m3-tma": WgmmaConfig(stages=3, a="e4m3", b="e4m3", c="bf16", scaled=True, epilogue="tma"),
    "128x256x64s4-tma": WgmmaConfig(c="f16", epilogue="tma", stages_d=2),
    "128x256x64s4r-tma": WgmmaConfig(c="f16", epilogue="tma", stages_d=2, setmaxnreg=(40, 232)),
    "128x256x64s4rm-tma": WgmmaConfig(c="f16", epilogue="tma", stages_d=2, setmaxnreg=(40, 232), stmatrix=True),
    "128x256x64s4rmo-tma": WgmmaConfig(c="f16", epilogue="tma", stages_d=2, setmaxnreg=(40, 232), stmatrix=True,
                                       overlap_store=True),
    "128x256x64s4sk-tma": WgmmaConfig(c="f16", epilogue="tma", stages_d=2, stream_k=2),
    "128x256x64s4rsk1-tma": WgmmaConfig(c="f16", epilogue="tma", stages_d=2, setmaxnreg=(40, 232), stream_k=1),
    "128x256x128s4-e4m3-tma": WgmmaConfig(a="e4m3", b="e4m3", c="bf16", scaled=True, epilogue="tma", stages_d=2),
    "128x128x128s6-e4m3": WgmmaConfig(bn=128, stages=6, a="e4m3", b="e4m3", c="bf16", scaled=True),
    "128x128x128s6-e4m3-bs": WgmmaConfig(bn=128, stages=6, a="e4m3", b="e4m3", c="bf16", block_scales=True),
    "128x128x64s6pp": WgmmaConfig(bn=128, stages=6, pingpong=True),
    "128x128x64s6pp-f16out": WgmmaConfig(bn=128, stages=6, pingpong=True, c="f16"),
    "128x128x128s6pp-e4m3": WgmmaConfig(bn=128, stages=6, pingpong=True, a="e4m3", b="e4m3", c="bf16",
                                        scaled=True),
    "128x256x64s4-f16out": WgmmaConfig(c="f16"),
    "128x256x64s4c2": WgmmaConfig(cluster=2),
    "128x256x64s3c2-tma": WgmmaConfig(stages=3, c="f16", epilogue="tma", cluster=2),
    "128x256x64s3g16-tma": WgmmaConfig(stages=3, c="f16", epilogue="tma", group_m=16),
    "128x256x64s3c2g16-tma": WgmmaConfig(stages=3, c="f16", epilogue="tma", group_m=16, cluster=2),
    "128x256x128s3c2-e4m3-tma": WgmmaConfig(stages=3, a="e4m3", b="e4m3", c="bf16", scaled=True, epilogue="tma",
                                            cluster=2),
    "128x256x128s4-e4m3": WgmmaConfig(a="e4m3", b="e4m3", c="bf16", scaled=True),
    "128x256x128s4-e5m2e4m3": WgmmaConfig(a="e5m2", b="e4m3", c="bf16", scaled=True),
    "128x256x128s3-e5m2e4m3-tma": WgmmaConfig(stages=3, a="e5m2", b="e4m3", c="bf16", scaled=True, epilogue="tma"),
}
DEFAULT = "128x256x64s4"
#: (technique, configuration without it, configuration with it): each pair differs in that alone
ABLATION = (
    ("raster groups of 8 tile rows (L2 reuse)", "128x256x64s4g1", "128x256x64s4"),
    ("setmaxnreg 40/232", "128x256x64s4", "128x256x64s4r"),
    ("ping-pong consumers (128x128 tiles)", "128x128x64s6", "128x128x64s6pp"),
    ("TMA-store epilogue (f16 C; 3 stages to make room)", "128x256x64s4-f16out", "128x256x64s3-tma"),
    ("TMA-store epilogue (e4m3, bf16 C)", "128x256x128s4-e4m3", "128x256x128s3-e4m3-tma"),
    ("four stages beside a TMA-store epilogue that stages C through two box slots (f16 C)", "128x256x64s3-tma",
     "128x256x64s4-tma"),
    ("four stages beside a TMA-store epilogue that stages C through two box slots (e4m3)", "128x256x128s3-e4m3-tma",
     "128x256x128s4-e4m3-tma"),
    ("setmaxnreg 40/232 (f16 C, TMA store, four stages)", "128x256x64s4-tma", "128x256x64s4r-tma"),
    ("stmatrix for staging C (f16 C, TMA store, four stages, 40/232 registers)", "128x256x64s4r-tma",
     "128x256x64s4rm-tma"),
    ("C stored during the next tile's first k-tile, scale-d off instead of zeroing (f16 C, TMA store by stmatrix, "
     "40/232 registers)", "128x256x64s4rm-tma", "128x256x64s4rmo-tma"),
    ("stream-K for the last two waves (f16 C, TMA store, four stages)", "128x256x64s4-tma", "128x256x64s4sk-tma"),
    ("stream-K for the last partial wave, after the whole tiles (f16 C, TMA store, four stages, 40/232 registers)",
     "128x256x64s4r-tma", "128x256x64s4rsk1-tma"),
    ("per-block scales (1x128 of A, 128x128 of B; e4m3, 128x128 tiles)", "128x128x128s6-e4m3",
     "128x128x128s6-e4m3-bs"),
    ("cluster of 2, B multicast by TMA", "128x256x64s4", "128x256x64s4c2"),
    ("cluster of 2, B multicast by TMA (f16 C, TMA store)", "128x256x64s3-tma", "128x256x64s3c2-tma"),
    ("cluster of 2, B multicast by TMA (e4m3, TMA store)", "128x256x128s3-e4m3-tma", "128x256x128s3c2-e4m3-tma"),
    ("raster groups of 16 tile rows instead of 8 (f16 C, TMA store)", "128x256x64s3-tma", "128x256x64s3g16-tma"),
    ("cluster of 2, B multicast by TMA (f16 C, TMA store, groups of 16 tile rows)", "128x256x64s3g16-tma",
     "128x256x64s3c2g16-tma"),
)

#: sm_90 and more (sm_90a is checked at launch); K % 8 == 0 (TMA row pitch), 16-byte pointers
RULES = dict(min_sm=90, k_multiple=8, align_bytes=16)

def pick(config):
    """``config`` itself if a :class:`WgmmaConfig`, else the one :data:`CONFIGS` names."""
    if isinstance(config, WgmmaConfig):
        return config
    if config not in CONFIGS:
        raise ConfigError(f"config: must be a WgmmaConfig or one of {sorted(CONFIGS)}, got {config!r}")
    return CONFIGS[config]


def operand_dtypes(config=DEFAULT):
    """``(A and B's dtype, C's dtype)`` the launch takes for ``config``: an 8-bit float travels as
    uint8, bf16 as uint16 (numba has neither type).

    >>> operand_dtypes("128x256x128s4-e4m3")
    (dtype('uint8'), dtype('uint16'))
    """
    cfg = pick(config)
    ab = np.dtype(np.uint8) if cfg.a in _AB8 else np.dtype(np.float16)
    return ab, np.dtype({"f32": np.float32, "f16": np.float16, "bf16": np.uint16}[cfg.c])


