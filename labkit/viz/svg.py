"""Static drawings on a page: a matplotlib figure as inline SVG, sized so its text stays legible.

A ``draw_*`` figure (and any matplotlib figure passed to :func:`page_figure`) shows in Jupyter
and in the built book as SVG with real ``<text>``: it scales with the column like an image,
but never below the width at which its smallest text is ``PHONE_TEXT_PX`` CSS pixels tall on a
narrow screen (``DESK_TEXT_PX`` on a wide one). A drawing wider than that scrolls sideways
inside its own box; the box is the figure's one Tab stop, and the arrow keys move through it.

>>> import matplotlib; matplotlib.use("Agg")
>>> import labkit as lk
>>> from labkit import viz
>>> fig = viz.draw_layout(lk.make_layout((2, 4), (4, 1)))
>>> sizes = text_sizes(fig)
>>> min(sizes) >= 8
True
>>> html = fig._repr_html_()
>>> html.count("<svg") == 1 and 'tabindex="0"' in html and "<text" in html
True
"""

from __future__ import annotations

import io
import re
import zlib
from html import escape

from labkit.errors import LabkitError

__all__ = ["PHONE_TEXT_PX", "DESK_TEXT_PX", "NARROW_PX", "text_sizes", "svg_markup", "figure_html",
           "page_figure", "PageFigure"]

PHONE_TEXT_PX = 9.5        # smallest text on a narrow screen (the book's limit is 9 px)
DESK_TEXT_PX = 11.1        # smallest text on a wide screen (the limit is 11 px)
NARROW_PX = 720            # screens up to this width are narrow (the style's media query)
PX_PER_PT = 96 / 72

_FONT_STYLE = re.compile(r";? ?font-family: [^;\"]*")
_TRANSLATE = re.compile(r'(<text[^>]*?) transform="translate\(([-0-9.]+) ([-0-9.]+)\)"')
_TEXT_GROUP = re.compile(r"<g>\s*((?:<text[^>]*>[^<]*</text>\s*)+)</g>")
_ROTATE0 = re.compile(r' transform="rotate\(-?0 [-0-9. ]+\)"')
_IDS = re.compile(r' id="(?:figure|patch|axes|text|LineCollection|PatchCollection|image|line2d|matplotlib\.axis'
                  r'|xtick|ytick|legend|Collection|PolyCollection|BarContainer|[a-z]+tick)_?[0-9]*"')
_HEAD = re.compile(r"^.*?(?=<svg)", re.S)
_META = re.compile(r"\s*<metadata>.*?</metadata>", re.S)


def _texts(fig):
    from matplotlib.text import Text
    for t in fig.findobj(Text):
        if t.get_visible() and t.get_text().strip() and t.get_figure(root=True) is fig:
            yield t


def text_sizes(fig) -> list[float]:
    """Font sizes (points) of the visible, non-empty texts of ``fig``."""
    return [float(t.get_fontsize()) for t in _texts(fig)]


def _widths(fig) -> tuple[float, float, float]:
    """``(natural, narrow, wide)`` CSS widths of the drawing in pixels: its own size, and the
    least widths at which its smallest text is ``PHONE_TEXT_PX`` / ``DESK_TEXT_PX`` tall."""
    natural = fig.get_figwidth() * 96
    sizes = text_sizes(fig)
    if not sizes:
        return natural, 0.0, 0.0
    small = min(sizes) * PX_PER_PT                      # px at the natural width
    return natural, natural * PHONE_TEXT_PX / small, natural * DESK_TEXT_PX / small


def svg_markup(fig) -> str:
    """``fig`` as one ``<svg>`` element: texts stay text (``svg.fonttype: none``), no XML
    header, no metadata, no element ids but the clip paths', deterministic output."""
    import matplotlib
    buf = io.StringIO()
    salt = format(zlib.crc32(repr((fig.get_size_inches().tolist(), getattr(fig, "alt_text", ""))).encode()), "x")
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt, "svg.image_inline": True}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    s = _META.sub("", _HEAD.sub("", buf.getvalue(), count=1), count=1)
    s = _FONT_STYLE.sub("", s)
    s = _ROTATE0.sub("", s)
    s = _TRANSLATE.sub(r'\1 x="\2" y="\3"', s)
    s = s.replace('style=""', "")
    s = re.sub(r">\s+<", "><", s)
    s = _IDS.sub("", s)
    s = _TEXT_GROUP.sub(r"\1", s)
    # the page sets the size: drop the fixed width/height in pt, keep the viewBox
    s = re.sub(r'^<svg([^>]*?) width="[0-9.]+pt" height="[0-9.]+pt"', r"<svg\1", s, count=1)
    return s.strip()


def _px(v: float) -> str:
    return f"{v:.0f}px"


def figure_html(fig, alt: str = "", name: str = "drawing") -> str:
    """The page markup of a static figure: the shared figure style, then a ``<figure
    class="lkfs">`` whose box (the one Tab stop) holds the SVG. The SVG is as wide as the
    column, at most its natural width, and at least as wide as its smallest text needs
    (wider than the column: the box scrolls sideways)."""
    from labkit.viz.html.figure import STYLE
    svg = svg_markup(fig).replace("<svg", f'<svg role="img" aria-label="{escape(alt, quote=True)}"', 1)
    natural, narrow, wide = _widths(fig)            # after drawing: tick labels have their text
    style = f"--w:{_px(natural)};--p:{_px(narrow)};--d:{_px(wide)}"
    return (f'{STYLE}<figure class="lkfs" data-figure="{escape(name, quote=True)}" style="{style}">'
            f'<div class="lkfs-box" tabindex="0" aria-label="{escape(alt, quote=True)}">{svg}</div></figure>')


class PageFigure:
    """Any matplotlib figure, shown as :func:`figure_html` (``_repr_html_``) with a PNG for
    viewers without HTML (``_repr_png_``); made by :func:`page_figure`."""

    def __init__(self, fig, alt: str, name: str = "chart"):
        self.figure = fig
        self.alt_text = alt
        self.name = name

    def _repr_html_(self) -> str:
        return figure_html(self.figure, self.alt_text, self.name)

    def _repr_png_(self) -> bytes:
        buf = io.BytesIO()
        self.figure.savefig(buf, format="png", dpi=100)
        return buf.getvalue()

    def __repr__(self) -> str:
        return f"<PageFigure {self.name!r}: {self.alt_text[:40]!r}>"


def page_figure(fig, alt: str, name: str = "chart") -> PageFigure:
    """Show a matplotlib figure made with pyplot (a chart) the way labkit shows its drawings:
    SVG, legible on a phone. The figure is closed in pyplot, so it shows once.

    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(4, 3))
    >>> _ = ax.bar([0, 1], [3, 5])
    >>> shown = page_figure(fig, alt="two bars, 3 and 5")
    >>> plt.fignum_exists(fig.number), "<svg" in shown._repr_html_()
    (False, True)
    """
    import matplotlib.pyplot as plt
    if not hasattr(fig, "savefig"):
        raise LabkitError(f"page_figure: fig must be a matplotlib Figure, got {type(fig).__name__}")
    plt.close(fig)
    return PageFigure(fig, alt, name)
