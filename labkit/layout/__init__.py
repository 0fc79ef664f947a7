"""labkit.layout: a faithful model of CuTe layouts, swizzles and tensors."""

from .int_tuple import S, is_static, is_constant, shape_div, ceil_div, product
from .coordinates import crd2idx, idx2crd, compact_major
from .layout import (
    Layout, make_layout, size, cosize, rank, depth, shape, stride, flatten, make_ordered_layout,
    make_identity_layout,
)
from .simplify import coalesce, filter, filter_zeros
from .modes import append, prepend, take, group_modes, select
from .basis import ScaledBasis, E, ArithTuple, make_arithmetic_tuple, elem_less, make_basis_like
from .algebra import (
    composition, complement, right_inverse, left_inverse, logical_divide, zipped_divide,
    tiled_divide, flat_divide, logical_product, zipped_product, tiled_product, flat_product,
    blocked_product, raked_product, tile_to_shape, max_common_vector, recast_layout, upcast,
    downcast, make_fragment_like, make_layout_like, zip_layouts, Underscore, _,
)
from .swizzle import Swizzle, ComposedLayout, make_composed_layout, swizzle_strides
from .pointer import SmemPtr, SwizzlePtr, SmemPtrFlag, make_smem_ptr
from .tensor import Tensor, make_tensor, make_fragment, recast, slice_layout, make_identity_tensor
from .partition import (
    X, dice, inner_partition, outer_partition, local_tile, local_partition, get_flat_coord,
)
from .text import parse_layout, parse_int_tuple, print_layout, layout_table, format_layout
from .offsets import layout_offsets  # noqa: F401
from .offset_source import offset_source

__all__ = [
    "S", "is_static", "is_constant", "shape_div", "ceil_div", "product",
    "Layout", "make_layout", "size", "cosize", "rank", "depth", "shape", "stride", "crd2idx",
    "idx2crd", "flatten", "coalesce", "filter", "filter_zeros", "compact_major",
    "make_ordered_layout", "append", "prepend", "take", "make_identity_layout",
    "group_modes", "select", "ScaledBasis", "E", "ArithTuple", "make_arithmetic_tuple",
    "elem_less", "make_basis_like", "make_identity_tensor", "X", "dice", "inner_partition",
    "outer_partition", "local_tile", "local_partition", "get_flat_coord",
    "composition", "complement", "right_inverse", "left_inverse", "logical_divide",
    "zipped_divide", "tiled_divide", "flat_divide", "logical_product", "zipped_product",
    "tiled_product", "flat_product", "blocked_product", "raked_product", "tile_to_shape",
    "max_common_vector", "recast_layout", "upcast", "downcast", "make_fragment_like",
    "make_layout_like", "zip_layouts", "Underscore", "_",
    "Swizzle", "ComposedLayout", "make_composed_layout", "swizzle_strides",
    "SmemPtr", "SwizzlePtr", "SmemPtrFlag", "make_smem_ptr", "Tensor", "make_tensor", "make_fragment", "recast", "slice_layout",
    "parse_layout", "parse_int_tuple", "print_layout", "layout_table", "format_layout",
    "offset_source",
]
