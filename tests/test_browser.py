"""The built book in a real browser: the gallery's figures answer clicks without a kernel.

Headless Chromium (Debian's ``/usr/bin/chromium``) driven by playwright opens the gallery
page of the built book, served over HTTP on 127.0.0.1, clicks cells and reads the panels.
Expected values come from the seeds (001: element (5,3) -> lane 21, slot 1; SFA[64,2] ->
TLane 0/32/64/96, TCol 2, byte 2; element (1,2,3) of the mesh -> devices (0,1) and (1,1),
offset 19; a column read takes 8 cycles row-major and 1 swizzled).
"""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def _fresh_build() -> Path | None:
    """The repository's own ``_build/html`` when it is newer than every source it shows."""
    html = REPO / "_build" / "html"
    page = html / "book" / "gallery.html"
    if not page.is_file():
        return None
    sources = [*REPO.glob("book/**/*.md"), *REPO.glob("labkit/**/*.py"), REPO / "_config.yml", REPO / "_toc.yml"]
    newest = max(p.stat().st_mtime for p in sources if p.exists())
    return html if page.stat().st_mtime > newest else None


@pytest.fixture(scope="module")
def book_url(request):
    html = _fresh_build() or request.getfixturevalue("built_book")
    handler = functools.partial(_QuietHandler, directory=str(html))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/favicon.ico":        # the browser's own probe, not a request of the page
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()


@pytest.fixture(scope="module")
def gallery(book_url):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{book_url}/book/gallery.html", wait_until="load")
        yield page, errors
        browser.close()


def _figure(page, name):
    fig = page.locator(f'div.lkf[data-figure="{name}"]')
    assert fig.count() == 1, f"the gallery shows figure {name!r} once"
    return fig


def _click_cell(fig, **info):
    """Click the cell whose panel facts include ``info`` (found through the figure's data)."""
    k = fig.evaluate("""(root, want) => {
        const D = JSON.parse(root.querySelector('script.lkf-data').textContent);
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
    }""", {f.replace("_", " "): v for f, v in info.items()})
    assert k >= 0, f"no visible cell with {info}"
    fig.locator(f'[data-k="{k}"]').first.click()
    return fig.locator(".lkf-panel").inner_text()


def test_gallery_has_every_figure_once_with_unique_ids(gallery):
    page, _ = gallery
    names = page.eval_on_selector_all("div.lkf", "els => els.map(e => e.dataset.figure)")
    ids = page.eval_on_selector_all("div.lkf", "els => els.map(e => e.id)")
    for name in ("tiling", "fragment", "sfa_tmem", "mesh", "xor_swizzle", "bank_stepper", "swizzle_atoms",
                 "mma_tv", "ldmatrix", "a_path"):
        assert name in names
    assert len(set(ids)) == len(ids)
    # every figure's script ran (it marks its root)
    assert page.eval_on_selector_all("div.lkf", "els => els.every(e => e.dataset.ready === '1')")


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


def test_stepper_steps_through_cycles(gallery):
    page, _ = gallery
    fig = _figure(page, "bank_stepper")
    label = fig.locator(".lkf-stepl")
    assert label.inner_text() == "cycle 1"
    fig.get_by_role("button", name="next").click()
    assert label.inner_text() == "cycle 2"
    fig.get_by_role("button", name="previous").click()
    fig.get_by_role("button", name="previous").click()
    assert label.inner_text() == "cycle 8"


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


CHAPTERS = ["intro", "01_shape_stride", "02_tiling", "03_named_axes", "04_replication_offset",
            "05_swizzle", "06_ldmatrix_mma"]


def test_every_chapter_loads_cleanly_and_typesets_its_math(gallery, book_url):
    # the book is served from 127.0.0.1 only: a page that needed the network would log errors
    browser = gallery[0].context.browser
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        for name in CHAPTERS:
            page.goto(f"{book_url}/book/{name}.html", wait_until="networkidle")
            assert errors == [], (name, errors)
            if page.locator("span.math, div.math").count():
                page.wait_for_selector("mjx-container", timeout=15000)
    finally:
        page.close()
