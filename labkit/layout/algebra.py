"""The layout algebra in one place: composition, complement, inverses, divides and products.

Each function follows CuTe's definition (``include/cute/layout.hpp``), keeping static
integers static exactly when the C++ template arithmetic would. The functions live in
:mod:`~labkit.layout.compose` (composition, complement, ``_``), :mod:`~labkit.layout.inverses`,
:mod:`~labkit.layout.divides`, :mod:`~labkit.layout.products` and :mod:`~labkit.layout.vectors`
(common vectors, recasts, fragments); this module gathers them under one name.

>>> import labkit as lk
>>> A = lk.parse_layout("(_4,_8):(_8,_1)")
>>> print(lk.composition(A, lk.parse_layout("(_4,_2):(_8,_1)")))
(_4,_2):(_2,_8)
>>> print(lk.logical_divide(lk.parse_layout("_16:_1"), lk.parse_layout("_4:_1")))
(_4,_4):(_1,_4)
"""

from __future__ import annotations

from .compose import composition, complement, Underscore, _
from .inverses import right_inverse, left_inverse, _exchange_sort  # noqa: F401
from .divides import logical_divide, zipped_divide, tiled_divide, flat_divide
from .products import (
    logical_product, zipped_product, tiled_product, flat_product, blocked_product, raked_product,
    tile_to_shape, zip_layouts,
)
from .vectors import (
    max_common_vector, recast_layout, upcast, downcast, make_fragment_like, make_layout_like,
)

__all__ = [
    "composition", "complement", "right_inverse", "left_inverse", "logical_divide",
    "zipped_divide", "tiled_divide", "flat_divide", "logical_product", "zipped_product",
    "tiled_product", "flat_product", "blocked_product", "raked_product", "tile_to_shape",
    "max_common_vector", "recast_layout", "upcast", "downcast", "make_fragment_like",
    "make_layout_like", "zip_layouts", "Underscore", "_",
]
