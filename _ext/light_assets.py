"""A page's first view in a handful of requests: one stylesheet, one script, icons in the stylesheet.

The themes give every page about thirty files: ten stylesheets, fifteen scripts, Font
Awesome's 1.5 MB ``fontawesome.js`` (which swaps each ``<i class="fa-...">`` for an SVG) and
its two web fonts (270 KB), and Sphinx's search index and search scripts. After the build this
extension rewrites every page:

- **Icons**: ``fontawesome.js`` goes; the icons are drawn by the theme's CSS from Font Awesome's
  own fonts, subset to the glyphs the site uses (the icons named in the pages and in the
  themes' CSS variables) and embedded in the stylesheet as ``data:`` URLs; the CSS rules of
  icons no page uses are dropped.
- **One stylesheet**: the pages' local stylesheets, in page order, concatenated into
  ``_static/site-<hash>.css`` (``@import`` inlined, relative ``url()`` rewritten).
- **One script**: the pages' local scripts, in page order, concatenated into
  ``_static/site-<hash>.js`` and loaded with ``defer`` where the theme's scripts were; Sphinx's
  small ``documentation_options.js`` is written into the page, because inline scripts read it
  while the page is parsed. Nothing the site does not use is kept: sphinx-thebe (the book has
  no live kernels) and, outside ``search.html``, the search index and its scripts (the search
  box sends the reader to ``search.html``). On ``search.html`` the search scripts join the
  bundle right after ``doctools.js`` (whose ``_ready`` they call, and before any script that
  asks for ``Search``), and the index follows the bundle, deferred, since it calls
  ``Search.setIndex``.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import posixpath
import re
from pathlib import Path

_LINK = re.compile(r'<link\b[^>]*\brel="stylesheet"[^>]*>')
_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.S)
_PRELOAD = re.compile(r'<link\b[^>]*\brel="preload"[^>]*\bas="script"[^>]*>\s*')
_HREF = re.compile(r'\bhref="([^"]+)"')
_SRC = re.compile(r'\bsrc="([^"]+)"')
_URL = re.compile(r"url\(\s*(['\"]?)([^'\")]+)\1\s*\)")
_IMPORT = re.compile(r"@import\s+(?:url\()?['\"]([^'\"]+)['\"]\)?\s*;")
_FONT_FACE = re.compile(r"@font-face\{[^}]*Font Awesome[^}]*\}")
_ICON_RULE = re.compile(r"(?<=[}\n])((?:\.fa-[\w-]+:{1,2}before,?)+)\{content:\"([^\"]+)\"\}")

DROP_CSS = ("sphinx-thebe.css",)
DROP_JS = ("fontawesome.js", "sphinx-thebe.js")
SEARCH_ONLY = ("searchtools.js", "language_data.js", "searchindex.js")
INLINE_JS = ("documentation_options.js",)


def _local(url: str) -> bool:
    return not re.match(r"^(?:[a-z]+:|//|#)", url)


def _static_path(page: Path, url: str, outdir: Path) -> Path:
    return (page.parent / url.split("?")[0].split("#")[0]).resolve().relative_to(outdir.resolve())


# -- icons ---------------------------------------------------------------------------------------

def _codepoints(css: str, used_classes: set[str]) -> set[int]:
    """The glyphs the site shows: every icon class the pages use, every icon the themes' CSS
    variables name (admonitions, links, breadcrumbs) and every literal icon in ``content:``."""
    cps = set()
    for selectors, content in _ICON_RULE.findall(css):
        names = set(re.findall(r"\.(fa-[\w-]+):", selectors))
        if names & used_classes:
            cps.update(_unescape_css(content))
    for value in re.findall(r"--pst-icon-[\w-]+:\s*\"([^\"]+)\"", css):
        cps.update(_unescape_css(value))
    for value in re.findall(r"content:\s*\"(\\f[0-9a-f]{3})\"", _ICON_RULE.sub("", css)):
        cps.update(_unescape_css(value))
    return {c for c in cps if c >= 0xE000}


def _unescape_css(value: str) -> list[int]:
    out = []
    for m in re.finditer(r"\\([0-9a-fA-F]{1,6})\s?|(.)", value):
        out.append(int(m.group(1), 16) if m.group(1) else ord(m.group(2)))
    return out


def subset_font(path: Path, codepoints: set[int]) -> bytes:
    """A WOFF font holding only ``codepoints`` of the font at ``path``."""
    import logging

    from fontTools import subset
    from fontTools.ttLib import TTFont

    logging.getLogger("fontTools").setLevel(logging.WARNING)

    options = subset.Options()
    options.flavor = "woff"
    options.notdef_outline = True
    font = TTFont(str(path))
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(codepoints))
    subsetter.subset(font)
    buf = io.BytesIO()
    font.flavor = "woff"
    font.save(buf)
    return buf.getvalue()


def subset_icons(css: str, css_dir: Path, used_classes: set[str]) -> str:
    """``css`` with Font Awesome's fonts subset and inlined, and unused icon rules dropped."""
    cps = _codepoints(css, used_classes)

    def face(m):
        rule = m.group(0)
        ttf = next((u for _, u in _URL.findall(rule) if u.split("?")[0].endswith(".ttf")), None)
        if ttf is None:
            return rule
        data = base64.b64encode(subset_font((css_dir / ttf.split("?")[0]).resolve(), cps)).decode()
        return re.sub(r"src:[^;}]+", f'src:url(data:font/woff;base64,{data}) format("woff")', rule)

    css = _FONT_FACE.sub(face, css)

    def rule(m):
        names = set(re.findall(r"\.(fa-[\w-]+):", m.group(1)))
        return m.group(0) if names & used_classes else ""

    return _ICON_RULE.sub(rule, css)


# -- bundles -------------------------------------------------------------------------------------

def _css_text(path: Path, static: Path, seen: set) -> str:
    """The stylesheet at ``path`` (relative to ``static``) with imports inlined and every relative
    ``url()`` rewritten relative to ``static``."""
    if path in seen:
        return ""
    seen.add(path)
    base = posixpath.dirname(path.as_posix())
    text = (static / path).read_text(encoding="utf-8")

    def imp(m):
        return _css_text(Path(posixpath.normpath(posixpath.join(base, m.group(1)))), static, seen)

    text = _IMPORT.sub(imp, text)

    def url(m):
        u = m.group(2)
        if not _local(u) or u.startswith("/"):
            return m.group(0)
        return f'url("{posixpath.normpath(posixpath.join(base, u))}")'

    return re.sub(r"@charset[^;]*;", "", _URL.sub(url, text))


def _write_bundle(static: Path, kind: str, text: str) -> str:
    name = f"site-{hashlib.sha256(text.encode()).hexdigest()[:12]}.{kind}"
    (static / name).write_text(text, encoding="utf-8")
    return name


def _bundle(static: Path, outdir: Path, key: tuple, bundles: dict, used_classes: set[str]) -> str:
    """The bundle file of ``key`` (``("css" | "js", files)``), made once per build."""
    if key not in bundles:
        kind, files = key
        if kind == "css":
            seen: set = set()
            text = "\n".join(_css_text(Path(p), static, seen) for p in files)
            bundles[key] = _write_bundle(static, "css", '@charset "UTF-8";\n' + subset_icons(text, static, used_classes))
        else:
            parts = [f"/* {p} */\n;{(outdir / p).read_text(encoding='utf-8')}\n" for p in files]
            bundles[key] = _write_bundle(static, "js", "/* Layout Lab: the site's scripts, in page order */\n;\n"
                                         + "".join(parts))
    return bundles[key]


def rewrite_page(page: Path, outdir: Path, bundles: dict, used_classes: set[str], manifest: dict) -> None:
    """Rewrite one HTML page in place (``bundles`` caches the bundle of each list of files;
    ``manifest`` names the list of files of each bundle an earlier build made)."""
    html = page.read_text(encoding="utf-8")
    static = outdir / "_static"
    if "/_static/site-" in html:
        # written by an earlier build (Sphinx rewrites only the pages whose source changed): point
        # it at the bundles made now from the same lists of files
        for name, key in manifest.items():
            html = html.replace(f"/_static/{name}", f"/_static/{_bundle(static, outdir, key, bundles, used_classes)}")
        page.write_text(html, encoding="utf-8")
        return
    rel_root = posixpath.relpath(outdir.as_posix(), page.parent.as_posix())
    is_search = page.name == "search.html" and page.parent == outdir

    # stylesheets
    links = [m for m in _LINK.finditer(html) if _local(_HREF.search(m.group(0)).group(1))]
    css_paths = []
    for m in links:
        p = _static_path(page, _HREF.search(m.group(0)).group(1), outdir)
        if p.parts[0] == "_static" and p.name not in DROP_CSS:
            css_paths.append(Path(*p.parts[1:]))
    if links:
        key = ("css", tuple(p.as_posix() for p in css_paths))
        name = _bundle(static, outdir, key, bundles, used_classes)
        first = links[0]
        tag = f'<link rel="stylesheet" href="{rel_root}/_static/{name}" />'
        html = html[:first.start()] + tag + "".join(
            html[a.end():b.start()] for a, b in zip(links, links[1:])) + html[links[-1].end():]

    # scripts
    html = _PRELOAD.sub("", html)
    scripts = list(_SCRIPT.finditer(html))
    bundle, out, last, anchor, index = [], [], 0, None, ""
    for m in scripts:
        src = _SRC.search(m.group(1))
        out.append(html[last:m.start()])
        last = m.end()
        if src is None or not _local(src.group(1)):
            out.append(m.group(0))
            continue
        p = _static_path(page, src.group(1), outdir)
        name = p.name
        if name in DROP_JS or (name in SEARCH_ONLY and not is_search):
            continue
        if name in INLINE_JS:
            out.append(f"<script>{(outdir / p).read_text(encoding='utf-8')}</script>")
            continue
        if is_search and name == "searchindex.js":
            # Search.setIndex is defined by searchtools.js, now in the deferred bundle: the index
            # follows the bundle, deferred too, so it runs after it (deferred scripts run in order)
            index = f'<script defer src="{src.group(1)}"></script>'
            continue
        if "mathjax" in p.parts:
            out.append(m.group(0))
            continue
        bundle.append(p)
        anchor = len(out)
        out.append("")
    out.append(html[last:])
    if bundle and is_search:
        # a deferred script runs after parsing, when ``_ready`` calls its callback at once: so
        # sphinx_highlight.js's ``typeof Search`` would meet the const before its declaration
        # (a ReferenceError). The search scripts follow doctools.js (``_ready``) directly.
        search = [p for p in bundle if p.name in SEARCH_ONLY]
        rest = [p for p in bundle if p.name not in SEARCH_ONLY]
        at = next((k + 1 for k, p in enumerate(rest) if p.name == "doctools.js"), 0)
        bundle = rest[:at] + search + rest[at:]
    if bundle:
        name = _bundle(static, outdir, ("js", tuple(p.as_posix() for p in bundle)), bundles, used_classes)
        out[anchor] = f'<script defer src="{rel_root}/_static/{name}"></script>' + index
    page.write_text("".join(out), encoding="utf-8")


def used_icon_classes(pages: list[Path]) -> set[str]:
    used = set()
    for page in pages:
        # icons are <i> and <span> elements (the themes' ☰ and contents buttons use <span>)
        for classes in re.findall(r'<(?:i|span)\b[^>]*?\bclass="([^"]*)"', page.read_text(encoding="utf-8")):
            used.update(c for c in classes.split() if c.startswith("fa-"))
    return used


def site_pages(outdir: Path) -> list[Path]:
    """The HTML pages of the site (not the theme's templates that land in ``_static``)."""
    return sorted(p for p in outdir.rglob("*.html") if not {"_static", "_sources"} & set(p.relative_to(outdir).parts))


def _finished(app, exc):
    if exc is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    pages = site_pages(outdir)
    used = used_icon_classes(pages)
    static = outdir / "_static"
    listing = static / "site-bundles.json"
    manifest = {name: (kind, tuple(files)) for name, (kind, files) in
                (json.loads(listing.read_text()) if listing.is_file() else {}).items()}
    bundles: dict = {}
    for page in pages:
        rewrite_page(page, outdir, bundles, used, manifest)
    listing.write_text(json.dumps({name: [kind, list(files)] for (kind, files), name in bundles.items()}, indent=1))
    for old in static.glob("site-*.*"):
        if old.name not in bundles.values() and old != listing:
            old.unlink()


def setup(app):
    app.connect("build-finished", _finished, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
