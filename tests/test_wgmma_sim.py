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
    entry = f"SM90_64x{n}x16_F32{el.upper()}{el.upper()}_SS"
    got = wgmma_ss(entry, smem, da, db, d=c, a_major=am, b_major=bm)
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
    right = wgmma_ss("SM90_64x8x16_F32F16F16_SS", smem, da.encode(), db.encode())
    for bad in (GmmaDescriptor(da.start_address, da.leading_byte_offset, da.stride_byte_offset // 2,
                               0, da.layout_type),
                GmmaDescriptor(da.start_address, da.leading_byte_offset, da.stride_byte_offset,
                               0, "B64")):
        assert not np.allclose(wgmma_ss("SM90_64x8x16_F32F16F16_SS", smem, bad.encode(), db.encode()), right)
    assert decode(da.encode()) == da


@pytest.mark.parametrize("entry,kwargs,match", [
    ("SM90_64x12x16_F32F16F16_SS", {}, "no wgmma instruction named"),
    ("SM80_16x8x16_F32F16F16F32_TN", {}, "no wgmma instruction named"),
    ("SM90_64x8x16_F32F16F16_RS", {}, "RS form; this twin models the SS form"),
    ("SM90_64x8x16_F32F16F16_SS", {"a_major": "T"}, "a_major must be"),
    ("SM90_64x8x32_F32E4M3E4M3_SS_TN", {"b_major": "MN"}, "only 16-bit operands may be MN-major"),
])
def test_wgmma_ss_bad_arguments(entry, kwargs, match):
    smem = np.zeros(1 << 14, np.uint8)
    with pytest.raises(LayoutError, match=match):
        wgmma_ss(entry, smem, GmmaDescriptor(leading_byte_offset=8, stride_byte_offset=16).encode(),
                 GmmaDescriptor(start_address=128, leading_byte_offset=8, stride_byte_offset=16).encode(),
                 **kwargs)


# --- every element type: tf32, e4m3/e5m2, s8/u8 (K = 32 bytes) ------------------------------------

TYPES = [("F32TF32TF32", "tf32", "tf32", 8), ("F32E4M3E5M2", "e4m3", "e5m2", 32), ("F16E5M2E4M3", "e5m2", "e4m3", 32),
         ("S32S8U8", "s8", "u8", 32), ("S32U8S8", "u8", "s8", 32)]


@pytest.mark.parametrize("types,ta,tb,k", TYPES)
@pytest.mark.parametrize("sw", SWIZZLES)
def test_the_twin_reads_every_element_type_from_cutes_k_major_layouts(types, ta, tb, k, sw):
    # A (64 x K) and B (32 x K) written byte by byte at CuTe's addresses (labkit's GMMA atom for the
    # element width, swizzle on the absolute byte address) with values exact in the type; D is the
    # float64 product (integers: exact, the s32 sum cannot wrap here)
    from labkit.atoms.gmma_smem import gmma_operand
    from labkit.elements import element, from_bits, to_bits

    rng = np.random.default_rng(k + len(sw))
    bits = element(ta).bits
    vals = {"tf32": lambda r: rng.standard_normal(r), "e4m3": lambda r: rng.integers(-8, 9, r) / 4,
            "e5m2": lambda r: rng.integers(-8, 9, r) / 2, "s8": lambda r: rng.integers(-128, 128, r),
            "u8": lambda r: rng.integers(0, 256, r)}
    a = from_bits(to_bits(vals[ta]((64, 4 * k)), ta), ta)
    b = from_bits(to_bits(vals[tb]((32, 4 * k)), tb), tb)
    op_a = gmma_operand("K", sw, 64, 4 * k, 0, bits)
    op_b = gmma_operand("K", sw, 32, 4 * k, 0x8000, bits)
    smem = np.zeros(0x10000, np.uint8)
    op_a.store(smem, to_bits(a, ta))
    op_b.store(smem, to_bits(b, tb))
    steps = [(da.encode(), db.encode()) for da, db in zip(op_a.descriptors(), op_b.descriptors())]
    assert len(steps) == 4
    from labkit.sim.wgmma import wgmma_ss_steps
    d = wgmma_ss_steps(f"SM90_64x32x{k}_{types}_SS_TN", smem, steps)
    want = a @ b.T
    if types.startswith("S32"):
        assert d.dtype == np.int32 and (d == want).all()
    elif types.startswith("F16"):
        np.testing.assert_allclose(d, want, rtol=2 ** -10, atol=2 ** -10)
    else:
        np.testing.assert_allclose(d, want, rtol=1e-6, atol=1e-5)


def test_the_s32_accumulator_wraps_as_the_ptx_isa_says():
    # wgmma .s32 without .satfinite: the sum wraps modulo 2^32
    from labkit.atoms.gmma_smem import gmma_operand
    from labkit.sim.wgmma import wgmma_ss

    op_a, op_b = gmma_operand("K", "SW32", 64, 32, 0, 8), gmma_operand("K", "SW32", 8, 32, 0x4000, 8)
    smem = np.zeros(0x8000, np.uint8)
    op_a.store(smem, np.full((64, 32), 255, np.uint8))
    op_b.store(smem, np.full((8, 32), 255, np.uint8))
    (da,), (db,) = op_a.descriptors(), op_b.descriptors()
    d0 = np.full((64, 8), 2 ** 31 - 1000)
    d = wgmma_ss("SM90_64x8x32_S32U8U8_SS_TN", smem, da.encode(), db.encode(), d=d0)
    assert int(d[0, 0]) == (2 ** 31 - 1000 + 32 * 255 * 255) - 2 ** 32


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
    from labkit.elements import to_bits
    for layout, start, b, img, descs in script["launches"](plan, to_bits):
        D = wgmma_ss_steps(script["ENTRY"], img, descs, "K", "K")
        got = hashlib.sha256(np.ascontiguousarray(D, np.float32).tobytes()).hexdigest()
        assert got == recorded[layout, start, b]["d_sha256"], (layout, start, b)
