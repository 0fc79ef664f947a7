"""Every figure the book shows is legible on a phone and on a desktop, measured in Chromium.

One page holds every interactive figure kind and every static drawing the book and its labs
show, made with the pages' own arguments and embedded as the built book embeds a code cell's
HTML output (inside myst-nb's output containers; one copy of the shared style and script).
The page is built with the book's theme (sphinx-book-theme, the book's ``_static`` CSS and
``_ext`` extensions) and opened in headless Chromium at 390 px and at 1366 px.

Limits (the issue's): at 390 px no figure text is below 9 px, at 1366 px none below 11 px;
a rendered text size is the computed font size times the scale of its SVG on the page (HTML
text: its computed font size; a drawing cut into pieces on a phone is measured in its pieces).
Each figure is one Tab stop, a figure's drawing is never wider than the screen (a wide
interactive one steps through its parts inside its own box), and nothing the theme floats
(the "back to top" button) covers a figure on a phone.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser]

REPO = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
WIDTHS = {"phone": ({"width": 390, "height": 844}, 9.0), "desktop": ({"width": 1366, "height": 900}, 11.0)}


def _static_figures():
    """``(name, figure)`` for each static drawing a page or lab shows, with that page's arguments."""
    import matplotlib
    matplotlib.use("Agg")
    import labkit as lk
    from labkit import viz
    from labkit.lab import trace_mma
    from labkit.viz.charts import draw_bars
    from labkit.viz.ldmatrix_orders import draw_x4_orders
    from labkit.viz.masks import draw_ragged
    S = lk.S
    shape = (S(4), S(8))
    row48 = lk.parse_layout("(_4,_8):(_8,_1)")
    A_tv = lk.parse_layout("((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))")
    owner_mk = lk.composition(lk.right_inverse(A_tv), lk.make_layout((S(16), S(16))))
    blocked = lk.blocked_product(lk.parse_layout("(_2,_4):(_4,_1)"), lk.parse_layout("(_4,_2):(_2,_1)"))
    acc = lk.tmem_accumulator_layout(m=128, n=256)
    sm80 = lk.composition(lk.Swizzle(3, 3, 3),
                          lk.tile_to_shape(lk.parse_layout("(_8,(_8,_8)):(_8,(_1,_64))"), (S(128), S(64))))
    mma = lk.make_tiled_mma("SM80_16x8x16_F16F16F16F16_TN")
    mine = lk.parse_axe("S[(8,2,4):(4@m,1@gpuid_x,1@m)] + R[2:1@gpuid_y]")
    # the chart of chapter 6c, with the recorded run's values at 4096^3 (rounded)
    speeds = [("1 naive", {"f32 acc.": 0.926, "f16 acc.": 0.927}), ("2 smem", {"f32 acc.": 6.23, "f16 acc.": 7.18}),
              ("3 mma", {"f32 acc.": 44.8, "f16 acc.": 50.7}), ("4 swizzle", {"f32 acc.": 139, "f16 acc.": 176}),
              ("5 pipeline", {"f32 acc.": 392, "f16 acc.": 404}), ("6 tma", {"f32 acc.": 505, "f16 acc.": 504}),
              ("cuBLAS", {"cuBLAS": 754}), ("CuTe sgemm_sm80", {"CuTe, f16 acc.": 374})]
    return [
        ("01 draw_layout(row)", viz.draw_layout(lk.make_layout(shape, lk.compact_major(shape, "right")))),
        ("02 draw_layout(inv)", viz.draw_layout(lk.right_inverse(row48))),
        ("02 draw_layout(owner_mk)", viz.draw_layout(owner_mk)),
        ("02 draw_tiling", viz.draw_tiling(blocked, (2, 4))),
        ("02b draw_ragged", draw_ragged((1000, 776))),
        ("03 draw_tmem", viz.draw_tmem(acc, shape=(128, 256), name="D", highlight=(37, 6), tcols=(0, 16))),
        ("03 draw_tv_layout", viz.draw_tv_layout(lk.mma_atom("SM80_16x8x8_F16F16F16F16_TN").layout_B, (8, 8))),
        ("05 draw_banks(rows)", viz.draw_banks(lk.bank_conflicts([128 * lane for lane in range(8)], 16))),
        ("05 draw_swizzle_atom", viz.draw_swizzle_atom("SWIZZLE_64B", "fp32")),
        ("05 draw_banks(ldmatrix)", viz.draw_banks(lk.ldmatrix_conflicts(sm80, lk.ldmatrix_rows(4)[:8], 2))),
        ("06b draw_x4_orders", draw_x4_orders()),
        ("06b draw_tiled_copy", viz.draw_tiled_copy(lk.make_tiled_copy_A(lk.copy_atom("SM75_U32x4_LDSM_N", "f16"),
                                                                          mma))),
        ("06c draw_bars", draw_bars(speeds, title="fp16 TN GEMM, 4096³, NVIDIA H200, 2026-12-01", unit="TFLOP/s",
                                    colors={"cuBLAS": "#999999", "CuTe, f16 acc.": "#E69F00"})),
        ("lab 04 draw_mesh", viz.draw_mesh(["sharded", mine])),
        ("lab 06 draw_fragments", viz.draw_fragments(trace_mma(backend="sim"), 3)),
    ]


def _interactive_figures():
    from labkit.viz import html
    kinds = [(n, getattr(html, n)()) for n in html.__all__ if n.endswith("_figure")]
    book = [("sfa_tmem_figure(mn=128, sf_k=4)", html.sfa_tmem_figure(mn=128, sf_k=4)),
            ('bank_stepper_figure("SWIZZLE_128B")', html.bank_stepper_figure("SWIZZLE_128B"))]
    return kinds + book


def _cell(label: str, html: str) -> str:
    """A code cell's HTML output as myst-nb writes it into a page."""
    return (f'<p class="fig-label">{label}</p><div class="cell docutils container"><div class="cell_output '
            f'docutils container"><div class="output text_html">{html}</div></div></div>')


@pytest.fixture(scope="module")
def figure_page(tmp_path_factory):
    """Every figure on one page of a small book with the book's theme, CSS and extensions."""
    from sphinx.cmd.build import build_main
    sys.path.insert(0, str(REPO / "_ext"))
    from light_pages import dedupe_figure_assets
    figures = _static_figures() + _interactive_figures()
    labels = [name for name, _ in figures]
    body = dedupe_figure_assets("".join(_cell(n, f._repr_html_()) for n, f in figures))
    src = tmp_path_factory.mktemp("figures")
    (src / "conf.py").write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(REPO / '_ext')!r})
        project = "figures"
        extensions = ["phone_layout", "light_pages"]
        html_theme = "sphinx_book_theme"
        html_context = {{"default_mode": "light"}}
        html_static_path = []
    """))
    filler = "\n\n".join("Text between figures, as a chapter has it. " * 12 for _ in range(2))
    (src / "index.rst").write_text("Figures\n=======\n\n" + filler + "\n\n.. raw:: html\n\n"
                                   + textwrap.indent(body, "   ") + "\n\n" + filler + "\n")
    out = src / "_build"
    assert build_main(["-q", "-b", "html", str(src), str(out)]) == 0
    return out / "index.html", labels


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module", params=list(WIDTHS))
def opened(request, browser, figure_page):
    path, labels = figure_page
    size, limit = WIDTHS[request.param]
    touch = request.param == "phone"
    context = browser.new_context(viewport=size, device_scale_factor=1, has_touch=touch, is_mobile=touch)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri(), wait_until="load")
    page.wait_for_function("[...document.querySelectorAll('figure.lkf')].every(e => e.dataset.ready === '1')",
                           timeout=30000)
    yield request.param, page, labels, limit, errors
    context.close()


# The smallest rendered text of every figure, in CSS pixels: SVG text at its computed font size
# times the SVG's scale on the page (its width on screen over its viewBox width), HTML text at
# its computed font size. Texts of every state count, shown or not.
MEASURE = """() => {
    const figs = [...document.querySelectorAll('figure.lkf, figure.lkfs')];
    return figs.map(f => {
        let min = Infinity, what = '';
        for (const svg of f.querySelectorAll('svg')) {
            const vb = svg.viewBox.baseVal, box = svg.getBoundingClientRect();
            if (!box.width) continue;       // not drawn: a drawing cut into pieces shows the pieces instead
            const scale = box.width / vb.width;
            for (const t of svg.querySelectorAll('text, tspan')) {
                if (!t.textContent.trim()) continue;
                const px = parseFloat(getComputedStyle(t).fontSize) * scale;
                if (px < min) { min = px; what = t.textContent; }
            }
        }
        const walker = document.createTreeWalker(f, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const e = n.parentElement;
            if (!n.textContent.trim() || e.closest('svg, script, style') || !e.getClientRects().length) continue;
            const px = parseFloat(getComputedStyle(e).fontSize);
            if (px < min) { min = px; what = n.textContent; }
        }
        const r = f.getBoundingClientRect(), box = f.querySelector('.lkf-box, .lkfs-box');
        return {min, what, right: r.right, width: document.documentElement.clientWidth,
                parts: Math.ceil(box.scrollWidth / box.clientWidth - 0.02)};
    });
}"""


def test_smallest_text_of_every_figure(opened):
    width, page, labels, limit, errors = opened
    sizes = page.evaluate(MEASURE)
    assert len(sizes) == len(labels)
    report = {label: [round(s["min"], 2), s["parts"]] for label, s in zip(labels, sizes)}
    print(f"\nsmallest text (px) and column widths across, at {width}:", json.dumps(report, indent=1, ensure_ascii=False))
    small = {label: (round(s["min"], 2), s["what"]) for label, s in zip(labels, sizes) if s["min"] < limit}
    assert small == {}, f"text below {limit} px at {width} width"
    assert [label for label, s in zip(labels, sizes) if s["right"] > s["width"] + 0.5] == []
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    assert errors == []


_TAB = """() => {
    const a = document.activeElement;
    const f = a && a.closest('figure.lkf, figure.lkfs');
    if (!f) return null;
    const figs = [...document.querySelectorAll('figure.lkf, figure.lkfs')];
    const control = !!a.closest('.lkf-ctl');
    return [figs.indexOf(f), a.tagName.toLowerCase(), control, a.hasAttribute('data-k') || a.classList.contains('lkfs-box')];
}"""


def test_tab_reaches_each_figure_once(opened):
    width, page, labels, _, _ = opened
    page.evaluate("window.scrollTo(0, 0); document.activeElement && document.activeElement.blur()")
    stops: dict[int, list] = {}
    last_seen = None
    for _ in range(600):
        page.keyboard.press("Tab")
        at = page.evaluate(_TAB)
        if at is None:
            if last_seen is not None and last_seen >= len(labels) - 1:
                break
            continue
        i, tag, control, drawing = at
        last_seen = i
        if not control:
            stops.setdefault(i, []).append((tag, drawing))
    missing = [labels[i] for i in range(len(labels)) if i not in stops]
    assert missing == [], f"Tab never reaches {missing}"
    extra = {labels[i]: s for i, s in stops.items() if len(s) != 1 or not s[0][1]}
    assert extra == {}, "each figure's drawing is one Tab stop (a cell, or a static figure's box)"


_BACK_TO_TOP = """() => {
    const b = document.querySelector('#pst-back-to-top');
    if (!b) return [];
    const r = b.getBoundingClientRect();
    if (!r.width || getComputedStyle(b).display === 'none' || getComputedStyle(b).visibility === 'hidden') return [];
    const hits = [];
    for (const f of document.querySelectorAll('figure.lkf, figure.lkfs')) {
        const q = f.getBoundingClientRect();
        if (q.left < r.right && r.left < q.right && q.top < r.bottom && r.top < q.bottom) hits.push(f.dataset.figure);
    }
    return hits;
}"""


def test_nothing_floats_over_a_figure(opened):
    width, page, labels, _, _ = opened
    # the theme shows its "back to top" button while the reader scrolls up: scroll down, then up
    # to each figure, and look for the button over it
    covered = set()
    tops = page.evaluate("[...document.querySelectorAll('figure.lkf, figure.lkfs')]"
                         ".map(f => f.getBoundingClientRect().top + window.scrollY)")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_timeout(100)
    for top in reversed(tops):
        page.evaluate(f"window.scrollTo(0, {top} - 120)")
        page.mouse.wheel(0, -60)
        page.wait_for_timeout(60)
        covered.update(page.evaluate(_BACK_TO_TOP))
    assert covered == set()


def test_the_keyboard_moves_through_a_figure_wider_than_the_screen(opened):
    width, page, labels, _, _ = opened
    wide = page.evaluate("""() => [...document.querySelectorAll('figure.lkf, figure.lkfs')].map((f, i) => {
        const b = f.querySelector('.lkf-box, .lkfs-box'); return [i, f.classList.contains('lkfs'),
        b.scrollWidth > b.clientWidth + 1]; }).filter(x => x[2])""")
    if width == "desktop":
        assert wide == []                   # on a desktop every figure fits its column
        return
    # on a phone a drawing (figure.lkfs) wider than the column is cut into pieces down it, so
    # none scrolls sideways; the interactive figures wider than the screen step through their parts
    assert wide and {static for _, static, _ in wide} == {False}
    figs = page.locator("figure.lkf, figure.lkfs")
    for i, static, _ in wide:
        fig = figs.nth(i)
        box = fig.locator(".lkfs-box" if static else ".lkf-box")
        box.evaluate("b => { b.style.scrollBehavior = 'auto'; b.scrollLeft = 0; }")
        if static:                          # the box is the Tab stop; the arrow keys scroll it
            box.focus()
            for _ in range(3):              # (a phone's first key after focusing may only scroll the page)
                page.keyboard.press("ArrowRight")
                if box.evaluate("b => b.scrollLeft > 0"):
                    break
        else:                               # the move control steps to the next part
            right = fig.get_by_role("button", name="show the part to the right")
            page.wait_for_function("r => !r.disabled", arg=right.element_handle(), timeout=5000)
            assert "part 1 of" in fig.locator(".lkf-pan").inner_text()
            right.focus()
            page.keyboard.press("Enter")
        page.wait_for_function("b => b.scrollLeft > 0", arg=box.element_handle(), timeout=5000)
        if not static:
            page.wait_for_function("p => p.textContent.includes('part 2 of')",
                                   arg=fig.locator(".lkf-pan").element_handle(), timeout=5000)
