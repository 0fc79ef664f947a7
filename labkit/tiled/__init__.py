"""labkit.tiled: TiledMMA and TiledCopy, named and built as in CuTe."""

from .tiled_mma import TiledMMA, ThrMMA, make_tiled_mma

__all__ = ["TiledMMA", "ThrMMA", "make_tiled_mma"]
from .tiled_copy import (TiledCopy, ThrCopy, make_tiled_copy, make_tiled_copy_A, make_tiled_copy_B,
                   make_tiled_copy_C, make_tiled_copy_impl)

__all__ += ["TiledCopy", "ThrCopy", "make_tiled_copy", "make_tiled_copy_A", "make_tiled_copy_B",
            "make_tiled_copy_C", "make_tiled_copy_impl"]
from .element_trace import ElementPath, trace_element

__all__ += ["ElementPath", "trace_element"]
