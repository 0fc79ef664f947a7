"""From CuTe layouts to Axe layouts: integer-valued layouts onto ``m``, TV layouts onto lanes.

Only ``.shape`` and ``.stride`` of the CuTe layout are read (nested tuples of integers).
"""

from math import prod

from ..errors import LayoutError
from .axes import _check_axis_name, _check_int
from .iters import AxeIter
from .axe_layout import AxeLayout

__all__ = ["axe_from_cute", "axe_from_tv"]


def _leaves(shape, stride, argument, path="mode"):
    """Flatten a nested (shape, stride) pair into (extent, stride) leaves, CuTe's order."""
    if isinstance(shape, tuple) != isinstance(stride, tuple):
        raise LayoutError(
            f"{argument}: shape {shape!r} and stride {stride!r} disagree in nesting at {path}"
        )
    if isinstance(shape, tuple):
        if len(shape) != len(stride):
            raise LayoutError(
                f"{argument}: {path} has {len(shape)} shape entries but {len(stride)} strides"
            )
        out = []
        for k, (s, d) in enumerate(zip(shape, stride)):
            out.extend(_leaves(s, d, argument, f"{path}[{k}]"))
        return out
    extent = _check_int(shape, f"{argument} extent at {path}", positive=True)
    return [(extent, _check_int(stride, f"{argument} stride at {path}"))]


def _shape_stride(layout, argument):
    # Any CuTe layout is accepted by what it has (labkit's, pycute's, CuTe DSL's): .shape and
    # .stride; a composed one (.layout_a/.layout_b) is refused.
    if hasattr(layout, "layout_a") or hasattr(layout, "layout_b"):
        raise LayoutError(
            f"{argument}: a composed (swizzled) layout is not affine; convert its layout_b and "
            f"apply the swizzle to the m coordinate"
        )
    affine = hasattr(layout, "shape") and hasattr(layout, "stride")
    if isinstance(layout, AxeLayout) or not affine:
        raise LayoutError(
            f"{argument}: must be a CuTe layout with .shape and .stride, "
            f"got {type(layout).__name__}"
        )
    return layout.shape, layout.stride


def axe_from_cute(layout):
    """The Axe layout ``S[...]`` over ``m`` that computes the same function as a CuTe layout.

    The logical index of the result is CuTe's flat (1-D) index: ``axe_from_cute(L)(i)`` gives
    ``[{'m': L(i)}]`` for every ``i``. CuTe reads ``i`` colexicographically (leftmost mode
    fastest) and Axe lexicographically (rightmost fastest), so the flattened modes come out in
    reverse order. A 2-D coordinate therefore differs: CuTe's ``(r, c)`` of an ``(M, N)``
    layout is the index ``r + c*M``, which is the Axe coordinate ``(c, r)``.

    >>> import labkit as lk
    >>> A = lk.axe_from_cute(lk.make_layout((4, 8), (8, 1)))     # CuTe (4,8):(8,1)
    >>> print(A)
    S[(8,4):(1,8)]
    >>> A(1), A(4)                                              # CuTe: L(1) = 8, L(4) = 1
    ([{'m': 8}], [{'m': 1}])
    >>> print(lk.axe_from_cute(lk.make_layout(((2, 2), 8), ((1, 16), 2))))
    S[(8,2,2):(2,16,1)]
    """
    shape, stride = _shape_stride(layout, "layout")
    leaves = _leaves(shape, stride, "layout")
    return AxeLayout([AxeIter(e, d) for e, d in reversed(leaves)])


def _split(leaf, at):
    """Split a leaf (extent, index_stride, weight) into (inner, outer) at extent ``at``."""
    e, s, w = leaf
    return (at, s, w), (e // at, s * at, w * at)


def axe_from_tv(tv_layout, tile_shape=None, *, thread_axes=("laneid", "warpid"), value_axis="reg",
                warp_size=32):
    """The Axe layout of a CuTe TV layout: tile element -> (lane, value slot).

    ``tv_layout`` maps (thread, value) to a column-major index of a tile of ``tile_shape``
    ``(M, N)``, as CuTe's MMA and copy atoms do. The result is its inverse, read the Axe way:
    the logical index is the tile's **row-major** index ``r*N + c`` (lexicographic), and the
    element goes to ``laneid`` (thread ``t % warp_size``), ``warpid`` (``t // warp_size``)
    and ``reg`` (the value index). Thread or value modes of stride 0 (several threads holding
    the same element) become replicas ``R[...]``. Without ``tile_shape`` the logical index is
    the TV layout's column-major index itself.

    The m8n8 fragment: B of ``SM80_16x8x8`` is ``((4,8),2):((16,1),8)`` over its (8,8) tile.

    >>> import labkit as lk
    >>> tv = lk.make_layout(((4, 8), 2), ((16, 1), 8))
    >>> F = lk.axe_from_tv(tv, (8, 8))
    >>> print(F)
    S[(8,4,2):(4@laneid,1@laneid,1@reg)]
    >>> F((5, 3), shape=(8, 8))
    [{'laneid': 21, 'reg': 1}]
    """
    shape, stride = _shape_stride(tv_layout, "tv_layout")
    pair = isinstance(shape, tuple) and isinstance(stride, tuple)
    if not (pair and len(shape) == len(stride) == 2):
        raise LayoutError(
            f"tv_layout: must have two modes (thread, value), got {shape!r}:{stride!r}"
        )
    if not isinstance(thread_axes, (tuple, list)) or len(thread_axes) != 2:
        raise LayoutError(
            f"thread_axes: must be a pair (lane axis, warp axis), got {thread_axes!r}"
        )
    lane_axis, warp_axis = (_check_axis_name(a, "thread_axes") for a in thread_axes)
    value_axis = _check_axis_name(value_axis, "value_axis")
    warp_size = _check_int(warp_size, "warp_size", positive=True)

    # Each leaf: (extent, index stride, weight within its mode, mode name).
    leaves = []
    for mode, (s, d) in zip(("thread", "value"), zip(shape, stride)):
        weight = 1
        for e, st in _leaves(s, d, f"tv_layout {mode} mode"):
            leaves.append([(e, st, weight), mode])
            weight *= e

    # Threads: split leaves that straddle the warp boundary, then name their axis.
    named = []
    for (e, st, w), mode in leaves:
        if e == 1:
            continue
        if mode == "value":
            named.append(((e, st, w), value_axis))
            continue
        if w < warp_size < w * e:
            if warp_size % w or e % (warp_size // w):
                raise LayoutError(
                    f"tv_layout: a thread mode of extent {e} and thread stride {w} straddles "
                    f"the warp boundary ({warp_size}) unevenly"
                )
            inner, outer = _split((e, st, w), warp_size // w)
            named.append((inner, lane_axis))
            named.append(((outer[0], outer[1], outer[2] // warp_size), warp_axis))
        elif w >= warp_size:
            if w % warp_size:
                raise LayoutError(f"tv_layout: thread stride {w} is not a multiple of {warp_size}")
            named.append(((e, st, w // warp_size), warp_axis))
        else:
            named.append(((e, st, w), lane_axis))

    replica = [AxeIter(e, w, axis) for (e, st, w), axis in named if st == 0]
    shard = sorted(((leaf, axis) for leaf, axis in named if leaf[1] != 0), key=lambda t: t[0][1])
    size = prod(leaf[0] for leaf, _ in shard)

    # The non-zero strides must tile 0..size-1 exactly (the TV layout is then invertible).
    expect = 1
    for (e, st, _), _ in shard:
        if st != expect:
            raise LayoutError(
                f"tv_layout: its strides do not cover the tile exactly (expected stride {expect}, "
                f"found {st}); only a one-to-one (thread, value) -> element map has an Axe form"
            )
        expect *= e

    if tile_shape is None:
        digits = list(reversed(shard))  # column-major index: largest stride slowest
    else:
        if not isinstance(tile_shape, tuple) or len(tile_shape) != 2:
            raise LayoutError(f"tile_shape: must be a pair (M, N), got {tile_shape!r}")
        M, N = (_check_int(v, "tile_shape", positive=True) for v in tile_shape)
        if M * N != size:
            raise LayoutError(
                f"tile_shape: {(M, N)} has {M * N} elements but the TV layout covers {size}"
            )
        rows, cols = [], []
        for leaf, axis in shard:
            e, st, w = leaf
            if st < M < st * e:
                if M % st or e % (M // st):
                    raise LayoutError(
                        f"tile_shape: a mode of extent {e} and stride {st} straddles the row "
                        f"count M={M} unevenly"
                    )
                inner, outer = _split(leaf, M // st)
                rows.append((inner, axis))
                cols.append(((outer[0], outer[1] // M, outer[2]), axis))
            elif st >= M:
                cols.append(((e, st // M, w), axis))
            else:
                rows.append((leaf, axis))
        # Row-major index r*N + c: rows are the slow digits, each part largest stride first.
        digits = list(reversed(rows)) + list(reversed(cols))
    if not digits:  # a single element, held by thread 0, value 0
        digits = [((1, 0, 1), lane_axis)]
    return AxeLayout([AxeIter(e, w, axis) for (e, _, w), axis in digits], R=replica)
