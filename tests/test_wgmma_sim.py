"""The wgmma SS model (``labkit.sim.wgmma``, addressing written from the PTX ISA) against CuTe's
layouts: A and B are stored in a byte array through labkit's CuTe GMMA layouts (the swizzle on
the absolute byte address, as CuTe's swizzle pointer applies it), the descriptors come from
``make_gmma_desc``, and D must equal numpy's float64 product."""

from __future__ import annotations

import numpy as np
import pytest

import labkit as lk
from labkit.atoms.gmma_desc import GmmaDescriptor, decode, make_gmma_desc
from labkit.atoms.gmma_layouts import gmma_layout_atom
from labkit.errors import LayoutError
from labkit.sim.wgmma import wgmma_ss

SWIZZLES = ("INTER", "SW32", "SW64", "SW128")
ROW = {"INTER": 8, "SW32": 16, "SW64": 32, "SW128": 64}     # 16-bit elements per atom row


def _store(smem, values, layout, start, element):
    """Write ``values`` (rows x 16) at CuTe's addresses: Sw(start + 2 * layout_b(r, k))."""
    bits = values.astype(np.float16).view(np.uint16) if element == "f16" else (
        values.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    for r in range(values.shape[0]):
        for k in range(values.shape[1]):
            a = layout.layout_a(start + 2 * layout.layout_b(r, k))
            smem[a], smem[a + 1] = bits[r, k] & 0xFF, bits[r, k] >> 8


def _operand(major, sw, rows):
    shape = (lk.S(rows), lk.S(16) if major == "MN" else lk.S(max(16, ROW[sw])))
    sL = lk.tile_to_shape(gmma_layout_atom(major, sw, 16), shape)
    return lk.ComposedLayout(sL.layout_a, sL.offset, lk.composition(
        sL.layout_b, (lk.make_layout(lk.S(rows), lk.S(1)), lk.make_layout(lk.S(16), lk.S(1)))))


CASES = [(am, asw, bm, bsw, n, el)
         for am in ("K", "MN") for asw in SWIZZLES for bm, bsw in (("K", asw), ("MN", "SW32"))
         for n, el in ((8, "f16"), (64, "bf16"), (256, "f16"))
         if not (bm == "MN" and n < 16)]


@pytest.mark.parametrize("case", CASES, ids=["-".join(map(str, c)) for c in CASES])
def test_wgmma_ss_reads_cute_layouts_through_the_descriptor(case):
    am, asw, bm, bsw, n, el = case
    rng = np.random.default_rng(sum(map(ord, "-".join(map(str, case)))))
    a = rng.standard_normal((64, 16))
    b = rng.standard_normal((n, 16))
    smem = np.zeros(1 << 17, np.uint8)
    la, lb = _operand(am, asw, 64), _operand(bm, bsw, n)
    sa, sb = 0x1000, 0x8000
    _store(smem, a, la, sa, el)
    _store(smem, b, lb, sb, el)
    da = make_gmma_desc(am, la, sa).encode()
    db = make_gmma_desc(bm, lb, sb).encode()
    rounded = (lambda x: x.astype(np.float16).astype(np.float64)) if el == "f16" else (
        lambda x: ((x.astype(np.float32).view(np.uint32) >> 16) << 16).view(np.float32)
        .astype(np.float64))
    want = rounded(a) @ rounded(b).T
    c = rng.standard_normal((64, n))
    got = wgmma_ss(smem, da, db, n, el, "f32", d=c, a_major=am, b_major=bm)
    assert got.shape == (64, n) and got.dtype == np.float32
    np.testing.assert_allclose(got, want + c, rtol=1e-5, atol=1e-4)


def test_a_wrong_sbo_or_swizzle_reads_the_wrong_bytes():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((64, 16)), rng.standard_normal((8, 16))
    smem = np.zeros(1 << 16, np.uint8)
    la, lb = _operand("K", "SW128", 64), _operand("K", "SW128", 8)
    _store(smem, a, la, 0, "f16")
    _store(smem, b, lb, 0x4000, "f16")
    da, db = make_gmma_desc("K", la, 0), make_gmma_desc("K", lb, 0x4000)
    right = wgmma_ss(smem, da.encode(), db.encode(), 8)
    for bad in (GmmaDescriptor(da.start_address, da.leading_byte_offset, da.stride_byte_offset // 2,
                               0, da.layout_type),
                GmmaDescriptor(da.start_address, da.leading_byte_offset, da.stride_byte_offset,
                               0, "B64")):
        assert not np.allclose(wgmma_ss(smem, bad.encode(), db.encode(), 8), right)
    assert decode(da.encode()) == da


@pytest.mark.parametrize("kwargs,match", [
    ({"n": 12}, "multiple of 8"), ({"element": "f32"}, "element must be"),
    ({"element": "bf16", "accum": "f16"}, "bf16 in f32"), ({"a_major": "T"}, "major must be"),
])
def test_wgmma_ss_bad_arguments(kwargs, match):
    smem = np.zeros(1 << 14, np.uint8)
    args = {"n": 8, **kwargs}
    with pytest.raises(LayoutError, match=match):
        wgmma_ss(smem, GmmaDescriptor(leading_byte_offset=8, stride_byte_offset=16).encode(),
                 GmmaDescriptor(start_address=128, leading_byte_offset=8,
                                stride_byte_offset=16).encode(), **args)


# --- the base offset, against what an H200 read ---------------------------------------------------

def test_the_twin_predicts_every_base_offset_read_recorded_on_an_h200():
    # benchmarks/wgmma_base_offset.py on an H200: a K-major SW128 A at six start addresses, laid
    # out on the absolute address or restarted at the start, read with each base offset 0..7; the
    # recorded SHA-256 of each D is the hardware's, the right-element counts too
    import hashlib
    import json
    import runpy
    from pathlib import Path

    from labkit.cuda.kernels.probes import wgmma_probe as wp
    from labkit.sim.wgmma import wgmma_ss_steps

    repo = Path(__file__).resolve().parents[1]
    run = json.loads((repo / "benchmarks" / "results" / "wgmma_base_offset_h200_2026-12-02.json").read_text())
    script = runpy.run_path(str(repo / "benchmarks" / "wgmma_base_offset.py"), run_name="recorded")
    recorded = {(r["layout"], r["start"], r["base_offset"]): r for r in run["measured"]}
    assert len(recorded) == 96
    # the hardware: right exactly for CuTe's absolute layout with base offset 0, and for the
    # restarted one with (start >> 7) & 7, the PTX ISA's base offset
    for (layout, start, b), r in recorded.items():
        want = b == (0 if layout == "absolute" else (start >> 7) & 7)
        assert (r["right"] == 4096) == want, (layout, start, b, r["right"])
    plan = wp.make_plan(script["ENTRY"], "K", "SW128", "K", "SW128")
    for layout, start, b, img, descs in script["launches"](plan, wp.to_bits16):
        D = wgmma_ss_steps(img, descs, 64, "f16", "f32", "K", "K")
        got = hashlib.sha256(np.ascontiguousarray(D, np.float32).tobytes()).hexdigest()
        assert got == recorded[layout, start, b]["d_sha256"], (layout, start, b)
