"""Formulas as MathML, written at build time: no MathJax on any page.

Sphinx writes each formula as TeX in ``<span class="math">\\(...\\)</span>`` (inline) or
``<div class="math">\\[...\\]</div>`` (display) for MathJax to typeset in the browser; MathJax
3 is 1.1 MB of script plus its fonts. Browsers render MathML themselves (Chromium since 109,
Firefox, Safari), so this extension converts every formula of a page to MathML while the page
is written, with the MathJax that ``sphinx-mathjax-offline`` installs run once per page under
node (``_ext/tex2mml.js``), and drops the MathJax scripts from every page. A formula MathJax
cannot read fails the build.
"""

from __future__ import annotations

import html
import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path

from sphinx.errors import ExtensionError

SCRIPT = Path(__file__).with_name("tex2mml.js")
_MATH = re.compile(r'<(span|div) class="math notranslate nohighlight">\s*\\([(\[])(.*?)\\[)\]]\s*</\1>', re.S)


def mathjax_dir() -> Path:
    """The MathJax 3 distribution installed with ``sphinx-mathjax-offline``."""
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or spec.origin is None:
        raise ExtensionError("MathJax is missing: pip install sphinx-mathjax-offline (requirements.txt)")
    return Path(spec.origin).parent / "static" / "mathjax"


def tex_to_mathml(items: list[tuple[str, bool]]) -> list[str]:
    """MathML of each ``(tex, display)``."""
    node = shutil.which("node")
    if node is None:
        raise ExtensionError("node is missing: the book's formulas are converted to MathML with node")
    done = subprocess.run([node, str(SCRIPT), str(mathjax_dir())], input=json.dumps(items), capture_output=True,
                          text=True, timeout=300, check=False)
    if done.returncode != 0:
        raise ExtensionError(f"tex2mml failed: {done.stderr[-2000:]}")
    out = [m if isinstance(m, dict) else re.sub(r">\s+<", "><", m) for m in json.loads(done.stdout)]
    for (tex, _), m in zip(items, out):
        if isinstance(m, dict):
            raise ExtensionError(f"formula {tex!r}: {m['error']}")
    return out


def convert(body: str) -> str:
    """``body`` with every MathJax formula replaced by MathML."""
    found = list(_MATH.finditer(body))
    if not found:
        return body
    mathml = tex_to_mathml([(html.unescape(m.group(3)).strip(), m.group(2) == "[") for m in found])
    parts, last = [], 0
    for m, mml in zip(found, mathml):
        tag = m.group(1)
        parts += [body[last:m.start()], f'<{tag} class="math">{mml}</{tag}>']
        last = m.end()
    parts.append(body[last:])
    return "".join(parts)


def _page(app, pagename, templatename, context, doctree):
    if "body" in context:
        context["body"] = convert(context["body"])
    # no page loads MathJax: its configuration and its script go
    context["script_files"] = [js for js in context.get("script_files", [])
                               if "mathjax" not in str(getattr(js, "filename", js) or "").lower()
                               and "MathJax" not in (getattr(js, "attributes", {}).get("body") or "")]


def setup(app):
    app.connect("html-page-context", _page, priority=800)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
