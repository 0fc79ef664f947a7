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

import contextlib
import copy
import fcntl
import functools
import hashlib
import http.server
import importlib.metadata
import importlib.util
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import settings

import book_site

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


# {test module: fixtures that take more than a few seconds}; a test needing one is ``slow``, as is
# every test that needs a notebook run (``executed_page``) or the built book.
SLOW_FIXTURES = {
    "test_algebra_sections.py": {"pages"},                 # book pages executed
    "test_chapter_2b.py": {"page", "sim", "lab"},          # page, lab, simulated kernels
    "test_chapters.py": {"executed"},                      # chapters 1-4 executed
    "test_cuda_sim.py": {"res"},                           # kernels under the CUDA simulator
    "test_exercises.py": {"session"},                      # otter assign + every notebook run
    "test_experiments.py": {"twin", "lab_cells"},
    "test_figure_text.py": {"figure_page"},                # every figure drawn, then opened in Chromium
    "test_gemm.py": {"sim_results"},                       # every GEMM step simulated
    "test_gemm_ladder_lab.py": {"lab", "section", "tma_section"},
    "test_labs_2_4.py": {"lab2", "lab3", "lab4"},
    "test_stmatrix.py": {"res"},
    "test_verify.py": {"cpu_run"},                         # `labkit verify` on the simulator
}


@pytest.hookimpl(tryfirst=True)      # before -m picks tests by their markers
def pytest_collection_modifyitems(config, items):
    for item in items:
        slow = SLOW_FIXTURES.get(item.path.name, set()) | {"executed_page", "built_book", "html_dir"}
        if not slow.isdisjoint(item.fixturenames):
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


def _shared_dir(tmp_path_factory) -> Path:
    """A folder every pytest-xdist worker of this run shares (the run's own temporary root)."""
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "shared"
    shared.mkdir(exist_ok=True)
    return shared


@contextlib.contextmanager
def _locked(path: Path):
    """Hold an exclusive lock on ``path`` (one worker at a time does what it guards)."""
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _read_notebook(path: Path):
    """A page (MyST markdown, read by jupytext as the book's build reads it) or a lab notebook."""
    import jupytext
    import nbformat
    return jupytext.read(path) if path.suffix == ".md" else nbformat.read(path, as_version=4)


def _page_key(path: Path) -> str:
    rel = path.resolve().relative_to(REPO).as_posix()
    return rel.replace("/", "__") + "." + hashlib.sha256(path.read_bytes()).hexdigest()[:12] + ".ipynb"


def _from_book(shared: Path, nb):
    """``nb`` executed, from the jupyter-cache of this run's book build; while the book is being
    built, wait for the page to arrive there. None when the build has not run it."""
    from jupyter_cache import get_cache

    folder = shared / "book" / "_build" / ".jupyter_cache"
    while True:
        building = (shared / "book.building").is_file()
        if (folder / "global.db").is_file():
            try:
                return get_cache(folder).merge_match_into_notebook(nb)[1]
            except KeyError:
                pass
        if not building:
            return None
        time.sleep(2)


@pytest.fixture(scope="session")
def executed_page(tmp_path_factory):
    """``executed_page(path)``: the page or lab at ``path`` executed (a fresh copy each call).

    Each notebook runs once per test run, whichever worker asks first: the executed notebook is
    kept in a folder the workers share, and the book build (:func:`built_book`) takes what is
    there into its jupyter-cache instead of running it again; a page the build ran first is read
    from that cache. The kernel starts in the page's folder, as in the book build.
    """
    import nbformat
    from nbclient import NotebookClient

    shared = _shared_dir(tmp_path_factory)
    (shared / "executed").mkdir(exist_ok=True)

    def execute(path: Path):
        path = Path(path)
        out = shared / "executed" / _page_key(path)
        with _locked(out.with_suffix(".lock")):
            if not out.is_file():
                nb = _read_notebook(path)
                done = _from_book(shared, nb)
                if done is None:
                    NotebookClient(nb, timeout=600, kernel_name="python3",
                                   resources={"metadata": {"path": str(path.parent)}}).execute()
                else:
                    nb = done
                tmp = out.with_suffix(".tmp")
                nbformat.write(nb, tmp)
                os.replace(tmp, out)
        return copy.deepcopy(nbformat.read(out, as_version=4))

    return execute


def _seed_book_cache(shared: Path, cache_dir: Path) -> int:
    """Put every notebook the tests already executed into the book's jupyter-cache."""
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    cache, seeded = get_cache(cache_dir), 0
    for done in sorted((shared / "executed").glob("*.ipynb")):
        rel = done.name.rsplit(".", 2)[0].replace("__", "/")
        source = REPO / rel
        if not source.is_file() or _page_key(source) != done.name:
            continue
        # the page as the build reads it, with the executed outputs (execution adds cell
        # metadata, which jupyter-cache's hash of a notebook includes)
        nb, ran = _read_notebook(source), nbformat.read(done, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        ran_code = [c for c in ran.cells if c.cell_type == "code"]
        if [c.source for c in code] != [c.source for c in ran_code]:
            continue
        for cell, executed in zip(code, ran_code):
            cell.outputs, cell.execution_count = executed.outputs, executed.execution_count
        for key in ("language_info", "widgets"):
            if key in ran.metadata:
                nb.metadata[key] = ran.metadata[key]
        cache.cache_notebook_bundle(CacheBundleIn(nb, str(source)), check_validity=False, overwrite=True)
        seeded += 1
    return seeded


@pytest.fixture(scope="session")
def built_book(tmp_path_factory) -> Path:
    """Build the book once per test run (shared by the workers) and return its HTML folder.

    The build is the README's (``jupyter-book build .``) with warnings as errors. Pages the tests
    already executed (:func:`executed_page`) go into its jupyter-cache first, so none runs twice;
    ``build.log`` says how many.
    """
    shared = _shared_dir(tmp_path_factory)
    (shared / "executed").mkdir(exist_ok=True)
    out = shared / "book"
    html = out / "_build" / "html"
    with _locked(shared / "book.lock"):
        failed = shared / "book.failed"
        if failed.is_file():
            pytest.fail(failed.read_text())
        if not (html / "index.html").is_file():
            cache_dir = out / "_build" / ".jupyter_cache"
            cache_dir.parent.mkdir(parents=True, exist_ok=True)
            with _locked(shared / "executed.lock"):
                seeded = _seed_book_cache(shared, cache_dir)
            (shared / "book.building").touch()
            cmd = [
                sys.executable, "-c", "from jupyter_book.cli.main import main; main()", "build", str(REPO),
                "--path-output", str(out), "-W", "-n", "--keep-going",
            ]
            try:
                done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=1800)
            finally:
                (shared / "book.building").unlink()
            (out / "build.log").write_text(f"seeded {seeded} notebooks the tests executed\n"
                                           + done.stdout + done.stderr)
            if done.returncode != 0:
                failed.write_text(f"jupyter-book build failed:\n{done.stdout[-6000:]}\n{done.stderr[-6000:]}")
                pytest.fail(failed.read_text())
    assert (html / "index.html").is_file()
    return html


@pytest.fixture(scope="module")
def html_dir(request) -> Path:
    """``BOOK_HTML`` when set (a book built elsewhere), else a fresh ``_build/html``, else a build."""
    given = os.environ.get("BOOK_HTML")
    return Path(given) if given else (book_site.fresh_build() or request.getfixturevalue("built_book"))


@pytest.fixture(scope="module")
def book_url(html_dir):
    handler = functools.partial(book_site.QuietHandler, directory=str(html_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
