"""Shared pytest set-up: skip marked tests whose requirements are missing, and build the book once.

Markers (registered in pyproject.toml):

- ``gpu``: needs a CUDA GPU; skipped when the CUDA driver reports none, or when the numba
  CUDA simulator is switched on (``NUMBA_ENABLE_CUDASIM=1``).
- ``cute_dsl``: needs ``nvidia-cutlass-dsl``; skipped when it is not installed.
- ``browser``: needs Chromium at ``/usr/bin/chromium`` and the playwright package.
- ``slow``: runs by default (and in CI); ``-m "not slow"`` leaves these tests out. Besides the
  tests marked in their modules, every test that needs one of ``SLOW_FIXTURES`` (a notebook
  run, a CUDA-simulator child process, otter) is marked here.

pyproject.toml runs the tests on every core (pytest-xdist, ``-n auto --dist loadfile``): each
module stays on one worker, so its module-scoped fixtures are made once, and every test writes
only under its own temporary folders (or the C++ oracle's cache, replaced atomically).

Hypothesis runs the ``ci`` profile (derandomized) when ``CI`` is set, else ``dev``.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from labkit.driver import cuda_device_count

# Random tests are reproducible under CI: the "ci" profile derives every example from the test
# itself (derandomize) and keeps no example database, so a run fails only when the code is wrong.
# Elsewhere the "dev" profile explores fresh examples each run; HYPOTHESIS_PROFILE picks either.
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")


@functools.cache
def cuda_gpu_count() -> int:
    """The number of CUDA devices the driver reports (0 without a driver or GPU)."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0"):
        return 0
    return cuda_device_count()


@functools.cache
def has_cute_dsl() -> bool:
    """Whether CuTe DSL (the ``nvidia-cutlass-dsl`` distribution) is installed."""
    try:
        importlib.metadata.distribution("nvidia-cutlass-dsl")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


@functools.cache
def has_browser() -> bool:
    """Whether headless Chromium and playwright are there for browser tests."""
    return CHROMIUM.is_file() and importlib.util.find_spec("playwright") is not None


# {test module: fixtures that take more than a few seconds}; a test needing one is ``slow``.
SLOW_FIXTURES = {
    "test_algebra_sections.py": {"pages"},                 # book pages executed
    "test_chapter_2b.py": {"page", "sim", "lab"},          # page, lab, simulated kernels
    "test_chapters.py": {"executed"},                      # chapters 1-4 executed
    "test_cuda_sim.py": {"res"},                           # kernels under the CUDA simulator
    "test_exercises.py": {"session"},                      # otter assign + every notebook run
    "test_experiments.py": {"twin", "lab_cells"},
    "test_gemm.py": {"sim_results"},                       # every GEMM step simulated
    "test_gemm_ladder_lab.py": {"lab", "section", "tma_section"},
    "test_labs_2_4.py": {"lab2", "lab3", "lab4"},
    "test_stmatrix.py": {"res"},
    "test_verify.py": {"cpu_run"},                         # `labkit verify` on the simulator
}


@pytest.hookimpl(tryfirst=True)      # before -m picks tests by their markers
def pytest_collection_modifyitems(config, items):
    for item in items:
        slow = SLOW_FIXTURES.get(item.path.name, ())
        if slow and not slow.isdisjoint(item.fixturenames):
            item.add_marker(pytest.mark.slow)
    skips = {
        "gpu": (cuda_gpu_count, "needs a CUDA GPU (none found, or the CUDA simulator is on)"),
        "cute_dsl": (has_cute_dsl, "needs nvidia-cutlass-dsl (not installed)"),
        "browser": (has_browser, f"needs {CHROMIUM} and playwright"),
    }
    for item in items:
        for marker, (available, reason) in skips.items():
            if item.get_closest_marker(marker) is not None and not available():
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The root folder of the repository."""
    return REPO


@pytest.fixture(scope="session")
def built_book(tmp_path_factory) -> Path:
    """Build the book once per session into a temporary folder and return its HTML folder.

    The build is the README's (``jupyter-book build .``) with warnings as errors.
    """
    out = tmp_path_factory.mktemp("book")
    cmd = [
        sys.executable, "-c", "from jupyter_book.cli.main import main; main()", "build", str(REPO),
        "--path-output", str(out), "-W", "-n", "--keep-going",
    ]
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=1800)
    (out / "build.log").write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        pytest.fail(f"jupyter-book build failed:\n{done.stdout[-6000:]}\n{done.stderr[-6000:]}")
    html = out / "_build" / "html"
    assert (html / "index.html").is_file()
    return html
