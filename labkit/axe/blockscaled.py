"""Block-scaled low-precision MMA: formats (NVFP4, MXFP8), their number codes, and the math.

Along K, every ``sf_vec`` consecutive elements of a row of A (a column of B) share one scale
factor: ``A_real[m, k] = A[m, k] * SFA[m, k // sf_vec]`` and
``B_real[k, n] = B[k, n] * SFB[n, k // sf_vec]``, then ``D = C + A_real @ B_real``.
"""

from dataclasses import dataclass

import numpy as np

from ..errors import LayoutError
from .axes import _check_int

__all__ = ["decode_float", "BlockScaledFormat", "NVFP4", "MXFP8", "block_scaled_mma"]

# element type: (exponent bits, mantissa bits, bias, signed, nan rule)
_KINDS = {
    "e2m1": (2, 1, 1, True),
    "e4m3": (4, 3, 7, True),
    "e5m2": (5, 2, 15, True),
    "ue4m3": (4, 3, 7, False),
    "ue8m0": (8, 0, 127, False),
}


def decode_float(codes, kind):
    """The real values of small-float bit codes: ``e2m1``, ``e4m3``, ``e5m2``, ``ue4m3``, ``ue8m0``.

    ``e4m3`` is the FP8 variant without infinities (exponent and mantissa all ones is NaN);
    ``e5m2`` keeps IEEE infinities and NaNs; ``ue8m0`` is a power of two ``2**(code-127)``
    (255 is NaN); ``ue4m3`` is ``e4m3`` without the sign bit.

    >>> import labkit as lk
    >>> lk.decode_float([0b0001, 0b0111, 0b1010], "e2m1").tolist()
    [0.5, 6.0, -1.0]
    >>> lk.decode_float([0x38, 0x7E], "e4m3").tolist()
    [1.0, 448.0]
    >>> lk.decode_float([127, 130], "ue8m0").tolist()
    [1.0, 8.0]
    """
    if kind not in _KINDS:
        raise LayoutError(f"kind: must be one of {sorted(_KINDS)}, got {kind!r}")
    ebits, mbits, bias, signed = _KINDS[kind]
    nbits = ebits + mbits + signed
    try:
        c = np.asarray(codes)
    except Exception:  # noqa: BLE001 - any unconvertible input is the caller's error
        c = None
    if c is None or not np.issubdtype(c.dtype, np.integer):
        raise LayoutError(f"codes: must be integer bit codes, got {codes!r}")
    c = c.astype(np.int64)
    if c.size and (c.min() < 0 or c.max() >= 1 << nbits):
        raise LayoutError(f"codes: a {kind} code has {nbits} bits (0..{(1 << nbits) - 1})")
    sign = np.where((c >> (ebits + mbits)) & 1, -1.0, 1.0) if signed else np.ones(c.shape)
    e = (c >> mbits) & ((1 << ebits) - 1)
    m = c & ((1 << mbits) - 1)
    frac = m / float(1 << mbits)
    if kind == "ue8m0":
        value = np.ldexp(1.0, (e - bias).astype(np.int64))
    else:
        normal = np.ldexp(1.0 + frac, (e - bias).astype(np.int64))
        value = np.where(e == 0, np.ldexp(frac, 1 - bias), normal)
    top = (1 << ebits) - 1
    if kind in ("e4m3", "ue4m3"):
        value = np.where((e == top) & (m == (1 << mbits) - 1), np.nan, value)
    elif kind == "e5m2":
        value = np.where(e == top, np.where(m == 0, np.inf, np.nan), value)
    elif kind == "ue8m0":
        value = np.where(e == top, np.nan, value)
    return sign * value


def _finite_values(kind):
    ebits, mbits, _, signed = _KINDS[kind]
    values = decode_float(np.arange(1 << (ebits + mbits + signed)), kind)
    return np.unique(values[np.isfinite(values)])


@dataclass(frozen=True)
class BlockScaledFormat:
    """A block-scaled number format: element type, scale type, and K elements per scale.

    >>> import labkit as lk
    >>> lk.NVFP4.sf_vec, lk.NVFP4.data_type, lk.NVFP4.scale_type
    (16, 'e2m1', 'ue4m3')
    >>> lk.MXFP8.sf_vec, lk.MXFP8.scale_type, lk.MXFP8.scale_blocks(128)
    (32, 'ue8m0', 4)
    """

    name: str
    data_type: str
    scale_type: str
    sf_vec: int
    ptx_kind: str = ""

    def __post_init__(self):
        for arg in ("data_type", "scale_type"):
            kind = getattr(self, arg)
            if kind not in _KINDS:
                raise LayoutError(f"{arg}: must be one of {sorted(_KINDS)}, got {kind!r}")
        _check_int(self.sf_vec, "sf_vec", positive=True)

    def scale_blocks(self, k):
        """Number of scale factors along K (``SF_K = k // sf_vec``); ``k`` must be a multiple.

        >>> import labkit as lk
        >>> lk.NVFP4.scale_blocks(64)
        4
        """
        k = _check_int(k, "k", positive=True)
        if k % self.sf_vec:
            raise LayoutError(f"k: {self.name} needs K to be a multiple of {self.sf_vec}, got {k}")
        return k // self.sf_vec

    def decode_data(self, codes):
        """Element values of bit codes of ``data_type`` (see ``decode_float``).

        >>> import labkit as lk
        >>> lk.NVFP4.decode_data([0b0101]).tolist()
        [3.0]
        """
        return decode_float(codes, self.data_type)

    def decode_scale(self, codes):
        """Scale values of bit codes of ``scale_type`` (see ``decode_float``).

        >>> import labkit as lk
        >>> lk.MXFP8.decode_scale([126]).tolist()
        [0.5]
        """
        return decode_float(codes, self.scale_type)


#: NVFP4: E2M1 elements, one unsigned-E4M3 scale per 16 K-elements (``kind::mxf4nvf4 .block16``).
NVFP4 = BlockScaledFormat("NVFP4", "e2m1", "ue4m3", 16, "kind::mxf4nvf4.block16")
#: MXFP8: E4M3 elements (E5M2 is the other FP8), one E8M0 scale per 32 K-elements.
MXFP8 = BlockScaledFormat("MXFP8", "e4m3", "ue8m0", 32, "kind::mxf8f6f4.block32")


def _matrix(value, name, shape=None):
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise LayoutError(f"{name}: must be a 2-D array of numbers") from None
    if a.ndim != 2:
        raise LayoutError(f"{name}: must be 2-D, got {a.ndim} dimensions")
    if shape is not None and a.shape != shape:
        raise LayoutError(f"{name}: must have shape {shape}, got {a.shape}")
    return a


def _representable(a, kind, name):
    allowed = _finite_values(kind)
    bad = ~np.isin(a, allowed)
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        raise LayoutError(f"{name}: value {float(a[at])!r} at {at} is not a finite {kind} number")


def block_scaled_mma(a, b, sfa, sfb, c=None, fmt=NVFP4):
    """``D = C + (A·SFA)(B·SFB)``: a block-scaled matrix multiply-accumulate in float64.

    ``a`` is (M, K) and ``b`` is (K, N), holding values of ``fmt.data_type``; ``sfa`` is
    (M, K/sf_vec) and ``sfb`` is (N, K/sf_vec), holding values of ``fmt.scale_type``;
    ``c`` is (M, N) (zeros when omitted). Every value must be representable in its type.

    >>> import labkit as lk, numpy as np
    >>> a, b = np.ones((1, 32)), np.full((32, 1), 0.5)
    >>> sfa, sfb = np.array([[2.0, 1.0]]), np.array([[1.0, 4.0]])
    >>> lk.block_scaled_mma(a, b, sfa, sfb, fmt=lk.NVFP4).tolist()    # 16*2*0.5 + 16*4*0.5
    [[48.0]]
    """
    if not isinstance(fmt, BlockScaledFormat):
        raise LayoutError(f"fmt: must be a BlockScaledFormat such as NVFP4, got {fmt!r}")
    a = _matrix(a, "a")
    M, K = a.shape
    b = _matrix(b, "b")
    if b.shape[0] != K:
        raise LayoutError(f"b: must have K={K} rows to match a {a.shape}, got {b.shape}")
    N = b.shape[1]
    sf_k = fmt.scale_blocks(K)
    sfa = _matrix(sfa, "sfa", (M, sf_k))
    sfb = _matrix(sfb, "sfb", (N, sf_k))
    c = np.zeros((M, N)) if c is None else _matrix(c, "c", (M, N))
    _representable(a, fmt.data_type, "a")
    _representable(b, fmt.data_type, "b")
    _representable(sfa, fmt.scale_type, "sfa")
    _representable(sfb, fmt.scale_type, "sfb")
    a_real = a * np.repeat(sfa, fmt.sf_vec, axis=1)
    b_real = b * np.repeat(sfb, fmt.sf_vec, axis=1).T
    return c + a_real @ b_real
