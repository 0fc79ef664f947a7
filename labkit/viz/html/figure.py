"""The machinery of interactive figures: SVG cells + one small inline script.

An :class:`HtmlFigure` is built from cells (rectangles with a label) that carry their own
facts (``info``: shown in the panel when the cell is clicked or hovered), a ``link`` (cells
drawing the same logical element in different panels share it and light up together) and
relation keys (``rel``: same thread, same bank, ... cells with an equal key are highlighted).
Controls (button rows or a stepper) switch between states; an element drawn with
``when={control: option}`` shows only in that state.

The output is self-contained: inline ``<style>``, ``<svg>``, the data as JSON and a short
script, no external files, so it works in JupyterLab, Colab, VS Code and a static book.
Every figure gets a fresh ``id``; several figures on one page do not interfere.

>>> fig = HtmlFigure("demo", title="Two cells", alt="two cells, 0 and 1")
>>> k = fig.cell(0, 0, 30, 30, fill="#E69F00", text="0", info={"index": 0})
>>> k = fig.cell(30, 0, 30, 30, fill="#56B4E9", text="1", info={"index": 1})
>>> fig.cells[1]["info"]["index"]
1
>>> "<svg" in fig.to_html() and fig.id in fig.to_html()
True
"""

from __future__ import annotations

import json
import secrets
from html import escape

from labkit.errors import LayoutError
from labkit.viz.palette import text_color

__all__ = ["HtmlFigure", "SCRIPT", "STYLE"]


def _x(v) -> str:
    """Number formatting for SVG attributes: integers stay integers."""
    f = float(v)
    return str(int(f)) if f.is_integer() else f"{f:.2f}".rstrip("0").rstrip(".")


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


STYLE = """<style>
.lkf{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0.5em 0 1em 0;color:#222}
.lkf-title{font-weight:600;margin-bottom:0.3em}
.lkf-ctl{display:flex;flex-wrap:wrap;gap:0.3em 0.6em;align-items:center;margin:0.2em 0}
.lkf-ctl button{font:inherit;font-size:0.85em;padding:0.1em 0.6em;border:1px solid #888;border-radius:3px;background:#f5f5f5;color:#222;cursor:pointer}
.lkf-ctl button[aria-pressed=true]{background:#0072B2;color:#fff;border-color:#0072B2}
.lkf-ctl label{font-size:0.85em;cursor:pointer}
.lkf-ctl .lkf-cl{font-size:0.85em;color:#555}
.lkf svg{display:block;max-width:100%;height:auto;user-select:none}
.lkf [data-k]{cursor:pointer}
.lkf rect[data-k],.lkf [data-k]>rect{stroke:#444;stroke-width:0.6}
.lkf .lkf-f rect[data-k],.lkf .lkf-f [data-k]>rect{stroke:#aaa;stroke-width:0.4}
.lkf [data-k] text{pointer-events:none;text-anchor:middle;dominant-baseline:central}
.lkf .lkf-rel>rect,.lkf rect.lkf-rel{stroke:#000;stroke-width:2.5;stroke-dasharray:4 2}
.lkf .lkf-sel>rect,.lkf rect.lkf-sel{stroke:#D55E00;stroke-width:3.5;stroke-dasharray:none}
.lkf .lkf-hide{display:none}
.lkf-panel{font-size:0.9em;border-left:4px solid #0072B2;background:#f4f8fb;color:#222;padding:0.35em 0.7em;margin-top:0.3em;min-height:2.6em;font-variant-numeric:tabular-nums}
.lkf-panel .lkf-l{color:#555;margin-right:0.4em}
.lkf-panel>div{display:inline-block;margin-right:1.2em}
</style>"""

# One function per figure, run once per figure id. ES5 only, no external code.
SCRIPT = r"""(function(){
var R=document.getElementById("__ID__");if(!R||R.getAttribute("data-ready"))return;R.setAttribute("data-ready","1");
var D=JSON.parse(R.querySelector("script.lkf-data").textContent),P=R.querySelector(".lkf-panel");
var S=D.state.slice(),rel=0,pin=D.sel,byK={},marked=[],i;
var cs=R.querySelectorAll("[data-k]");for(i=0;i<cs.length;i++){var k=+cs[i].getAttribute("data-k");(byK[k]=byK[k]||[]).push(cs[i]);}
var st=R.querySelectorAll("[data-s]");
function ok(w){if(w===null)return true;var s=w.split(" ");for(var j=0;j<s.length;j++){var a=s[j].split(":");if(S[+a[0]]!=+a[1])return false;}return true;}
function isVis(k){return D.when===null||ok(D.whens[D.when[k]]);}
function lk(k){var v=D.link[k];return v===undefined?null:v;}
function show(k){while(P.firstChild)P.removeChild(P.firstChild);
 if(k==null||!isVis(k)){P.appendChild(document.createTextNode(D.hint));return;}
 var row=D.info[k];for(var j=0;j<row.length;j++){if(row[j]<0)continue;var d=document.createElement("div"),l=document.createElement("span");
 l.className="lkf-l";l.appendChild(document.createTextNode(D.fields[j]+": "));d.appendChild(l);d.appendChild(document.createTextNode(String(D.vals[row[j]])));P.appendChild(d);}}
function add(k,c){var e=byK[k]||[];for(var j=0;j<e.length;j++){e[j].classList.add(c);marked.push(e[j]);}}
function mark(k){for(var j=0;j<marked.length;j++)marked[j].classList.remove("lkf-sel","lkf-rel");marked=[];
 if(k==null||!isVis(k))return;var n=D.info.length,L=lk(k);
 if(D.rels.length){var key=D.keys[k][rel];if(key>=0)for(j=0;j<n;j++)if(D.keys[j][rel]===key&&isVis(j))add(j,"lkf-rel");}
 for(j=0;j<n;j++)if(j===k||(L!==null&&meet(L,lk(j))&&isVis(j)))add(j,"lkf-sel");}
function meet(a,b){if(b===null)return false;for(var p=0;p<a.length;p++)for(var q=0;q<b.length;q++)if(a[p]===b[q])return true;return false;}
function focus(k){show(k);mark(k);}
function apply(){for(var j=0;j<st.length;j++)st[j].classList.toggle("lkf-hide",!ok(st[j].getAttribute("data-s")));
 var b=R.querySelectorAll("button[data-o]");for(j=0;j<b.length;j++)b[j].setAttribute("aria-pressed",S[+b[j].getAttribute("data-c")]==+b[j].getAttribute("data-o")?"true":"false");
 var t=R.querySelectorAll(".lkf-stepl");for(j=0;j<t.length;j++){var c=+t[j].getAttribute("data-c");t[j].textContent=D.ctl[c][S[c]];}
 var g=R.querySelectorAll("input[type=range][data-c]");for(j=0;j<g.length;j++)g[j].value=S[+g[j].getAttribute("data-c")];
 if(pin!=null&&!isVis(pin)&&lk(pin)!==null){for(j=0;j<D.info.length;j++)if(isVis(j)&&meet(lk(pin),lk(j))){pin=j;break;}}
 focus(pin);}
function cellOf(e){var t=e.target;while(t&&t!==R){if(t.getAttribute&&t.getAttribute("data-k")!==null)return +t.getAttribute("data-k");t=t.parentNode;}return null;}
var svg=R.querySelector("svg");
svg.addEventListener("click",function(e){var k=cellOf(e);if(k!==null){pin=k;focus(k);}});
svg.addEventListener("mouseover",function(e){var k=cellOf(e);if(k!==null)focus(k);});
svg.addEventListener("mouseleave",function(){focus(pin);});
R.addEventListener("click",function(e){var t=e.target;if(t.tagName!=="BUTTON")return;var c=+t.getAttribute("data-c");
 if(t.hasAttribute("data-o"))S[c]=+t.getAttribute("data-o");else{var n=D.ctl[c].length;S[c]=(S[c]+(+t.getAttribute("data-d"))+n)%n;}apply();});
R.addEventListener("input",function(e){var t=e.target;if(t.type==="range"){S[+t.getAttribute("data-c")]=+t.value;apply();}});
R.addEventListener("change",function(e){var t=e.target;if(t.type==="radio"){rel=+t.value;focus(pin);}});
apply();})();"""


class HtmlFigure:
    """A self-contained interactive SVG figure (see the module docstring).

    Build it with :meth:`control`, :meth:`relation`, :meth:`cell`, :meth:`text`,
    :meth:`rect`, :meth:`line`, :meth:`select`; show it by letting Jupyter call
    ``_repr_html_`` (or write :meth:`to_html` into a page).
    """

    def __init__(self, name: str, *, title: str, alt: str, hint: str = "Click or hover over a cell."):
        self.name = name
        self.title = title
        self.alt = alt
        self.hint = hint
        self.id = f"lkf-{secrets.token_hex(6)}"
        self.cells: list[dict] = []
        self.controls: list[dict] = []
        self.relations: list[str] = []
        self._items: list[tuple[str, str]] = []   # (group attributes, markup)
        self._sel = None
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
        self.cells.append({"info": dict(info), "link": link, "rel": rel, "when": dict(when or {}),
                           "xy": (float(x), float(y), float(w), float(h)), "text": text})
        grp = self._group(when, faint)
        geom = f'x="{_x(x)}" y="{_x(y)}" width="{_x(w)}" height="{_x(h)}" fill="{fill}"'
        if text is None or str(text) == "":
            self._items.append((grp, f'<rect data-k="{k}" {geom}/>'))
            self._grow(x + w, y + h)
            return k
        parts = [f'<g data-k="{k}"><rect {geom}/>']
        lines = str(text).split("\n")
        fs = font or max(6.0, min(13.0, h / (len(lines) + 0.6), 1.6 * w / max(len(l) for l in lines)))
        tf = text_fill or text_color(fill)
        tf_attr = "" if tf == "#000000" else f' fill="{tf}"'
        fs_attr = "" if round(fs, 2) == 10 else f' font-size="{_x(fs)}"'
        y0 = y + h / 2 - (len(lines) - 1) * fs * 0.55
        for i, line in enumerate(lines):
            parts.append(f'<text x="{_x(x + w / 2)}" y="{_x(y0 + i * fs * 1.1)}"{fs_attr}{tf_attr}>'
                         f'{escape(line)}</text>')
        parts.append("</g>")
        self._items.append((grp, "".join(parts)))
        self._grow(x + w, y + h)
        return k

    def text(self, x, y, s, *, size: float = 12, anchor: str = "middle", when=None,
             weight: str | None = None, fill: str = "#222", rotate: float | None = None):
        """Add a non-interactive text label."""
        grp = self._group(when)
        wt = f' font-weight="{weight}"' if weight else ""
        rot = f' transform="rotate({_x(rotate)} {_x(x)} {_x(y)})"' if rotate else ""
        self._items.append((grp, f'<text x="{_x(x)}" y="{_x(y)}" font-size="{_x(size)}" fill="{fill}" '
                                 f'text-anchor="{anchor}" dominant-baseline="central"{wt}{rot}>'
                                 f'{escape(str(s))}</text>'))
        self._grow(x + (0 if anchor == "end" else 8 * len(str(s)) * size / 12 * (0.5 if anchor == "middle" else 1)),
                   y + size)

    def rect(self, x, y, w, h, *, fill: str = "none", stroke: str = "#000", width: float = 1.0,
             when=None, dash: str | None = None):
        """Add a non-interactive rectangle (tile borders, partitions, frames)."""
        grp = self._group(when)
        d = f' stroke-dasharray="{dash}"' if dash else ""
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

    def svg(self) -> str:
        """The figure's SVG element alone (well-formed XML)."""
        W, H = self._w + 4, self._h + 4
        return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="-2 -2 {_x(W + 2)} {_x(H + 2)}" '
                f'width="{_x(W + 2)}" role="img" aria-labelledby="{self.id}-t" '
                f'font-family="system-ui, sans-serif" font-size="10">'
                f'<title id="{self.id}-t">{escape(self.alt)}</title>' + self._body() + "</svg>")

    def _body(self) -> str:
        """Items in order; consecutive items with the same state and class share one ``<g>``."""
        out, cur, run = [], None, []
        for grp, markup in self._items + [(None, None)]:
            if grp != cur and run:
                out.append(f"<g{cur}>" + "".join(run) + "</g>" if cur else "".join(run))
                run = []
            cur = grp
            if markup is not None:
                run.append(markup)
        return "".join(out)

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
        """The whole figure as one HTML fragment (style, controls, SVG, panel, data, script)."""
        data = json.dumps(self._data(), separators=(",", ":")).replace("</", "<\\/")
        return (f'<div class="lkf" id="{self.id}" data-figure="{escape(self.name)}">{STYLE}'
                f'<div class="lkf-title">{escape(self.title)}</div>{self._controls_html()}'
                f'{self.svg()}<div class="lkf-panel" aria-live="polite">{self._panel_text()}</div>'
                f'<script type="application/json" class="lkf-data">{data}</script>'
                f'<script>{SCRIPT.replace("__ID__", self.id)}</script></div>')

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return f"<HtmlFigure {self.name!r}: {len(self.cells)} cells, id {self.id}>"
