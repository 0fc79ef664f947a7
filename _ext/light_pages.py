"""Pages carry what they use once: one copy of the interactive figures' style and script per
page, and no JavaScript source maps.

Every ``labkit.viz.html`` figure brings its own ``<style class="lkf-css">`` and
``<script class="lkf-js">`` so that it works alone in a notebook; a page of the book keeps the
first copy of each and drops the rest (each figure still calls ``window.lkfInit`` with its id).
The themes' ``*.js.map`` files (debugging aids, 3.5 MB) are not published.
"""

from __future__ import annotations

import re
from pathlib import Path

_SHARED = re.compile(r'<style class="lkf-css">.*?</style>|<script class="lkf-js">.*?</script>', re.S)


def dedupe_figure_assets(body: str) -> str:
    """``body`` with only the first copy of the figure style and of the figure script."""
    seen: set[str] = set()

    def keep_first(m):
        kind = "style" if m.group(0).startswith("<style") else "script"
        if kind in seen:
            return ""
        seen.add(kind)
        return m.group(0)

    return _SHARED.sub(keep_first, body)


def _page(app, pagename, templatename, context, doctree):
    if "body" in context and "lkf-" in context["body"]:
        context["body"] = dedupe_figure_assets(context["body"])


def _drop_source_maps(app, exc):
    if exc is None and app.builder.format == "html":
        for f in Path(app.outdir).rglob("*.map"):
            f.unlink()


def setup(app):
    app.connect("html-page-context", _page)
    app.connect("build-finished", _drop_source_maps)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
