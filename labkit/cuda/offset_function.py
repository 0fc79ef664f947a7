"""Any labkit layout as a numba device function: ``offset_function``.

:func:`offset_function` turns a layout (any rank, nested modes, a swizzle or a layout composed on
top) into ``offset(c0, ..., c{r-1})``, a ``@cuda.jit(device=True, inline="always")`` function a
kernel calls with one integer per top-level mode, as ``layout(c0, ..., c{r-1})`` takes them. The
text is :func:`labkit.layout.offset_source`'s; the program (:class:`~labkit.cuda.program.KernelProgram`)
compiles it. Under the CUDA simulator it is the plain Python function. ``.py_func`` (on both) is the
Python function, for host code and tests; ``.source`` is the text.

>>> import labkit as lk
>>> sw = lk.composition(lk.Swizzle(3, 3, 3), lk.parse_layout("(_8,_64):(_64,_1)"))
>>> f = lk.offset_function(sw)
>>> f.py_func(1, 8) == sw(1, 8) == 64, f.layout is sw
(True, True)
"""

from __future__ import annotations

import functools

from labkit.cuda.program import KernelProgram
from labkit.errors import LayoutError
from labkit.layout import ComposedLayout, Layout, offset_source

__all__ = ["offset_function", "offset_program"]


def offset_program(layout, name: str = "offset") -> KernelProgram:
    """The :class:`KernelProgram` of ``layout``'s offset function (its source and namespace)."""
    if not isinstance(layout, (Layout, ComposedLayout)):
        raise LayoutError(f"layout: must be a labkit Layout or ComposedLayout (e.g. a swizzled atom); "
                          f"got {layout!r}")
    return KernelProgram(name, offset_source(layout, name), {}, label=f"{name} of {layout}")


def offset_function(layout):
    """``layout``'s offset of a coordinate as a ``@cuda.jit(device=True)`` function (see the module
    text); one compiled function per layout."""
    offset_program(layout)                    # the argument's check, before the cache hashes it
    return _offset_function(layout)


@functools.lru_cache(maxsize=256)
def _offset_function(layout):
    program = offset_program(layout)
    fn = program.device_function()
    if fn is program.function():              # under the simulator: the Python function itself
        fn = functools.wraps(fn)(lambda *c: program.function()(*c))
    fn.py_func = program.function()
    fn.source = program.source
    fn.layout = layout
    return fn
