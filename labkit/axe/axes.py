"""Named physical axes of the Axe model and the extents of the hardware ones.

An axis is a name such as ``m`` (linear memory, in elements), ``TLane``/``TCol`` (Blackwell
tensor memory), ``laneid``/``reg`` (a warp's lanes and each lane's fragment slots) or
``gpuid_x`` (a device-mesh axis). Any identifier may name an axis. The axes below are
hardware axes with a fixed number of positions, so a layout that reaches past them, or a
coordinate outside them, is refused:

========  ======  ============================================================
axis      extent  what one position is
========  ======  ============================================================
TLane     128     a tensor-memory lane (row) of a CTA on sm_100
TCol      512     a 32-bit tensor-memory column of a CTA on sm_100
laneid    32      a lane of a warp
warpid    32      a warp of a CTA (at most 1024 threads, so 32 warps)
bank      32      a shared-memory bank of 4 bytes
========  ======  ============================================================

``m``, ``reg``, ``byte`` and mesh axes have no fixed extent here: their size depends on the
buffer, the fragment or the mesh.
"""

import re
from types import MappingProxyType

import numpy as np

from ..errors import LayoutError

__all__ = ["HARDWARE_AXES", "MEMORY_AXIS"]

#: The default axis: a stride written without ``@axis`` lands on ``m``.
MEMORY_AXIS = "m"

#: Extents of the hardware axes (read-only mapping ``name -> number of positions``).
HARDWARE_AXES = MappingProxyType(
    {"TLane": 128, "TCol": 512, "laneid": 32, "warpid": 32, "bank": 32}
)

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _check_axis_name(name, argument):
    """Return ``name`` if it is a valid axis name (an identifier), else raise LayoutError."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise LayoutError(
            f"{argument}: an axis name must be an identifier such as 'm' or 'TLane', got {name!r}"
        )
    return name


def _check_int(value, argument, *, positive=False):
    """Return ``value`` as a plain int if it is an integer (not a bool), else raise LayoutError."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise LayoutError(f"{argument}: must be an integer, got {type(value).__name__} {value!r}")
    value = int(value)
    if positive and value <= 0:
        raise LayoutError(f"{argument}: an extent must be a positive integer, got {value}")
    return value


def _check_coordinate(axis, value, argument):
    """Raise LayoutError if ``value`` lies outside a hardware axis's positions."""
    extent = HARDWARE_AXES.get(axis)
    if extent is not None and not 0 <= value < extent:
        raise LayoutError(
            f"{argument}: {axis}={value} is outside the axis, which has {extent} positions "
            f"(0..{extent - 1})"
        )
