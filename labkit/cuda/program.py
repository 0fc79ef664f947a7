"""One kernel program: Python source text and the names it calls, made into a kernel.

Every kernel of labkit is a :class:`KernelProgram`: its ``name``, its ``source`` and the
``namespace`` the source refers to (intrinsics, numba's scalar types, ``cuda``). Kernels written as
text (the GEMM ladder's generated steps, the wgmma probe, the epilogue experiment's kernels, a
layout's offset function, a ladder step traced thread by thread) start from the text; kernels
written as Python functions (steps 1 and 2, the chapters' experiments, the trace kernels) start
from the function (:meth:`KernelProgram.of`, or the decorator :func:`jit`, ``labkit.cuda.jit``).
The program turns the text into a Python function
once (:meth:`KernelProgram.function`, registered with ``linecache`` so a traceback shows the
generated line), and from that function into what each caller needs:

========================================  ==========================================================
``program.kernel(min_sm=..., **options)``  :func:`labkit.cuda.jit`: a kernel that checks the GPU's SM
                                           (and ``sm_90a``) before each launch
``program.dispatcher(**options)``          ``numba.cuda.jit`` itself (options dropped under the
                                           simulator, which takes none of ptxas's)
``program.device_function()``              ``numba.cuda.jit(device=True, inline="always")`` (the
                                           Python function under the simulator)
``program.compile_ptx(signature, cc)``     the PTX, without a GPU (``numba.cuda.compile_ptx``)
``program.with_namespace(**names)``        the same text over other names (a recorder per
                                           intrinsic, to trace a thread in plain Python)
========================================  ==========================================================

>>> p = KernelProgram("axpy", "def axpy(a, x, y):\\n    return a * x + y\\n", {})
>>> p.function()(2, 3, 4), p.with_namespace(unused=1).function()(1, 1, 1)
(10, 2)
>>> try:
...     KernelProgram("f", "def g():\\n    pass\\n", {}).function()
... except DeviceError as e:
...     print(e)
source: the program defines no function 'f' (it defines g)
"""

from __future__ import annotations

import inspect
import linecache
import textwrap

from labkit.errors import DeviceError

__all__ = ["KernelProgram", "jit"]


class KernelProgram:
    """A kernel (or device function) written as text: ``name``, ``source``, ``namespace``.

    ``statements`` (optional) are the tagged statements the source was rendered from (the GEMM
    ladder's); ``label`` names the program in tracebacks (default: ``name``).
    """

    def __init__(self, name: str, source: str, namespace: dict, *, statements=None, label: str | None = None):
        if not isinstance(name, str) or not name.isidentifier():
            raise DeviceError(f"name: must be a Python identifier (the function the source defines); got {name!r}")
        if not isinstance(source, str):
            raise DeviceError(f"source: must be Python source text; got {type(source).__name__}")
        self.name = name
        self._source = source
        self.namespace = dict(namespace)
        self.statements = statements
        self.label = label or name
        self._function = None

    @classmethod
    def of(cls, fn) -> "KernelProgram":
        """The program of a kernel written as a Python function (its globals and closure are its
        namespace; its source is read when asked for).

        >>> def k(out):
        ...     out[0] = 1
        >>> KernelProgram.of(k).function() is k
        True
        """
        if not callable(fn) or not hasattr(fn, "__code__"):
            raise DeviceError(f"fn: must be a Python function (the kernel); got {fn!r}")
        program = cls(fn.__name__, "", getattr(fn, "__globals__", {}), label=fn.__qualname__)
        program.namespace = fn.__globals__
        program._function = fn
        return program

    @property
    def source(self) -> str:
        """The kernel's Python source."""
        if not self._source and self._function is not None:
            try:
                self._source = textwrap.dedent(inspect.getsource(self._function))
            except (OSError, TypeError):
                self._source = ""
        return self._source

    def __repr__(self):
        return f"<labkit KernelProgram {self.label} ({self.source.count(chr(10))} lines)>"

    @property
    def filename(self) -> str:
        """The name tracebacks show for the source's lines."""
        return f"<labkit kernel {self.label}>"

    def function(self):
        """The Python function the source defines (made once; its globals are the namespace)."""
        if self._function is None:
            linecache.cache[self.filename] = (len(self.source), None, self.source.splitlines(True), self.filename)
            scope = dict(self.namespace)
            exec(compile(self.source, self.filename, "exec"), scope)
            fn = scope.get(self.name)
            if not callable(fn):
                defined = sorted(k for k, v in scope.items() if callable(v) and k not in self.namespace)
                raise DeviceError(f"source: the program defines no function {self.name!r} "
                                  f"(it defines {', '.join(defined) or 'nothing'})")
            self._function = fn
        return self._function

    def with_namespace(self, **names) -> "KernelProgram":
        """The same source over the namespace with ``names`` replaced or added."""
        if self._function is not None and not self._source:
            raise DeviceError(f"with_namespace: the program of the function {self.label} has no text to run "
                              "over other names")
        return KernelProgram(self.name, self.source, {**self.namespace, **names}, statements=self.statements,
                             label=self.label)

    def kernel(self, min_sm=None, **options):
        """A :class:`~labkit.cuda.launch.Kernel` of the function: numba's ``cuda.jit(**options)``
        that refuses, before each launch, a GPU that cannot run it."""
        from labkit.cuda.launch import Kernel

        return Kernel(self.function(), min_sm=min_sm, **options)

    def dispatcher(self, **options):
        """``numba.cuda.jit(**options)`` of the function (no options under the simulator)."""
        from numba import cuda

        from labkit.cuda._numba import SIMULATED

        return cuda.jit(self.function()) if SIMULATED else cuda.jit(**options)(self.function())

    def device_function(self):
        """``numba.cuda.jit(device=True, inline="always")`` of the function; under the simulator
        the Python function itself (the simulator calls it from a kernel as it is)."""
        from numba import cuda

        from labkit.cuda._numba import SIMULATED

        return self.function() if SIMULATED else cuda.jit(device=True, inline="always")(self.function())

    def compile_ptx(self, signature, cc, **options) -> str:
        """The PTX of the kernel for argument types ``signature`` and compute capability ``cc``
        (e.g. ``(9, 0, "a")``), compiled on the CPU."""
        from numba import cuda

        return cuda.compile_ptx(self.function(), signature, cc=cc, **options)[0]


def jit(fn=None, *, min_sm=None, **options):
    """``labkit.cuda.jit``: ``numba.cuda.jit`` through the kernel's :class:`KernelProgram`, plus a
    check of the device's SM before every launch. Use as ``@jit`` or ``@jit(min_sm=80,
    lineinfo=True)``; other options go to numba.

    >>> from labkit.cuda import ptx
    >>> @jit
    ... def k(out):
    ...     out[0] = ptx.ldmatrix_x1(0)
    >>> k.min_sm
    75
    """
    if fn is None:
        return lambda f: KernelProgram.of(f).kernel(min_sm=min_sm, **options)
    return KernelProgram.of(fn).kernel(min_sm=min_sm, **options)
