"""The RS form of ``wgmma``: A in the warpgroup's registers, as CuTe's ``GMMA::ALayout_64x{K}``
places it.

Each of the 128 threads holds four 32-bit registers of A (32 bytes of one row's K step: two
16-bit elements, four 8-bit or one tf32 to a register, the lower-indexed value in the low bits),
the 64 x K A of one wgmma. Which element value ``v`` of thread ``t`` is comes from the RS
entries' TV layout (``labkit.atoms.mma_table.a_layout_64xk``, checked against CuTe C++): inside
its 16 rows each warp holds what ``mma.sync`` m16n8k{K} holds of A. :func:`a_registers` packs A by it, the
inverse :func:`a_from_registers` unpacks it; the twin (``labkit.sim.wgmma.wgmma_rs``) and the
probe kernel (``labkit.cuda.kernels.probes.wgmma_probe``) both go through them.
"""

from __future__ import annotations

import numpy as np

from ..errors import LayoutError
from ..elements import element, from_bits, pack_registers, to_bits, unpack_registers
from .mma_table import a_layout_64xk
from .records import WARPGROUP, tv_coords

__all__ = ["a_registers", "a_from_registers"]


def _element(kind):
    e = element(kind, "element")
    if e.bits not in (8, 16, 32) or e.name not in ("f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8"):
        raise LayoutError(f"element must be a wgmma A type (half_t, bfloat16_t, tfloat32_t, "
                          f"float_e4m3_t, float_e5m2_t, int8_t, uint8_t), got {kind!r}")
    return e


def _a_coords(e):
    k = 256 // e.bits
    return k, tv_coords(a_layout_64xk(k), 64, WARPGROUP, 64 * k // WARPGROUP)   # (thread, value) -> (m, k)


def a_registers(A, element: str = "f16") -> np.ndarray:
    """The RS form's A registers: ``(128, 4)`` uint32 holding the 64 x K ``A`` rounded to
    ``element`` (K = 16 for f16/bf16, 8 for tf32, 32 for fp8 and int8), value ``v`` of thread
    ``t`` at ``ALayout_64x{K}(t, v)``, the lower-indexed values in the low bits.

    >>> import numpy as np
    >>> A = np.arange(64 * 16).reshape(64, 16)
    >>> r = a_registers(A)             # A(m, k) = 16 m + k; thread 5 is lane 5 of warp 0
    >>> r[5].view(np.float16).reshape(4, 2).tolist()     # (1,2) (1,3) | (9,2) (9,3) | ... k + 8
    [[18.0, 19.0], [146.0, 147.0], [26.0, 27.0], [154.0, 155.0]]
    >>> bool((a_from_registers(r) == A).all())
    True
    """
    e = _element(element)
    k, xy = _a_coords(e)
    A = np.asarray(A)
    if A.shape != (64, k):
        raise LayoutError(f"A must be 64 x {k} (one {e.name} wgmma of the RS form); got shape {A.shape}")
    bits = np.asarray(to_bits(A.astype(np.float64), e))[xy[..., 0], xy[..., 1]]
    return pack_registers(bits, e)


def a_from_registers(regs, element: str = "f16") -> np.ndarray:
    """A (64 x K, float64) from the RS form's ``(128, 4)`` uint32 registers (the inverse of
    :func:`a_registers`).

    >>> import numpy as np
    >>> A = np.arange(64 * 32).reshape(64, 32) % 7 - 3
    >>> bool((a_from_registers(a_registers(A, "int8_t"), "s8") == A).all())
    True
    """
    e = _element(element)
    k, xy = _a_coords(e)
    regs = np.asarray(regs)
    if regs.shape != (128, 4) or not np.issubdtype(regs.dtype, np.integer):
        raise LayoutError(f"a must be (128, 4) integer registers (four 32-bit registers per thread "
                          f"of the warpgroup); got {regs.dtype} of shape {regs.shape}")
    values = unpack_registers(regs.astype(np.uint64) & 0xFFFFFFFF, e)
    A = np.empty((64, k))
    A[xy[..., 0], xy[..., 1]] = from_bits(values, e)
    return A
