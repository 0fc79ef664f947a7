"""``cp.async.{ca,cg}.shared.global`` 16-byte copies with ``commit_group`` / ``wait_group``.

From the PTX ISA: ``cp.async`` starts a copy from global to shared memory without
waiting for it; ``cp.async.commit_group`` closes the copies issued since the last commit
into a group; ``cp.async.wait_group n`` waits until at most the ``n`` most recent groups
are still pending (``wait_all`` = commit + wait 0). Until then the destination bytes are
not guaranteed to hold the data, and this model leaves them untouched: a read before the
wait sees the old contents, which is what a missing wait can do on a GPU.

The source bytes are taken when the copy is issued; each warp's destination addresses
are recorded in the shared memory's conflict account (16 bytes per lane: 8 lanes per phase).

>>> import numpy as np
>>> from labkit.sim import SharedMemory, CpAsync
>>> s = SharedMemory(1024); q = CpAsync(s)
>>> src = np.arange(256, dtype=np.uint16)
>>> q.copy(np.arange(32) * 16, src, np.arange(32) * 16)     # 32 lanes x 16 bytes
>>> q.commit_group(); s.read(16, 2).tolist()                # not landed yet
[0, 0]
>>> q.wait_group(0); s.read(16, 2).tolist()
[8, 9]
>>> s.log[-1].op, s.log[-1].wavefronts
('cp.async.ca.shared.global', 4)
"""

from __future__ import annotations

import numpy as np

from labkit.atoms.instructions import CP_ASYNC
from labkit.errors import DeviceError, InstructionError

_COPIES = {ins.level: ins for ins in CP_ASYNC.values() if ins.level}

__all__ = ["CpAsync"]


class CpAsync:
    """The cp.async queue of one CTA writing into ``smem`` (a :class:`SharedMemory`)."""

    def __init__(self, smem):
        self.smem = smem
        self.open: list = []
        self.groups: list = []

    @property
    def pending(self) -> int:
        """Committed groups not yet retired."""
        return len(self.groups)

    def copy(self, dst_addrs, src, src_offsets, level: str = "ca", warp=None) -> None:
        """Issue 16-byte copies: lane ``i`` copies bytes ``src_offsets[..., i]`` onward of the
        global array ``src`` to shared byte address ``dst_addrs[..., i]`` (one row of the
        last axis per warp instruction)."""
        if level not in _COPIES:
            raise InstructionError(f"cp.async level must be one of {sorted(_COPIES)}; got {level!r}")
        op, size = f"cp.async.{level}.shared.global", _COPIES[level].bytes
        dst = self.smem.check(dst_addrs, size, op)
        raw = np.ascontiguousarray(src).reshape(-1).view(np.uint8)
        so = np.asarray(src_offsets)
        if so.dtype.kind not in "iu":
            raise DeviceError(f"{op}: source offsets must be integer byte offsets; got dtype {so.dtype}")
        so = np.broadcast_to(so.astype(np.int64), dst.shape)
        bad = (so % size != 0) | (so < 0) | (so + size > raw.size)
        if bad.any():
            v = int(so[tuple(np.argwhere(bad)[0])])
            rule = f"{size}-byte aligned" if v % size else f"inside the {raw.size}-byte source"
            raise DeviceError(f"{op}: source offset {v} must be {rule}")
        data = raw[so[..., None] + np.arange(size)]
        self.smem.record(op, dst, size, warp=warp)
        self.open.append((dst.copy(), data))

    def commit_group(self) -> None:
        """``cp.async.commit_group``."""
        self.groups.append(self.open)
        self.open = []

    def wait_group(self, n: int = 0) -> None:
        """``cp.async.wait_group n``: land every committed group but the ``n`` newest."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise DeviceError(f"wait_group: n must be an integer >= 0; got {n!r}")
        done = max(len(self.groups) - int(n), 0)
        for group in self.groups[:done]:
            for dst, data in group:
                self.smem.scatter(dst, data)
        self.groups = self.groups[done:]

    def wait_all(self) -> None:
        """``cp.async.wait_all``."""
        self.commit_group()
        self.wait_group(0)
