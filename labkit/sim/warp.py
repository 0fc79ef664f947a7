"""A warp: 32 lanes of named 32-bit registers, issuing ldmatrix and mma.sync on a shared memory.

Registers are numpy arrays ``(32, count)`` of uint32 kept in :attr:`Warp.regs` under a
name, so a lab can print what every lane holds after each instruction.

>>> import numpy as np
>>> from labkit.sim import SharedMemory, Warp
>>> s = SharedMemory(768)
>>> s.fill(0, np.arange(256, dtype=np.float16))            # A: 16x16, offset 16m+k
>>> s.fill(512, np.arange(128, dtype=np.float16))          # B: 8x16 (n, k), offset 16n+k
>>> w = Warp(s)
>>> lane = np.arange(32)
>>> a = w.ldmatrix("a", (lane % 16) * 32 + (lane // 16) * 16, num=4)
>>> b = w.ldmatrix("b", 512 + (lane % 8) * 32 + (lane // 8 % 2) * 16, num=2)
>>> w.halves("a", "f16")[0].tolist()                    # lane 0: A(0,0) A(0,1) A(8,0) ...
[0.0, 1.0, 128.0, 129.0, 8.0, 9.0, 136.0, 137.0]
>>> d = w.mma("d", "SM80_16x8x16_F32F16F16F32_TN", "a", "b", np.zeros((32, 4), np.uint32))
>>> float(w.matrix("d", "SM80_16x8x16_F32F16F16F32_TN")[1, 2])   # sum_k A(1,k) B(2,k)
15192.0
"""

from __future__ import annotations

import numpy as np

from labkit.errors import DeviceError
from labkit.sim import numbers as nb
from labkit.sim.ldmatrix import ldmatrix
from labkit.sim.mma_fragments import mma_spec, mma_sync, unpack_fragment

__all__ = ["Warp"]


class Warp:
    """One warp bound to a :class:`~labkit.sim.SharedMemory`; ``index`` is its warp number."""

    def __init__(self, smem, index: int = 0):
        self.smem = smem
        self.index = int(index)
        self.regs: dict = {}

    def _get(self, regs):
        if isinstance(regs, str):
            if regs not in self.regs:
                raise DeviceError(f"warp {self.index} has no registers named {regs!r}; it has {sorted(self.regs)}")
            return self.regs[regs]
        return np.asarray(regs, np.uint32)

    def ldmatrix(self, name: str, addrs, num: int = 4, trans: bool = False) -> np.ndarray:
        """``ldmatrix`` into registers ``name`` (``(32, num)``); ``addrs`` are byte addresses."""
        out = ldmatrix(self.smem, addrs, num=num, trans=trans, warp=self.index)
        self.regs[name] = out
        return out

    def mma(self, name: str, atom, a, b, c) -> np.ndarray:
        """``mma.sync`` of ``atom`` (CuTe or labkit.cuda.ptx name); ``a``, ``b``, ``c`` are
        register names or arrays. The result is stored as ``name``."""
        out = mma_sync(mma_spec(atom), self._get(a), self._get(b), self._get(c))
        self.regs[name] = out
        return out

    def halves(self, name: str, kind: str = "f16") -> np.ndarray:
        """Registers ``name`` as ``(32, 2*count)`` float64 values of 16-bit elements."""
        return nb.from_bits(nb.unpack_pairs(self._get(name)), kind)

    def matrix(self, name: str, atom, operand: str = "C") -> np.ndarray:
        """Registers ``name`` read back as the full operand matrix of ``atom``."""
        return unpack_fragment(mma_spec(atom), operand, self._get(name))
