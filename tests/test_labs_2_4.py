"""Labs 2-4 (tiling, named axes, replication and offset) run on a CPU and print the facts of the
seeds, CuTe and the PTX ISA.

Every expected value is worked out by hand in the comment beside it: from seed 001 (the tiled
8x8 matrix, the m8n8 fragment, SFA in TMEM, the GPU mesh), seed 000 and FACTS.md (the
m16n8k16 fragments, the sgemm_sm80 shared-memory atom, the ldmatrix source layouts), CuTe's
layout algebra (complement, the divides and products, make_ordered_layout's rule for dynamic
orders), the PTX ISA's mma fragment figures and the OCP number formats. None is copied from
running the labs.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
LABS = {name: REPO / "notebooks" / f"{name}.ipynb"
        for name in ("02_tiling", "03_named_axes", "04_replication_offset")}
FIRST_LAB = REPO / "notebooks" / "01_shape_stride.ipynb"
WIDGET = "application/vnd.jupyter.widget-view+json"


def stdout(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", [])
                   if o.output_type == "stream" and o.get("name") == "stdout")


def execute(executed_page, name: str):
    """The lab, executed: (notebook, {first line of a code cell: what it printed})."""
    nb = executed_page(LABS[name])
    for cell in nb.cells:
        errors = [o for o in cell.get("outputs", []) if o.output_type == "error"]
        assert not errors, (cell.source, errors)
    out = {c.source.splitlines()[0]: stdout(c) for c in nb.cells
           if c.cell_type == "code" and c.source.strip()}
    return nb, out


def output_of(out: dict[str, str], start: str) -> list[str]:
    """The printed lines of the one code cell whose first line starts with ``start``."""
    found = [text for first, text in out.items() if first.startswith(start)]
    assert len(found) == 1, (start, len(found))
    return found[0].splitlines()


def line_with(lines: list[str], start: str) -> str:
    found = [line for line in lines if line.startswith(start)]
    assert len(found) == 1, (start, lines)
    return found[0]


def value_after(line: str, marker: str, end: str | None = None):
    """The Python literal printed after ``marker`` (up to ``end``)."""
    text = line.split(marker, 1)[1]
    if end is not None:
        text = text.split(end, 1)[0]
    return ast.literal_eval(text.strip())


def outputs_of_kind(nb, source_start: str) -> set[str]:
    cell = next(c for c in nb.cells if c.cell_type == "code" and c.source.startswith(source_start))
    return {key for o in cell.outputs for key in o.get("data", {})}


def table_rows(lines: list[str]) -> list[list[int]]:
    """The offsets of a print_layout table, one list per row."""
    return [[int(v) for v in line.split("|")[1:-1]] for line in lines if line.count("|") > 1]


@pytest.fixture(scope="module")
def lab2(executed_page):
    return execute(executed_page, "02_tiling")


@pytest.fixture(scope="module")
def lab3(executed_page):
    return execute(executed_page, "03_named_axes")


@pytest.fixture(scope="module")
def lab4(executed_page):
    return execute(executed_page, "04_replication_offset")


# ---------------------------------------------------------------------------------------------
# the shape of every lab


@pytest.mark.parametrize("name", list(LABS))
def test_lab_is_a_colab_lab_of_small_experiments(name):
    nb = nbformat.read(LABS[name], as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    colab = [c.source for c in nbformat.read(FIRST_LAB, as_version=4).cells if c.cell_type == "code"][0]
    assert code[0] == colab                              # the same install cell as lab 1
    assert 15 <= len(nb.cells) <= 27
    assert not any(re.search(r"^\s*(def|class)\s", c, flags=re.M) for c in code)
    assert "import labkit as lk" in "\n".join(code)
    assert text.startswith(f"# Lab {int(name[:2])}:")
    assert text.count("**Try this.**") >= 2
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")   # kept clean


# ---------------------------------------------------------------------------------------------
# lab 2: tiling


def test_lab2_divides_the_cute_documentation_example(lab2):
    _, out = lab2
    lines = output_of(out, 'A = lk.parse_layout("(_4,_2,_3):(_2,_1,_8)")')
    # A = (4,2,3):(2,1,8), B = 4:2. complement(4:2, 24) = (2,3):(1,8); A at B's indices 0,2,4,6
    # gives offsets 0,4,1,5 = (2,2):(4,1), at the complement's 1 and 8,16 gives (2,3):(2,8)
    assert lines == ["logical_divide: ((_2,_2),(_2,_3)):((_4,_1),(_2,_8))", "prediction right: True"]
    steps = output_of(out, "Bc = lk.complement(B, lk.size(A))")
    assert steps[0].endswith(" (_2,_3):(_1,_8)")
    assert steps[1].endswith(" (_4,(_2,_3)):(_2,(_1,_8))")
    assert steps[2].endswith(" ((_2,_2),(_2,_3)):((_4,_1),(_2,_8))")
    # (2,2):(4,1) walks 0,4,1,5; (2,3):(2,8) starts the tiles at 0,2,8,10,16,18
    assert value_after(steps[3], ":") == [0, 4, 1, 5]
    assert value_after(steps[4], ":") == [0, 2, 8, 10, 16, 18]
    assert steps[5].endswith("True")        # A is a bijection onto 0..23, and so is the divide


def test_lab2_tiles_an_8x16_matrix(lab2):
    nb, out = lab2
    lines = output_of(out, "M = lk.make_layout((S(8), S(16)), (S(16), S(1)))")
    # row-major 8x16 in 4x8 tiles: a tile is (4,8):(16,1); tiles step 4 rows = 64 and 8 columns
    assert lines[0].endswith(" ((_4,_8),(_2,_2)):((_16,_1),(_64,_8))")
    assert lines[1].endswith(" ((_4,_8),_2,_2):((_16,_1),_64,_8)")
    assert value_after(lines[2], ":") == [[0, 8], [64, 72]]
    # element (1,3) of tile (1,1) is row 4+1, column 8+3: 5*16 + 11 = 91
    assert lines[3].split() == ["Z((1,3),(1,1))", "=", "91", "M(5,11)", "=", "91"]
    # the playground, and the same playground after its menu is changed from code
    assert WIDGET in outputs_of_kind(nb, "pg = lk.widgets.divide_product_playground(")
    shown = output_of(out, "print(pg.message.value)")
    assert shown[0] == "zipped_divide = ((_4,_8),(_2,_2)):((_16,_1),(_64,_8))"
    assert shown[1].startswith("tiled_divide = ((_4,_8),_2,_2):((_16,_1),_64,_8)")


def test_lab2_blocked_and_raked_products(lab2):
    _, out = lab2
    lines = output_of(out, 'block = lk.parse_layout("(_2,_2):(_2,_1)")')
    # logical_product: complement((2,2):(2,1), 4*6) = 6:4, composed with the row-major (2,3):(3,1)
    # gives (2,3):(12,4). blocked pairs (block, tiler) per mode, raked (tiler, block); no mode
    # coalesces (2*2 != 12, 1*2 != 4, 2*12 != 2, 3*4 != 1)
    assert lines[0].split() == ["blocked", "((_2,_2),(_2,_3)):((_2,_12),(_1,_4))"]
    assert value_after(lines[1], "at") == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert lines[2].split() == ["raked", "((_2,_2),(_3,_2)):((_12,_2),(_4,_1))"]
    # raked: offsets 0..3 a tiler step apart, 2 rows and 3 columns
    assert value_after(lines[3], "at") == [(0, 0), (0, 3), (2, 0), (2, 3)]
    rows = table_rows(lines)
    blocked = [[2 * (i % 2) + 12 * (i // 2) + (j % 2) + 4 * (j // 2) for j in range(6)] for i in range(4)]
    raked = [[12 * (i % 2) + 2 * (i // 2) + 4 * (j % 3) + j // 3 for j in range(6)] for i in range(4)]
    assert rows == blocked + raked
    # CuTe's documentation: logical_product((2,2):(4,1), 6:1); complement in 24 is (2,3):(2,8)
    product = output_of(out, "P = lk.logical_product(")
    assert product[0] == "((_2,_2),(_2,_3)):((_4,_1),(_2,_8))"
    assert value_after(product[1], ":") == [0, 2, 8, 10, 16, 18]


def test_lab2_static_and_dynamic_results(lab2):
    _, out = lab2
    lines = output_of(out, "for target in (S(16), 16):")
    # CuTe's complement of 4:2: first mode 2/1 = 2 with stride 1, the rest ceil_div(16, 4*2) = 2 at
    # stride 8; only a static target keeps that last extent static
    assert lines[0].endswith(" (_2,_2):(_1,_8)")
    assert lines[1].endswith(" (_2,2):(_1,_8)")
    assert lines[2].endswith(" (2,2):(_1,8)")
    # make_ordered_layout((_4,_2,_3), order): static orders by value -> modes 1, 2, 0 get strides
    # 1, 2, 6. All dynamic: each becomes max static (0) + 1 + its position -> column-major. Mixed
    # (_2, 0, _1): the dynamic 0 becomes 2 + 1 + 1 = 4 -> modes 2, 0, 1 get 1, 3, 12
    assert lines[3].split()[-1] == "(_4,_2,_3):(_6,_1,_2)"
    assert lines[4].split()[-1] == "(_4,_2,_3):(_1,_4,_8)"
    assert lines[5].split()[-1] == "(_4,_2,_3):(_3,_12,_1)"
    # a dynamic shape: only the unit stride is known at compile time
    assert lines[6].split()[-1] == "(4,2,3):(6,_1,2)"


def test_lab2_shared_memory_tile(lab2):
    nb, out = lab2
    lines = output_of(out, 'atom = lk.parse_layout("(_8,(_8,_8)):(_8,(_1,_64))")')
    # FACTS.md: sgemm_sm80's atom; 128/8 = 16 atoms down, 64/64 = 1 across, atoms 512 apart
    assert lines[0].split()[1:] == ["(_8,(_8,_8)):(_8,(_1,_64))", "size", "512"]
    assert lines[1].split()[1:] == ["((_8,_16),((_8,_8),_1)):((_8,_512),((_1,_64),_0))",
                                    "size", "8192", "cosize", "8192"]
    # row 9 = (1, 1): 8 + 512; column 10 = (2, 1): 2 + 64
    assert lines[2] == "element (9, 10) at offset 586"
    # Sw<3,3,3>: 586 = 0b1001001010; bits 6-8 (001) XOR bits 3-5 (001) -> 0b1001000010 = 578
    assert lines[3] == "swizzled: 578"
    big = output_of(out, "for order in (None, (S(1), S(0))):")
    # repeats (16, 2): column-major (16,2):(1,16) -> strides x512 = (512, 8192), column mode
    # ((8,8),2):((1,64),8192); row order (16,2):(2,1) -> (1024, 512), ((8,8),2):((1,64),512).
    # CuTe C++ (g++) prints both uncoalesced. Column 64 is the second column repeat: 8192, or
    # the next atom: 512
    assert big[0].split()[-5:] == ["((_8,_16),((_8,_8),_2)):((_8,_512),((_1,_64),_8192))",
                                   "(0,", "64)", "->", "8192"]
    assert big[1].split()[-5:] == ["((_8,_16),((_8,_8),_2)):((_8,_1024),((_1,_64),_512))",
                                   "(0,", "64)", "->", "512"]
    assert WIDGET in outputs_of_kind(nb, "lk.widgets.layout_explorer(")


# ---------------------------------------------------------------------------------------------
# lab 3: named axes


def test_lab3_converts_the_m16n8k8_atom(lab3):
    nb, out = lab3
    lines = output_of(out, 'atom = lk.mma_atom("SM80_16x8x8_F16F16F16F16_TN")')
    # FACTS.md: CuTe's SM80_16x8x8 layouts
    assert lines[0].startswith("SM80_16x8x8_F16F16F16F16_TN  M, N, K = (16, 8, 8)")
    assert lines[1:] == ["A: ((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", "B: ((_4,_8),_2):((_16,_1),_8)",
                         "C: ((_4,_8),(_2,_2)):((_32,_1),(_16,_8))"]
    assert WIDGET in outputs_of_kind(nb, "lk.widgets.layout_explorer(")
    frags = output_of(out, 'tiles = {"A": (atom.layout_A, (M, K))')
    # PTX ISA m16n8k8 A (and C): row = lane/4 (+8 for slots 2,3), column 2*(lane%4) + slot%2.
    # The row-major index 8m + k has digits (m/8, m%8, k/2, k%2) -> reg 2, lane 4, lane 1, reg 1
    assert frags[0] == "A: S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]"
    # seed 001: B of m16n8k8 is the m8n8 fragment
    assert frags[1] == "B: S[(8,4,2):(4@laneid,1@laneid,1@reg)]"
    assert frags[2] == "C: S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]"
    assert frags[3] == "B is the m8n8 fragment: True"


def test_lab3_looks_up_both_ways(lab3):
    _, out = lab3
    lines = output_of(out, "row, col = 5, 3")
    # seed 001: element (5,3) is in lane 5*4 + 3//2 = 21, slot 3 % 2 = 1; lane 21 holds row 5,
    # columns 2 and 3
    assert lines[0] == "TV layout:  B(5,3) is thread 21, value 1"
    assert value_after(lines[1], "->") == [{"laneid": 21, "reg": 1}]
    assert value_after(lines[2], ":") == [(5, 2), (5, 3)]
    assert value_after(lines[3], ":") == [(5, 2), (5, 3)]
    every = output_of(out, "for op, (tv, (rows, cols)) in tiles.items():")
    # 16x8 A, 8x8 B, 16x8 C: every element in the lane and slot of the TV layout
    assert every == ["A: 128 of 128 elements in the same lane and slot",
                     "B: 64 of 64 elements in the same lane and slot",
                     "C: 128 of 128 elements in the same lane and slot"]


def test_lab3_m16n8k16_fragments(lab3):
    nb, out = lab3
    lines = output_of(out, 'atom16 = lk.mma_atom("SM80_16x8x16_F16F16F16F16_TN")')
    # seed 000: lane = 4(m%8) + (k%8)/2, slot = k%2 + 2(m/8) + 4(k/8); digits of 16m + k are
    # (m/8, m%8, k/8, (k%8)/2, k%2)
    assert lines[0] == "A: S[(2,8,2,4,2):(2@reg,4@laneid,4@reg,1@laneid,1@reg)]"
    # seed 000: A(0,9) is lane 0, value 5
    assert value_after(lines[1], "->", "TV:") == [{"laneid": 0, "reg": 5}]
    assert value_after(lines[1], "TV:") == (0, 5)
    # FACTS.md (the H200 probe): lane 0 held A(0,0),A(0,1),A(8,0),A(8,1),A(0,8),A(0,9),A(8,8),A(8,9)
    assert value_after(lines[2], ":") == [(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9)]
    # PTX ISA: C(m, n) in lane 4(m%8) + n/2, slot n%2 + 2(m/8); C(10,5): lane 4*2 + 2, slot 1 + 2
    assert lines[3] == "C: S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]"
    assert value_after(lines[4], "->", "TV:") == [{"laneid": 10, "reg": 3}]
    assert value_after(lines[4], "TV:") == (10, 3)
    assert "text/html" in outputs_of_kind(nb, "html.mma_figure()")


def test_lab3_warps_and_tensor_memory(lab3):
    nb, out = lab3
    lines = output_of(out, "tiled = lk.make_tiled_mma(atom16")
    # four warps down M: a 64x8 tile, warp w owns rows 16w..16w+15; digits of 8m + n are
    # (m/16, (m%16)/8, m%8, n/2, n%2). C(37,3): warp 2, then (5,3) of the atom: lane 21, slot 1
    assert lines[0].startswith("C tile (64, 8)")
    assert lines[1] == "S[(4,2,8,4,2):(1@warpid,2@reg,4@laneid,1@laneid,1@reg)]"
    assert value_after(lines[2], "->") == [{"warpid": 2, "laneid": 21, "reg": 1}]
    assert lines[3] == "warp 2 holds rows 32 to 47"
    acc = output_of(out, "acc = lk.tmem_accumulator_layout(m=128, n=256)")
    # seed 001: row -> TLane, column -> TCol; lanes 32w..32w+31 belong to warp w of the warpgroup
    assert acc[0] == "S[(128,256):(1@TLane,1@TCol)]"
    assert acc[1] == "D(100,7) -> TLane 100, TCol 7; lanes of warp 3"
    assert acc[2] == "D(37,200) -> TLane 37, TCol 200; lanes of warp 1"
    # 96*256 + 10 = 24586
    assert acc[3] == "TLane 96, TCol 10 holds index 24586 = element (96, 10)"
    second = output_of(out, 'acc2 = acc.with_offset({"TCol": 256})')
    # 200 + 256 = 456; columns 256..511; an offset of 300 would reach 300 + 255 = 555 > 511
    assert second[0] == "S[(128,256):(1@TLane,1@TCol)] + O[256@TCol]"
    assert value_after(second[1], "->") == [{"TLane": 37, "TCol": 456}]
    assert second[2] == "columns: first (0, 255)  second (256, 511)"
    assert second[3].startswith("LayoutError:") and "555" in second[3] and "512" in second[3]
    assert "image/png" in outputs_of_kind(nb, "viz.draw_tmem(acc")


# ---------------------------------------------------------------------------------------------
# lab 4: replication and offset


def test_lab4_formats_and_products(lab4):
    _, out = lab4
    lines = output_of(out, "for fmt in (lk.NVFP4, lk.MXFP8):")
    # seed 001: NVFP4 = E2M1 data, an E4M3 scale per 16; MXFP8 = FP8 data, an E8M0 scale per 32
    assert lines[0].startswith("NVFP4: e2m1 data, ue4m3 scales, one scale per 16 K-elements; "
                               "K = 128 needs 8 scales per row")
    assert lines[1].startswith("MXFP8: e4m3 data, ue8m0 scales, one scale per 32 K-elements; "
                               "K = 128 needs 4 scales per row")
    # OCP MX formats: E2M1 magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6; E4M3 max 1.75 * 2**8 = 448;
    # E8M0 is 2**(code - 127)
    assert value_after(lines[2], ":") == [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
    assert value_after(lines[3], ":") == 448.0
    assert value_after(lines[4], ":") == [0.25, 0.5, 1.0, 2.0, 4.0]
    by_hand = output_of(out, "a, b = np.full((1, 64), 6.0), np.full((64, 1), 0.5)")
    # 16 * 6 * 0.5 = 48 per NVFP4 block: 48 * (1*1 + 2*1 + 0.5*4 + 0.25*8) = 336;
    # 32 * 6 * 0.5 = 96 per MXFP8 block: 96 * (0.5*2 + 4*0.125) = 144
    assert by_hand == ["NVFP4: [[336.0]]   MXFP8: [[144.0]]"]
    checked = output_of(out, "M, N, K = 64, 32, 128")
    # K = 128: 128/16 = 8 NVFP4 scales per row, 128/32 = 4 MXFP8 scales; numpy agrees
    assert checked[0].startswith("NVFP4: SFA (64, 8), SFB (32, 8), D (64, 32);")
    assert checked[1].startswith("MXFP8: SFA (64, 4), SFB (32, 4), D (64, 32);")
    assert all(line.endswith("agree: True") for line in checked) and len(checked) == 2
    refused = output_of(out, "try:")
    assert refused[0].startswith("LayoutError:") and "e2m1" in refused[0]


def test_lab4_scale_factors_in_tmem(lab4):
    nb, out = lab4
    lines = output_of(out, "sfa_tmem = lk.scale_factor_layout(mn=128, sf_k=4)")
    # seed 001: local_lane = m % 32, TCol = m // 32, byte = sfk, copied to lanes + 32p
    assert lines[0] == "S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]"
    assert value_after(lines[1], "->") == [(0, 2, 2), (32, 2, 2), (64, 2, 2), (96, 2, 2)]
    # SFA[45,3]: lane 13, TCol 1, byte 3
    assert value_after(lines[2], "->") == [(13, 1, 3), (45, 1, 3), (77, 1, 3), (109, 1, 3)]
    # TLane 70 = partition 2, local lane 6; TCol 1 = Mgroup 1: m = 6 + 32 = 38, all four bytes
    assert value_after(lines[3], "SFA") == [(38, 0), (38, 1), (38, 2), (38, 3)]
    sfb = output_of(out, "sfb_tmem = lk.scale_factor_layout(mn=256, sf_k=4)")
    # SFB[200,1]: 200 % 32 = 8, 200 // 32 = 6, byte 1
    assert value_after(sfb[0], "->") == [(8, 6, 1), (40, 6, 1), (72, 6, 1), (104, 6, 1)]
    # 32 lanes x 256/32 = 8 columns x 4 bytes = 1024 bytes; four partitions: 4096
    assert sfb[1].endswith("lanes (0, 31), 256 cells = 1024 bytes")
    assert sfb[2].endswith("lanes (0, 127), 1024 cells = 4096 bytes")
    assert sfb[3] == "every copy in its own byte: True"
    assert "text/html" in outputs_of_kind(nb, "html.sfa_tmem_figure(")


def test_lab4_mesh_in_three_modes(lab4):
    nb, out = lab4
    lines = output_of(out, 'xy_m = ("gpuid_x", "gpuid_y", "m")')
    got = {line.split()[0]: line for line in lines}
    # seed 001: (1,2,3) -> gpuid_y 1, local 2*8 + 3 = 19; replica on both gpuid_x, offset only on
    # gpuid_x 1. Sharded: row 4 + 2 = 6, column 3 < 4 -> gpuid_x 0, local (6 % 4)*4 + 3 = 11
    assert got["sharded"].endswith("(1, 2, 3) -> devices [(0, 1)], local offset [11]")
    assert got["replica"].endswith("(1, 2, 3) -> devices [(0, 1), (1, 1)], local offset [19]")
    assert got["offset"].endswith("(1, 2, 3) -> devices [(1, 1)], local offset [19]")
    assert "+ R[2:1@gpuid_x]" in got["replica"] and "+ O[1@gpuid_x]" in got["offset"]
    counts = output_of(out, "for mode in lk.MESH_MODES:")
    # a quarter each; half each (the matrix twice); the gpuid_x = 0 devices empty
    assert value_after(counts[0], ":") == {(0, 0): 16, (0, 1): 16, (1, 0): 16, (1, 1): 16}
    assert value_after(counts[1], ":") == {(0, 0): 32, (0, 1): 32, (1, 0): 32, (1, 1): 32}
    assert value_after(counts[2], ":") == {(0, 0): 0, (0, 1): 0, (1, 0): 32, (1, 1): 32}
    assert counts[3] == "sharded, GPU (1, 0): rows [0, 1, 2, 3] columns [4, 5, 6, 7]"
    mine = output_of(out, 'mine = lk.parse_axe("S[(8,2,4):(4@m,1@gpuid_x,1@m)]')
    # (5,6): index 46 = digits (5, 1, 2): gpuid_x 1, local 5*4 + 2 = 22, on both gpuid_y
    assert value_after(mine[1], "->") == [(1, 0, 22), (1, 1, 22)]
    assert "image/png" in outputs_of_kind(nb, 'mine = lk.parse_axe(')
    assert "text/html" in outputs_of_kind(nb, "html.mesh_figure()")


def test_lab4_ldmatrix_source_replica(lab4):
    _, out = lab4
    lines = output_of(out, 'x2 = lk.copy_atom("SM75_U32x2_LDSM_N", "f16")')
    # FACTS.md: x2 source in 16-bit elements ((16,2),8):((8,0),1); the stride-0 thread mode of
    # extent 2 at thread stride 16 is R[2:16@laneid]. Index 43 = row 5, half 3: lanes 5 and 21
    assert lines[0] == "source TV: ((_16,_2),_8):((_8,_0),_1)"
    assert lines[1] == "S[(16,8):(1@laneid,1@reg)] + R[2:16@laneid]"
    assert value_after(lines[2], "->") == [{"laneid": 5, "reg": 3}, {"laneid": 21, "reg": 3}]
