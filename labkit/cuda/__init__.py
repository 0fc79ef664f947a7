"""Real PTX from Python: ldmatrix, mma.sync and cp.async in ``numba.cuda`` kernels.

- :mod:`labkit.cuda.ptx`: the instructions (numba intrinsics on a GPU, Python twins under
  ``NUMBA_ENABLE_CUDASIM=1``), each with its minimum SM.
- :func:`jit`: ``numba.cuda.jit`` plus a device check before launch
  (:class:`labkit.errors.DeviceError` when the GPU is too old or absent).
- :mod:`labkit.cuda.kernels`: the kernels, by what they are for: the GEMM ladder (``ladder``), the
  chapters' experiments (``experiments``), traces and probes (``probes``; e.g.
  :mod:`labkit.cuda.kernels.probes.trace_kernels` records every lane's registers after ldmatrix
  and mma); :mod:`labkit.lab` wraps them.

>>> import labkit.cuda as lc
>>> lc.ptx.min_sm("mma_m16n8k16_f32bf16bf16f32")
80
"""

from labkit.cuda import ptx
from labkit.cuda.launch import Kernel, check_sm, device_name, device_sm, required_sm, simulate_sm, sm_name
from labkit.cuda.program import KernelProgram, jit
from labkit.cuda.offset_function import offset_function

__all__ = [
    "ptx",
    "jit",
    "Kernel",
    "required_sm",
    "device_sm",
    "device_name",
    "simulate_sm",
    "sm_name",
    "check_sm",
    "SIMULATED",
    "KernelProgram",
    "offset_function",
]

from labkit.cuda._numba import SIMULATED  # noqa: E402  (the one constant: ptx.SIMULATED is SIMULATED)
