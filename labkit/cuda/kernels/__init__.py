"""numba.cuda kernels built on :mod:`labkit.cuda.ptx`: the fragment traces (:mod:`.trace`) and the
GEMM ladder (``gemm*`` modules). Importing this package compiles nothing."""
