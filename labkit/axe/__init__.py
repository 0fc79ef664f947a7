"""Named-axis layouts after the Axe model: ``S[...] + R[...] + O[...]``.

An Axe layout maps a logical index to a set of coordinates on named physical axes (memory
``m``, tensor-memory ``TLane``/``TCol``, ``laneid``/``reg``, device-mesh axes ...). The
logical index unflattens lexicographically (rightmost fastest), unlike CuTe.

>>> import labkit as lk
>>> lk.parse_axe("S[(8,4,2):(4@laneid,1@laneid,1@reg)]")(43)
[{'laneid': 21, 'reg': 1}]
"""

from .axes import HARDWARE_AXES, MEMORY_AXIS
from .blockscaled import MXFP8, NVFP4, BlockScaledFormat, block_scaled_mma, decode_float
from .convert import axe_from_cute, axe_from_tv
from .iters import AxeIter
from .axe_layout import AxeLayout, parse_axe
from .models import *  # noqa: F401,F403
from .models import __all__ as _models_all

__all__ = [
    "AxeIter",
    "AxeLayout",
    "parse_axe",
    "HARDWARE_AXES",
    "MEMORY_AXIS",
    "axe_from_cute",
    "axe_from_tv",
    *_models_all,
    "BlockScaledFormat",
    "NVFP4",
    "MXFP8",
    "decode_float",
    "block_scaled_mma",
]
