"""The built book in a real browser, on a desktop (1366x900) and on a phone (390x844).

Headless Chromium (Debian's ``/usr/bin/chromium``) driven by playwright opens the pages of the
built book, served over HTTP on 127.0.0.1 (one browser for the module). It clicks, taps and
types into the interactive figures and reads their panels, measures what a reader sees (page
width, rendered text size, tap-target size), and checks what the site ships.

Expected values come from the seeds (001: element (5,3) -> lane 21, slot 1; laneid =
4*row + col//2; SFA[64,2] -> TLane 0/32/64/96, TCol 2, byte 2; element (1,2,3) of the mesh ->
devices (0,1) and (1,1), offset 19; a column of sectors is read in 8 cycles row-major, one row
per cycle, and in 1 cycle swizzled), from the issue's limits (text >= 10 px at 1366 px, tap
targets >= 24 px, pages no wider than the screen, <= 700 KB a page, <= 12 MB in all; a first view
of any page <= 1.2 MB in <= 20 requests at 1366 and 390 px) and from the themes' markup (the ☰ and
contents buttons open ``<dialog>`` elements). Each page is opened once on a phone
(``phone_walk``: the ☰ icon drawn, the page's width, every figure read whole with text >= 9 px:
a drawing set in pieces down the column, any other figure wider than the screen saying so and
opening full screen without scrolling) and once on a desktop (``visited``: errors, math,
weight, and no figure label overlapping another or running out of its drawing); search returns
results for four of the book's words. The built pages read as HTML are ``test_built_pages.py``'s.
"""

from __future__ import annotations

import re

import pytest
import yaml

from book_site import CHROMIUM_ARGS, DESKTOP, PAGES, PHONE, REPO, toc_pages as _toc_pages

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield b
        b.close()


class Tab:
    """A page in a fresh browser context of the given size, recording errors and requests."""

    def __init__(self, browser, base, size, touch=False):
        self.context = browser.new_context(viewport=size, has_touch=touch, is_mobile=touch,
                                           device_scale_factor=1)
        self.page = self.context.new_page()
        self.base = base
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.failed: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("requestfailed", lambda r: self.failed.append(r.url))
        self.page.on("response", lambda r: self.failed.append(r.url) if r.status >= 400 else None)

    def open(self, path, wait="load"):
        self.page.goto(f"{self.base}/{path}.html", wait_until=wait)
        self.page.wait_for_function(
            "[...document.querySelectorAll('.lkf')].every(e => e.dataset.ready === '1')", timeout=20000)
        return self.page

    def close(self):
        self.context.close()


@pytest.fixture(scope="module")
def gallery(browser, book_url):
    tab = Tab(browser, book_url, DESKTOP)
    tab.open("book/gallery")
    yield tab.page, tab.errors
    tab.close()


@pytest.fixture(scope="module")
def phone_gallery(browser, book_url):
    tab = Tab(browser, book_url, PHONE, touch=True)
    tab.open("book/gallery")
    yield tab.page, tab.errors
    tab.close()


def _figure(page, name):
    fig = page.locator(f'figure.lkf[data-figure="{name}"]')
    assert fig.count() == 1, f"the page shows figure {name!r} once"
    return fig


_FIND_CELL = """(root, want) => {
    const D = root.lkfData;
    const visible = (w) => w === null || String(w).split(' ').every(p => {
        const [c, o] = p.split(':').map(Number);
        const pressed = root.querySelector(`button[data-c="${c}"][data-o="${o}"]`);
        const range = root.querySelector(`input[type=range][data-c="${c}"]`);
        return pressed ? pressed.getAttribute('aria-pressed') === 'true' : (range ? +range.value === o : true);
    });
    for (let k = 0; k < D.info.length; k++) {
        const row = D.info[k];
        const ok = Object.entries(want).every(([f, v]) => {
            const j = D.fields.indexOf(f);
            return j >= 0 && j < row.length && row[j] >= 0 && String(D.vals[row[j]]) === String(v);
        });
        if (ok && (D.when === null || visible(D.whens[D.when[k]]))) return k;
    }
    return -1;
}"""


def _cell(fig, **info):
    """The visible cell whose panel facts include ``info`` (found through the figure's data)."""
    k = fig.evaluate(_FIND_CELL, {f.replace("_", " "): v for f, v in info.items()})
    assert k >= 0, f"no visible cell with {info}"
    return fig.locator(f'[data-k="{k}"]').first


def _click_cell(fig, **info):
    cell = _cell(fig, **info)
    cell.scroll_into_view_if_needed()
    cell.click()
    return fig.locator(".lkf-panel").inner_text()


# -- the figures answer (desktop) ------------------------------------------------------------

def test_gallery_has_every_figure_once_with_unique_ids(gallery):
    page, _ = gallery
    names = page.eval_on_selector_all("figure.lkf", "els => els.map(e => e.dataset.figure)")
    ids = page.eval_on_selector_all("figure.lkf", "els => els.map(e => e.id)")
    for name in ("tiling", "fragment", "sfa_tmem", "mesh", "xor_swizzle", "bank_stepper", "swizzle_atoms",
                 "mma_tv", "ldmatrix", "a_path"):
        assert name in names
    assert len(set(ids)) == len(ids)
    # every figure drew one element per cell of its data, and has a caption
    counts = page.eval_on_selector_all("figure.lkf", """els => els.map(e => [
        new Set([...e.querySelectorAll('[data-k]')].map(c => c.dataset.k)).size, e.lkfData.cells.length,
        e.querySelector(':scope > figcaption').textContent.length])""")
    for drawn, cells, caption in counts:
        assert drawn == cells and caption > 5


def test_fragment_element_5_3_is_lane_21_slot_1(gallery):
    page, _ = gallery
    fig = _figure(page, "fragment")
    other = _click_cell(fig, coordinate="(0,0)", view="logical")
    assert "laneid: 0" in other
    text = _click_cell(fig, coordinate="(5,3)", view="logical")
    assert "laneid: 21" in text and "reg (slot): 1" in text and "x: 43" in text
    # the register slot holding it and lane 21's other element light up
    assert fig.locator(".lkf-sel").count() == 2
    assert fig.locator(".lkf-rel").count() == 4   # (5,2), (5,3) in both views


def test_cells_take_focus_and_arrow_keys_move_the_selection(gallery):
    page, _ = gallery
    fig = _figure(page, "fragment")
    _click_cell(fig, coordinate="(5,3)", view="logical")
    focused = page.evaluate("document.activeElement.getAttribute('data-k')")
    assert focused is not None                                         # the clicked cell has focus
    panel = fig.locator(".lkf-panel")
    page.keyboard.press("ArrowRight")                                  # (5,4): laneid 4*5 + 4//2
    assert "coordinate: (5,4)" in panel.inner_text() and "laneid: 22" in panel.inner_text()
    page.keyboard.press("ArrowDown")                                   # (6,4): laneid 26
    assert "coordinate: (6,4)" in panel.inner_text() and "laneid: 26" in panel.inner_text()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowUp")
    assert "coordinate: (5,3)" in panel.inner_text() and "laneid: 21" in panel.inner_text()
    assert page.evaluate("document.activeElement.closest('figure').dataset.figure") == "fragment"
    # one tab stop per figure: the selected cell
    assert fig.locator('[data-k][tabindex="0"]').count() == 1


def test_tiling_cell_shows_tile_coordinate_and_address(gallery):
    page, _ = gallery
    fig = _figure(page, "tiling")
    text = _click_cell(fig, coordinate="(3,5)", view="logical")
    # seed 001: c0 = i//2, c1 = i%2, c2 = j//4, c3 = j%4; address 16*c0 + 4*c1 + 8*c2 + c3
    assert "tile coordinate: (1,1)" in text and "address f_D(x): 29" in text


def test_sfa_factor_has_four_tmem_copies(gallery):
    page, _ = gallery
    fig = _figure(page, "sfa_tmem")
    text = _click_cell(fig, **{"SFA[m, sfk]": "(64,2)", "view": "SFA"})
    assert "(0,2,2) (32,2,2) (64,2,2) (96,2,2)" in text
    # the factor itself, its base-tile cell and the four TMEM columns holding it
    assert fig.locator(".lkf-sel").count() == 6


def test_mesh_modes(gallery):
    page, _ = gallery
    fig = _figure(page, "mesh")
    fig.get_by_role("button", name="shard + replica").click()
    text = _click_cell(fig, coordinate="(6,3)", view="matrix")       # (y,row,col) = (1,2,3)
    assert "(1,2,3)" in text and "(0,1) (1,1)" in text and "local offset: 19" in text
    fig.get_by_role("button", name="shard + offset").click()
    text = fig.locator(".lkf-panel").inner_text()                     # the selection follows the element
    assert "devices (gpuid_x, gpuid_y): (1,1)" in text and "local offset: 19" in text


def test_xor_column_cycles(gallery):
    page, _ = gallery
    fig = _figure(page, "xor_swizzle")
    text = _click_cell(fig, **{"logical column": 3, "view": "column index"})
    assert "row-major cycles: 8" in text and "XOR cycles: 1" in text
    assert fig.locator(".lkf-rel").count() == 2 * 8 + 2               # the column on both sides + headers


_OUTLINED = """root => {
    // cells under the visible outlines of the sectors read this cycle, and whether each outline
    // is painted after (over) its cell
    const shown = (el) => { for (let e = el; e && e !== root; e = e.parentNode)
        if (e.classList && e.classList.contains('lkf-hide')) return false; return true; };
    const cells = [...root.querySelectorAll('[data-k]')].filter(shown);
    const out = [];
    for (const r of root.querySelectorAll('rect.lkf-cur')) {
        if (!shown(r)) continue;
        const b = r.getBBox(), cx = b.x + b.width / 2, cy = b.y + b.height / 2;
        const c = cells.find(c => { const q = c.getBBox();
            return q.x <= cx && cx <= q.x + q.width && q.y <= cy && cy <= q.y + q.height; });
        if (!c) { out.push([null, false]); continue; }
        const above = !!(c.compareDocumentPosition(r) & Node.DOCUMENT_POSITION_FOLLOWING);
        out.push([+c.getAttribute('data-k'), above]);
    }
    return out;
}"""


def _sectors(fig, ks):
    return sorted(fig.evaluate("(root, ks) => ks.map(k => { const D = root.lkfData;"
                               " const j = D.fields.indexOf('sector'); return D.vals[D.info[k][j]]; })", ks))


def test_stepper_outlines_the_sectors_of_each_cycle_over_the_cells(gallery):
    page, _ = gallery
    fig = _figure(page, "bank_stepper")
    fig.get_by_role("button", name="row-major").click()
    fig.get_by_role("button", name="3", exact=True).click()            # logical column 3
    label = fig.locator(".lkf-stepl")
    while label.inner_text() != "cycle 1":
        fig.get_by_role("button", name="next").click()
    seen = []
    for cycle in range(1, 9):
        assert label.inner_text() == f"cycle {cycle}"
        outlined = fig.evaluate(_OUTLINED)
        assert outlined and all(k is not None and above for k, above in outlined)
        # row-major: the column's eight sectors share four banks, one row is read per cycle
        assert _sectors(fig, [k for k, _ in outlined]) == [f"({cycle - 1},3)"]
        seen.append(outlined)
        fig.get_by_role("button", name="next").click()
    assert all(a != b for a, b in zip(seen, seen[1:]))                  # the highlight moves every cycle
    assert label.inner_text() == "cycle 1"
    fig.get_by_role("button", name="previous").click()
    assert label.inner_text() == "cycle 8"
    # swizzled: the whole column in the first cycle, nothing after it
    fig.get_by_role("button", name="SWIZZLE_128B").click()
    while label.inner_text() != "cycle 1":
        fig.get_by_role("button", name="next").click()
    outlined = fig.evaluate(_OUTLINED)
    assert _sectors(fig, [k for k, _ in outlined]) == [f"({r},3)" for r in range(8)]
    fig.get_by_role("button", name="next").click()
    assert fig.evaluate(_OUTLINED) == []


def test_mma_operand_cell(gallery):
    page, _ = gallery
    fig = _figure(page, "mma_tv")
    text = _click_cell(fig, atom="SM80_16x8x16_F16F16F16F16_TN", operand="A", coordinate="(0,9)")
    # seed 000: A(0,9) is lane 0, value 5, the high half of a2; lane 0 holds 8 A, 4 B, 4 C elements
    assert "thread: 0" in text and "value: 5" in text and "a2, high 16 bits" in text
    assert fig.locator(".lkf-rel").count() == 16


def test_ldmatrix_variants(gallery):
    page, _ = gallery
    fig = _figure(page, "ldmatrix")
    fig.get_by_role("button", name="U32x1_LDSM_N").click()
    text = _click_cell(fig, variant="SM75_U32x1_LDSM_N", matrix=0, row=0, col=2, view="source")
    # PTX ISA: lane t receives row t/4, columns 2(t%4) and 2(t%4)+1
    assert "destination lane: 1" in text and "slot: 0" in text and "source lane (row address): 0" in text


def test_path_of_a_0_9(gallery):
    page, _ = gallery
    fig = _figure(page, "a_path")
    _click_cell(fig, **{"A(m,k)": "(15,15)", "view": "shared memory"})
    text = _click_cell(fig, **{"A(m,k)": "(0,9)", "view": "shared memory"})
    for part in ("shared-memory offset: 9", "source lane, row element: (16,1)", "copy element e: 129",
                 "reference TV index: 160", "matrix index q: 144", "destination lane, slot: (0,5)",
                 "tCrA(5,0,0)", "a2, high 16 bits"):
        assert part in text


def test_no_console_errors(gallery):
    page, errors = gallery
    assert errors == []


# -- legible at both widths ------------------------------------------------------------------

_SIZES = """() => {
    // rendered size of every visible SVG text and cell of the figures, in CSS pixels
    const out = {text: [], cell: [], overflow: []};
    for (const f of document.querySelectorAll('figure.lkf')) {
        const col = f.getBoundingClientRect();
        if (col.right > document.documentElement.clientWidth + 0.5) out.overflow.push(f.dataset.figure);
        for (const t of f.querySelectorAll('svg text')) {
            if (!t.getClientRects().length) continue;
            const px = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
            out.text.push([px, f.dataset.figure, t.textContent]);
        }
        for (const c of f.querySelectorAll('[data-k]')) {
            const r = c.getBoundingClientRect();
            if (!r.width) continue;
            out.cell.push([Math.min(r.width, r.height), f.dataset.figure]);
        }
    }
    return out;
}"""


def test_figure_text_is_at_least_10px_on_a_desktop(gallery):
    page, _ = gallery
    sizes = page.evaluate(_SIZES)
    assert sizes["overflow"] == []                                   # every figure fits the column
    boxes = page.eval_on_selector_all("figure.lkf .lkf-box", "bs => bs.map(b => [b.closest('figure').dataset"
                                                              ".figure, b.scrollWidth - b.clientWidth])")
    assert [name for name, extra in boxes if extra > 1] == []         # ... without scrolling sideways
    assert len(sizes["text"]) > 500
    small = [t for t in sizes["text"] if t[0] < 9.999]
    assert small == [], small[:5]


def test_phone_figures_scroll_in_their_box_with_legible_text_and_big_tap_targets(phone_gallery):
    page, _ = phone_gallery
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    sizes = page.evaluate(_SIZES)
    assert sizes["overflow"] == []
    small = [t for t in sizes["text"] if t[0] < 9.999]
    assert small == [], small[:5]
    tiny = [c for c in sizes["cell"] if c[0] < 24]
    assert tiny == [], tiny[:5]
    # a figure wider than the screen scrolls inside its box
    boxes = page.eval_on_selector_all("figure.lkf .lkf-box", "bs => bs.map(b => [b.scrollWidth, b.clientWidth,"
                                                              " getComputedStyle(b).overflowX])")
    assert any(sw > cw for sw, cw, _ in boxes)
    assert all(ov == "auto" for *_, ov in boxes)


def test_phone_tap_shows_the_cell_and_move_steps_through_a_wide_figure(phone_gallery):
    page, _ = phone_gallery
    fig = _figure(page, "fragment")
    cell = _cell(fig, coordinate="(5,3)", view="logical")
    cell.scroll_into_view_if_needed()
    cell.tap()
    text = fig.locator(".lkf-panel").inner_text()
    assert "laneid: 21" in text and "reg (slot): 1" in text
    fig = _figure(page, "mma_tv")
    box = fig.locator(".lkf-box")
    assert box.evaluate("b => b.scrollWidth > b.clientWidth")
    # no "fit to width" (it shrank the text to 5 px): the move control steps through the parts
    move = fig.locator(".lkf-pan")
    assert fig.locator("button.lkf-zoom").count() == 0 and move.is_visible()
    assert re.search(r"part 1 of \d+", move.inner_text()), move.inner_text()
    move.get_by_role("button", name="show the part to the right").tap()
    page.wait_for_function("b => b.scrollLeft > 0", arg=box.element_handle())
    page.wait_for_function("m => m.textContent.includes('part 2 of')", arg=move.element_handle())


def test_phone_full_screen_view_in_pieces_selects_the_tapped_cell(phone_gallery):
    """The MMA operands are too large to show whole on a phone as drawn: the full-screen view
    shows them in pieces, and a tap on a cell there selects it in the figure (A's element (5,3)
    is thread 4*5 + 3//2 = 21, value 1, as in the fragment seed)."""
    page, _ = phone_gallery
    fig = _figure(page, "mma_tv")
    k = fig.evaluate(_FIND_CELL, {"operand": "A", "coordinate": "(5,3)"})
    assert k >= 0
    fig.locator(":scope > .lk-figbar").get_by_role("button", name="open full screen").tap()
    dialog = page.locator("dialog.lk-full[open]")
    dialog.wait_for()
    assert dialog.locator(".lk-pieces > svg").count() > 1
    # the piece that shows the cell whole (every piece is a copy of the drawing, cut to its part)
    x, y = dialog.evaluate("""(d, k) => { for (const svg of d.querySelectorAll('.lk-pieces > svg')) {
        const b = svg.getBoundingClientRect(), c = svg.querySelector(`[data-k="${k}"]`);
        const r = c && c.getClientRects().length && c.getBoundingClientRect();
        if (r && r.width > 4 && r.left >= b.left && r.right <= b.right && r.top >= b.top && r.bottom <= b.bottom)
            return [(r.left + r.right) / 2, (r.top + r.bottom) / 2]; } return [null, null]; }""", k)
    assert x is not None
    page.touchscreen.tap(x, y)
    page.wait_for_function("k => document.querySelector(`dialog.lk-full .lk-pieces [data-k=\"${k}\"].lkf-sel`)", arg=k)
    dialog.locator(".lk-full-close").tap()
    page.wait_for_function("!document.querySelector('dialog.lk-full')")
    text = fig.locator(".lkf-panel").inner_text()
    assert "coordinate: (5,3)" in text and "thread: 21" in text and "value: 1" in text, text


# -- every figure on a desktop: no label runs into another or out of the drawing ------------

# The text labels of each figure as a reader sees them: a label's box is its rendered width by the
# middle of its line (0.36 em either side of its centre, about the height of its digits and
# lower-case letters), so two lines stacked in one cell do not count, while two labels side by
# side on one line ("bank 0bank 1") or a label over a cell's value do. A label is clipped when it
# runs past the edges of its SVG.
_LABELS = """() => {
  const out = [];
  document.querySelectorAll('article figure.lkf, article figure.lkfs').forEach((fig) => {
    const svg = fig.querySelector('svg'); if (!svg) return;
    const sr = svg.getBoundingClientRect();
    const rs = [];
    svg.querySelectorAll('text').forEach(t => {
      const s = t.textContent.trim(); if (!s) return;
      const r = t.getBoundingClientRect(); if (r.width < 0.5 || r.height < 0.5) return;
      const cs = getComputedStyle(t); if (cs.visibility === 'hidden' || +cs.opacity === 0) return;
      const f = parseFloat(cs.fontSize) * (r.height / (t.getBBox().height || r.height));
      const cy = (r.top + r.bottom) / 2, h = 0.36 * Math.max(f, 1);
      rs.push([r.left, cy - h, r.right, cy + h, s, r.top, r.bottom]);
    });
    let pairs = 0, ex = [];
    for (let i = 0; i < rs.length; i++) for (let j = i + 1; j < rs.length; j++) {
      const a = rs[i], b = rs[j];
      const w = Math.min(a[2], b[2]) - Math.max(a[0], b[0]), h = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
      if (w > 0.5 && h > 0.5) { pairs++; if (ex.length < 3) ex.push(a[4] + '|' + b[4]); }
    }
    let clipped = 0, cex = [];
    rs.forEach(a => { if (a[0] < sr.left - 0.5 || a[2] > sr.right + 0.5 || a[5] < sr.top - 0.5 || a[6] > sr.bottom + 0.5) { clipped++; if (cex.length < 3) cex.push(a[4]); } });
    out.push([fig.dataset.figure || fig.className, rs.length, pairs, clipped, ex.join(' / '), cex.join(' / ')]);
  });
  return out;
}"""


def test_no_label_of_a_figure_overlaps_another_or_is_clipped_on_a_desktop(visited):
    views = visited[6]
    bad, figures, labels = [], 0, 0
    for path, view in views.items():
        for name, n, pairs, clipped, example, cut in view["labels"]:
            figures += 1
            labels += n
            if pairs or clipped:
                bad.append((path, name, pairs, clipped, example[:60], cut[:60]))
    assert figures >= 50 and labels >= 10000, (figures, labels)
    assert bad == []


def test_phone_chapter_list_and_contents_open_and_close(browser, book_url):
    tab = Tab(browser, book_url, PHONE, touch=True)
    try:
        page = tab.open("book/02_tiling")
        for side, name in (("primary", "chapter list"), ("secondary", "page contents")):
            dialog = page.locator(f"#pst-{side}-sidebar-modal")
            button = page.locator(f"button.{side}-toggle:visible")
            assert button.count() == 1, f"one visible {name} button"
            box = button.bounding_box()
            assert box["width"] >= 24 and box["height"] >= 24
            button.tap()
            page.wait_for_function(f"document.getElementById('pst-{side}-sidebar-modal').open")
            assert dialog.locator("a").count() > 0, f"the {name} lists links"
            page.keyboard.press("Escape")
            page.wait_for_function(f"!document.getElementById('pst-{side}-sidebar-modal').open")
            button.tap()
            page.wait_for_function(f"document.getElementById('pst-{side}-sidebar-modal').open")
            # a tap outside the panel (on the backdrop) closes it
            rect = dialog.bounding_box()
            x = rect["x"] + rect["width"] + 10 if side == "primary" else rect["x"] - 10
            page.touchscreen.tap(x, PHONE["height"] - 40)
            page.wait_for_function(f"!document.getElementById('pst-{side}-sidebar-modal').open")
        assert tab.errors == []
    finally:
        tab.close()


_MENU_GLYPH = """async e => { const c = getComputedStyle(e, '::before');
    if (!c.content.startsWith('"')) return false;
    const ch = JSON.parse(c.content), fa = `${c.fontWeight} 20px ${c.fontFamily}`;
    await document.fonts.load(fa, ch);
    const draw = (font) => { const cv = document.createElement('canvas'); cv.width = cv.height = 32;
        const x = cv.getContext('2d'); x.font = font; x.fillText(ch, 4, 24);
        return Array.from(x.getImageData(0, 0, 32, 32).data).join(','); };
    const mine = draw(fa);
    return mine !== draw(`${c.fontWeight} 20px serif`) && /[1-9]/.test(mine); }"""


def _menu_icon(page) -> str | None:
    """None when the page's visible ☰ button draws its icon, else what is wrong: drawn with the
    icon font, the glyph differs from the fallback font's drawing of the same code point (the
    same picture: the font lacks the glyph and the button is blank)."""
    icon = page.locator("button.primary-toggle:visible .fa-bars")
    if icon.count() != 1:
        return "no visible chapter-menu icon"
    content = icon.evaluate("e => getComputedStyle(e, '::before').content")
    return None if icon.evaluate(_MENU_GLYPH) else f"blank (content {content})"


def test_every_page_shows_its_chapter_menu_icon_on_a_phone(phone_walk):
    blank = {path: v["menu"] for path, v in phone_walk.items() if path != "errors" and v["menu"] is not None}
    assert sum(1 for p in phone_walk if p != "errors") == len(PAGES)
    assert blank == {}


def test_search_finds_the_books_terms(browser, book_url):
    tab = Tab(browser, book_url, DESKTOP)
    try:
        for term in ("swizzle", "ldmatrix", "wgmma", "local_partition"):
            tab.page.goto(f"{book_url}/search.html?q={term}", wait_until="load")
            tab.page.wait_for_function(
                "document.querySelectorAll('#search-results ul.search li').length > 0"
                " || (document.querySelector('#search-results p')?.textContent || '').includes('did not match')",
                timeout=20000)
            hits = tab.page.locator("#search-results ul.search li a")
            assert hits.count() > 0, f"no result for {term!r}"
            # each result is a page of the book
            assert all(h.endswith(".html") or ".html#" in h for h in hits.evaluate_all("as => as.map(a => a.href)"))
        assert tab.errors == [], tab.errors
    finally:
        tab.close()


_BOXES = "figure.lkf .lkf-box, figure.lkfs > .lkfs-box"
_WIDE = """() => [...document.querySelectorAll('%s')].map(b => [b.scrollWidth > b.clientWidth + 1,
    b.clientWidth / b.scrollWidth])""" % _BOXES
# the smallest text under ``root`` in CSS pixels: an SVG text's font size in SVG units times the
# SVG's scale on screen (a quarter turn included), an HTML text's font size
_SMALLEST = """root => { let min = Infinity;
    for (const svg of root.querySelectorAll('svg')) {
        const m = svg.getScreenCTM(); if (!m) continue;
        const s = Math.hypot(m.a, m.b);
        for (const t of svg.querySelectorAll('text')) {
            const r = t.getBoundingClientRect();
            if (!t.textContent.trim() || (r.width < 0.5 && r.height < 0.5)) continue;
            min = Math.min(min, parseFloat(getComputedStyle(t).fontSize) * s);
        } }
    for (const d of root.querySelectorAll('div, span')) {
        if (d.closest('svg') || !d.getClientRects().length) continue;
        if ([...d.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))
            min = Math.min(min, parseFloat(getComputedStyle(d).fontSize));
    }
    return min; }"""
# the texts of a figure's drawing (those of its current state) that ``root`` does not show whole:
# each must lie, as a whole, inside an SVG on screen there (text i of the drawing is text i of a
# copy of it), or be written out in an HTML line of ``root``
_MISSING = """(root, drawing) => {
    const want = [...drawing.querySelectorAll('text')].map((t, i) => [i, t.textContent.trim(), t])
        .filter(([i, s, t]) => s && !t.closest('.lkf-hide'));
    const seen = new Set(), lines = new Set();
    for (const d of root.querySelectorAll('div')) if (!d.closest('svg') && d.children.length === 0) lines.add(d.textContent.trim());
    for (const svg of root.querySelectorAll('svg')) {
        const b = svg.getBoundingClientRect();
        svg.querySelectorAll('text').forEach((t, i) => {
            const r = t.getBoundingClientRect();
            if (!t.getClientRects().length || r.width < 0.5) return;
            if (r.left >= b.left - 1 && r.right <= b.right + 1 && r.top >= b.top - 1 && r.bottom <= b.bottom + 1) seen.add(i);
        });
    }
    return want.filter(([i, s]) => !seen.has(i) && !lines.has(s)).map(([i, s]) => s); }"""
# the full-screen view: smallest text, whether it shows without scrolling, the page's width, and
# the texts of the drawing it leaves out
_FULL = """(dlg, drawing) => { const pane = dlg.querySelector('.lk-full-pane');
    return [(%s)(dlg), pane.scrollWidth <= pane.clientWidth + 1 && pane.scrollHeight <= pane.clientHeight + 1,
            document.documentElement.scrollWidth, (%s)(pane, drawing)]; }""" % (_SMALLEST, _MISSING)
# a drawing set in pieces that fit the column: its smallest text and the texts it leaves out
_CUT = """fig => [(%s)(fig.querySelector('.lk-pieces')), (%s)(fig.querySelector('.lk-pieces'),
    fig.querySelector('.lkfs-box > svg'))]""" % (_SMALLEST, _MISSING)


@pytest.fixture(scope="module")
def phone_walk(browser, book_url):
    """Every page opened once on a 390 px phone: the page's width, whether its ☰ icon is drawn,
    for each drawing set in pieces down the column what they show (smallest text in px, texts
    left out), and for each figure wider than the screen whether it says so above it, visibly,
    and what its full-screen view shows (smallest text in px, whole without scrolling, page
    width, texts left out, back in the page after closing)."""
    tab = Tab(browser, book_url, PHONE, touch=True)
    out = {}
    try:
        for path in PAGES:
            page = tab.open(path)
            page.wait_for_timeout(400)
            view = {"width": page.evaluate("document.documentElement.scrollWidth"), "menu": _menu_icon(page),
                    "wide": [], "figures": page.locator("figure.lkf, figure.lkfs").count(),
                    "cut": page.locator("figure.lkfs:has(.lk-pieces)").evaluate_all(f"fs => fs.map({_CUT})")}
            boxes = page.locator(_BOXES)
            for i, (is_wide, shown) in enumerate(page.evaluate(_WIDE)):
                if not is_wide:
                    continue
                fig = boxes.nth(i).locator("xpath=ancestor::figure[1]")
                cue = fig.locator(":scope > .lk-figbar")
                said = cue.count() == 1 and cue.is_visible() and "scroll" in cue.inner_text()
                full = None
                if said:
                    drawing = boxes.nth(i).locator("svg").first.element_handle()
                    cue.get_by_role("button", name="open full screen").tap()
                    dialog = page.locator("dialog.lk-full[open]")
                    dialog.wait_for()
                    full = dialog.evaluate(_FULL, drawing)
                    dialog.locator(".lk-full-close").tap()
                    page.wait_for_function("!document.querySelector('dialog.lk-full')")
                    full.append(boxes.nth(i).locator("xpath=ancestor::figure[1]").count() == 1)
                view["wide"].append({"index": i, "shown": shown, "said": said, "full": full})
            out[path] = view
        out["errors"] = tab.errors
        yield out
    finally:
        tab.close()


def test_every_figure_can_be_read_whole_on_a_phone(phone_walk):
    """On a 390 px phone every figure can be read whole, with its smallest text at least 9 px:
    a drawing wider than the column is set in pieces down the column; any other figure wider
    than the screen says so above it, visibly, and opens full screen showing all of it without
    scrolling (no page wider than the screen); closing puts it back in the page."""
    errors = phone_walk["errors"]
    views = {p: v for p, v in phone_walk.items() if p != "errors"}
    wide = [(p, w) for p, v in views.items() for w in v["wide"]]
    cut = [(p, c) for p, v in views.items() for c in v["cut"]]
    silent = [(p, w["index"]) for p, w in wide if not w["said"]]
    bad = [(p, w["index"], w["full"]) for p, w in wide if w["said"] and
           (w["full"][0] < 9 or not w["full"][1] or w["full"][2] > PHONE["width"] or w["full"][3]
            or not w["full"][4])]
    torn = [(p, c) for p, c in cut if c[0] < 9 or c[1]]
    print(f"{sum(v['figures'] for v in views.values())} figures, {len(cut)} set in pieces down the column, "
          f"{len(wide)} wider than a phone, all of them whole in the full-screen view "
          f"(smallest text {min([w['full'][0] for _, w in wide] + [c[0] for _, c in cut]):.1f} px)")
    assert len(wide) >= 10 and len(cut) >= 10, (len(wide), len(cut))
    assert silent == [] and bad == [] and torn == [], (silent, bad, torn)
    assert errors == [], errors


def test_no_page_is_wider_than_a_phone(phone_walk):
    wide = {p: v["width"] for p, v in phone_walk.items() if p != "errors" and v["width"] > PHONE["width"]}
    assert wide == {}


# -- every page: loads cleanly, typesets its math, light ------------------------------------

@pytest.fixture(scope="module")
def visited(browser, book_url, html_dir):
    """Every page of the table of contents opened on a desktop, each in an empty browser context:
    errors, requests, failed requests, math, favicons, Colab links, the figures' text labels and
    each page's first view."""
    views = _first_views(browser, book_url, html_dir, PAGES, DESKTOP, details=True)
    errors = [e for v in views.values() for e in v["errors"]]
    requests = [u for v in views.values() for u in v["requests"]]
    failed = [u for v in views.values() for u in v["failed"]]
    math = {path: v["math"] for path, v in views.items() if v["math"]}
    colab = {path: v["colab"] for path, v in views.items()}
    tab = Tab(browser, book_url, DESKTOP)
    try:
        icons = {path: v["icon"] and tab.page.request.get(v["icon"]).status for path, v in views.items()}
    finally:
        tab.close()
    yield errors, requests, failed, math, icons, colab, views


def test_every_page_loads_cleanly_and_shows_its_math_as_mathml(visited):
    errors, requests, failed, math, *_ = visited
    assert errors == [] and failed == []
    # the pages with formulas show every one as rendered MathML, no TeX left for a script
    assert len(math) >= 5
    for path, formulas in math.items():
        assert formulas and all(mathml and not tex and width > 0 for mathml, tex, width in formulas), path
    # the book is served from 127.0.0.1 only: nothing comes from the network
    assert all(u.startswith("http://127.0.0.1") or u.startswith("data:") for u in requests)


def test_no_page_loads_mathjax_or_fontawesome_js(visited, html_dir):
    requests = visited[1]
    assert not [u for u in requests if "mathjax" in u.lower() or "fontawesome" in u.lower()
                or "searchindex" in u or ".woff" in u]
    assert not (html_dir / "_static" / "mathjax").exists()


def test_pages_are_light(html_dir):
    files = [p for p in html_dir.rglob("*") if p.is_file()]
    total = sum(p.stat().st_size for p in files)
    assert total <= 12 * 2**20, f"_build/html is {total / 2**20:.1f} MB"
    heavy = {p.relative_to(html_dir).as_posix(): p.stat().st_size for p in files
             if p.suffix == ".html" and p.stat().st_size > 700 * 1024}
    assert heavy == {}
    assert [p for p in files if p.suffix == ".map"] == []
    for path in PAGES:
        text = (html_dir / f"{path}.html").read_text(encoding="utf-8")
        assert text.count('<script class="lkf-js">') <= 1 and text.count('<style class="lkf-css">') <= 1, path
        assert text.count("<figure class=\"lkf\"") == text.count("window.lkfInit(\""), path


def test_every_page_has_a_favicon(visited):
    icons = visited[4]
    assert icons and all(status == 200 for status in icons.values()), icons


# -- every lab, exercise and chapter opens in Colab -----------------------------------------

def _colab_parts():
    return [(cap, p) for cap, p in _toc_pages() if cap in ("Chapters", "Labs", "Exercises")]


def test_every_lab_exercise_and_chapter_opens_in_colab(visited):
    # Colab's documented address form: colab.research.google.com/github/OWNER/REPO/blob/BRANCH/PATH,
    # with OWNER/REPO and BRANCH from _config.yml; PATH must be a notebook of the repository
    config = yaml.safe_load((REPO / "_config.yml").read_text())
    if not (config.get("launch_buttons") or {}).get("colab_url"):
        pytest.xfail("_config.yml's launch_buttons.colab_url is empty: the site has no Colab buttons yet")
    repo = config["repository"]["url"].rstrip("/").removeprefix("https://github.com/")
    branch = config["repository"].get("branch", "main")
    prefix = f"https://colab.research.google.com/github/{repo}/blob/{branch}/"
    colab = visited[5]
    pages = _colab_parts()
    assert {cap for cap, _ in pages} == {"Chapters", "Labs", "Exercises"}
    missing = {}
    for cap, path in pages:
        good = [h for h in colab[path] if h.startswith(prefix) and h.endswith(".ipynb")
                and (REPO / h[len(prefix):]).is_file()]
        if not good:
            missing[path] = colab[path]
    assert missing == {}


def test_notebooks_execute_side_by_side(built_book):
    """_ext/parallel_execute.py runs every executed page the jupyter-cache lacks before Sphinx
    reads them, one kernel per core; myst-nb then takes every page from the cache and executes
    none itself (a page it executed would say "Executing notebook"). The tests' build first puts
    the pages the tests already ran into the cache (conftest's ``executed_page``)."""
    log = (built_book.parents[1] / "build.log").read_text()
    seeded = int(re.match(r"seeded (\d+) notebooks", log).group(1))
    found = re.search(r"executed (\d+) of (\d+) notebooks", log)
    ran = int(found.group(1)) if found else 0
    assert found is None or found.group(1) == found.group(2), found
    toc = (REPO / "_toc.yml").read_text()
    pages = len(re.findall(r"(?:root|file): (?:book|notebooks)/", toc))   # intro, chapters, labs, appendix
    assert seeded + ran == pages, (seeded, ran, pages)
    assert "Executing notebook" not in log
    assert log.count("Using cached notebook") == pages


# -- weight: each page's first view ------------------------------------------------------------

MAX_BYTES, MAX_REQUESTS = 1_200_000, 20


_MATH = """() => [...document.querySelectorAll('span.math, div.math')]
    .map(e => [!!e.querySelector('math'), e.textContent.includes('\\\\(') ||
               e.textContent.includes('\\\\['), e.getBoundingClientRect().width])"""


def _first_views(browser, base, html_dir, paths, size, at_once=6, details=False):
    """{path: {"bytes", "count", "files"}} of each page opened in an empty browser context (its
    first view): every request but ``data:`` URLs, bytes as the files served (uncompressed).
    Pages load ``at_once`` side by side (each in its own context), so their network waits
    overlap. ``details`` adds what the page shows: console errors, requests, failed requests,
    rendered math, its favicon, its Colab links and its figures' labels (``_LABELS``)."""
    from urllib.parse import unquote, urlparse
    out = {}
    for start in range(0, len(paths), at_once):
        batch = [(path, Tab(browser, base, size, touch=size is PHONE)) for path in paths[start:start + at_once]]
        try:
            for path, tab in batch:
                tab.page.goto(f"{base}/{path}.html", wait_until="commit")
            seen = {}
            for path, tab in batch:
                page = tab.page
                page.wait_for_load_state("networkidle")
                page.wait_for_function(
                    "[...document.querySelectorAll('.lkf')].every(e => e.dataset.ready === '1')", timeout=20000)
                if details:
                    seen[path] = {
                        "icon": page.evaluate("document.querySelector('link[rel~=icon]')?.href"),
                        "colab": page.eval_on_selector_all("a[href*='colab.research.google.com']",
                                                           "as => as.map(a => a.href)"),
                        "math": page.evaluate(_MATH) if page.locator("span.math, div.math").count() else [],
                        "labels": page.evaluate(_LABELS)}
            batch[-1][1].page.wait_for_timeout(200)
        finally:
            for _, tab in batch:
                tab.close()
        for path, tab in batch:
            urls = [u for u in tab.requests if not u.startswith("data:")]
            files = [html_dir / unquote(urlparse(u).path).lstrip("/") for u in urls]
            sizes = {f.relative_to(html_dir).as_posix(): f.stat().st_size for f in files if f.is_file()}
            out[path] = {"bytes": sum(f.stat().st_size for f in files if f.is_file()), "count": len(urls),
                         "files": sizes, "errors": tab.errors, "requests": tab.requests, "failed": tab.failed,
                         **seen.get(path, {})}
    return out


@pytest.mark.parametrize("size", [DESKTOP, PHONE], ids=["1366px", "390px"])
def test_every_page_weighs_at_most_1_2_mb_in_at_most_20_requests(browser, book_url, html_dir, visited, size):
    views = visited[6] if size is DESKTOP else _first_views(browser, book_url, html_dir, PAGES, size)
    heavy = {path: (v["bytes"], v["count"], sorted(v["files"].items(), key=lambda f: -f[1])[:5])
             for path, v in views.items() if v["bytes"] > MAX_BYTES or v["count"] > MAX_REQUESTS}
    assert heavy == {}
    # the check sees what a first view loads: a page's own HTML, its scripts and its styles
    view = views["book/05_swizzle"]
    assert "book/05_swizzle.html" in view["files"] and any(f.endswith(".css") for f in view["files"]) \
        and view["count"] >= 3, view["files"]


# -- the built pages: figures, links, no plumbing ----------------------------------------------
