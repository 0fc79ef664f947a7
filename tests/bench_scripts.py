"""The scripts of ``benchmarks/`` (not a package) loaded as modules for the tests that read them."""

import importlib.util
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load(name):
    """``benchmarks/<name>.py`` as a fresh module."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
