"""Where the GEMM benchmark gets its inputs, its reference, cuBLAS and its clock.

:func:`backend` picks torch, else cupy, else numpy (inputs made on the host, no cuBLAS): each
makes fresh fp16 operands on the GPU, the float64 reference, the relative error of a result and
a cuBLAS launch of the same product. :func:`time_launches` times launches between CUDA events
(:func:`numba_events` or :func:`torch_events`) and gives their median.

>>> pair = lambda: ((lambda: None), (lambda: None), (lambda: 2.0))
>>> med, best, used, projected, host_ms = time_launches([lambda: None], 1, 5, 10.0, lambda: None, pair)
>>> (med, best, used, projected), type(host_ms).__name__
((2.0, 2.0, 5, 0.01), 'float')
"""

from __future__ import annotations

import math
import statistics
import time

__all__ = ["backend", "time_launches", "numba_events", "torch_events"]


class _Torch:
    """Inputs, reference and cuBLAS through torch."""

    name = "torch"

    def __init__(self):
        import torch

        self.torch = torch
        self.version = torch.__version__

    def operands(self, M, N, K, seed, kinds=("f16", "f16")):
        """Random A (M, K) and B (N, K) in [-1, 1): fp16, or 8-bit floats quantized with a
        per-tensor scale (amax / the type's largest finite value); then ``(A, B)`` is
        ``((A8, scale_a), (B8, scale_b))``. With ``kinds[2] == "block"`` the scales are per 1 x 128
        block of A (``M x ceil(K/128)``) and per 128 x 128 block of B (``ceil(N/128) x
        ceil(K/128)``), float32, and each row of A and column of B is multiplied by its own factor
        in [2^-8, 2^8] first, so that one scale per tensor would waste the format's range."""
        t = self.torch
        g = t.Generator(device="cuda").manual_seed(seed)
        if tuple(kinds) == ("f16", "f16"):
            A = t.empty((M, K), dtype=t.float16, device="cuda").uniform_(-1, 1, generator=g)
            B = t.empty((N, K), dtype=t.float16, device="cuda").uniform_(-1, 1, generator=g)
            return A, B
        block = len(kinds) > 2 and kinds[2] == "block"
        out = []
        for rows, kind in ((M, kinds[0]), (N, kinds[1])):
            dt = {"e4m3": t.float8_e4m3fn, "e5m2": t.float8_e5m2}[kind]
            x = t.empty((rows, K), dtype=t.float32, device="cuda").uniform_(-1, 1, generator=g)
            if not block:
                scale = x.abs().max() / t.finfo(dt).max
                out.append(((x / scale).to(dt), scale.reshape(())))
                continue
            x = x * t.exp2(t.empty((rows, 1), device="cuda").uniform_(-8, 8, generator=g))
            rb = 128 if out else 1                                   # rows a scale covers: A 1, B 128
            kb, nb = -(-K // 128), -(-rows // rb)
            pad = t.zeros((nb * rb, kb * 128), device="cuda")
            pad[:rows, :K] = x.abs()
            scale = pad.reshape(nb, rb, kb, 128).amax(dim=(1, 3)) / t.finfo(dt).max
            scale = t.where(scale > 0, scale, t.ones_like(scale)).float().contiguous()
            full = scale.repeat_interleave(rb, 0)[:rows].repeat_interleave(128, 1)[:, :K]
            out.append(((x / full).to(dt), scale))
        return tuple(out)

    def scales(self, A, B):
        """Block scales as numba device arrays (``scale_a``, ``scale_b``), for the launch."""
        from numba import cuda

        return cuda.as_cuda_array(A[1]), cuda.as_cuda_array(B[1])

    def view(self, X):
        """A numba device array sharing X's memory (an fp8 tensor's bytes as uint8)."""
        from numba import cuda

        if isinstance(X, tuple):
            X = X[0].view(self.torch.uint8)
        return cuda.as_cuda_array(X)

    def alpha(self, A, B):
        """The scale C takes: the product of the per-tensor scales (1 for fp16 operands)."""
        return float(A[1] * B[1]) if isinstance(A, tuple) else 1.0

    def _values(self, X, rb):
        """float64 values of an operand: fp16, or codes times their scale (per tensor, or per block
        of ``rb`` rows by 128 of K)."""
        if not isinstance(X, tuple):
            return X.double()
        codes, scale = X
        if scale.dim() == 0:
            return codes.double() * scale.double()
        rows, K = codes.shape
        full = scale.double().repeat_interleave(rb, 0)[:rows].repeat_interleave(128, 1)[:, :K]
        return codes.double() * full

    def reference(self, A, B):
        return self._values(A, 1) @ self._values(B, 128).T

    def abs_norm_ratio(self, A, B, ref):
        """``‖|A| |B|ᵀ‖ / ‖A Bᵀ‖`` (Frobenius, float64): how an elementwise bound relative to
        ``|A| |B|ᵀ`` (an MMA record's ``tolerance()``) reads as a relative error of C."""
        t = self.torch
        return float(t.linalg.norm(self._values(A, 1).abs() @ self._values(B, 128).abs().T) / t.linalg.norm(ref))

    def rel_error(self, C, ref):
        t = self.torch
        Ct = t.as_tensor(C, device="cuda")
        if Ct.dtype in (t.uint16, t.int16):          # bf16 travels as 16-bit integers
            Ct = Ct.view(t.bfloat16)
        Ct = Ct.double()
        if not bool(t.isfinite(Ct).all()):
            return math.inf
        return float(t.linalg.norm(Ct - ref) / t.linalg.norm(ref))

    def cublas(self, A, B, fast_accum=False):
        """cuBLAS on the same operands: ``A @ B.T`` in fp16 out, or for 8-bit operands
        ``torch._scaled_mm`` with the scales, bf16 out; ``fast_accum``: its ``use_fast_accum``
        (accumulate all of K in the MMA's accumulators, as step 7 does, instead of adding partial
        sums into f32 registers as it goes, the default)."""
        t = self.torch
        if isinstance(A, tuple):
            BT = B[0].T                               # column-major, as _scaled_mm wants
            if A[1].dim() == 0:
                sa, sb = A[1], B[1]
            else:                                      # blockwise: A's (M, K/128), B's as (K/128, N/128)
                sa, sb = A[1].T.contiguous().T, B[1].T
            kw = dict(scale_a=sa, scale_b=sb, out_dtype=t.bfloat16, use_fast_accum=fast_accum)
            try:
                first = t._scaled_mm(A[0], BT, **kw)
            except Exception as e:  # noqa: BLE001 - this torch or GPU has no such recipe: say so
                return None, f"torch._scaled_mm refused these scales: {str(e).splitlines()[0][:160]}"
            return (lambda: t._scaled_mm(A[0], BT, **kw)), first
        out = t.empty((A.shape[0], B.shape[0]), dtype=t.float16, device="cuda")
        BT = B.T
        return lambda: t.matmul(A, BT, out=out), out


class _Cupy(_Torch):
    """Inputs, reference and cuBLAS through cupy."""

    name = "cupy"

    def __init__(self):
        import cupy

        self.cp = cupy
        self.version = cupy.__version__

    def operands(self, M, N, K, seed, kinds=("f16", "f16")):
        _f16_only(self, kinds)
        rs = self.cp.random.RandomState(seed)
        A = rs.uniform(-1, 1, (M, K), dtype=self.cp.float32).astype(self.cp.float16)
        B = rs.uniform(-1, 1, (N, K), dtype=self.cp.float32).astype(self.cp.float16)
        return A, B

    def reference(self, A, B):
        return A.astype(self.cp.float64) @ B.astype(self.cp.float64).T

    def rel_error(self, C, ref):
        Cc = self.cp.asarray(C).astype(self.cp.float64)
        if not bool(self.cp.isfinite(Cc).all()):
            return math.inf
        return float(self.cp.linalg.norm(Cc - ref) / self.cp.linalg.norm(ref))

    def cublas(self, A, B):
        out = self.cp.empty((A.shape[0], B.shape[0]), dtype=self.cp.float16)
        BT = B.T
        return lambda: self.cp.matmul(A, BT, out=out), out


class _Numpy(_Torch):
    """Inputs from numpy; the reference on a sample of rows and columns; no cuBLAS."""

    name = "numpy"
    version = ""

    def __init__(self):
        import numpy as np

        self.np = np
        self.version = np.__version__

    def operands(self, M, N, K, seed, kinds=("f16", "f16")):
        _f16_only(self, kinds)
        from numba import cuda

        from labkit.cuda.kernels.ladder.gemm_common import random_operands

        A, B = random_operands(M, N, K, seed)
        return cuda.to_device(A), cuda.to_device(B)

    def view(self, X):
        return X

    def reference(self, A, B):
        np = self.np
        rng = np.random.default_rng(0)
        rows = np.sort(rng.choice(A.shape[0], min(A.shape[0], 128), replace=False))
        cols = np.sort(rng.choice(B.shape[0], min(B.shape[0], 128), replace=False))
        a = A.copy_to_host()[rows].astype(np.float64)
        b = B.copy_to_host()[cols].astype(np.float64)
        return rows, cols, a @ b.T

    def rel_error(self, C, ref):
        np = self.np
        rows, cols, r = ref
        c = C.copy_to_host()[np.ix_(rows, cols)].astype(np.float64)
        if not np.all(np.isfinite(c)):
            return math.inf
        return float(np.linalg.norm(c - r) / np.linalg.norm(r))

    def cublas(self, A, B, fast_accum=False):
        return None, None


def _f16_only(backend, kinds):
    """Refuse 8-bit operands on a backend without float8 tensors and ``torch._scaled_mm``."""
    if tuple(kinds) != ("f16", "f16"):
        from labkit.errors import DeviceError

        raise DeviceError(f"bench: 8-bit operands need torch (float8 tensors, torch._scaled_mm); "
                          f"this backend is {backend.name}")


def backend():
    """torch, else cupy, else numpy: the first that works here."""
    for cls in (_Torch, _Cupy):
        try:
            return cls()
        except Exception:  # not installed, or no GPU build
            continue
    return _Numpy()


def time_launches(launches, warmup, reps, max_seconds, sync, event_pair):
    """``(median ms, best ms, repetitions used, projected seconds of reps, host ms a launch)`` of
    ``launches`` (cycled), each between two events. The host time is the wall time the timed loop
    took to *issue* each launch and its events (nothing waits for the GPU inside it): where it is
    longer than a kernel, the GPU idles between launches and the events count that idle time."""
    for i in range(warmup):
        launches[i % len(launches)]()
    sync()
    # one timed launch to see whether ``reps`` of them fit in ``max_seconds``
    start, stop, elapsed = event_pair()
    start()
    launches[0]()
    stop()
    sync()
    first = elapsed()
    used = reps
    if first * reps / 1e3 > max_seconds:
        used = max(3, int(max_seconds * 1e3 // first))
    pairs = [event_pair() for _ in range(used)]
    t0 = time.perf_counter()
    for i, (start, stop, _) in enumerate(pairs):
        start()
        launches[i % len(launches)]()
        stop()
    host_ms = (time.perf_counter() - t0) * 1e3 / used
    sync()
    times = [e() for _, _, e in pairs]
    return statistics.median(times), min(times), used, first * reps / 1e3, host_ms


def numba_events():
    from numba import cuda

    a, b = cuda.event(timing=True), cuda.event(timing=True)
    return (lambda: a.record()), (lambda: b.record()), (lambda: cuda.event_elapsed_time(a, b))


def torch_events(torch):
    def pair():
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        return (lambda: a.record()), (lambda: b.record()), (lambda: a.elapsed_time(b))

    return pair
