"""What the CUDA driver reports, read through ``libcuda`` itself (without importing numba).

Importing numba decides once whether its CUDA simulator is on, so code that must choose a
backend first (``python -m labkit verify``, the test suite) asks the driver here.

>>> from labkit.driver import cuda_device_count
>>> cuda_device_count() >= 0
True
"""

from __future__ import annotations

import ctypes

__all__ = ["cuda_device_count"]


def cuda_device_count() -> int:
    """The number of CUDA devices the driver reports: 0 without a driver or a GPU."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    if lib.cuInit(0) != 0:
        return 0
    count = ctypes.c_int(0)
    if lib.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return 0
    return count.value
