"""Every matplotlib drawing renders (Agg) for a catalogue of layouts, with alt text, and the
tables it draws hold the layout's values (checked against the layout itself and the seeds)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

import labkit as lk
from labkit import viz
from labkit.errors import LayoutError
from labkit.viz.tables import offset_table, tv_table
from labkit.widgets.base import png_bytes

CATALOGUE = [
    "(4,8):(8,1)", "(4,8):(1,4)", "8:2", "(_8,_8):(_8,_1)", "((2,4),(4,2)):((4,16),(1,8))",
    "(4,(2,4)):(2,(1,8))", "(2,2):(0,1)", "(16,16):(16,1)", "(32,32):(1,32)",
]


def _render(fig):
    data = png_bytes(fig, dpi=40)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(fig.alt_text) > 40
    return data


@pytest.mark.parametrize("text", CATALOGUE)
@pytest.mark.parametrize("color_by", ["value", "bank", "none"])
def test_draw_layout_catalogue(text, color_by):
    L = lk.parse_layout(text)
    _render(viz.draw_layout(L, color_by=color_by))


@pytest.mark.parametrize("text", CATALOGUE)
def test_offset_table_is_the_layout(text):
    L = lk.parse_layout(text)
    T = offset_table(L)
    if lk.rank(L) == 1:
        assert T.tolist() == [[L(j) for j in range(lk.size(L))]]
    else:
        assert T.tolist() == [[L(i, j) for j in range(T.shape[1])] for i in range(T.shape[0])]


def test_swizzled_table_follows_the_ptx_128b_figure():
    # Swizzle<3,3,3> over a (8,64) fp16 atom: 16-byte chunk c of row r lands at chunk c ^ r
    atom = lk.composition(lk.Swizzle(3, 3, 3), lk.make_layout((8, 64), (64, 1)))
    T = offset_table(atom)
    for r in range(8):
        assert [(T[r, 8 * c] % 64) // 8 for c in range(8)] == [c ^ r for c in range(8)]
    _render(viz.draw_layout(atom, color_by="bank"))


def test_tv_table_of_the_16x8x16_a_layout_matches_seed_000():
    thr, val, count = tv_table(lk.parse_layout("((4,8),(2,2,2)):((32,1),(16,8,128))"), (16, 16))
    assert count.min() == count.max() == 1
    for m in range(16):
        for k in range(16):
            assert thr[m, k] == 4 * (m % 8) + (k % 8) // 2
            assert val[m, k] == k % 2 + 2 * (m // 8) + 4 * (k // 8)


def test_draw_tv_layout_and_mma():
    _render(viz.draw_tv_layout(lk.parse_layout("((4,8),(2,2)):((32,1),(16,8))"), (16, 8)))
    for name in ("SM80_16x8x16_F16F16F16F16_TN", "SM80_16x8x8_F16F16F16F16_TN", "SM75_16x8x8_F32F16F16F32_TN"):
        fig = viz.draw_mma(lk.mma_atom(name))
        _render(fig)
        assert "A(0,0) is held by T0" in fig.alt_text


def test_draw_tiling_seed_001():
    fig = viz.draw_tiling(lk.parse_layout("((2,4),(4,2)):((4,16),(1,8))"), (2, 4))
    _render(fig)
    assert "tile (0,1) starts at offset 8" in fig.alt_text      # seed 001: tile (0,1) holds addresses 8..15
    with pytest.raises(LayoutError, match="tile"):
        viz.draw_tiling(lk.parse_layout("(8,8):(8,1)"), (3, 4))


@pytest.mark.parametrize("mode", ["INTERLEAVE", "SWIZZLE_32B", "SWIZZLE_64B", "SWIZZLE_128B"])
@pytest.mark.parametrize("element", ["fp8", "fp16", "fp32"])
def test_draw_swizzle_atom(mode, element):
    _render(viz.draw_swizzle_atom(mode, element))


def test_draw_banks():
    from labkit.banks import bank_conflicts
    fig = viz.draw_banks(bank_conflicts([128 * lane for lane in range(8)], 16))
    _render(fig)
    assert "8 wavefront(s)" in fig.alt_text and "degree 8" in fig.alt_text
    _render(viz.draw_banks(bank_conflicts([4 * lane for lane in range(32)], 4)))


@pytest.mark.parametrize("variant", ["SM75_U32x1_LDSM_N", "SM75_U32x2_LDSM_N", "SM75_U32x4_LDSM_N",
                                     "SM75_U16x8_LDSM_T"])
def test_draw_ldmatrix_routing(variant):
    _render(viz.draw_ldmatrix_routing(variant))


def test_draw_fragments_stages():
    from labkit import lab
    t = lab.trace_mma(backend="sim")
    for stage in range(4):
        _render(viz.draw_fragments(t, stage))
    assert "(0,9)" in viz.draw_fragments(t, 1).alt_text        # seed 000: lane 0, slot 5 holds A(0,9)
    with pytest.raises(LayoutError, match="stage"):
        viz.draw_fragments(t, 4)


def test_bad_input_is_a_labkit_error():
    with pytest.raises(LayoutError, match="color_by"):
        viz.draw_layout(lk.parse_layout("4:1"), color_by="rainbow")
    with pytest.raises(LayoutError, match="rank"):
        viz.draw_layout(lk.parse_layout("(2,2,2):(1,2,4)"))
    with pytest.raises(LayoutError, match="tile"):
        viz.draw_tv_layout(lk.parse_layout("(4,2):(1,4)"), (2, 2))


def test_alt_text_helper():
    fig = viz.draw_layout(lk.parse_layout("(2,2):(1,2)"))
    assert viz.alt_text(fig) == fig.alt_text and np.isfinite(len(fig.alt_text))
