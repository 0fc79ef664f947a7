"""Named-axis layouts of real hardware: tiles in memory, TMEM, register fragments, meshes."""

from ..errors import LayoutError
from .axes import HARDWARE_AXES, _check_int
from .iters import AxeIter
from .axe_layout import AxeLayout

__all__ = [
    "axe_tiled_layout",
    "tmem_accumulator_layout",
    "m8n8_fragment_layout",
    "scale_factor_layout",
    "mesh_layout",
    "MESH_MODES",
]


def axe_tiled_layout(matrix_shape=(8, 8), tile_shape=(2, 4)):
    """A matrix stored tile by tile, as an Axe layout: tiles in row-major order, each tile
    row-major inside.

    The logical index is the matrix's row-major (lexicographic) index ``i*N + j``; it unflattens
    over ``(M/tm, tm, N/tn, tn)`` into (tile_row, row_in_tile, tile_col, col_in_tile). Not to be
    confused with CuTe's ``tiled_divide``/``tiled_product``, which are colexicographic.

    >>> import labkit as lk
    >>> L = lk.axe_tiled_layout((8, 8), (2, 4))
    >>> print(L)
    S[(4,2,2,4):(16,4,8,1)]
    >>> L((3, 5), shape=(8, 8))                 # tile (1,1), element (1,1) of that tile
    [{'m': 29}]
    """
    M, N = (_check_int(v, "matrix_shape", positive=True)
            for v in _pair(matrix_shape, "matrix_shape"))
    tm, tn = (_check_int(v, "tile_shape", positive=True) for v in _pair(tile_shape, "tile_shape"))
    if M % tm or N % tn:
        raise LayoutError(f"tile_shape: {(tm, tn)} must divide matrix_shape {(M, N)}")
    tile = tm * tn
    return AxeLayout([(M // tm, tile * (N // tn)), (tm, tn), (N // tn, tile), (tn, 1)])


def _pair(value, argument):
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise LayoutError(f"{argument}: must be a pair (rows, cols), got {value!r}")
    return value


def tmem_accumulator_layout(m=128, n=256):
    """An ``m x n`` accumulator in Blackwell tensor memory: row -> TLane, column -> TCol.

    ``S[(m,n):(1@TLane,1@TCol)]``; a CTA's TMEM has 128 lanes of 512 32-bit columns.

    >>> import labkit as lk
    >>> acc = lk.tmem_accumulator_layout()
    >>> print(acc)
    S[(128,256):(1@TLane,1@TCol)]
    >>> acc((37, 200))
    [{'TLane': 37, 'TCol': 200}]
    """
    m = _check_int(m, "m", positive=True)
    n = _check_int(n, "n", positive=True)
    for arg, v, axis in (("m", m, "TLane"), ("n", n, "TCol")):
        if v > HARDWARE_AXES[axis]:
            raise LayoutError(f"{arg}: {v} exceeds the {HARDWARE_AXES[axis]} positions of {axis}")
    return AxeLayout([AxeIter(m, 1, "TLane"), AxeIter(n, 1, "TCol")])


def m8n8_fragment_layout():
    """The 8x8 register fragment of a warp: element (row, col) -> lane row*4 + col//2, slot col%2.

    ``S[(8,4,2):(4@laneid,1@laneid,1@reg)]`` over the row-major index ``row*8 + col``.

    >>> import labkit as lk
    >>> frag = lk.m8n8_fragment_layout()
    >>> frag((5, 3), shape=(8, 8))
    [{'laneid': 21, 'reg': 1}]
    """
    return AxeLayout([AxeIter(8, 4, "laneid"), AxeIter(4, 1, "laneid"), AxeIter(2, 1, "reg")])


def scale_factor_layout(mn=128, sf_k=4):
    """Block-scale factors (1 byte each) in TMEM as ``tcgen05.cp.32x128b.warpx4`` places them.

    The factor ``SF[row, sfk]`` (row = m for SFA, n for SFB) is packed into a 32-lane base
    tile: ``local_lane = row % 32``, ``TCol = row // 32``, ``byte = sfk`` (four factors fill
    one 32-bit column); ``.warpx4`` then copies the tile to the four 32-lane partitions,
    ``TLane = local_lane + 32*p``. The logical index is ``row*sf_k + sfk`` (row-major).

    >>> import labkit as lk
    >>> sfa = lk.scale_factor_layout(128, 4)
    >>> print(sfa)
    S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]
    >>> sfa.forward((64, 2), shape=(128, 4), axes=("TLane", "TCol", "byte"))
    [(0, 2, 2), (32, 2, 2), (64, 2, 2), (96, 2, 2)]
    """
    mn = _check_int(mn, "mn", positive=True)
    sf_k = _check_int(sf_k, "sf_k", positive=True)
    if mn % 32:
        raise LayoutError(f"mn: must be a multiple of the 32 lanes of the base tile, got {mn}")
    if sf_k != 4:
        raise LayoutError(
            f"sf_k: the 32x128b base tile holds 4 one-byte factors per 32-bit column, got {sf_k}"
        )
    return AxeLayout(
        [AxeIter(mn // 32, 1, "TCol"), AxeIter(32, 1, "TLane"), AxeIter(sf_k, 1, "byte")],
        R=[AxeIter(4, 32, "TLane")],
    )


#: The three placements of an 8x8 matrix on a 2x2 GPU mesh that ``mesh_layout`` builds.
MESH_MODES = ("sharded", "replica", "offset")


def mesh_layout(mode):
    """An 8x8 matrix on a 2x2 GPU mesh (axes ``gpuid_x``, ``gpuid_y``; local offset on ``m``).

    The logical index is the row-major ``i*8 + j``. Rows split into halves ``i//4`` over
    ``gpuid_y`` and, locally, ``(i%4)*8 + j``:

    * ``"replica"``: ``S[(2,4,8):(1@gpuid_y,8@m,1@m)] + R[2:1@gpuid_x]``, each half on both
      devices of its ``gpuid_y`` row;
    * ``"offset"``: the same shard ``+ O[1@gpuid_x]``, each half only on ``gpuid_x = 1``;
    * ``"sharded"``: also columns split into halves ``j//4`` over ``gpuid_x``, a 4x4 block per
      device: ``S[(2,4,2,4):(1@gpuid_y,4@m,1@gpuid_x,1@m)]``.

    >>> import labkit as lk
    >>> xy_m = ("gpuid_x", "gpuid_y", "m")
    >>> lk.mesh_layout("replica").forward((1, 2, 3), shape=(2, 4, 8), axes=xy_m)
    [(0, 1, 19), (1, 1, 19)]
    >>> lk.mesh_layout("offset").forward((1, 2, 3), shape=(2, 4, 8), axes=xy_m)
    [(1, 1, 19)]
    """
    base = [
        AxeIter(2, 1, "gpuid_y"), AxeIter(4, 8, "m", tagged=True), AxeIter(8, 1, "m", tagged=True)
    ]
    if mode == "replica":
        return AxeLayout(base, R=[AxeIter(2, 1, "gpuid_x")])
    if mode == "offset":
        return AxeLayout(base, O={"gpuid_x": 1})
    if mode == "sharded":
        return AxeLayout([
            AxeIter(2, 1, "gpuid_y"), AxeIter(4, 4, "m", tagged=True),
            AxeIter(2, 1, "gpuid_x"), AxeIter(4, 1, "m", tagged=True),
        ])
    raise LayoutError(f"mode: must be one of {MESH_MODES}, got {mode!r}")
