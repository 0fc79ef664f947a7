"""Run the examples in labkit's docstrings, one test per docstring.

Every module under ``labkit/`` is imported (``__main__`` modules excepted); a module that fails
to import is a failing test of its own.
"""

from __future__ import annotations

import doctest
import importlib
import traceback
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "labkit"
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def module_names() -> list[str]:
    """Dotted names of the modules in the labkit package, found on disk without importing."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if "__main__" in parts or any(p.startswith((".", "_build")) for p in parts):
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(parts))
    return names


def collect() -> list:
    """One pytest param per docstring with examples, and one per module that fails to import."""
    params = []
    finder = doctest.DocTestFinder(exclude_empty=True)
    for name in module_names():
        try:
            module = importlib.import_module(name)
        except Exception:  # reported as a failing test below
            params.append(pytest.param(name, None, traceback.format_exc(), id=f"{name}:import"))
            continue
        for test in finder.find(module, name):
            if test.examples:
                params.append(pytest.param(name, test, None, id=test.name))
    return params


def test_module_list_is_not_empty():
    assert "labkit.errors" in module_names()


@pytest.mark.parametrize(("module_name", "test", "import_error"), collect())
def test_docstring_examples(module_name, test, import_error):
    if import_error is not None:
        pytest.fail(f"importing {module_name} failed:\n{import_error}")
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report = []
    runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(report)
