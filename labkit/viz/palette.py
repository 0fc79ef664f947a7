"""Colours that stay distinguishable under the common colour-vision deficiencies.

Categorical colours follow the Okabe-Ito palette; numeric values use matplotlib's
viridis (perceptually uniform, readable in greyscale).

>>> from labkit.viz.palette import category_color, text_color
>>> category_color(0)
'#E69F00'
>>> text_color('#000000')
'#ffffff'
"""

from __future__ import annotations

__all__ = ["OKABE_ITO", "LIGHT", "category_color", "light_color", "thread_color", "value_color",
           "text_color", "EMPTY", "MARK"]

# Okabe & Ito (2008), "Color Universal Design": orange, sky blue, bluish green,
# yellow, blue, vermillion, reddish purple, grey (in place of black so labels stay legible).
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442",
             "#0072B2", "#D55E00", "#CC79A7", "#999999")

# The same hues mixed halfway with white: a second ring of eight for 16-way categories.
LIGHT = ("#F2CF80", "#AAD9F4", "#80CEB9", "#F7F1A1",
         "#80B8D8", "#EAAE80", "#E5BCD3", "#CCCCCC")

EMPTY = "#FFFFFF"
MARK = "#D55E00"   # vermillion: conflicts, selection outlines


def category_color(k: int) -> str:
    """Colour of category ``k`` (cycles through the eight Okabe-Ito hues)."""
    return OKABE_ITO[int(k) % len(OKABE_ITO)]


def light_color(k: int) -> str:
    """Light variant of ``category_color(k)`` (for backgrounds under dark text)."""
    return LIGHT[int(k) % len(LIGHT)]


def thread_color(t: int) -> str:
    """Colour of thread ``t``: eight hues, light for threads 8-15 and 24-31."""
    return (OKABE_ITO if (int(t) // 8) % 2 == 0 else LIGHT)[int(t) % 8]


def value_color(v: float, vmax: float) -> str:
    """A viridis colour for ``v`` in ``[0, vmax]`` as ``#rrggbb``."""
    from matplotlib import colormaps
    frac = 0.0 if vmax <= 0 else max(0.0, min(1.0, float(v) / float(vmax)))
    r, g, b, _ = colormaps["viridis"](0.15 + 0.85 * frac)
    return "#%02x%02x%02x" % (round(r * 255), round(g * 255), round(b * 255))


def text_color(fill: str) -> str:
    """Black or white, whichever reads better on ``fill`` (``#rrggbb``)."""
    h = fill.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) / 255 for i in (0, 2, 4))
    lum = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return "#000000" if lum > 0.45 else "#ffffff"

