"""The machinery of interactive figures: SVG cells + one small inline script.

An :class:`HtmlFigure` is built from cells (rectangles with a label) that carry their own
facts (``info``: shown in the panel when the cell is clicked or hovered), a ``link`` (cells
drawing the same logical element in different panels share it and light up together) and
relation keys (``rel``: same thread, same bank, ... cells with an equal key are highlighted).
Controls (button rows or a stepper) switch between states; an element drawn with
``when={control: option}`` shows only in that state.

The output is self-contained: an inline ``<style>``, a ``<figure>`` with its ``<figcaption>``,
controls, an ``<svg>`` in a scrolling box, the data as compact JSON and a short script that
draws the cells from it; no external files, so it works in JupyterLab, Colab, VS Code and a
static book. The style and the script are the same for every figure, so a page of several
figures needs only the first copy (the book's build drops the others). Every figure gets a
fresh ``id``; several figures on one page do not interfere.

The figure is drawn at the zoom where its smallest text is ``WIDE_TEXT_PX`` pixels tall (or
larger, up to the column or its own size), on a narrow screen where every text is
``MIN_TEXT_PX`` tall and every cell ``MIN_TAP_PX`` pixels wide and tall. It never shrinks below
that: a figure wider than the column scrolls sideways in its box, and a "move" control (shown
only then) steps through it part by part. The selected cell is the figure's one Tab stop; the
arrow keys move the selection, and the box follows it.

>>> fig = HtmlFigure("demo", title="Two cells", alt="two cells, 0 and 1")
>>> k = fig.cell(0, 0, 30, 30, fill="#E69F00", text="0", info={"index": 0})
>>> k = fig.cell(30, 0, 30, 30, fill="#56B4E9", text="1", info={"index": 1})
>>> fig.cells[1]["info"]["index"]
1
>>> "<svg" in fig.to_html() and fig.id in fig.to_html()
True
"""

from __future__ import annotations

import base64
import gzip
import json
import math
import secrets
from html import escape

from labkit.errors import LayoutError
from labkit.viz.html.assets import SCRIPT, STYLE
from labkit.viz.palette import text_color

__all__ = ["HtmlFigure", "SCRIPT", "STYLE"]


def _x(v) -> str:
    """Number formatting for SVG attributes: integers stay integers."""
    f = float(v)
    return str(int(f)) if f.is_integer() else f"{f:.2f}".rstrip("0").rstrip(".")


def _up(z: float) -> float:
    """``z`` rounded up to 3 decimals (a zoom that keeps a minimum size stays above it)."""
    return math.ceil(z * 1000 - 1e-9) / 1000


def _json_value(v):
    if v is None or isinstance(v, (str, bool)):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return v
    if isinstance(v, (list, tuple)):
        return str(tuple(int(a) if isinstance(a, int) else a for a in v)).replace(" ", "") \
            if isinstance(v, tuple) else ", ".join(str(a) for a in v)
    return str(v)


# Rendered sizes the figure keeps: text at least this many CSS pixels, and on a narrow
# screen cells at least this many pixels on a side (a finger's tap target).
MIN_TEXT_PX = 10.0          # narrow screens (the book's limit there is 9 px)
WIDE_TEXT_PX = 11.5         # wide screens (the limit there is 11 px)
MIN_TAP_PX = 24.5
# No text is drawn smaller than this (figure units are CSS pixels at zoom 1): a figure that fits
# the column at zoom 1 then needs no zoom, and no sideways scrolling, on a wide screen.
FONT_FLOOR = WIDE_TEXT_PX


class HtmlFigure:
    """A self-contained interactive SVG figure (see the module docstring).

    Build it with :meth:`control`, :meth:`relation`, :meth:`cell`, :meth:`text`,
    :meth:`rect`, :meth:`line`, :meth:`select`; show it by letting Jupyter call
    ``_repr_html_`` (or write :meth:`to_html` into a page).
    """

    def __init__(self, name: str, *, title: str, alt: str, hint: str = "Click, tap or hover over a cell; arrow keys move the selection."):
        self.name = name
        self.title = title
        self.alt = alt
        self.hint = hint
        self.id = f"lkf-{secrets.token_hex(6)}"
        self.cells: list[dict] = []
        self.controls: list[dict] = []
        self.relations: list[str] = []
        self._items: list[tuple[str, str | int]] = []   # (group attributes, markup or cell index)
        self._sel = None
        self._fonts: list[float] = []
        self._w = 0.0
        self._h = 0.0

    # -- building -------------------------------------------------------------------------
    def _grow(self, x, y):
        self._w = max(self._w, float(x))
        self._h = max(self._h, float(y))

    def control(self, label: str, options, *, kind: str = "buttons", default: int = 0) -> int:
        """Add a control; ``kind`` is ``"buttons"`` (one per option) or ``"step"``
        (previous/next buttons and a slider). Returns its index for ``when=``."""
        options = [str(o) for o in options]
        if kind not in ("buttons", "step"):
            raise LayoutError(f"control kind must be 'buttons' or 'step', got {kind!r}")
        if not options or not 0 <= default < len(options):
            raise LayoutError(f"control {label!r}: default {default} outside its {len(options)} options")
        self.controls.append({"label": label, "options": options, "kind": kind, "default": default})
        return len(self.controls) - 1

    def relation(self, label: str) -> int:
        """Add a highlight relation (e.g. ``"same thread"``); the first one is active at start."""
        self.relations.append(label)
        return len(self.relations) - 1

    def _group(self, when, faint: bool = False) -> str:
        """Attributes of the ``<g>`` wrapping an item: its state (``data-s``) and class."""
        s_attr, hidden = self._when_attr(when)
        cls = " ".join(c for c, on in (("lkf-f", faint), ("lkf-hide", hidden)) if on)
        return s_attr + (f' class="{cls}"' if cls else "")

    def _when_str(self, when):
        return self._when_attr(when)[0][len(' data-s="'):-1] or None

    def _when_attr(self, when) -> tuple[str, bool]:
        if not when:
            return "", False
        parts, hidden = [], False
        for c, o in sorted(when.items()):
            if not 0 <= c < len(self.controls) or not 0 <= o < len(self.controls[c]["options"]):
                raise LayoutError(f"when={when}: no control {c} with option {o}")
            parts.append(f"{c}:{o}")
            hidden = hidden or self.controls[c]["default"] != o
        return f' data-s="{" ".join(parts)}"', hidden

    def cell(self, x, y, w, h, *, fill: str, text=None, info: dict, link=None, rel: dict | None = None,
             when: dict | None = None, font: float | None = None, text_fill: str | None = None,
             faint: bool = False) -> int:
        """Add a clickable cell; returns its index ``k`` (``fig.cells[k]``).

        ``link`` is a value or a list of values: cells sharing one light up together (a cell
        holding several elements lists them all). The default stroke is set by the style.
        """
        k = len(self.cells)
        rel = dict(rel or {})
        for r in rel:
            if r not in self.relations:
                raise LayoutError(f"cell rel {r!r} is not a declared relation {self.relations}")
        if link is not None and not isinstance(link, list):
            link = [link]
        grp = self._group(when, faint)
        draw = None
        if text is not None and str(text) != "":
            lines = str(text).split("\n")
            fs = font or max(6.0, min(13.0, h / (len(lines) + 0.6), 1.6 * w / max(len(l) for l in lines)))
            fs = round(max(float(fs), FONT_FLOOR), 2)
            self._fonts.append(fs)
            draw = (str(text), fs, text_fill or text_color(fill))
        self.cells.append({"info": dict(info), "link": link, "rel": rel, "when": dict(when or {}),
                           "xy": (float(x), float(y), float(w), float(h)), "text": text,
                           "fill": fill, "draw": draw})
        self._items.append((grp, k))
        self._grow(x + w, y + h)
        return k

    def _cell_svg(self, k: int) -> str:
        """Markup of cell ``k`` (the static SVG; pages draw cells from the data instead)."""
        c = self.cells[k]
        x, y, w, h = c["xy"]
        geom = f'x="{_x(x)}" y="{_x(y)}" width="{_x(w)}" height="{_x(h)}" fill="{c["fill"]}"'
        if c["draw"] is None:
            return f'<rect data-k="{k}" {geom}/>'
        text, fs, tf = c["draw"]
        parts = [f'<g data-k="{k}"><rect {geom}/>']
        lines = text.split("\n")
        tf_attr = "" if tf == "#000000" else f' fill="{tf}"'
        fs_attr = "" if fs == 10 else f' font-size="{_x(fs)}"'
        y0 = y + h / 2 - (len(lines) - 1) * fs * 0.55
        for i, line in enumerate(lines):
            parts.append(f'<text x="{_x(x + w / 2)}" y="{_x(y0 + i * fs * 1.1)}"{fs_attr}{tf_attr}>'
                         f'{escape(line)}</text>')
        parts.append("</g>")
        return "".join(parts)

    def text(self, x, y, s, *, size: float = 12, anchor: str = "middle", when=None,
             weight: str | None = None, fill: str = "#222", rotate: float | None = None):
        """Add a non-interactive text label."""
        grp = self._group(when)
        size = max(float(size), FONT_FLOOR)
        self._fonts.append(size)
        wt = f' font-weight="{weight}"' if weight else ""
        rot = f' transform="rotate({_x(rotate)} {_x(x)} {_x(y)})"' if rotate else ""
        self._items.append((grp, f'<text x="{_x(x)}" y="{_x(y)}" font-size="{_x(size)}" fill="{fill}" '
                                 f'text-anchor="{anchor}" dominant-baseline="central"{wt}{rot}>'
                                 f'{escape(str(s))}</text>'))
        wide = 0.6 * size * len(str(s))           # a sans-serif character is about 0.6 em wide
        self._grow(x + (0 if anchor == "end" else wide * (0.5 if anchor == "middle" else 1)), y + size)

    def rect(self, x, y, w, h, *, fill: str = "none", stroke: str = "#000", width: float = 1.0,
             when=None, dash: str | None = None, cls: str | None = None):
        """Add a non-interactive rectangle (tile borders, partitions, frames); it is painted over
        whatever was added before it. ``cls``: a class name (e.g. for tests and styles)."""
        grp = self._group(when)
        d = f' stroke-dasharray="{dash}"' if dash else ""
        d += f' class="{escape(cls)}"' if cls else ""
        self._items.append((grp, f'<rect x="{_x(x)}" y="{_x(y)}" width="{_x(w)}" height="{_x(h)}" fill="{fill}" '
                                 f'stroke="{stroke}" stroke-width="{_x(width)}" pointer-events="none"{d}/>'))
        self._grow(x + w, y + h)

    def line(self, x1, y1, x2, y2, *, stroke: str = "#000", width: float = 1.0, when=None,
             dash: str | None = None):
        """Add a non-interactive line."""
        grp = self._group(when)
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self._items.append((grp, f'<line x1="{_x(x1)}" y1="{_x(y1)}" x2="{_x(x2)}" y2="{_x(y2)}" stroke="{stroke}" '
                                 f'stroke-width="{_x(width)}" pointer-events="none"{d}/>'))
        self._grow(max(x1, x2), max(y1, y2))

    def select(self, k: int):
        """Pre-select cell ``k``: its facts show in the panel when the figure opens."""
        if not 0 <= k < len(self.cells):
            raise LayoutError(f"select: no cell {k} (figure has {len(self.cells)})")
        self._sel = k

    # -- queries (for tests and notebooks) ------------------------------------------------
    def find(self, **info) -> list[int]:
        """Indices of cells whose ``info`` holds all the given items (keys with spaces: use
        ``fig.find(**{"tile coordinate": "(1,0)"})``)."""
        return [k for k, c in enumerate(self.cells) if all(c["info"].get(a) == v for a, v in info.items())]

    def related(self, k: int, relation: str) -> list[int]:
        """Cells highlighted with ``k`` under ``relation`` (same key, same visibility state)."""
        key = self.cells[k]["rel"].get(relation)
        if key is None:
            return []
        return [j for j, c in enumerate(self.cells) if c["rel"].get(relation) == key and self._together(k, j)]

    def linked(self, k: int) -> list[int]:
        """Cells drawing the same element as ``k`` (they light up together)."""
        L = self.cells[k]["link"]
        if L is None:
            return [k]
        return [j for j, c in enumerate(self.cells)
                if j == k or (c["link"] is not None and self._together(k, j)
                              and set(map(str, L)) & set(map(str, c["link"])))]

    def _together(self, k: int, j: int) -> bool:
        """Whether cells ``k`` and ``j`` can be visible in the same state."""
        a, b = self.cells[k]["when"], self.cells[j]["when"]
        return all(b.get(c, o) == o for c, o in a.items())

    # -- output ---------------------------------------------------------------------------
    def _data(self) -> dict:
        fields: list[str] = []
        for c in self.cells:
            for f in c["info"]:
                if f not in fields:
                    fields.append(f)
        vals: list = []
        seen: dict[str, int] = {}

        def intern(v):
            v = _json_value(v)
            if v is None:
                return -1
            key = json.dumps(v)
            if key not in seen:
                seen[key] = len(vals)
                vals.append(v)
            return seen[key]

        def trimmed(row):
            while row and row[-1] < 0:
                row.pop()
            return row

        info = [trimmed([intern(c["info"].get(f)) for f in fields]) for c in self.cells]
        key_ids: dict[str, int] = {}

        def key_id(v):        # relation keys only need equality: number them
            if v is None:
                return -1
            return key_ids.setdefault(json.dumps(_json_value(v)), len(key_ids))

        keys = [[key_id(c["rel"].get(r)) for r in self.relations] for c in self.cells]
        link = {str(k): [key_id(("link", _json_value(v))) for v in c["link"]]
                for k, c in enumerate(self.cells) if c["link"] is not None}
        whens: list = []
        when = []
        for c in self.cells:
            w = self._when_str(c["when"])
            if w not in whens:
                whens.append(w)
            when.append(whens.index(w))
        if whens == [None]:
            whens, when = None, None
        return {"fields": fields, "vals": vals, "info": info, "whens": whens, "when": when, "keys": keys, "link": link, "rels": self.relations,
                "ctl": [c["options"] for c in self.controls],
                "state": [c["default"] for c in self.controls], "sel": self._sel, "hint": self.hint}

    def _view(self) -> tuple[float, float]:
        return self._w + 6, self._h + 6

    def scales(self) -> tuple[float, float]:
        """``(wide, narrow)``: the smallest zoom at which every text is ``WIDE_TEXT_PX`` pixels
        tall (wide screens), and the one at which every text is ``MIN_TEXT_PX`` tall and every
        cell ``MIN_TAP_PX`` pixels on a side (narrow screens)."""
        small = min(self._fonts) if self._fonts else None
        read = MIN_TEXT_PX / small if small else 0.0
        cell = min((min(c["xy"][2], c["xy"][3]) for c in self.cells), default=MIN_TAP_PX)
        return _up(WIDE_TEXT_PX / small if small else 0.0), _up(max(read, MIN_TAP_PX / cell))

    def _svg_open(self) -> str:
        W, H = self._view()
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="-2 -2 {_x(W)} {_x(H)}" '
                f'width="{_x(W)}" role="img" aria-labelledby="{self.id}-t" tabindex="-1" '
                f'font-family="system-ui, sans-serif" font-size="10">'
                f'<title id="{self.id}-t">{escape(self.alt)}</title>')

    def svg(self) -> str:
        """The figure's SVG element alone, every cell drawn (well-formed XML)."""
        return self._svg_open() + self._body(compact=False) + "</svg>"

    def _body(self, compact: bool) -> str:
        """Items in order; consecutive items with the same state and class share one ``<g>``.
        ``compact``: a run of cells is an empty ``<g data-r="first-last">`` the script fills."""
        out, cur, run = [], None, []

        def flush():
            if not run:
                return
            if compact and isinstance(run[0], int):
                out.append(f'<g{cur or ""} data-r="{run[0]}-{run[-1]}"></g>')
                return
            markup = "".join(m if isinstance(m, str) else self._cell_svg(m) for m in run)
            out.append(f"<g{cur}>{markup}</g>" if cur else markup)

        for grp, item in self._items:
            if grp != cur or (compact and run and isinstance(item, int) != isinstance(run[0], int)):
                flush()
                run = []
            cur = grp
            run.append(item)
        flush()
        return "".join(out)

    def _cells_data(self, strings: list) -> list:
        index: dict[str, int] = {}

        def s(v):
            if v not in index:
                index[v] = len(strings)
                strings.append(v)
            return index[v]

        def num(v):
            v = round(float(v), 2)
            return int(v) if v.is_integer() else v

        out = []
        for c in self.cells:
            row = [*(num(v) for v in c["xy"]), s(c["fill"])]
            if c["draw"] is not None:
                text, fs, tf = c["draw"]
                row += [s(text), num(fs)] + ([] if tf == "#000000" else [s(tf)])
            out.append(row)
        return out

    def _controls_html(self) -> str:
        out = []
        for c, ctl in enumerate(self.controls):
            row = [f'<div class="lkf-ctl"><span class="lkf-cl">{escape(ctl["label"])}</span>']
            if ctl["kind"] == "buttons":
                for o, opt in enumerate(ctl["options"]):
                    pressed = "true" if o == ctl["default"] else "false"
                    row.append(f'<button type="button" data-c="{c}" data-o="{o}" aria-pressed="{pressed}">'
                               f'{escape(opt)}</button>')
            else:
                n = len(ctl["options"])
                row.append(f'<button type="button" data-c="{c}" data-d="-1" aria-label="previous">&#9664;</button>'
                           f'<input type="range" min="0" max="{n - 1}" value="{ctl["default"]}" data-c="{c}" '
                           f'aria-label="{escape(ctl["label"])}"/>'
                           f'<button type="button" data-c="{c}" data-d="1" aria-label="next">&#9654;</button>'
                           f'<span class="lkf-stepl" data-c="{c}">{escape(ctl["options"][ctl["default"]])}</span>')
            row.append("</div>")
            out.append("".join(row))
        out.append('<div class="lkf-ctl lkf-pan" style="display:none"><span class="lkf-cl">move</span>'
                   '<button type="button" data-pan="-1" aria-label="show the part to the left">&#9664;</button>'
                   '<span class="lkf-panl" aria-live="polite"></span>'
                   '<button type="button" data-pan="1" aria-label="show the part to the right">&#9654;</button></div>')
        if len(self.relations) > 1:
            row = ['<div class="lkf-ctl"><span class="lkf-cl">highlight</span>']
            for r, lab in enumerate(self.relations):
                chk = " checked" if r == 0 else ""
                row.append(f'<label><input type="radio" name="{self.id}-rel" value="{r}"{chk}/> '
                           f'{escape(lab)}</label>')
            row.append("</div>")
            out.append("".join(row))
        return "".join(out)

    def _panel_text(self) -> str:
        if self._sel is None:
            return escape(self.hint)
        c = self.cells[self._sel]["info"]
        return "".join(f'<div><span class="lkf-l">{escape(str(f))}: </span>{escape(str(_json_value(v)))}</div>'
                       for f, v in c.items() if v is not None)

    def to_html(self) -> str:
        """The whole figure as one HTML fragment: style, caption, controls, SVG, panel, data and
        script. Cells travel as data and the script draws them; the style and the script are
        the same for every figure (``class="lkf-css"`` / ``"lkf-js"``), so a page needs one copy."""
        packed = base64.b64encode(gzip.compress(json.dumps(self.data(), separators=(",", ":")).encode(),
                                                9, mtime=0)).decode()
        return (f'{STYLE}<figure class="lkf" id="{self.id}" data-figure="{escape(self.name)}">'
                f'<figcaption class="lkf-title">{escape(self.title)}</figcaption>{self._controls_html()}'
                f'<div class="lkf-box">{self._svg_open()}</svg></div>'
                f'<div class="lkf-panel" aria-live="polite">{self._panel_text()}</div>'
                f'<script type="application/octet-stream" class="lkf-data">{packed}</script>'
                f'<script class="lkf-js">{SCRIPT}</script>'
                f'<script>window.lkfInit("{self.id}")</script></figure>')

    def data(self) -> dict:
        """What the page's script gets (gzip-compressed, base64): the panel facts, states and
        relations of every cell, the cells' geometry (``cells``: x, y, w, h, fill, and text,
        font size, text colour as indices into ``str``), the SVG of everything else (``svg``)
        and the zooms (``size``: viewBox width, reading zoom, tapping zoom)."""
        data = self._data()
        data["str"] = []
        data["cells"] = self._cells_data(data["str"])
        data["svg"] = self._body(compact=True)
        data["size"] = [self._view()[0], *self.scales()]
        return data

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return f"<HtmlFigure {self.name!r}: {len(self.cells)} cells, id {self.id}>"
