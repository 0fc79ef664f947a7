"""The algebra sections of chapters 1-3 (inverses, composition's conditions, products, modes,
basis strides): every layout they print is what CuTe C++ prints, every refused example raises
with C++'s static_assert text, and their figures are labelled with the right values.

Expected layouts come from CuTe's headers compiled with g++ (the oracle of ``test_cute_cpp``,
cached the same way); the figure labels and the visited offsets are worked by hand from the
definitions (row-major offsets, the PTX ISA's fragment table of ``mma.m16n8k16``). The pages are
executed as ``test_chapters`` executes them (jupytext + nbclient), with one cell appended that
reads back the cell labels of every figure the page drew.
"""

from __future__ import annotations

import json
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient

import labkit as lk
import cute_oracle
import test_cute_cpp as cute

pytestmark = cute.pytestmark      # g++ and CuTe's headers, as for test_cute_cpp

REPO = Path(__file__).resolve().parents[1]
BOOK = REPO / "book"
P = lk.parse_layout

# --------------------------------------------------------------------------- the examples

ROW48 = "(_4,_8):(_8,_1)"
A_TV = "((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))"    # mma.m16n8k16, operand A
PAIR, GRID32 = "(_2,_2):(_1,_2)", "(_3,_2):(_1,_3)"
TILE16 = "(_16,_16):(_1,_16)"


def _unary(op, a):
    return cute.Case(op, f"{op}({cute.cpp_layout(P(a))})", lambda: getattr(lk, op)(P(a)), f"{op}({a})")


def _binary(op, a, b):
    return cute.Case(op, f"{op}({cute.cpp_layout(P(a))}, {cute.cpp_layout(P(b))})",
                     lambda: getattr(lk, op)(P(a), P(b)), f"{op}({a}, {b})")


def _owner_map():
    cpp = f"composition(right_inverse({cute.cpp_layout(P(A_TV))}), {cute.cpp_layout(P(TILE16))})"
    return cute.Case("composition", cpp, lambda: lk.composition(lk.right_inverse(P(A_TV)), P(TILE16)),
                     f"composition(right_inverse({A_TV}), {TILE16})")


# (page, case): each case's C++ result must be what labkit gives, and what the page prints
CASES = [
    # chapter 2, composition's conditions: static values are checked, dynamic ones are not
    ("02_tiling", _binary("composition", ROW48, "_4:_2")),
    ("02_tiling", _binary("composition", ROW48, "_4:_6")),
    ("02_tiling", _binary("composition", ROW48, "_6:_1")),
    ("02_tiling", _binary("composition", ROW48, "_4:_3")),
    ("02_tiling", _binary("composition", "(4,8):(8,1)", "4:6")),
    ("02_tiling", _binary("composition", "(4,8):(8,1)", "6:1")),
    # chapter 2, inverses
    ("02_tiling", _unary("right_inverse", ROW48)),
    ("02_tiling", _unary("left_inverse", ROW48)),
    ("02_tiling", _unary("right_inverse", "(_4,_8):(_16,_1)")),
    ("02_tiling", _unary("left_inverse", "(_4,_8):(_16,_1)")),
    ("02_tiling", _unary("right_inverse", "(_4,_8):(_0,_1)")),
    ("02_tiling", _unary("left_inverse", "(_4,_8):(_0,_1)")),
    ("02_tiling", _unary("right_inverse", "(4,8):(8,1)")),
    ("02_tiling", _unary("left_inverse", "(4,8):(8,1)")),
    ("02_tiling", _unary("right_inverse", A_TV)),
    ("02_tiling", _owner_map()),
    ("02_tiling", _binary("max_common_vector", "(_8,_8):(_8,_1)", "(_8,_8):(_8,_1)")),
    ("02_tiling", _binary("max_common_vector", "(_8,_8):(_8,_1)", "(_8,_8):(_16,_1)")),
    ("02_tiling", _binary("max_common_vector", "(_8,_8):(_8,_1)", "(_8,_8):(_1,_8)")),
    ("02_tiling", _binary("max_common_vector", "(_8,_8):(_8,_1)", "(8,8):(8,1)")),
    # chapter 2, the product variants
    ("02_tiling", _binary("logical_product", PAIR, "_3:_1")),
    ("02_tiling", _binary("logical_product", PAIR, GRID32)),
    ("02_tiling", _binary("zipped_product", PAIR, GRID32)),
    ("02_tiling", _binary("tiled_product", PAIR, GRID32)),
    ("02_tiling", _binary("flat_product", PAIR, GRID32)),
]

STAGES = "(_4,_8,_3):(_8,_1,_32)"
TV_B = "((_4,_8),_2):((_16,_1),_8)"      # mma.m16n8k8, operand B, indexed (n, k)


def _modes(op, cpp_args, *args):
    # on a Layout, C++ spells group_modes (its Tensor function) as group<B,E>
    cpp = f"{'group' if op == 'group_modes' else op}<{cpp_args}>({cute.cpp_layout(P(STAGES))})"
    return cute.Case(op, cpp, lambda: getattr(lk, op)(P(STAGES), *args), f"{op}<{cpp_args}>({STAGES})")


def _identity(shape, then=None, at=None):
    """make_identity_layout(shape), composed with the layout ``then``, evaluated ``at``."""
    cpp_shape = "make_shape(" + ", ".join(f"Int<{n}>{{}}" for n in shape) + ")"
    cpp = f"make_identity_layout({cpp_shape})"
    text = f"make_identity_layout({shape})"

    def py():
        L = lk.make_identity_layout(tuple(lk.S(n) for n in shape))
        if then is not None:
            L = lk.composition(L, P(then))
        return L if at is None else L(*at)
    if then is not None:
        cpp, text = f"composition({cpp}, {cute.cpp_layout(P(then))})", f"composition({text}, {then})"
    if at is not None:
        cpp += "(" + ", ".join(f"int({i})" for i in at) + ")"
        text += f"{at}"
    return cute.Case("identity", cpp, py, text)


CASES += [
    # chapter 1, taking modes apart
    ("01_shape_stride", _modes("take", "0,2", 0, 2)),
    ("01_shape_stride", _modes("select", "1,0", 1, 0)),
    ("01_shape_stride", _modes("group_modes", "0,2", 0, 2)),
    # chapter 3, basis strides
    ("03_named_axes", _identity((4, 8))),
    ("03_named_axes", _identity((4, 8), at=(1, 3))),
    ("03_named_axes", _identity((4, 8), at=(13,))),
    ("03_named_axes", _identity((8, 8), then=TV_B)),
    ("03_named_axes", _identity((8, 8), then=TV_B, at=(21, 1))),
]

PAGES = sorted({page for page, _c in CASES})


@pytest.fixture(scope="module")
def cpp(tmp_path_factory):
    """{C++ expression: ('ok', text) | ('compile', static_assert text) | ('abort', '')}."""
    cache_file = cute_oracle.cache_dir() / f"algebra-sections-{cute._toolchain_key()}.json"
    cache = cute_oracle.read_cache(cache_file)
    missing = [c.cpp for _p, c in CASES if c.cpp not in cache]
    if missing:
        work = tmp_path_factory.mktemp("algebra_cpp")
        cute._precompiled_header(work)
        found = {missing[k]: list(res) for k, res in cute._build_and_run(missing, work).items()}
        cache.update(found)
        cute.save_cache(cache_file, found)
    return {c.cpp: tuple(cache[c.cpp]) for _p, c in CASES}


# --------------------------------------------------------------------------- the pages

FIGURE_DUMP = r'''
import json as _json
from matplotlib.figure import Figure as _Figure
_figures = []
for _n, _v in sorted(Out.items()):
    if isinstance(_v, _Figure):
        _texts = [(_t.get_text(),) + tuple(float(p) for p in _t.get_position())
                  for _a in _v.axes for _t in _a.texts]
        _figures.append({"cell": _n, "alt": getattr(_v, "alt_text", ""), "texts": _texts})
print("@@FIGURES@@" + _json.dumps(_figures))
'''


def execute(name):
    """(printed output of every code cell, figures with their text labels) of one page."""
    nb = jupytext.read(BOOK / f"{name}.md")
    nb.cells.append(nbformat.v4.new_code_cell(FIGURE_DUMP))
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(BOOK)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    for c in code:
        assert not any(o.output_type == "error" for o in c.outputs), c.source
    printed = ["".join(o.get("text", "") for o in c.outputs if o.output_type == "stream") for c in code]
    dump = printed.pop()
    return printed, json.loads(dump.split("@@FIGURES@@", 1)[1])


@pytest.fixture(scope="module")
def pages():
    """{page: (printed outputs, figures)}, each page executed once."""
    return {name: execute(name) for name in PAGES}


def cells_of(figure):
    """{(row, col): label} of the cells of a drawn table (labels sit at cell centres)."""
    out = {}
    for text, x, y in figure["texts"]:
        if x > 0 and y > 0 and x % 1 == 0.5 and y % 1 == 0.5:
            out[(int(y), int(x))] = text
    return out


def figure_titled(figures, title):
    found = [f for f in figures if any(t[0] == title for t in f["texts"])]
    assert found, f"no figure is titled {title!r}"
    return found[0]


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize("case", [c for _p, c in CASES], ids=[c.text for _p, c in CASES])
def test_labkit_gives_what_cpp_gives(cpp, case):
    got = cute.labkit_result(case)
    assert cute.agrees(case, cpp[case.cpp], got), (case.text, cpp[case.cpp], got)


def test_the_static_conditions_are_cpps_static_asserts(cpp):
    # the refused examples of the pages fail to compile with these very messages
    want = {
        f"composition({ROW48}, _4:_6)": "Stride Divisibility Condition",
        f"composition({ROW48}, _6:_1)": "Shape Divisibility Condition",
        "left_inverse((4,8):(8,1))": "Left inverse requires static strides.",
    }
    by_text = {c.text: c for _p, c in CASES}
    for text, message in want.items():
        assert cpp[by_text[text].cpp] == ("compile", message), text
    # the dynamic versions compile (nothing checks them), and so does a static stride that
    # is smaller than the extent it lands in without dividing it (the check is incomplete)
    for text in ["composition((4,8):(8,1), 4:6)", "composition((4,8):(8,1), 6:1)",
                 f"composition({ROW48}, _4:_3)"]:
        assert cpp[by_text[text].cpp][0] == "ok", text


@pytest.mark.parametrize("name", PAGES)
def test_page_prints_what_cpp_prints(cpp, pages, name):
    printed, _figures = pages[name]
    out = "\n".join(printed)
    for p, case in CASES:
        if p != name:
            continue
        kind, text = cpp[case.cpp]
        if kind == "ok":
            assert text in out, f"{name}: {case.text} should print {text}"
        else:
            assert f"LayoutError: {case.op}" in out and text in out, \
                f"{name}: {case.text} should raise with {text!r}"


def _row_major_48(x):
    """Offset of colexicographic index x in the row-major 4x8 matrix, by hand."""
    return (x % 4) * 8 + x // 4


def test_tiling_page_shows_the_offsets_a_composition_must_visit(pages):
    printed, _figures = pages["02_tiling"]
    out = "\n".join(printed)
    for shape, stride in [(4, 2), (4, 6), (6, 1), (4, 3)]:
        visits = [_row_major_48(stride * i) for i in range(shape)]
        assert f"_{shape}:_{stride}: A(B(i)) = {visits}" in out
    assert "A(B(i)) is [0, 17, 3, 20]" in out and "A(B(i)) is [0, 8, 16, 24, 1, 9]" in out
    assert "offset 10 holds index 9 = coordinate (1, 2)" in out   # 10 = 8*1 + 2, 9 = 1 + 4*2


def test_inverse_figure_is_labelled_with_the_inverse(cpp, pages):
    _printed, figures = pages["02_tiling"]
    inv = cpp[_unary("right_inverse", ROW48).cpp][1]
    cells = cells_of(figure_titled(figures, inv))
    # offset k of the row-major 4x8 matrix is (column k % 8, row k // 8); the inverse holds
    # the colexicographic index row + 4*column of that element
    assert cells == {(j, i): str(i + 4 * j) for j in range(8) for i in range(4)}


def test_owner_map_figure_names_the_ptx_owner_of_each_element(cpp, pages):
    _printed, figures = pages["02_tiling"]
    owner = cpp[_owner_map().cpp][1]
    cells = cells_of(figure_titled(figures, owner))
    # PTX ISA, mma.m16n8k16 .f16 A fragment: groupID = lane >> 2, tig = lane % 4;
    # a_i sits at row groupID + 8*((i >> 1) & 1), column 2*tig + (i & 1) + 8*(i >> 2)
    want = {}
    for lane in range(32):
        for i in range(8):
            m = lane // 4 + 8 * ((i >> 1) & 1)
            k = 2 * (lane % 4) + (i & 1) + 8 * (i >> 2)
            want[(m, k)] = str(lane + 32 * i)
    assert cells == want


def test_basis_strides_and_named_axes_give_the_ptx_fragment(pages):
    printed, _figures = pages["03_named_axes"]
    out = "\n".join(printed)
    # the page writes the B fragment's coordinates with named axes; read that layout back
    text = next(line.split()[0] for line in out.splitlines() if line.startswith("S[(8,4,2):(1@n"))
    named = lk.parse_axe(text)
    basis = lk.composition(lk.make_identity_layout((lk.S(8), lk.S(8))), P(TV_B))
    # PTX ISA, mma.m16n8k8 .f16 B fragment: b_i sits at k = 2*(lane % 4) + i, n = lane >> 2
    for lane in range(32):
        for i in range(2):
            want = (lane >> 2, 2 * (lane % 4) + i)
            assert named((lane, i), shape=(32, 2))[0] == {"n": want[0], "k": want[1]}
            assert tuple(basis(lane, i)) == want
    # the identity layout of (4,8) sends index x to (x % 4, x // 4) and the named one agrees
    ident = lk.parse_axe("S[(4,8):(1@row,1@col)]")
    for x in range(32):
        assert tuple(lk.make_identity_layout((4, 8))(x)) == (x % 4, x // 4)
        assert ident((x % 4, x // 4), shape=(4, 8))[0] == {"row": x % 4, "col": x // 4}
    assert out.count("True") >= 2
