"""One fix to numba's CUDA simulator: a block's static shared arrays are allocated once.

numba-cuda's simulator (0.30) runs every CUDA thread of a block as a Python thread and keys
each ``cuda.shared.array`` by the source line that asks for it: the first thread to reach the
line allocates the array, later threads look it up. The look-up and the insertion are two
steps, so when Python switches threads between them two threads both allocate, and one keeps
a private array that nobody else writes: it reads uninitialised memory after the barrier and
the kernel computes garbage, now and then. Labkit shortens Python's switch interval to make
simulated warps fast (:mod:`labkit.cuda.ptx`), which makes that window easy to hit.

:func:`install` replaces the allocation by one that holds a lock across look-up and
insertion. Dynamic shared memory (``shape == 0``) is one buffer already and is left as is.

>>> from labkit.cuda import _cudasim
>>> _cudasim.install()
True
"""

from __future__ import annotations

import sys
import threading

import numpy as np

__all__ = ["install"]

_lock = threading.Lock()


def _shared_array(self, shape, dtype, alignment=None):
    if shape == 0 or alignment is not None:
        return _original(self, shape, dtype, alignment)
    if isinstance(dtype, _numba_type):
        dtype = _as_dtype(dtype)
    caller = sys._getframe(1)
    key = (caller.f_code.co_filename, caller.f_lineno)
    with _lock:
        arr = self._allocations.get(key)
        if arr is None:
            arr = self._allocations[key] = np.empty(shape, dtype)
    return arr


_original = _numba_type = _as_dtype = None


def install() -> bool:
    """Make the simulator's shared-array allocation atomic (idempotent; True once installed).
    The simulator's names come from :mod:`labkit.cuda._numba`, which raises
    ``NumbaBoundaryError`` naming the numba-cuda version when one has moved."""
    global _original, _numba_type, _as_dtype
    from labkit.cuda import _numba

    shared = _numba.simulator_shared_class
    _numba_type, _as_dtype = _numba.NumbaType, _numba.as_dtype
    if shared.array is not _shared_array:
        _original = shared.array
        shared.array = _shared_array
    return True
