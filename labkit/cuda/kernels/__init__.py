"""numba.cuda kernels built on :mod:`labkit.cuda.ptx`, by what they are for: the GEMM ladder
(:mod:`.ladder`), the chapters' experiments (:mod:`.experiments`), traces and probes
(:mod:`.probes`). Importing this package compiles nothing."""
