"""Vectorised evaluation of a layout: offsets of many coordinates at once, with numpy.

:func:`layout_offsets` is what the bank analysis and the figures use to turn thousands of
coordinates into offsets in one call; it accepts flat indices, per-mode coordinates, nested
coordinate tuples or a pattern layout (lane -> flat index), and checks every range.
"""

from __future__ import annotations

from typing import Any

from ..errors import LayoutError
from .int_tuple import product
from ._np import np
from .coordinates import check_in_domain
from .layout import Layout, make_layout
from .swizzle import ComposedLayout

__all__ = ["layout_offsets", "flat_index", "mode_sizes", "check_layout"]


def check_layout(layout: Any) -> Any:
    """``layout`` if it is a Layout or ComposedLayout, else a :class:`LayoutError`."""
    if not isinstance(layout, (Layout, ComposedLayout)):
        raise LayoutError(
            f"layout must be a labkit Layout or ComposedLayout (e.g. a swizzled atom); got {layout!r}"
        )
    return layout


def mode_sizes(layout: Any) -> tuple[int, ...]:
    """The size of each top-level mode of ``layout``, as Python ints."""
    shp = layout.shape
    if not isinstance(shp, tuple):
        return (int(shp),)
    return tuple(int(product(s)) for s in shp)


def _has_nested_tuple(coords: Any) -> bool:
    """True for a list of hierarchical coordinates such as ``[((1, 2), 3)]``."""
    if isinstance(coords, np.ndarray) or not isinstance(coords, (list, tuple)):
        return False
    return any(isinstance(c, tuple) and any(isinstance(x, tuple) for x in c) for c in coords)


def flat_index(layout: Any, coords: Any, what: str = "coords") -> np.ndarray:
    """Colexicographic flat indices of ``coords`` (see :func:`layout_offsets`)."""
    sizes = mode_sizes(layout)
    total = int(np.prod(sizes))
    if isinstance(coords, (Layout, ComposedLayout)):
        idx = np.asarray(coords.offsets(), dtype=np.int64)  # a pattern layout: lane -> flat index
    else:
        arr = None
        if not _has_nested_tuple(coords):
            try:
                arr = np.asarray(coords)
            except ValueError:
                arr = None
        if arr is None or arr.dtype == object:
            # nested (hierarchical) coordinates: convert one by one through the compact
            # colexicographic layout of the same shape, which checks every mode's range
            colex = make_layout(layout.shape)
            flat = []
            for c in coords:
                try:
                    check_in_domain(c, layout.shape)
                    flat.append(int(colex(c)))
                except LayoutError as e:
                    raise LayoutError(f"{what}: {e}") from None
            return np.asarray(flat, dtype=np.int64)
        if arr.dtype.kind not in "iu":
            raise LayoutError(f"{what} must hold integer coordinates; got {arr.dtype} values")
        arr = arr.astype(np.int64)
        if arr.ndim >= 2 and len(sizes) > 1:
            if arr.shape[-1] != len(sizes):
                raise LayoutError(
                    f"{what}: each coordinate needs one entry per mode (rank {len(sizes)}); "
                    f"got {arr.shape[-1]} entries"
                )
            for k, n in enumerate(sizes):
                bad = (arr[..., k] < 0) | (arr[..., k] >= n)
                if bad.any():
                    v = arr[..., k][bad].ravel()[0]
                    raise LayoutError(f"{what}: mode {k} coordinate {v} is out of range [0, {n})")
            mult = np.cumprod((1,) + sizes[:-1])
            idx = (arr * mult).sum(axis=-1)
        else:
            idx = arr
    bad = (idx < 0) | (idx >= total)
    if bad.any():
        raise LayoutError(f"{what}: flat index {idx[bad].ravel()[0]} is out of range [0, {total})")
    return idx


def layout_offsets(layout: Any, coords: Any = None) -> np.ndarray:
    """Offsets (in elements) of ``layout`` at ``coords``, vectorised with numpy.

    ``layout`` is a Layout or a swizzled ComposedLayout. ``coords`` is ``None``
    (every flat index, colexicographic order as ``L(i)``), an integer array of
    flat indices, an integer array whose last axis holds one coordinate per
    top-level mode (``(..., rank)``), a list of nested coordinate tuples, or a
    pattern Layout mapping lane to flat index.

    >>> import labkit as lk
    >>> L = lk.make_layout((8, 8), (8, 1))
    >>> layout_offsets(L, [(0, 3), (1, 3), (2, 3)]).tolist()
    [3, 11, 19]
    >>> sw = lk.composition(lk.Swizzle(3, 0, 3), L)
    >>> layout_offsets(sw, [(0, 3), (1, 3), (2, 3)]).tolist()
    [3, 10, 17]
    """
    check_layout(layout)
    table = np.asarray(layout.offsets(), dtype=np.int64)
    if coords is None:
        return table
    return table[flat_index(layout, coords)]


