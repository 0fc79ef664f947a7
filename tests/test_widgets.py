"""Widget callbacks update their figure and message; mistakes become messages."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import labkit as lk
from labkit import widgets


def test_layout_explorer_follows_the_text():
    ex = widgets.layout_explorer("(4,8):(8,1)")
    first = ex.image.value
    assert first[:4] == b"\x89PNG" and ex.error is None
    ex.text.value = "(8,4):(1,8)"
    assert str(ex.layout) == "(8,4):(1,8)" and ex.image.value != first
    assert ex.message.value.startswith("(8,4):(1,8): size 32, cosize 32")
    ex.color_by.value = "bank"
    assert "bank" in ex.figure.alt_text


def test_layout_explorer_shows_mistakes_inline():
    ex = widgets.layout_explorer("(4,8):(8,1)")
    good = ex.image.value
    for bad in ("(4,8):(8,1,1)", "(4,8:(8,1)", "hello", "(2,2,2):(1,2,4)"):
        ex.text.value = bad
        assert ex.error and "LayoutError" in ex.message.value
        assert ex.image.value == good                  # the last good picture stays


def test_divide_product_playground():
    p = widgets.divide_product_playground("(8,8):(8,1)", "2:1; 4:1", "zipped_divide")
    assert p.error is None
    assert lk.size(p.result[0]) == 8 and lk.size(p.result[1]) == 8     # tile (2,4), 4x2 tiles
    p.op.value = "logical_product"
    assert p.error and "block" in p.message.value
    p.tiler_text.value = "(2,2):(1,2)"
    # CuTe C++ cannot take the complement of a rank-2 layout with run-time strides
    assert p.error and "Dynamic-stride complement only for rank-1 layouts" in p.message.value
    p.layout_text.value = "(_8,_8):(_8,_1)"
    assert p.error is None and lk.size(p.result) == 64 * 4


def test_swizzle_explorer_reports_conflicts():
    s = widgets.swizzle_explorer("SWIZZLE_128B", "fp16")
    assert "Sw&lt;3,3,3&gt;" in s.message.value and "conflict-free" in s.message.value
    s.element.value = "fp32"
    assert "Sw&lt;3,2,3&gt;" in s.message.value


def test_ldmatrix_explorer_switches_variants():
    e = widgets.ldmatrix_explorer("SM75_U32x1_LDSM_N")
    assert "1 matrices, 2 16-bit slots" in e.message.value
    e.variant.value = "SM75_U32x4_LDSM_N"
    assert "4 matrices, 8 16-bit slots" in e.message.value


def test_fragment_player_steps_through_stages():
    p = widgets.fragment_player(backend="sim")
    assert p.stage == 0 and "before" in p.message.value
    seen = {p.image.value}
    for stage in (1, 2, 3):
        p.slider.value = stage
        assert p.stage == stage
        seen.add(p.image.value)
    assert len(seen) == 4 and "mma.sync" in p.message.value and "True" in p.message.value
