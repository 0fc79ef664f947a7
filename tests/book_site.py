"""The built book for the tests that read it: its pages in ``_toc.yml`` order, where its HTML is
(``BOOK_HTML``, a fresh ``_build/html`` or conftest's ``built_book``; conftest's ``html_dir`` and
``book_url`` fixtures serve it)."""

from __future__ import annotations

import http.server
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


def toc_pages() -> list[tuple[str, str]]:
    """(part caption, page path without suffix) of every page ``_toc.yml`` lists, in order."""
    toc = yaml.safe_load((REPO / "_toc.yml").read_text())
    out = [("", toc["root"])]

    def walk(caption, entries):
        for e in entries or []:
            if "file" in e:
                out.append((caption, e["file"]))
            walk(caption, e.get("sections"))

    for part in toc.get("parts", []):
        walk(part.get("caption", ""), part.get("chapters"))
    walk("", toc.get("chapters"))
    return out


PAGES = [p for _, p in toc_pages()]


def fresh_build() -> Path | None:
    """The repository's own ``_build/html`` when it is newer than every source it shows."""
    html = REPO / "_build" / "html"
    page = html / "book" / "gallery.html"
    if not page.is_file():
        return None
    sources = [*REPO.glob("book/**/*.md"), *REPO.glob("book/_static/*"), *REPO.glob("labkit/**/*.py"),
               *REPO.glob("_ext/*.py"), *REPO.glob("notebooks/**/*.ipynb"), *REPO.glob("exercises/**/*.ipynb"),
               REPO / "_config.yml", REPO / "_toc.yml"]
    newest = max(p.stat().st_mtime for p in sources if p.exists())
    return html if page.stat().st_mtime > newest else None


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass
