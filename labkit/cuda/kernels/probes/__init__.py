"""Traces and probes: kernels that record what one instruction does to every lane (ldmatrix,
mma.sync, stmatrix: ``trace_*``, ``stmatrix_trace``) and one warpgroup's wgmma (``wgmma_probe``)."""
