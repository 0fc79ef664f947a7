"""What every explorer shares: a picture, a message line, and an ``update`` that never raises.

The picture is a PNG in an ``ipywidgets.Image`` (rendered by matplotlib's Agg backend, so
no display is needed); a mistake in the input becomes a message, not a traceback. The
state after each update (``figure``, ``message.value``, ``image.value``) can be inspected
without a browser.
"""

from __future__ import annotations

import io
from html import escape

import ipywidgets as W

from labkit.errors import LabkitError

__all__ = ["Explorer", "png_bytes"]


def png_bytes(fig, dpi: int = 90) -> bytes:
    """Render a matplotlib figure to PNG bytes (Agg canvas, no pyplot state)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


class Explorer:
    """Base of the explorers: subclasses build ``controls`` and implement ``render()``,
    which returns a matplotlib figure and a one-line summary (or raises a labkit error)."""

    dpi = 90

    def __init__(self, controls: list):
        self.controls = controls
        self.message = W.HTML()
        self.image = W.Image(format="png")
        self.figure = None
        self.error: str | None = None
        for c in controls:
            if hasattr(c, "observe") and not isinstance(c, (W.Label, W.HTML)):
                c.observe(lambda change: self.update(), names="value")
        self.widget = W.VBox([W.HBox(controls, layout=W.Layout(flex_flow="row wrap")), self.message, self.image])

    def render(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def update(self) -> bool:
        """Recompute from the controls. Returns True when the picture changed."""
        try:
            fig, summary = self.render()
        except (LabkitError, ValueError, TypeError) as e:
            self.error = str(e)
            self.message.value = (f'<span style="color:#D55E00">&#9888; {escape(type(e).__name__)}: '
                                  f'{escape(str(e))}</span>')
            return False
        self.error = None
        self.figure = fig
        self.message.value = escape(summary)
        self.image.value = png_bytes(fig, self.dpi)
        return True

    def _ipython_display_(self):
        from IPython.display import display
        display(self.widget)
