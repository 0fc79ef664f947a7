"""One warpgroup's ``wgmma``: ``D = A @ B.T`` through the CPU twin or on an sm_90 GPU, and what
wrong descriptors make the twin read.

The operands are staged through :mod:`labkit.lab.wgmma_descriptors`; the twin
(:mod:`labkit.sim.wgmma`) reads shared memory through the descriptors alone, so a tampered LBO,
SBO or layout type reads the wrong bytes.
"""

from __future__ import annotations

import numpy as np

from labkit.atoms.gmma_desc import GmmaDescriptor, LayoutType
from labkit.atoms.gmma_fragment import a_registers
from labkit.errors import LayoutError
from labkit.lab.wgmma_descriptors import LAYOUTS, descriptor, operand_layout, stage
from labkit.sim.wgmma import wgmma_rs, wgmma_ss

__all__ = ["twin_matmul", "device_matmul", "typed_matmul", "wrong_descriptors", "wrong_descriptor_table",
           "sm90_present"]


def _operands(A, B, layout):
    if layout not in LAYOUTS:
        raise LayoutError(f"layout must be one of {sorted(LAYOUTS)}; got {layout!r}")
    sw, kk = LAYOUTS[layout]
    A, B = np.asarray(A, dtype=np.float16), np.asarray(B, dtype=np.float16)
    if A.shape != (64, kk) or B.ndim != 2 or B.shape[1] != kk or B.shape[0] % 8 or not 8 <= B.shape[0] <= 256:
        raise LayoutError(f"A must be 64 x {kk} and B N x {kk} (N a multiple of 8 up to 256) for layout "
                          f"{layout!r}; got {A.shape} and {B.shape}")
    return A, B, sw, kk


def _a_from(a_from):
    if a_from not in ("smem", "registers"):
        raise LayoutError(f"a_from must be 'smem' (the SS form) or 'registers' (the RS form); got {a_from!r}")
    return a_from == "registers"


def twin_matmul(A, B, layout: str = "INTERLEAVE", tamper=None, a_from: str = "smem") -> np.ndarray:
    """``D = A @ B.T`` (64 x N, float32) as one warpgroup's ``wgmma`` chain computes it, on the CPU:
    A and B are staged K-major in CuTe's ``layout`` atom (``"INTERLEAVE"``: K = 16, or ``"B128"``:
    K = 64) in a byte array, each k16 step's descriptors are made by ``make_gmma_desc`` and the
    twin :func:`labkit.sim.wgmma.wgmma_ss` reads the operands through them alone. ``tamper``
    (a dict of descriptor fields, in 16-byte units like CuTe's) overrides fields of the
    descriptors, so a wrong LBO or SBO reads the wrong bytes. ``a_from="registers"`` is the RS
    form: each k16 slice of A goes into the warpgroup's registers by CuTe's ``ALayout_64x16``
    and :func:`labkit.sim.wgmma.wgmma_rs` reads only B through a descriptor.

    >>> rng = np.random.default_rng(0)
    >>> A, B = rng.integers(-3, 4, (64, 64)), rng.integers(-3, 4, (32, 64))
    >>> bool((twin_matmul(A, B, "B128", a_from="registers") == twin_matmul(A, B, "B128")).all())
    True
    """
    rs = _a_from(a_from)
    A, B, sw, kk = _operands(A, B, layout)
    n = B.shape[0]
    smem = np.zeros(2048 * 8 + 1024 * 64, np.uint8)
    a0, b0 = 0, 64 * kk * 2 + 1024 * 4
    sA, sB = operand_layout("K", sw, 64, kk), operand_layout("K", sw, n, kk)
    stage(smem, A, sA, a0)
    stage(smem, B, sB, b0)
    d = np.zeros((64, n), np.float32)
    for s in range(kk // 16):
        da = descriptor("K", sw, 64, kk, s, a0)
        db = descriptor("K", sw, n, kk, s, b0)
        if tamper:
            da = GmmaDescriptor(**{**da.__dict__, **tamper})
            db = GmmaDescriptor(**{**db.__dict__, **tamper})
        if rs:
            d = wgmma_rs(f"SM90_64x{n}x16_F32F16F16_RS", a_registers(A[:, 16 * s:16 * s + 16]), smem, db.encode(), d=d)
        else:
            d = wgmma_ss(f"SM90_64x{n}x16_F32F16F16_SS", smem, da.encode(), db.encode(), d=d)
    return d


def device_matmul(A, B, layout: str = "INTERLEAVE", a_from: str = "smem") -> np.ndarray:
    """:func:`twin_matmul` on the GPU: one warpgroup's ``wgmma.mma_async`` (f32 accumulators, A
    and B K-major in ``layout``, or A in registers with ``a_from="registers"``) through
    :mod:`labkit.cuda.kernels.probes.wgmma_probe`, which refuses anything but an sm_90 GPU."""
    from labkit.cuda.kernels.probes import wgmma_probe

    form = "rs" if _a_from(a_from) else "ss"
    A, B, sw, _ = _operands(A, B, layout)
    entry = f"wgmma_m64n{B.shape[0]}k16_f32f16f16_{form}"
    return np.asarray(wgmma_probe.wgmma_matmul(A, B, entry, a_swizzle=sw, b_swizzle=sw), np.float32)


def typed_matmul(A, B, atom: str = "SM90_64x64x32_F32E4M3E4M3_SS_TN", device: bool = False) -> np.ndarray:
    """``D = A @ B.T`` (64 x N, float64) through one warpgroup's ``wgmma`` of any SS GMMA ``atom``:
    A (64 x K) and B (N x K) are rounded to the atom's element types (:mod:`labkit.elements`; for
    fp8, to the nearest code) and staged K-major in CuTe's 128-byte swizzle, one k-tile of up to
    128 bytes of K; the twin (:func:`labkit.sim.wgmma.wgmma_ss_steps`) reads them through the
    descriptors, or with ``device=True`` an sm_90 GPU runs the same image.

    >>> from labkit.elements import from_bits, to_bits
    >>> rng = np.random.default_rng(0)
    >>> A = from_bits(to_bits(rng.uniform(-1, 1, (64, 128)), "e4m3"), "e4m3")
    >>> B = from_bits(to_bits(rng.uniform(-1, 1, (64, 128)), "e4m3"), "e4m3")
    >>> D = typed_matmul(A, B)
    >>> bool(np.abs(D - A @ B.T).max() <= 2.0 ** -11 * (np.abs(A) @ np.abs(B).T).max())
    True
    """
    from labkit.atoms.instructions import instruction
    from labkit.elements import to_bits
    from labkit.sim.wgmma import wgmma_ss_steps

    g = instruction(atom, "wgmma")
    if g.form != "SS":
        raise LayoutError(f"atom: {atom!r} takes A from registers; typed_matmul runs the SS form")
    A, B = np.asarray(A, np.float64), np.asarray(B, np.float64)
    n = g.shape_mnk[1]
    if A.ndim != 2 or A.shape[0] != 64 or B.shape != (n, A.shape[1]):
        raise LayoutError(f"A must be 64 x K and B {n} x K for {atom}; got {A.shape} and {B.shape}")
    if device:
        from labkit.cuda.kernels.probes import wgmma_probe

        return np.asarray(wgmma_probe.wgmma_matmul(A, B, g.name), np.float64)
    from labkit.cuda.kernels.probes.wgmma_probe import make_plan

    plan = make_plan(g, k=int(A.shape[1]))
    image = plan.image(to_bits(A, g.a_type), to_bits(B, g.b_type))
    d = wgmma_ss_steps(g, image, [tuple(int(x) for x in step) for step in plan.descs], "K", "K")
    return np.asarray(d, np.float64)


TAMPERS = {
    "INTERLEAVE": [("as make_gmma_desc builds it", None),
                   ("LBO and SBO swapped", "swap"),
                   ("SBO halved", {"stride_byte_offset": 4}),
                   ("layout type B128 instead of INTERLEAVE", {"layout_type": LayoutType.B128})],
    "B128": [("as make_gmma_desc builds it", None),
             ("LBO = 4 (unused by swizzled K-major)", {"leading_byte_offset": 4}),
             ("SBO = 512 bytes instead of 1024", {"stride_byte_offset": 32}),
             ("layout type INTERLEAVE instead of B128", {"layout_type": LayoutType.INTERLEAVE})],
}


def wrong_descriptors(layout: str = "INTERLEAVE", n: int = 64, seed: int = 0) -> list[dict]:
    """The twin's D for each descriptor of :data:`TAMPERS` against ``A @ B.T`` in float64: how
    many of the 64 x ``n`` elements are wrong and the largest error. Small integers in A and B
    make every right element exact."""
    _, kk = LAYOUTS[layout]
    rng = np.random.default_rng(seed)
    A = rng.integers(-2, 3, (64, kk)).astype(np.float16)
    B = rng.integers(-2, 3, (n, kk)).astype(np.float16)
    want = A.astype(np.float64) @ B.astype(np.float64).T
    out = []
    for what, tamper in TAMPERS[layout]:
        if tamper == "swap":
            d0 = descriptor("K", LAYOUTS[layout][0], 64, kk)
            tamper = {"leading_byte_offset": d0.stride_byte_offset, "stride_byte_offset": d0.leading_byte_offset}
        try:
            got = twin_matmul(A, B, layout, tamper)
            err = np.abs(got - want)
            out.append({"descriptor": what, "wrong": int((err > 0).sum()), "of": err.size,
                        "max error": float(err.max()), "rows right": int((err.max(axis=1) == 0).sum())})
        except LayoutError as e:
            out.append({"descriptor": what, "refused": str(e)})
    return out


def wrong_descriptor_table(layout: str = "INTERLEAVE", n: int = 64) -> str:
    """:func:`wrong_descriptors` as lines of text.

    >>> print(wrong_descriptor_table().splitlines()[0])
    INTERLEAVE, m64n64k16: as make_gmma_desc builds it: 0 of 4096 elements wrong, 64 of 64 rows of D right
    """
    lines = []
    for r in wrong_descriptors(layout, n):
        head = f"{layout}, m64n{n}k16: {r['descriptor']}: "
        if "refused" in r:
            lines.append(head + "refused: " + r["refused"])
        else:
            lines.append(head + f"{r['wrong']} of {r['of']} elements wrong, {r['rows right']} of 64 rows of D right"
                         + (f", largest error {r['max error']:g}" if r["wrong"] else ""))
    return "\n".join(lines)


def sm90_present() -> bool:
    """Whether numba sees a GPU of compute capability 9.0 (an H100 or H200), the only one that
    runs ``wgmma`` (target ``sm_90a``); False without a driver, without a GPU or under numba's
    CUDA simulator."""
    from labkit.driver import cuda_device_count
    try:
        if cuda_device_count() < 1:
            return False
        from labkit.cuda import SIMULATED, device_sm
        return not SIMULATED and device_sm() == 90
    except Exception:  # noqa: BLE001 - no usable driver is "no"
        return False
