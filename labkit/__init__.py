"""labkit: the engine of Layout Lab.

CuTe layouts and their algebra, named-axis (Axe) layouts, swizzles and shared-memory banks,
MMA and copy atoms, TiledMMA/TiledCopy, a numpy warp simulator, numba.cuda kernels that issue
ldmatrix and mma.sync, and the figures built on them.

>>> import labkit as lk
>>> print(lk.make_layout((lk.S(4), lk.S(8)), (lk.S(8), lk.S(1))))
(_4,_8):(_8,_1)
"""

import importlib

from ._version import __version__
from .errors import LabkitError, LayoutError, DeviceError, ConfigError
from .layout import *  # noqa: F401,F403
from .layout import __all__ as _layout_all

# Submodules loaded on first use, so `import labkit` stays light (no numba, no matplotlib).
_SUBMODULES = ("elements", "axe", "banks", "swizzle_atoms", "atoms", "tiled", "sim", "cuda", "viz", "widgets",
               "lab")
# Submodules whose public names are also reachable as lk.<name>.
_REEXPORT = ("atoms", "tiled", "axe", "banks", "swizzle_atoms", "sim")

__all__ = ["__version__", "LabkitError", "LayoutError", "DeviceError", "ConfigError", *_layout_all,
           *_SUBMODULES]


def _load(name):
    try:
        return importlib.import_module(f".{name}", __name__)
    except ModuleNotFoundError as e:
        if e.name == f"{__name__}.{name}":
            return None
        raise


# Names of labkit.cuda reachable as lk.<name> (loaded, with numba, on first use).
_CUDA_NAMES = ("offset_function", "KernelProgram")


def __getattr__(name):
    if name in _CUDA_NAMES:
        value = getattr(_load("cuda"), name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        mod = _load(name)
        if mod is None:
            raise AttributeError(f"module 'labkit' has no attribute {name!r}")
        return mod
    for sub in _REEXPORT:
        mod = _load(sub)
        if mod is not None and name in getattr(mod, "__all__", ()):
            value = getattr(mod, name)
            globals()[name] = value
            return value
    raise AttributeError(f"module 'labkit' has no attribute {name!r}")


def __dir__():
    names = set(globals()) | set(_SUBMODULES) | set(_CUDA_NAMES)
    for sub in _REEXPORT:
        mod = _load(sub)
        if mod is not None:
            names |= set(getattr(mod, "__all__", ()))
    return sorted(names)
