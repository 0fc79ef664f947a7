"""The RS form of ``wgmma``: A in the warpgroup's registers, as CuTe's ``GMMA::ALayout_64x16``
places it.

Each of the 128 threads holds four 32-bit registers of A, two 16-bit elements each (the
lower-indexed value in the low half), eight values of the 64 x 16 A of one k16 step. Which
element value ``v`` of thread ``t`` is comes from the RS entries' TV layout
(``labkit.atoms.gmma_instructions.A_LAYOUT_64x16``, checked against CuTe C++): inside its 16 rows
each warp holds what ``mma.sync`` m16n8k16 holds of A. :func:`a_registers` packs A by it, the
inverse :func:`a_from_registers` unpacks it; the twin (``labkit.sim.wgmma.wgmma_rs``) and the
probe kernel (``labkit.cuda.kernels.probes.wgmma_probe``) both go through them.
"""

from __future__ import annotations

import numpy as np

from ..errors import LayoutError
from .elements import from_bits, to_bits
from .gmma_instructions import A_LAYOUT_64x16
from .instructions import tv_coords

__all__ = ["a_registers", "a_from_registers"]

_ELEMENTS = ("f16", "bf16")


def _a_coords():
    return tv_coords(A_LAYOUT_64x16, 64, 128, 8)          # (thread, value) -> (m, k)


def a_registers(A, element: str = "f16") -> np.ndarray:
    """The RS form's A registers: ``(128, 4)`` uint32 holding the 64 x 16 ``A`` rounded to
    ``element`` (f16 or bf16), value ``v`` of thread ``t`` at ``ALayout_64x16(t, v)``, values
    ``2i`` (low half) and ``2i + 1`` in register ``i``.

    >>> import numpy as np
    >>> A = np.arange(64 * 16).reshape(64, 16)
    >>> r = a_registers(A)             # A(m, k) = 16 m + k; thread 5 is lane 5 of warp 0
    >>> r[5].view(np.float16).reshape(4, 2).tolist()     # (1,2) (1,3) | (9,2) (9,3) | ... k + 8
    [[18.0, 19.0], [146.0, 147.0], [26.0, 27.0], [154.0, 155.0]]
    >>> bool((a_from_registers(r) == A).all())
    True
    """
    if element not in _ELEMENTS:
        raise LayoutError(f"element must be 'f16' or 'bf16', got {element!r}")
    A = np.asarray(A)
    if A.shape != (64, 16):
        raise LayoutError(f"A must be 64 x 16 (one k16 step of the RS form); got shape {A.shape}")
    xy = _a_coords()
    bits = np.asarray(to_bits(A.astype(np.float64), element), np.uint32)[xy[..., 0], xy[..., 1]]
    return (bits[:, 0::2] | (bits[:, 1::2] << 16)).astype(np.uint32)


def a_from_registers(regs, element: str = "f16") -> np.ndarray:
    """A (64 x 16, float64) from the RS form's ``(128, 4)`` uint32 registers (the inverse of
    :func:`a_registers`)."""
    if element not in _ELEMENTS:
        raise LayoutError(f"element must be 'f16' or 'bf16', got {element!r}")
    regs = np.asarray(regs)
    if regs.shape != (128, 4) or not np.issubdtype(regs.dtype, np.integer):
        raise LayoutError(f"a must be (128, 4) integer registers (four 32-bit registers per thread "
                          f"of the warpgroup); got {regs.dtype} of shape {regs.shape}")
    regs = regs.astype(np.uint64) & 0xFFFFFFFF
    halves = np.stack([regs & 0xFFFF, regs >> 16], axis=-1).reshape(128, 8)
    xy = _a_coords()
    A = np.empty((64, 16))
    A[xy[..., 0], xy[..., 1]] = from_bits(halves.astype(np.uint16), element)
    return A
