"""Live widgets on a static page: a short note in place of a control the page cannot run.

An ipywidgets explorer needs a running kernel; on the website its output would be an empty box
(or, with myst-nb's default, scripts fetched from public CDNs, which a book served without a
network cannot load). ``_config.yml`` sets ``nb_ipywidgets_js`` to nothing, and this extension
replaces each widget view with a note that the explorer runs in the notebook.
"""

from __future__ import annotations

import re

_VIEW = re.compile(r'<script type="application/vnd\.jupyter\.widget-view\+json">.*?</script>', re.S)
NOTE = ('<p class="lkf-live">This explorer is live in the notebook: open the page in Colab or '
        'Jupyter (the launch button at the top) to use it.</p>')


def replace_widget_views(body: str) -> str:
    """``body`` with every widget view replaced by :data:`NOTE`."""
    return _VIEW.sub(NOTE, body)


def _page(app, pagename, templatename, context, doctree):
    if "body" in context and "widget-view" in context["body"]:
        context["body"] = replace_widget_views(context["body"])


def setup(app):
    app.connect("html-page-context", _page)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
