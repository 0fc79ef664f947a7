"""Shared memory as bytes, with a bank-conflict account of every warp access.

:class:`SharedMemory` holds ``nbytes`` bytes. Host-side :meth:`~SharedMemory.fill` and
:meth:`~SharedMemory.read` set up and inspect it without counting; the instructions of
:mod:`labkit.sim` (``st.shared``, ``ldmatrix``, ``cp.async``) go through
:meth:`~SharedMemory.record`, which analyses each warp access with
:func:`labkit.banks.bank_conflicts_batch` (32 banks of 4 bytes; a 16-byte access is served
8 lanes per phase) and appends an :class:`Access` to :attr:`~SharedMemory.log`.

>>> import numpy as np
>>> from labkit.sim import SharedMemory
>>> s = SharedMemory(1024)
>>> s.store(np.arange(32) * 4, np.arange(32, dtype=np.uint32), access_bytes=4)
>>> s.read(8, 3, np.uint32).tolist()
[2, 3, 4]
>>> s.store(np.arange(32) * 128 % 1024, np.zeros(32, np.uint32), access_bytes=4)
>>> [(a.op, a.wavefronts, a.degree) for a in s.log]
[('st.shared.b32', 1, 1), ('st.shared.b32', 8, 8)]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from labkit.banks import bank_conflicts_batch
from labkit.errors import DeviceError

__all__ = ["SharedMemory", "Access", "summarize"]

_STORE_OPS = {1: "st.shared.b8", 2: "st.shared.b16", 4: "st.shared.b32", 8: "st.shared.v2.b32", 16: "st.shared.v4.b32"}


@dataclass(frozen=True)
class Access:
    """One warp instruction's shared-memory access: ``wavefronts`` it took, ``min_wavefronts``
    without conflicts, the worst phase's ``degree`` (1 = conflict-free), the ``warp``."""

    op: str
    warp: int
    wavefronts: int
    min_wavefronts: int
    degree: int

    @property
    def conflict_free(self) -> bool:
        return self.degree <= 1


class SharedMemory:
    """``nbytes`` bytes of shared memory (one CTA's) and the account of its warp accesses."""

    def __init__(self, nbytes: int):
        if isinstance(nbytes, bool) or not isinstance(nbytes, (int, np.integer)) or nbytes <= 0:
            raise DeviceError(f"nbytes must be a positive integer; got {nbytes!r}")
        self.data = np.zeros(int(nbytes), np.uint8)
        self.log: list = []

    @property
    def nbytes(self) -> int:
        return int(self.data.size)

    def view(self, dtype) -> np.ndarray:
        """The whole memory as an array of ``dtype`` (a view: writes go through)."""
        return self.data.view(dtype)

    def check(self, addrs, nbytes: int, what: str) -> np.ndarray:
        """Validate byte addresses (alignment to ``nbytes``, inside the memory); return int64."""
        a = np.asarray(addrs)
        if a.dtype.kind not in "iu":
            raise DeviceError(f"{what}: addresses must be integers; got dtype {a.dtype}")
        a = a.astype(np.int64)
        bad = (a % nbytes != 0) | (a < 0) | (a + nbytes > self.nbytes)
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            v = int(a[idx])
            rule = f"aligned to {nbytes} bytes" if v % nbytes else f"inside the {self.nbytes}-byte shared memory"
            raise DeviceError(f"{what}: address {v} (at {idx}) must be {rule}")
        return a

    def fill(self, byte_offset: int, values) -> None:
        """Host-side write of ``values``' bytes at ``byte_offset`` (not counted)."""
        raw = np.ascontiguousarray(values).reshape(-1).view(np.uint8)
        o = int(byte_offset)
        if o < 0 or o + raw.size > self.nbytes:
            raise DeviceError(f"fill: {raw.size} bytes at {o} do not fit in {self.nbytes} bytes")
        self.data[o:o + raw.size] = raw

    def read(self, byte_offset: int, count: int, dtype=np.uint16) -> np.ndarray:
        """Host-side read of ``count`` values of ``dtype`` at ``byte_offset`` (not counted)."""
        dt = np.dtype(dtype)
        o = int(byte_offset)
        if o < 0 or o + count * dt.itemsize > self.nbytes:
            raise DeviceError(f"read: {count} x {dt} at {o} do not fit in {self.nbytes} bytes")
        return self.data[o:o + count * dt.itemsize].view(dt).copy()

    def gather(self, addrs, nbytes: int) -> np.ndarray:
        """Bytes ``(..., nbytes)`` starting at each address (no checks, not counted)."""
        a = np.asarray(addrs, np.int64)
        return self.data[a[..., None] + np.arange(nbytes)]

    def scatter(self, addrs, raw) -> None:
        """Write ``raw (..., nbytes)`` bytes at each address (no checks, not counted)."""
        a = np.asarray(addrs, np.int64)
        raw = np.asarray(raw, np.uint8)
        self.data[a[..., None] + np.arange(raw.shape[-1])] = raw

    def record(self, op: str, addrs, access_bytes: int, warp=None) -> list:
        """Account warp accesses: ``addrs (..., lanes)`` byte addresses of the lanes that take
        part, one row per warp instruction; ``warp`` (broadcast to the rows) labels them.
        Returns the new :class:`Access` entries."""
        a = np.asarray(addrs, np.int64)
        rows = a.reshape(-1, a.shape[-1])
        res = bank_conflicts_batch(rows, int(access_bytes))
        per = res.per_access
        mins = (res.ways.max(axis=2) > 0).sum(axis=1)
        deg = res.ways.max(axis=(1, 2))
        warps = np.broadcast_to(np.asarray(-1 if warp is None else warp), a.shape[:-1]).reshape(-1)
        new = [Access(op, int(w), int(p), int(m), int(d)) for w, p, m, d in zip(warps, per, mins, deg)]
        self.log.extend(new)
        return new

    def store(self, addrs, values, access_bytes: int = 4, warp=None) -> None:
        """``st.shared`` of one warp (or a batch): ``values`` (uint of ``access_bytes``) at ``addrs``."""
        if access_bytes not in _STORE_OPS:
            raise DeviceError(f"access_bytes must be one of {sorted(_STORE_OPS)}; got {access_bytes!r}")
        a = self.check(addrs, access_bytes, "st.shared")
        raw = np.ascontiguousarray(np.asarray(values)).view(np.uint8)
        raw = raw.reshape(a.shape + (access_bytes,))
        self.scatter(a, raw)
        self.record(_STORE_OPS[access_bytes], a, access_bytes, warp=warp)

    def summary(self) -> dict:
        """``{op: (accesses, wavefronts, min_wavefronts, worst degree)}`` over the log."""
        return summarize(self.log)


def summarize(accesses) -> dict:
    """``{op: (accesses, wavefronts, min_wavefronts, worst degree)}`` of recorded accesses."""
    out: dict = {}
    for acc in accesses:
        n, w, m, d = out.get(acc.op, (0, 0, 0, 0))
        out[acc.op] = (n + 1, w + acc.wavefronts, m + acc.min_wavefronts, max(d, acc.degree))
    return out
