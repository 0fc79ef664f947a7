"""Chapters 1-4 of the book run and show the facts of the seeds, and their graded exercises hold.

Each chapter page (a MyST notebook) is executed with jupytext + nbclient; its printed output
must contain the values the seeds, CuTe or the PTX ISA give (the expected strings below are
written from those sources, not from running labkit). The graded exercises are checked in
``test_exercises.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest

REPO = Path(__file__).resolve().parents[1]
BOOK = REPO / "book"
PAGES = ["01_shape_stride", "02_tiling", "03_named_axes", "04_replication_offset"]

# What each page must print: text that the printed output of one of its code cells contains.
FACTS = {
    "01_shape_stride": [
        # a dynamic shape gets CuTe's LayoutLeft stride with a static unit stride first
        "(4,8):(_1,4)\n(_4,_8):(_1,_4)",
        # flat index 13 of shape (4,8) is (13 % 4, 13 // 4); NumPy order would give (1, 5)
        "CuTe, colexicographic: (1, 3)",
        "Axe,   lexicographic:  (1, 5)",
        # seed 000, section 3: a static zero stride is a broadcast, a dynamic one is not
        "block (_2,_2,_2):(_1,_0,_2)",
        "block (_2,_2,_2):(_1,_2,_4)",
        # CuTe merges modes only when it can prove it at compile time
        "_32:_1\n(4,8):(1,4)\n(_4,_8):(_8,_1)",
        # seed 001: arange(12).reshape(3, 4) has strides (4, 1); its transpose (1, 4), same storage
        "(3, 4) (4, 1)",
        "(4, 3) (1, 4)\nTrue",
        # S[(4,4):(4,1)] read colexicographically is S[(4,4):(1,4)]
        "S[(4,4):(1,4)]\nTrue",
    ],
    "02_tiling": [
        # seed 001: the 8x8 matrix in 2x4 tiles
        "S[(4,2,2,4):(16,4,8,1)]",
        # (2,5): x = 21 = (1,0,1,1) -> 16 + 8 + 1 = 25
        "element (2, 5): x = 21, digits (1, 0, 1, 1), address 25",
        # the same map on coordinates, CuTe order inside each mode
        "((_2,_4),(_4,_2)):((_4,_16),(_1,_8))\nTrue",
        "(_4,_2,_2,_4):(_1,_8,_4,_16)\nTrue",
        # CuTe's composition example (layout algebra documentation)
        "((_2,_2),_3):((_24,_2),_8)\nTrue",
        # tile (1,1) of the row-major matrix starts at row 2, column 4
        "starts at offset 20",
        # blocked_product of the row-major tile by the row-major tile order is the seed's storage
        "((_2,_4),(_4,_2)):((_4,_16),(_1,_8)) True",
        # seed 000: rest (4,(2,2)):(1,(4,8)) from order (_2048,(144,288)); the fragment tCrA
        "(_4,(_2,_2)):(_1,(_4,_8))",
        "((_2,_2,_2),_4,(_2,_2)):((_1,_2,_4),_8,(_32,_64))",
    ],
    "03_named_axes": [
        "S[(128,256):(1@TLane,1@TCol)]",
        # seed 001: element (5,3) of the m8n8 fragment is index 43, lane 21, slot 1
        "S[(8,4,2):(4@laneid,1@laneid,1@reg)]",
        "element (5, 3): x = 43",
        "{'laneid': 21, 'reg': 1}",
        "lane 21 holds [(5, 2), (5, 3)]",
        # seed 000: A(0,9) is held by lane 0 in slot 5
        "A(0, 9) -> [{'reg': 5, 'laneid': 0}]",
        # the m16n8k8 B operand, read from its TV layout, is the m8n8 fragment itself
        "S[(8,4,2):(4@laneid,1@laneid,1@reg)] True",
    ],
    "04_replication_offset": [
        # the block-scaled product agrees with the blockwise sum exactly
        "largest difference: 0.0",
        "S[(4,32,4):(1@TCol,1@TLane,1@byte)] + R[4:32@TLane]",
        # seed 001: SFA[64,2] at (0,2,2), (32,2,2), (64,2,2), (96,2,2)
        "[(0, 2, 2), (32, 2, 2), (64, 2, 2), (96, 2, 2)]",
        # seed 001: element (1,2,3) on gpuid_y 1 at local offset 19; replica on both gpuid_x,
        # offset only on gpuid_x 1
        "{'gpuid_y': 1, 'm': 19}",
        "+ R[2:1@gpuid_x]  (1, 2, 3) -> [(0, 1, 19), (1, 1, 19)]",
        "+ O[1@gpuid_x]  (1, 2, 3) -> [(1, 1, 19)]",
    ],
}


def page_path(name: str) -> Path:
    return BOOK / f"{name}.md"


@pytest.fixture(scope="module", params=PAGES)
def executed(request, executed_page):
    """One chapter page, executed: (name, notebook)."""
    return request.param, executed_page(page_path(request.param))


def stream_text(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


def test_page_runs_and_prints_the_seed_facts(executed):
    name, nb = executed
    code = [c for c in nb.cells if c.cell_type == "code"]
    for cell in code:
        assert not any(o.output_type == "error" for o in cell.outputs), cell.source
    printed = [stream_text(c) for c in code]
    for expected in FACTS[name]:
        assert any(expected in out for out in printed), f"{name}: no cell prints {expected!r}"


def test_page_shows_its_figures(executed):
    name, nb = executed
    kinds = [k for c in nb.cells if c.cell_type == "code" for o in c.outputs
             for k in o.get("data", {})]
    if name != "01_shape_stride":
        assert "text/html" in kinds, f"{name}: an interactive figure should be on the page"
    if name != "04_replication_offset":
        assert "image/png" in kinds, f"{name}: a matplotlib figure should be on the page"


@pytest.mark.parametrize("name", PAGES)
def test_page_defines_no_helpers_and_glues_what_it_cites(name):
    nb = jupytext.read(page_path(name))
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert "import labkit as lk" in code
    assert not re.search(r"^\s*(def|class)\s", code, flags=re.M)
    cited = set(re.findall(r"\{glue:?\w*\}`([^`]+)`", text))
    glued = set(re.findall(r"glue\(f?\"([^\"]+)\"", code))
    # a glue key written as an f-string ("ch1_cosize_{zero}") stands for its filled-in names
    patterns = [re.compile(re.sub(r"\\\{\w+\\\}", r"\\w+", re.escape(g)) + r"\Z") for g in glued]
    for key in cited:
        assert any(p.match(key) for p in patterns), f"{name}: {{glue}} `{key}` is never glued"


def test_toc_lists_the_chapters_before_the_appendix():
    import yaml

    toc = yaml.safe_load((REPO / "_toc.yml").read_text())
    captions = [part["caption"] for part in toc["parts"]]
    assert captions.index("Chapters") < captions.index("Appendix")
    chapters = next(p for p in toc["parts"] if p["caption"] == "Chapters")["chapters"]
    files = [c["file"] for c in chapters]
    for name in PAGES:
        assert f"book/{name}" in files
