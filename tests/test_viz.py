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


def drawn_cells(fig) -> dict[tuple[int, int], list[str]]:
    """The text of each drawn cell, by (row, col): cells are unit squares centred at (col+.5, row+.5)."""
    cells = {}
    for t in fig.axes[0].texts:
        x, y = t.get_position()
        if x > 0 and y > 0 and (x - 0.5).is_integer() and (y - 0.5).is_integer():
            cells[int(y), int(x)] = t.get_text().split("\n")
    return cells


def expected_offsets(L) -> dict[tuple[int, int], int]:
    """CuTe's print_layout table, from the layout as a function: rank 1 is one row."""
    if lk.rank(L) == 1:
        return {(0, j): int(L(j)) for j in range(int(lk.size(L)))}
    return {(i, j): int(L(i, j)) for i in range(int(lk.size(L[0]))) for j in range(int(lk.size(L[1])))}


@pytest.mark.parametrize("text", CATALOGUE)
@pytest.mark.parametrize("color_by", ["value", "bank", "none"])
def test_draw_layout_catalogue(text, color_by):
    L = lk.parse_layout(text)
    fig = viz.draw_layout(L, color_by=color_by)
    _render(fig)
    cells, want = drawn_cells(fig), expected_offsets(L)
    assert {k: int(v[0]) for k, v in cells.items()} == want
    if color_by == "bank":  # 32 banks of 4 bytes, 2-byte elements by default
        assert all(v[1] == f"b{(want[k] * 2 // 4) % 32}" for k, v in cells.items())


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


def test_alt_text_names_the_layout_and_reads_its_first_row():
    L = lk.parse_layout("(2,4):(1,2)")
    fig = viz.draw_layout(L)
    assert viz.alt_text(fig) == fig.alt_text
    assert "(2,4):(1,2)" in fig.alt_text and "2x4" in fig.alt_text
    assert "row 0 reads 0, 2, 4, 6" in fig.alt_text


# --- TiledCopy, TMEM and mesh drawings ----------------------------------------------------------
# Their cells are located through ``fig.blocks`` (where each block of cells was drawn): a label's
# or an outline's position turns back into (block, row, col), so the checks below read the
# rendered figure, not the tables behind it.

from labkit.viz.grid import locate
from labkit.viz.palette import MARK, thread_color


def _labels(fig, pattern=None):
    """{(block, row, col): text} of every text drawn inside a recorded cell."""
    import re
    out = {}
    for ax in fig.axes:
        for t in ax.texts:
            x, y = t.get_position()
            hit = locate(fig, x, y)
            if hit is not None and t.get_text() and (pattern is None or re.fullmatch(pattern, t.get_text())):
                out[hit] = t.get_text()
    return out


def _marked(fig):
    """(block, row, col) of every cell outlined in the MARK colour."""
    from matplotlib.colors import to_hex
    from matplotlib.patches import Rectangle
    cells = []
    for ax in fig.axes:
        for p in ax.patches:
            if isinstance(p, Rectangle) and to_hex(p.get_edgecolor()).lower() == MARK.lower():
                x, y = p.get_xy()
                cells.append(locate(fig, x + p.get_width() / 2, y + p.get_height() / 2))
    return cells


def _image(fig, block):
    """The RGB cell image drawn for ``block`` (rows x cols x 3)."""
    x0, y0, rows, cols = fig.blocks[block]
    for ax in fig.axes:
        for im in ax.images:
            if np.allclose(im.get_extent(), (x0, x0 + cols, y0 + rows, y0)):
                return np.asarray(im.get_array())[..., :3]
    raise AssertionError(f"no image for block {block}")


def _rgb(hex_color):
    h = hex_color.lstrip("#")
    return np.array([int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)])


MMA_16x8x16 = "SM80_16x8x16_F16F16F16F16_TN"


def _copy(kind):
    mma = lk.make_tiled_mma(MMA_16x8x16)
    if kind == "ldsm_x4_A":
        return lk.make_tiled_copy_A(lk.copy_atom("SM75_U32x4_LDSM_N", "f16"), mma)
    if kind == "ldsm_x2_B":
        return lk.make_tiled_copy_B(lk.copy_atom("SM75_U32x2_LDSM_N", "f16"), mma)
    if kind == "ldsm_x4_A_2x2":        # sgemm_sm80's TiledMMA: 2x2 warps, tile 32x32x16
        mma2 = lk.make_tiled_mma(MMA_16x8x16, lk.make_layout((lk.S(2), lk.S(2))), (lk.S(32), lk.S(32), lk.S(16)))
        return lk.make_tiled_copy_A(lk.copy_atom("SM75_U32x4_LDSM_N", "f16"), mma2)
    if kind == "cp_async":             # sgemm_sm80's gmem -> smem copy: threads (16,8):(8,1), values 1x8
        return lk.make_tiled_copy(lk.copy_atom("SM80_CP_ASYNC_CACHEALWAYS", "f16"),
                                  lk.parse_layout("(_16,_8):(_8,_1)"), lk.parse_layout("(_1,_8):(_8,_1)"))
    if kind == "universal_u32":
        return lk.make_tiled_copy(lk.copy_atom("UniversalCopy<u32>", "f16"),
                                  lk.parse_layout("(_4,_8):(_8,_1)"), lk.parse_layout("(_1,_2):(_2,_1)"))
    raise ValueError(kind)


COPIES = ["ldsm_x4_A", "ldsm_x2_B", "ldsm_x4_A_2x2", "cp_async", "universal_u32"]


@pytest.mark.parametrize("kind", COPIES)
@pytest.mark.parametrize("arrange", ["auto", "side", "stacked"])
def test_draw_tiled_copy_catalogue(kind, arrange):
    cp = _copy(kind)
    fig = viz.draw_tiled_copy(cp, arrange=arrange)
    _render(fig)
    M, N = (int(t) for t in cp.tiler_mn)
    for block in ("source", "destination"):
        assert fig.blocks[block][2:] == (M, N)
        img = _image(fig, block)
        assert img.shape[:2] == (M, N) and not np.all(img == 1.0, axis=-1).any()   # every element is copied


def test_draw_tiled_copy_ldmatrix_x4_a_follows_seed_000_and_the_ptx_fragments():
    fig = viz.draw_tiled_copy(_copy("ldsm_x4_A"))
    lab = _labels(fig)
    # seed 000: A(0,9) is read by source lane 16 as value 1 and lands in lane 0, slot 5;
    # A(0,2) comes from lane 0's row and goes to lane 1
    assert lab[("source", 0, 9)] == "T16\nV1" and lab[("destination", 0, 9)] == "T0\nV5"
    assert lab[("source", 0, 2)] == "T0\nV2" and lab[("destination", 0, 2)] == "T1\nV0"
    for m in range(16):
        for k in range(16):
            # ldmatrix.x4: lane l gives row l%8 of matrix l//8; the matrices are A's four 8x8 quarters
            # in the order a0..a3 = (m 0-7, k 0-7), (m 8-15, k 0-7), (m 0-7, k 8-15), (m 8-15, k 8-15)
            assert lab[("source", m, k)] == f"T{m + 16 * (k // 8)}\nV{k % 8}"
            # PTX mma.m16n8k16 A fragment: lane 4*(m%8) + (k%8)//2, slot k%2 + 2*(m//8) + 4*(k//8)
            t, v = 4 * (m % 8) + (k % 8) // 2, k % 2 + 2 * (m // 8) + 4 * (k // 8)
            assert lab[("destination", m, k)] == f"T{t}\nV{v}"
    assert "element (0,9) is read by T16 V1 and received by T0 V5" in fig.alt_text


def test_draw_tiled_copy_ldmatrix_x2_b_broadcasts_the_unused_lanes():
    fig = viz.draw_tiled_copy(_copy("ldsm_x2_B"))
    lab = _labels(fig)
    assert fig.blocks["source"][2:] == (8, 16)          # B as (N, K) = 8 x 16
    for n in range(8):
        for k in range(16):
            # .x2 reads two matrices from the addresses of lanes 0-15; lanes 16-31 repeat them
            assert lab[("source", n, k)] == f"T{n + 8 * (k // 8)}\nV{k % 8}+"
            # PTX mma.m16n8k16 B fragment: lane 4*n + (k%8)//2, slot k%2 + 2*(k//8)
            assert lab[("destination", n, k)] == f"T{4 * n + (k % 8) // 2}\nV{k % 2 + 2 * (k // 8)}"


def test_draw_tiled_copy_2x2_warps_share_a():
    fig = viz.draw_tiled_copy(_copy("ldsm_x4_A_2x2"))
    lab = _labels(fig)
    assert fig.blocks["destination"][2:] == (32, 16)
    # warp 0 (rows 0-15) and warp 2 (same rows, the other N half) hold the same A values
    assert lab[("destination", 0, 9)] == "T0\nV5+"
    assert lab[("destination", 16, 9)] == "T32\nV5+"       # rows 16-31 belong to warp 1


def test_draw_tiled_copy_cp_async_colours_each_element_by_its_thread():
    fig = viz.draw_tiled_copy(_copy("cp_async"))
    assert "below" in fig.alt_text          # 64 columns: stacked
    for block in ("source", "destination"):
        img = _image(fig, block)
        assert img.shape[:2] == (16, 64)
        for m in range(16):
            for n in range(64):
                # thread (m, n//8) of the row-major 16x8 thread layout holds 8 consecutive elements
                assert np.allclose(img[m, n], _rgb(thread_color(8 * m + n // 8)), atol=1e-6), (block, m, n)
    assert "read by T1 V1 and received by T1 V1" in fig.alt_text


def test_draw_tiled_copy_universal_copy_labels():
    lab = _labels(viz.draw_tiled_copy(_copy("universal_u32")))
    for m, n in [(0, 0), (0, 3), (2, 9), (3, 15)]:
        t, v = 8 * m + n // 2, n % 2          # threads (4,8):(8,1), each two consecutive f16 (one u32)
        assert lab[("source", m, n)] == lab[("destination", m, n)] == f"T{t}\nV{v}"


def test_draw_tiled_copy_bad_input():
    with pytest.raises(LayoutError, match="tiled_copy"):
        viz.draw_tiled_copy(lk.mma_atom(MMA_16x8x16))
    with pytest.raises(LayoutError, match="arrange"):
        viz.draw_tiled_copy(_copy("ldsm_x4_A"), arrange="diagonal")


SFA = dict(shape=(128, 4), name="SFA")


def test_draw_tmem_sfa_warpx4_follows_seed_001():
    sfa = lk.scale_factor_layout(128, 4)
    fig = viz.draw_tmem(sfa, highlight=(64, 2), **SFA)
    _render(fig)
    parts = [f"partition {p}" for p in range(4)]
    # 4 TCols of 4 one-byte factors per lane; each partition holds a full copy of the 32-lane base tile
    imgs = [_image(fig, p) for p in parts]
    assert all(img.shape[:2] == (32, 16) for img in imgs)
    assert sum(int((~np.all(img == 1.0, axis=-1)).sum()) for img in imgs) == 512 * 4
    for img in imgs[1:]:
        assert np.array_equal(img, imgs[0])
    # seed 001: SFA[64,2] -> (TLane, TCol, byte) = (0,2,2) (32,2,2) (64,2,2) (96,2,2)
    assert sorted(_marked(fig)) == [(p, 0, 2 * 4 + 2) for p in parts]
    assert "(0,2,2) (32,2,2) (64,2,2) (96,2,2)" in fig.alt_text


def test_draw_tmem_sfa_local_lane_0_holds_rows_0_32_64_96():
    # seed 001: SFA[0,2], SFA[32,2], SFA[64,2], SFA[96,2] share local lane 0, at TCol 0, 1, 2, 3
    fig = viz.draw_tmem(lk.scale_factor_layout(128, 4), highlight=[(0, 2), (32, 2), (64, 2), (96, 2)], **SFA)
    assert sorted(_marked(fig)) == sorted((f"partition {p}", 0, 4 * c + 2) for p in range(4) for c in range(4))


def test_draw_tmem_labels_cells_when_they_fit():
    fig = viz.draw_tmem(lk.scale_factor_layout(128, 4), tcols=(2, 3), **SFA)
    _render(fig)
    lab = _labels(fig)
    # TCol 2 alone: 4 byte columns per partition; SFA[64,2] at local lane 0, byte 2 of every partition
    assert [k for k, v in lab.items() if v == "64,2"] == [(f"partition {p}", 0, 2) for p in range(4)]
    assert lab[("partition 3", 31, 3)] == "95,3"           # local lane 31, TCol 2 -> m = 31 + 64


def test_draw_tmem_accumulator_128x256():
    acc = lk.tmem_accumulator_layout()
    fig = viz.draw_tmem(acc, name="D", highlight=(37, 200))
    _render(fig)
    imgs = [_image(fig, f"partition {p}") for p in range(4)]
    assert all(img.shape[:2] == (32, 256) for img in imgs)
    assert sum(int((~np.all(img == 1.0, axis=-1)).sum()) for img in imgs) == 128 * 256
    assert _marked(fig) == [("partition 1", 5, 200)]         # row 37 -> TLane 37, col 200 -> TCol 200
    lab = _labels(viz.draw_tmem(acc, name="D", tcols=(198, 202)))
    assert lab[("partition 1", 5, 2)] == "37,200" and lab[("partition 0", 0, 0)] == "0,198"


def test_draw_tmem_replica_colours_and_bad_input():
    _render(viz.draw_tmem(lk.scale_factor_layout(128, 4), color_by="replica", arrange="stacked", **SFA))
    _render(viz.draw_tmem(lk.parse_axe("S[(32,4):(1@TLane,1@TCol)] + R[4:32@TLane]"), arrange="side"))
    with pytest.raises(LayoutError, match="TLane"):
        viz.draw_tmem(lk.mesh_layout("replica"))
    with pytest.raises(LayoutError, match="byte"):
        viz.draw_tmem(lk.parse_axe("S[(32,8):(1@TLane,1@byte)]"))
    with pytest.raises(LayoutError, match="tcols"):
        viz.draw_tmem(lk.tmem_accumulator_layout(), tcols=(5, 5))
    with pytest.raises(LayoutError, match="highlight"):
        viz.draw_tmem(lk.tmem_accumulator_layout(), highlight=(128, 0))
    with pytest.raises(LayoutError, match="shape"):
        viz.draw_tmem(lk.tmem_accumulator_layout(), shape=(3, 5))
    with pytest.raises(LayoutError, match="color_by"):
        viz.draw_tmem(lk.tmem_accumulator_layout(), color_by="rainbow")


def _device_slots(fig, mode):
    """{(i, j): {(gpuid_x, gpuid_y, local offset)}} read from the device blocks of one panel."""
    out: dict = {}
    for (block, r, c), text in _labels(fig, r"\d+,\d+\+?").items():
        if block.startswith(f"{mode}: GPU"):
            dx, dy = (int(v) for v in block[block.index("(") + 1:-1].split(","))
            i, j = (int(v) for v in text.rstrip("+").split(","))
            out.setdefault((i, j), set()).add((dx, dy, 8 * r + c))
    return out


def test_draw_mesh_three_modes_follow_seed_001():
    fig = viz.draw_mesh()
    _render(fig)
    # seed 001: element (1,2,3) of the (2,4,8) view, i.e. (6,3) of the 8x8 matrix, local offset 19
    rep, off, shard = (_device_slots(fig, m) for m in ("replica", "offset", "sharded"))
    assert rep[(6, 3)] == {(0, 1, 19), (1, 1, 19)}            # base + R[2:1@gpuid_x]
    assert off[(6, 3)] == {(1, 1, 19)}                        # base + O[1@gpuid_x]
    for i in range(8):
        for j in range(8):
            local = (i % 4) * 8 + j                           # S[(2,4,8):(1@gpuid_y,8@m,1@m)]
            assert rep[(i, j)] == {(0, i // 4, local), (1, i // 4, local)}
            assert off[(i, j)] == {(1, i // 4, local)}
            # fully sharded: rows split over gpuid_y, columns over gpuid_x, a 4x4 block per device
            assert shard[(i, j)] == {(j // 4, i // 4, (i % 4) * 4 + j % 4)}
    lab = _labels(fig)
    assert lab[("replica: matrix", 6, 3)] == lab[("offset: matrix", 6, 3)] == "19"
    assert lab[("sharded: matrix", 6, 3)] == "11"
    # replicas: the copies R adds (gpuid_x = 1) are outlined, 64 of them; no outlines elsewhere
    marked = _marked(fig)
    assert len(marked) == 64 and all(b.startswith("replica: GPU (1,") for b, _, _ in marked)
    # the offset: one arrow per occupied device, from gpuid_x = 0 to gpuid_x = 1
    arrows = [t for t in fig.axes[0].texts if t.get_text() == "O[1@gpuid_x]"]
    assert len(arrows) == 2
    assert "element (6,3) is on devices (0,1) (1,1) at local offset 19" in fig.alt_text


@pytest.mark.parametrize("mode", ["sharded", "replica", "offset"])
def test_draw_mesh_single_mode_and_layout(mode):
    fig = viz.draw_mesh(mode)
    _render(fig)
    assert set(b.split(":")[0] for b in fig.blocks) == {mode}
    same = viz.draw_mesh(lk.mesh_layout(mode))
    assert _device_slots(same, "layout 0") == _device_slots(fig, mode)


def test_draw_mesh_bad_input():
    with pytest.raises(LayoutError, match="mode"):
        viz.draw_mesh("mirrored")
    with pytest.raises(LayoutError, match="axes"):
        viz.draw_mesh(lk.tmem_accumulator_layout())
    with pytest.raises(LayoutError, match="layout"):
        viz.draw_mesh(42)
    with pytest.raises(LayoutError, match="shape"):
        viz.draw_mesh("replica", shape=(3, 3))


def test_notebook_png_is_a_small_palette_image_of_the_same_drawing():
    # the PNG a notebook (and the book) shows: a 256-colour palette of the drawing at 100 dpi,
    # the cells' colours kept (flat fills quantize to themselves)
    import io

    from PIL import Image
    fig = viz.draw_layout(lk.parse_layout("(16,16):(16,1)"))
    shown = fig._repr_png_()
    img = Image.open(io.BytesIO(shown))
    assert img.mode == "P"
    w, h = fig.get_size_inches() * 100
    assert img.size == (round(w), round(h))
    full = png_bytes(fig, dpi=100)
    ref = np.asarray(Image.open(io.BytesIO(full)).convert("RGB"), dtype=float)
    got = np.asarray(img.convert("RGB"), dtype=float)
    assert ref.shape == got.shape and np.abs(ref - got).mean() < 2.0
    assert len(shown) < len(full) / 2


# -- on a page: SVG with real text, sized so the smallest text stays legible -----------------

def _page_svg(fig):
    import re
    import xml.etree.ElementTree as ET
    page = fig._repr_html_()
    svg = re.search(r"<svg.*</svg>", page, re.S).group(0)
    style = dict(re.findall(r"--(\w)+:([\d.]+)px", re.search(r'<figure class="lkfs"[^>]*style="([^"]*)"', page).group(1)))
    return page, ET.fromstring(svg), {k: float(v) for k, v in style.items()}


@pytest.mark.parametrize("draw", [
    lambda: viz.draw_layout(lk.parse_layout("(16,16):(16,1)")),
    lambda: viz.draw_tiled_copy(lk.make_tiled_copy_A(lk.copy_atom("SM75_U32x4_LDSM_N", "f16"),
                                                     lk.make_tiled_mma("SM80_16x8x16_F16F16F16F16_TN"))),
    lambda: viz.draw_swizzle_atom("SWIZZLE_128B", "fp16"),
])
def test_drawing_shows_as_svg_text_no_smaller_than_the_limits(draw):
    from labkit.viz.svg import DESK_TEXT_PX, PHONE_TEXT_PX, text_sizes
    fig = draw()
    page, root, css = _page_svg(fig)
    texts = [t for t in root.iter("{http://www.w3.org/2000/svg}text")]
    lines = sum(len(t.get_text().split("\n")) for t in fig.findobj(matplotlib.text.Text)
                if t.get_visible() and t.get_text().strip())
    assert len(texts) == lines > 10                            # every label line is text, not pixels
    assert page.count('tabindex="0"') == 1 and "data:image/png;base64" in page  # fills: one small image
    # font sizes are in viewBox units: at the narrow and wide minimum widths the smallest is at the limit
    vb_width = float(root.get("viewBox").split()[2])
    smallest = min(float(t.get("style").split("font-size: ")[1].split("px")[0]) for t in texts)
    assert smallest == pytest.approx(min(text_sizes(fig)))
    assert smallest * css["p"] / vb_width == pytest.approx(PHONE_TEXT_PX, abs=0.01)
    assert smallest * css["d"] / vb_width == pytest.approx(DESK_TEXT_PX, abs=0.01)
    assert PHONE_TEXT_PX >= 9 and DESK_TEXT_PX >= 11        # the book's limits, 390 px and 1366 px screens


def test_page_figure_shows_a_pyplot_chart_once_and_checks_its_input():
    import matplotlib.pyplot as plt
    from labkit.errors import LabkitError
    from labkit.viz.svg import page_figure
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar([0, 1], [3, 5])
    shown = page_figure(fig, alt="two bars, 3 and 5")
    assert not plt.fignum_exists(fig.number)
    assert "<svg" in shown._repr_html_() and shown._repr_png_()[:4] == b"\x89PNG"
    with pytest.raises(LabkitError, match="fig"):
        page_figure("not a figure", alt="x")


def test_draw_bars_labels_every_value_and_rejects_bad_rows():
    from labkit.errors import LabkitError
    from labkit.viz.charts import CHART_FONT_PT, draw_bars
    from labkit.viz.svg import text_sizes
    rows = [("1 naive", {"f32": 0.926, "f16": 0.927}), ("cuBLAS", {"cuBLAS": 754.4})]
    fig = draw_bars(rows, title="t", unit="TFLOP/s")
    fig.draw_without_rendering()                                # tick labels get their text
    texts = [t.get_text().strip() for t in fig.findobj(matplotlib.text.Text)]
    for v in ("0.926", "0.927", "754", "1 naive", "cuBLAS", "1", "10", "100"):
        assert v in texts
    assert min(text_sizes(fig)) >= CHART_FONT_PT >= 9
    with pytest.raises(LabkitError, match="rows"):
        draw_bars([], title="t", unit="u")
    with pytest.raises(LabkitError, match="log scale"):
        draw_bars([("a", {"x": 0.0})], title="t", unit="u")
