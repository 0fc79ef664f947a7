"""The book ships the MathJax its pages load, and nothing else.

Pages typeset TeX with MathJax 3's combined ``tex-chtml.js`` (input, output, menu in one
file); its CommonHTML output loads the ``woff-v2`` fonts that the glyphs on a page need. Both
come from the ``sphinx-mathjax-offline`` distribution (about 24 MB of MathJax); only these
files (about 1.5 MB) are copied to ``_static/mathjax``, so formulas render without a network.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

FILES = ("tex-chtml.js",)
FONTS = "output/chtml/fonts/woff-v2"


def mathjax_source() -> Path:
    """The folder of the MathJax distribution installed with ``sphinx-mathjax-offline``."""
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or spec.origin is None:
        raise RuntimeError("MathJax is missing: pip install sphinx-mathjax-offline (requirements.txt)")
    return Path(spec.origin).parent / "static" / "mathjax"


def _copy(app, exc):
    if exc is not None or app.builder.format != "html":
        return
    src, dst = mathjax_source(), Path(app.outdir) / "_static" / "mathjax"
    if dst.exists():
        shutil.rmtree(dst)
    for name in FILES:
        (dst / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / name, dst / name)
    shutil.copytree(src / FONTS, dst / FONTS)


def setup(app):
    app.config.mathjax_path = "mathjax/tex-chtml.js"
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
