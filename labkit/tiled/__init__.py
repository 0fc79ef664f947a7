"""labkit.tiled: TiledMMA and TiledCopy, named and built as in CuTe."""

from .mma import TiledMMA, ThrMMA, make_tiled_mma

__all__ = ["TiledMMA", "ThrMMA", "make_tiled_mma"]
