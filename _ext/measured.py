"""``{measured}`RUN:PATH[:FORMAT]```: a measured figure in the text, read at build time.

``RUN`` is a short name of :data:`labkit.lab.measurements.RUNS` (``gemm`` is the latest GEMM
ladder run), ``PATH`` a figure of that run (:func:`labkit.lab.measurements.figure`) and
``FORMAT`` a Python format spec::

    Step 6 reached {measured}`gemm:ladder.4096 f32 tma.tflops:.1f` TFLOP/s.

The figure is written as :meth:`labkit.lab.measurements.Figure.html`, the markup the
Measurements page uses for the same figure, so the built site can be checked figure by figure.
A path that does not exist fails the build.
"""

from __future__ import annotations

import sys
from pathlib import Path

from docutils import nodes

ROOT = Path(__file__).resolve().parents[1]


def _measurements():
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from labkit.lab import measurements
    return measurements


def parse(text: str) -> tuple[str, str, str | None]:
    """``"RUN:PATH[:FORMAT]"`` -> (run, path, format)."""
    run, sep, rest = text.partition(":")
    if not sep or not rest:
        raise ValueError(f"{text!r} is not RUN:PATH[:FORMAT]")
    path, _, fmt = rest.partition(":")
    return run.strip(), path.strip(), fmt.strip() or None


def measured_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    try:
        run, path, fmt = parse(text)
        fig = _measurements().figure(run, path)
        html = fig.html(fmt)
    except Exception as e:  # noqa: BLE001 - reported as a build error on the line
        msg = inliner.reporter.error(f"measured: {e}", line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    return [nodes.raw(rawtext, html, format="html")], []


def setup(app):
    app.add_role("measured", measured_role)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
