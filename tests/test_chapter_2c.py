"""Chapter 2c (how CuTe computes) runs, shows CuTe's values, and keeps its shape.

The page is executed with jupytext + nbclient. The strings it must print are CuTe C++'s
results for the same operands (each is a case of ``test_steps_cpp.py``, which compiles them
with CUTLASS's headers), not values copied from running labkit.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "book" / "02c_how_cute_computes.md"

FACTS = [
    # composition(( _6,_2):(_8,_2), (_4,_3):(_3,_1)) and its two modes (C++: composition,
    # composition_mode)
    "R = ((_2,_2),_3):((_24,_2),_8)",
    "= (_2,_2):(_24,_2)",
    # the static composition that compiles but is not A o B, and C++'s dynamic results
    "R = (_2,_2):(_24,_1)",
    "R = (1,4):(48,2)",
    "R = (4,1):(8,1)",
    # the carry case: C++ returns (_3,(_2,_2)):(_8,(_12,_1))
    "R = (_3,(_2,_2)):(_8,(_12,_1))",
    # complements (C++: complement, filter)
    "coalesce -> (_3,2):(_2,_12)",
    "filter(L) = _8:_1",
    "coalesce -> _8:_8",
    # inverses of (_4,_8):(_16,_1) and the left inverse from the complement (C++)
    "= _8:_4;",
    "= (_16,_4):(_4,_1);",
    "right_inverse((L, complement(L))): (_16,_4):(_4,_1)",
    # make_tiled_copy of 8 row-major threads x (1,2) (C++: raked_product, TiledLayout_TV)
    "layout_mn ((_1,_4),(_2,_2)):((_16,_2),(_8,_1)) (tile 4x4)",
    "layout_tv ((_2,_4),_2):((_8,_1),_4)",
    # ldmatrix.x4 for the MMA's A: C++ get_layoutS_TV and get_layoutD_TV
    "layoutS_TV                 ((_16,_2),(_8,_1)):((_1,_128),(_16,_0))",
    "layoutD_TV                 ((_4,_8),((_2,_2,_2),_1)):((_32,_1),((_16,_8,_128),_0))",
    # the 2x2 TiledMMA with the 32x32x16 tile: C++ get_thr_layout_vmnk, get_layoutA_TV
    "ThrLayoutVMNK          (_32,_2,_2,_1):(_1,_32,_64,_0)",
    "layoutA_TV            ((_4,_8,_2,_2),((_2,_2,_2),(_1,_1))):((_64,_1,_16,_0),((_32,_8,_256),(_0,_0)))",
    # get_flat_coord of thread 3 in the column- and row-major 4x2 thread layouts (C++)
    "coordinate (3,0)",
    "coordinate (1,1)",
    # the f16 and f32 atoms' C layouts (C++ MMA_Traits<...>::CLayout)
    "SM80_16x8x16_F32F16F16F32_TN C ((_4,_8),(_2,_2)):((_32,_1),(_16,_8))",
]


def test_page_is_in_the_toc_after_2b():
    toc = (REPO / "_toc.yml").read_text()
    assert "book/02b_global_to_thread\n      - file: book/02c_how_cute_computes" in toc


def test_page_shows_no_plumbing_and_every_prediction_is_hidden_until_opened():
    text = PAGE.read_text()
    assert "glue" not in text and "myst_nb" not in text
    predicts = [m.start() for m in re.finditer(r"\*\*Predict, then check\.\*\*", text)]
    assert len(predicts) >= 6
    for p in predicts:
        cell = text.index("```{code-cell}", p)
        assert text[cell:cell + 60].split("\n")[1] == ":tags: [hide-output]"


@pytest.fixture(scope="module")
def executed(executed_page):
    return executed_page(PAGE)


def _outputs(nb):
    text, images = [], 0
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                raise AssertionError(f"{out['ename']}: {out['evalue']}")
            if "text" in out:
                text.append(out["text"])
            data = out.get("data", {})
            if "image/png" in data or "text/html" in data:
                images += 1
    return "\n".join(text), images


@pytest.mark.slow
def test_page_runs_and_prints_cutes_values(executed):
    text, figures = _outputs(executed)
    missing = [f for f in FACTS if f not in text]
    assert not missing, missing
    assert figures >= 9
