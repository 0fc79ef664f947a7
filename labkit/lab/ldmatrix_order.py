"""Which 8x8 matrix of ``ldmatrix.x4`` feeds which A register of ``mma.m16n8k16``.

``ldmatrix.x4`` loads four 8x8 matrices of 16-bit elements; lanes ``8i..8i+7`` give the row
addresses of matrix ``i``, and matrix ``i`` lands in destination register ``i`` of every lane.
The MMA reads its A operand from registers ``a0..a3`` in a fixed order (PTX ISA, "Matrix
Fragments for mma.m16n8k16"): ``a0`` rows 0-7 and ``a1`` rows 8-15 of K 0-7, ``a2`` rows 0-7 and
``a3`` rows 8-15 of K 8-15. So the lanes must address the 16x16 tile column of blocks first:

* ``"cute"``: matrix 1 = rows 8-15 at K 0-7, matrix 2 = rows 0-7 at K 8-15. This is the order
  ``make_tiled_copy_A`` derives from the MMA's A layout (``partition_S`` of lane 8 starts at
  A(8,0), of lane 16 at A(0,8)).
* ``"mistaken"``: the matrices read like a page, row of blocks first (matrix 1 = rows 0-7 at
  K 8-15, matrix 2 = rows 8-15 at K 0-7). A drawing in that order looks natural and is wrong:
  ``a1`` and ``a2`` swap, and the MMA computes a different product.

:func:`run_x4_order` runs the load and the MMA in labkit's warp simulator (written from the PTX
ISA) and returns the product next to the exact one.

>>> x4_origins("cute"), x4_origins("mistaken")
(((0, 0), (8, 0), (0, 8), (8, 8)), ((0, 0), (0, 8), (8, 0), (8, 8)))
>>> x4_row_addresses("cute")[[0, 8, 16]].tolist()          # bytes, 16x16 fp16 row-major tile
[0, 256, 16]
>>> run = run_x4_order("mistaken")
>>> run.exact, run.exact_if_swapped
(False, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from labkit.atoms import instructions
from labkit.errors import LayoutError

__all__ = ["ORDERS", "x4_origins", "x4_rows", "x4_row_addresses", "x4_assignment", "X4OrderRun",
           "run_x4_order"]

ORDERS = ("cute", "mistaken")
def _origins():
    """"cute": the blocks the registry's m16n8k16 entry puts in a0..a3 (from CuTe's TV layout);
    "mistaken": the same blocks read like a page, row of blocks first (matrices 1 and 2 swapped)."""
    cute = instructions.instruction("mma_m16n8k16_f32f16f16f32", "mma").ldmatrix_blocks("A")
    return {"cute": cute, "mistaken": (cute[0], cute[2], cute[1], cute[3])}


_ORIGINS = _origins()


def _check_order(order) -> str:
    if order not in _ORIGINS:
        raise LayoutError(f"order must be one of {ORDERS}; got {order!r}")
    return order


def x4_origins(order: str = "cute") -> tuple[tuple[int, int], ...]:
    """``(row, col)`` of the top-left element of matrices 0-3 in the 16x16 A tile."""
    return _ORIGINS[_check_order(order)]


def x4_rows(order: str = "cute") -> np.ndarray:
    """The row each lane addresses, as ``(32, 2)`` coordinates ``(m, k0)`` of the row's first
    element: lane ``t`` gives row ``t % 8`` of matrix ``t // 8``.

    >>> x4_rows("mistaken")[[8, 16]].tolist()
    [[0, 8], [8, 0]]
    """
    origins = np.asarray(x4_origins(order))
    matrix, row = instructions.lane_row(np.arange(32), 4)          # the registry's lane rule
    return origins[matrix] + np.stack([row, np.zeros(32, int)], axis=1)


def x4_row_addresses(order: str = "cute", row_stride: int = 16, elem_bytes: int = 2) -> np.ndarray:
    """Byte address each of the 32 lanes gives ``ldmatrix.x4`` for a row-major tile whose rows
    are ``row_stride`` elements apart (16 for a packed 16x16 tile)."""
    if not isinstance(row_stride, (int, np.integer)) or row_stride < 16 or (row_stride * elem_bytes) % 16:
        raise LayoutError(f"row_stride must be an int >= 16 whose rows stay 16-byte aligned; got {row_stride!r}")
    if elem_bytes != 2:
        raise LayoutError(f"elem_bytes must be 2 (ldmatrix moves 16-bit elements); got {elem_bytes!r}")
    rows = x4_rows(order)
    return elem_bytes * (rows[:, 0] * row_stride + rows[:, 1])


def x4_assignment(order: str = "cute") -> np.ndarray:
    """``(16, 16, 3)`` int array: for element A(m, k) the lane that receives it, the destination
    register (= the matrix), and the half (0 low, 1 high), as ``ldmatrix.x4`` distributes it
    (lane ``t`` gets row ``t // 4``, elements ``2 (t % 4)`` and ``+1`` of every matrix)."""
    out = np.zeros((16, 16, 3), dtype=int)
    for j, (m0, k0) in enumerate(x4_origins(order)):
        for lane in range(32):
            for half in (0, 1):
                r, c = instructions.matrix_element(lane, half)      # the registry's rule
                out[m0 + r, k0 + c] = (lane, j, half)
    return out


@dataclass(frozen=True)
class X4OrderRun:
    """One ``ldmatrix.x4`` + ``mma.sync`` in the warp simulator with a given matrix order."""

    order: str
    atom: str
    a: np.ndarray              # (16, 16) A, A[m, k] = 16 m + k
    b: np.ndarray              # (8, 16) B, small integers
    lane0: list                # the (m, k) lane 0's eight A halves hold, register by register
    d: np.ndarray              # (16, 8) D as the MMA computed it from those registers
    d_swapped: np.ndarray      # (16, 8) D with registers a1 and a2 passed the other way round

    @property
    def reference(self) -> np.ndarray:
        return self.a @ self.b.T

    @property
    def exact(self) -> bool:
        return bool(np.array_equal(self.d, self.reference))

    @property
    def exact_if_swapped(self) -> bool:
        return bool(np.array_equal(self.d_swapped, self.reference))

    @property
    def max_error(self) -> float:
        return float(np.abs(self.d - self.reference).max())

    def __str__(self) -> str:
        return (f"{self.order} order: lane 0 holds {self.lane0}; D == A·Bᵀ: {self.exact} "
                f"(max error {self.max_error:g}); with a1 and a2 swapped: {self.exact_if_swapped}")


def run_x4_order(order: str = "cute", *, atom: str = "SM80_16x8x16_F32F16F16F32_TN", seed: int = 0) -> X4OrderRun:
    """Fill shared memory with A (``A[m, k] = 16 m + k``, row-major fp16), load it with
    ``ldmatrix.x4`` addressed in ``order``, multiply by a small integer B (seeded) with
    ``mma.sync`` (fp32 accumulate, so every sum is exact) in labkit's warp simulator."""
    from labkit.sim import SharedMemory, from_bits, ldmatrix, mma_spec, mma_sync, pack_fragment, to_bits
    from labkit.sim import unpack_fragment, unpack_pairs
    _check_order(order)
    spec = mma_spec(atom)
    if tuple(int(v) for v in spec.shape_mnk) != (16, 8, 16):
        raise LayoutError(f"atom must be an m16n8k16 MMA (its A takes one ldmatrix.x4); got {atom!r}")
    a = 16.0 * np.arange(16)[:, None] + np.arange(16)[None, :]
    b = np.random.default_rng(seed).integers(-2, 3, (8, 16)).astype(np.float64)
    smem = SharedMemory(512)
    smem.fill(0, to_bits(a, "f16").ravel())
    regs = ldmatrix(smem, x4_row_addresses(order), 4)
    halves = from_bits(unpack_pairs(regs), "f16")[0]
    b_regs = pack_fragment(spec, "B", b)
    c_regs = pack_fragment(spec, "C", np.zeros((16, 8)))
    d = unpack_fragment(spec, "C", mma_sync(spec, regs, b_regs, c_regs))
    d_swapped = unpack_fragment(spec, "C", mma_sync(spec, regs[:, [0, 2, 1, 3]], b_regs, c_regs))
    lane0 = [tuple(divmod(int(x), 16)) for x in halves]
    return X4OrderRun(order, atom, a, b, lane0, d, d_swapped)
