"""Where the tensor-core steps keep their tiles in shared memory, and which row each lane reads.

Shared memory holds, per stage, the A tile (bm x bk) then the B tile (bn x bk), both
K-major. Unswizzled, element (r, k) sits at ``r*bk + k``; swizzled, at CuTe's
``Swizzle<b,3,3> o (8,(8,2^b)):(8,(1,64))`` tiled over the rows (``b = log2(bk/8)``;
``Swizzle<3,3,3>`` for ``bk = 64``, as in CUTLASS's ``sgemm_sm80``)::

    offset(r, k) = (r // 8) * 8*bk + 64*(k // 8) + 8*((r % 8) ^ (k // 8)) + k % 8

so the eight 16-byte rows one ldmatrix phase reads fall in eight different bank groups.
The kernels do not hand-copy that formula: :func:`smem_layout` builds the CuTe layout (or a
config brings its own, :func:`tile_layout`) and :func:`labkit.cuda.offset_function` compiles it
into the device function the kernel calls (``smem_offset``; :func:`layout_offset` is the same
function in plain Python, :func:`offset_source` its text); the lanes' ldmatrix addresses come from the
registry's ldmatrix and the MMA atom's TV layouts (:func:`ldmatrix_lanes`). With the TMA loader
the tiles are laid out as the TMA's 128-byte swizzle writes them (:func:`tma_offset`).

>>> swizzled_offset(9, 16, 64), swizzled_offset(1, 8, 64), plain_offset(9, 16, 64)
(664, 64, 592)
"""

from __future__ import annotations

import functools

from labkit import layout as lk
from labkit.atoms import mma_atom
from labkit.atoms.instructions import lane_row
from labkit.errors import DeviceError

__all__ = [
    "smem_layout",
    "offset_source",
    "tile_layout",
    "layout_offset",
    "ldmatrix_lanes",
    "lane_expr",
    "plain_offset",
    "swizzled_offset",
    "tma_offset",
]


def smem_layout(kind, bk, rows=256):
    """CuTe layout of a ``rows x bk`` fp16 tile in shared memory, (row, column) -> element.

    ``"plain"``: row-major ``(rows,bk):(bk,1)``. ``"swizzle"``: ``Swizzle<b,3,3> o
    (8,(8,2^b)):(8,(1,64))`` tiled down the rows, ``b = log2(bk/8)`` (CUTLASS ``sgemm_sm80``'s
    for bk = 64). ``"tma"``: ``Swizzle<3,3,3> o (8,64):(64,1)`` tiled down the rows, the K-major
    128-byte TMA swizzle atom (bk = 64).

    >>> print(smem_layout("swizzle", 64, rows=128))
    Sw<3,3,3> o _0 o ((_8,_16),((_8,_8),_1)):((_8,_512),((_1,_64),_0))
    """
    S = lk.S
    if kind == "plain":
        return lk.make_layout((S(rows), S(bk)), (S(bk), S(1)))
    if kind == "swizzle":
        atom = lk.make_layout((S(8), (S(8), S(bk // 8))), (S(8), (S(1), S(64))))
        return lk.composition(lk.Swizzle((bk // 8).bit_length() - 1, 3, 3),
                              lk.tile_to_shape(atom, (S(rows), S(bk))))
    if kind == "tma":
        if bk != 64:
            raise DeviceError(f"bk: the 128-byte TMA swizzle atom holds 64 fp16 columns, got bk={bk}")
        atom = lk.make_layout((S(8), S(64)), (S(64), S(1)))
        return lk.composition(lk.Swizzle(3, 3, 3), lk.tile_to_shape(atom, (S(rows), S(64))))
    raise DeviceError(f"kind: must be 'plain', 'swizzle' or 'tma', got {kind!r}")


def _terms(x, modes):
    """Terms of ``sum_i ((x // prefix_i) % n_i) * d_i`` over ``modes`` [(n_i, d_i)] (the lanes'
    ldmatrix offsets; a layout's offsets are :func:`labkit.layout.offset_source`'s)."""
    from labkit.layout.offset_source import _terms as terms

    return terms(x, tuple(n for n, _ in modes), tuple(d for _, d in modes))


def offset_source(layout, name="offset"):
    """Python source of ``name(c0, c1)``: ``layout``'s offset of (row, column) in closed form
    (:func:`labkit.layout.offset_source`).

    >>> print(offset_source(smem_layout("tma", 64)), end="")
    def offset(c0, c1):
        y0 = 64 * c0 + c1
        y1 = y0 ^ ((y0 >> 3) & 56)
        return y1
    """
    return lk.offset_source(layout, name)


def tile_layout(cfg):
    """The shared-memory layout of ``cfg``'s A and B tiles, (row, column) -> element: the config's
    own ``smem_layout``, or :func:`smem_layout` of its kind."""
    own = getattr(cfg, "smem_layout", None)
    return own if own is not None else smem_layout(cfg.smem_kind, cfg.bk)


@functools.lru_cache(maxsize=256)
def layout_offset(layout):
    """``layout``'s offset function in plain Python (:func:`labkit.cuda.offset_function`'s ``py_func``).

    >>> layout_offset(smem_layout("tma", 64))(1, 8)
    64
    >>> layout_offset(smem_layout("swizzle", 64))(9, 16), layout_offset(smem_layout("plain", 64))(9, 16)
    (664, 592)
    """
    from labkit.cuda.offset_function import offset_program

    return offset_program(layout).function()


def plain_offset(r, k, bk):
    """Element offset of (row r, column k) in a row-major ``rows x bk`` tile."""
    return layout_offset(smem_layout("plain", bk))(r, k)


def tma_offset(r, k, bk):
    """Element offset of (row r, column k) where a 128-byte-swizzled TMA box puts it.

    Row r is 128 bytes at ``r*bk``; its 16-byte chunk ``c = k // 8`` goes to slot
    ``c ^ (r % 8)``: CuTe's ``Swizzle<3,3,3> o (8,64):(64,1)`` (the K-major 128-byte swizzle
    atom of Hopper GEMMs), which needs ``bk = 64`` and a 1024-byte-aligned tile.

    >>> tma_offset(1, 8, 64), tma_offset(9, 0, 64)
    (64, 584)
    """
    return layout_offset(smem_layout("tma", bk))(r, k)


def swizzled_offset(r, k, bk):
    """Element offset of (row r, column k) under ``Swizzle<log2(bk/8),3,3>`` (see module text).

    Row 1, column 8 of the bk=64 atom: 8*1 + 64*1 = 72 before the swizzle; bits 6-8 (1)
    flip bits 3-5 (1), leaving 64.

    >>> swizzled_offset(1, 8, 64)
    64
    """
    return layout_offset(smem_layout("swizzle", bk))(r, k)


def ldmatrix_lanes(operand):
    """``(row, column)`` strides of the address each lane gives one ``ldmatrix.x4`` of an operand.

    From the registry and CuTe's atoms: in ``ldmatrix.x4`` lane t gives row ``t % 8`` of matrix
    ``t // 8`` (the registry's lane -> row rule, ``instructions.lane_row``); the matrix is the
    fragment register ``j`` of ``SM80_16x8x16``'s A (B: of two neighbouring n8 atoms, registers
    0-1 then 2-3), whose origin is the atom's TV coordinate of (thread 0, value 2j). Returned as
    the strides of lane ``(8,2,2)`` for the row and the column, checked on all 32 lanes.

    >>> ldmatrix_lanes("A"), ldmatrix_lanes("B")
    (((1, 8, 0), (0, 0, 8)), ((1, 0, 8), (0, 8, 0)))
    """
    if operand not in ("A", "B"):
        raise DeviceError(f"operand: must be 'A' or 'B', got {operand!r}")
    atom = mma_atom("SM80_16x8x16_F32F16F16F32_TN")

    def origin(j):
        if operand == "A":
            return atom.coord_A(0, 2 * j)
        n, k = atom.coord_B(0, 2 * (j % 2))
        return 8 * (j // 2) + n, k

    def lane_rc(t):
        matrix, row = lane_row(t, 4)
        r0, c0 = origin(matrix)
        return r0 + row, c0

    base = [lane_rc(t) for t in (1, 8, 16)]
    rows, cols = tuple(b[0] for b in base), tuple(b[1] for b in base)
    for t in range(32):
        want = (t % 8 * rows[0] + (t // 8) % 2 * rows[1] + t // 16 * rows[2],
                t % 8 * cols[0] + (t // 8) % 2 * cols[1] + t // 16 * cols[2])
        if lane_rc(t) != want:
            raise DeviceError(f"ldmatrix_lanes: lane {t} of {operand} is not linear in (8,2,2)")
    return rows, cols


def lane_expr(strides):
    """Python expression of ``lane``'s offset along one :func:`ldmatrix_lanes` stride triple.

    >>> lane_expr(ldmatrix_lanes("A")[0]), lane_expr(ldmatrix_lanes("A")[1])
    ('(lane % 16)', '8 * (lane // 16)')
    """
    return " + ".join(_terms("lane", list(zip((8, 2, 2), strides)))) or "0"
