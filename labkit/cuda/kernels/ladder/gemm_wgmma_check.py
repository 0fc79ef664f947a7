"""Step 7 checked on its own operand types: fp16, or 8-bit floats with per-tensor scales, against
float64.

8-bit operands are made as a training framework makes them: values uniform in [-1, 1), a scale
per tensor (its largest magnitude over the type's largest finite value), and the quotient
rounded to the type (:func:`labkit.elements.to_bits`); the kernel computes ``alpha * A8 B8ᵀ`` with
``alpha = scale_a * scale_b``. The reference is float64 of the dequantized operands, so the only
errors left are the tensor cores' sums and the rounding of C. The bound is the MMA record's
(``tolerance()``, relative to ``|A| |B|ᵀ``) read as a relative Frobenius error, plus the unit
roundoff of C's type (:data:`ROUNDOFF`).

>>> A, B, alpha = quantized_operands(4, 2, 8, "e4m3", "e4m3", seed=0)
>>> A.dtype, A.shape, B.shape, 0 < alpha < 1e-4
(dtype('uint8'), (4, 8), (2, 8), True)
"""

from __future__ import annotations

import numpy as np

from labkit.elements import from_bits, to_bits

__all__ = ["ROUNDOFF", "largest", "quantized_operands", "block_quantized_operands", "dequantized", "bound",
           "c_values", "check"]

#: the unit roundoff of C's element type: what rounding the f32 accumulators to it adds
ROUNDOFF = {"f32": 0.0, "f16": 2.0 ** -11, "bf16": 2.0 ** -8}


def largest(kind):
    """The largest finite value of an 8-bit float type, read off its coding.

    >>> largest("e4m3"), largest("e5m2")
    (448.0, 57344.0)
    """
    values = from_bits(np.arange(256, dtype=np.uint8), kind).astype(np.float64)
    return float(np.max(values[np.isfinite(values)]))


def quantized_operands(M, N, K, a, b, seed=None):
    """``(A8, B8, alpha)``: A (M, K) and B (N, K) as uint8 codes of types ``a`` and ``b``, and
    the product of their per-tensor scales."""
    rng = np.random.default_rng(seed)
    out, alpha = [], 1.0
    for rows, kind in ((M, a), (N, b)):
        x = rng.uniform(-1.0, 1.0, (rows, K))
        scale = float(np.abs(x).max()) / largest(kind)
        out.append(np.asarray(to_bits(x / scale, kind), np.uint8))
        alpha *= scale
    return out[0], out[1], alpha


def block_quantized_operands(M, N, K, a, b, seed=None):
    """``(A8, B8, scale_a, scale_b)`` with a scale per 1 x 128 block of A (``M x ceil(K/128)``) and
    per 128 x 128 block of B (``ceil(N/128) x ceil(K/128)``), float32, each the block's largest
    magnitude over the type's largest finite value; the values come from uniform [-1, 1) times a
    factor per row of A and column of B between 2^-8 and 2^8, so that one scale per tensor would
    not fit them all.

    >>> A8, B8, sa, sb = block_quantized_operands(3, 130, 200, "e4m3", "e4m3", seed=0)
    >>> A8.shape, B8.shape, sa.shape, sb.shape, sa.dtype
    ((3, 200), (130, 200), (3, 2), (2, 2), dtype('float32'))
    """
    rng = np.random.default_rng(seed)
    kb = -(-K // 128)
    xa = rng.uniform(-1.0, 1.0, (M, K)) * 2.0 ** rng.uniform(-8, 8, (M, 1))
    xb = rng.uniform(-1.0, 1.0, (N, K)) * 2.0 ** rng.uniform(-8, 8, (N, 1))
    sa = np.zeros((M, kb), np.float32)
    sb = np.zeros((-(-N // 128), kb), np.float32)
    for k in range(kb):
        cols = slice(128 * k, 128 * k + 128)
        sa[:, k] = np.abs(xa[:, cols]).max(axis=1) / largest(a)
        for n in range(sb.shape[0]):
            sb[n, k] = np.abs(xb[128 * n:128 * n + 128, cols]).max() / largest(b)
    sa[sa == 0], sb[sb == 0] = 1.0, 1.0
    ra = np.repeat(sa.astype(np.float64), 128, axis=1)[:, :K]
    rb = np.repeat(np.repeat(sb.astype(np.float64), 128, axis=0)[:N], 128, axis=1)[:, :K]
    A8 = np.asarray(to_bits(xa / ra, a), np.uint8)
    B8 = np.asarray(to_bits(xb / rb, b), np.uint8)
    return A8, B8, sa, sb


def block_dequantized(codes, kind, scales, rows_per_scale):
    """float64 values of block-scaled codes: each code times its block's scale."""
    rows, K = codes.shape
    s = np.repeat(np.repeat(scales.astype(np.float64), rows_per_scale, axis=0)[:rows], 128, axis=1)[:, :K]
    return dequantized(codes, kind) * s


def dequantized(codes, kind):
    """float64 values of uint8 codes of ``kind``."""
    return np.asarray(from_bits(codes, kind), np.float64)


def bound(cfg, A, B, ref):
    """The relative Frobenius error ``cfg``'s kernel may make on float64 operands ``A``, ``B``
    whose product is ``ref`` (the same for any per-tensor scales: both norms scale alike)."""
    from labkit.atoms.instructions import instruction
    from labkit.cuda.kernels.ladder.gemm_wgmma_operands import atom_name

    rtol = instruction(atom_name(cfg)).tolerance()[0]
    ratio = np.linalg.norm(np.abs(A) @ np.abs(B).T) / np.linalg.norm(ref)
    return float(rtol * ratio) + ROUNDOFF[cfg.c]


def c_values(C, kind):
    """float64 values of a C read back from the GPU (bf16 travels as uint16)."""
    C = np.asarray(C)
    return dequantized(C, "bf16") if kind == "bf16" else C.astype(np.float64)


def check(M, N, K, config, sm=None, seed=None):
    """Run step 7's ``config`` on fresh operands of its types; ``(relative error, bound)``."""
    from numba import cuda

    from labkit.cuda.kernels.ladder import gemm
    from labkit.cuda.kernels.ladder.gemm_common import reference, relative_error
    from labkit.cuda.kernels.ladder.gemm_wgmma_config import operand_dtypes, pick

    cfg = pick(config)
    if cfg.block_scales:
        return _check_blocks(M, N, K, cfg, sm, seed)
    if cfg.a == "f16":
        from labkit.cuda.kernels.ladder.gemm_common import random_operands

        A, B = random_operands(M, N, K, seed)
        a, b, alpha, options = A.astype(np.float64), B.astype(np.float64), 1.0, {}
    else:
        A, B, alpha = quantized_operands(M, N, K, cfg.a, cfg.b, seed)
        a, b = dequantized(A, cfg.a), dequantized(B, cfg.b)
        options = {"alpha": alpha}
    product = reference(a, b)
    cdt = operand_dtypes(cfg)[1]
    poison = np.full((M, N), 0xFFFF, cdt) if cdt == np.uint16 else np.full((M, N), np.nan, cdt)
    C = cuda.to_device(poison)
    _, launch = gemm.prepare("wgmma", cuda.to_device(A), cuda.to_device(B), C, "f32", sm, config=cfg, **options)
    launch()
    got = c_values(C.copy_to_host(), cfg.c)
    if cfg.a == "f16":
        from labkit.cuda.kernels.ladder.gemm_common import tolerance

        return relative_error(got, product), tolerance("f32", K) + ROUNDOFF[cfg.c]
    return relative_error(got, product * alpha), bound(cfg, a, b, product)


def _check_blocks(M, N, K, cfg, sm, seed):
    from numba import cuda

    from labkit.cuda.kernels.ladder import gemm
    from labkit.cuda.kernels.ladder.gemm_common import reference, relative_error

    A8, B8, sa, sb = block_quantized_operands(M, N, K, cfg.a, cfg.b, seed)
    a, b = block_dequantized(A8, cfg.a, sa, 1), block_dequantized(B8, cfg.b, sb, 128)
    product = reference(a, b)
    C = cuda.to_device(np.full((M, N), 0xFFFF, np.uint16) if cfg.c == "bf16" else
                       np.full((M, N), np.nan, np.float16 if cfg.c == "f16" else np.float32))
    _, launch = gemm.prepare("wgmma", cuda.to_device(A8), cuda.to_device(B8), C, "f32", sm, config=cfg,
                             scales=(cuda.to_device(sa), cuda.to_device(sb)))
    launch()
    return relative_error(c_values(C.copy_to_host(), cfg.c), product), bound(cfg, a, b, product)
