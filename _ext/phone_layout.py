"""The book on a phone: the chapter list and the page contents open, and nothing is wider
than the screen.

sphinx-book-theme 1.3 shows its own ☰ and contents buttons, which share their classes
(``primary-toggle``, ``secondary-toggle``) with pydata-sphinx-theme's hidden navbar buttons;
the themes attach their handlers to the first button of each class only, the hidden one.
``book/_static/layoutlab.js`` passes a click on any other button of the class to that first
one. ``book/_static/layoutlab.css`` wraps long inline code and lets code, outputs and wide
formulas scroll inside their blocks.
"""

from __future__ import annotations

from pathlib import Path

STATIC = Path(__file__).resolve().parents[1] / "book" / "_static"


def _static_path(app, config):
    if str(STATIC) not in config.html_static_path:
        config.html_static_path.append(str(STATIC))


def setup(app):
    app.connect("config-inited", _static_path)
    app.add_css_file("layoutlab.css")
    app.add_js_file("layoutlab.js", loading_method="defer")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
