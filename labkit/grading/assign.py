"""Build the exercises from their masters in ``solutions/`` with otter assign.

``otter assign solutions/<name>.ipynb exercises/<name>`` writes the handed-out notebook and its
public tests to ``exercises/<name>/student`` (committed) and the autograder, with the hidden
tests, to ``exercises/<name>/autograder`` (never committed). :func:`build` does that for every
master in one process, so otter is imported once.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from .grade import REPO, GradingError


def masters(solutions: Path = REPO / "solutions") -> list[Path]:
    """The exercise masters: ``solutions/NN_name.ipynb`` (or ``NNx_name``, a page between two chapters)."""
    return sorted(p for p in Path(solutions).glob("[0-9][0-9]*_*.ipynb"))


def build(names: list[str] | None = None, out: Path = REPO / "exercises",
          solutions: Path = REPO / "solutions", run_tests: bool = True,
          quiet: bool = True) -> dict[str, Path]:
    """Run otter assign on each master (or those named); returns ``name -> output folder``."""
    from otter.assign import main as otter_assign

    found = {p.stem: p for p in masters(solutions)}
    names = list(found) if names is None else list(names)
    unknown = [n for n in names if n not in found]
    if unknown:
        raise GradingError(f"no master for {', '.join(unknown)} in {solutions} "
                           f"(masters: {', '.join(found) or 'none'})")
    built = {}
    for name in names:
        result = Path(out) / name
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink) if quiet else contextlib.nullcontext():
            try:
                otter_assign(str(found[name]), str(result), no_pdfs=True,
                             no_run_tests=not run_tests)
            except Exception as e:
                raise GradingError(f"otter assign {found[name].name} failed: {e}\n"
                                   f"{sink.getvalue()[-2000:]}") from None
        built[name] = result
    return built
