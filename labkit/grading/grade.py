"""Grade submissions without Docker: run each notebook, then its exercise's public and hidden tests.

A submission is a notebook (``.ipynb``) or an otter export zip holding one. Its exercise is
recognised from the notebook (otter's ``assignment_name`` metadata, else the exercise named in
its cells). The tests are otter assign's autograder tests (public and hidden), found under
``exercises/<name>/autograder/tests`` or under a folder given with ``autograder_dirs``.

Each submission runs in its own process (forked from one that has imported labkit, otter and
IPython once), so one submission cannot change another's environment, and a submission that
runs too long is stopped and scores 0.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import LabkitError

REPO = Path(__file__).resolve().parents[2]


class GradingError(LabkitError):
    """A submission or an exercise could not be graded (unreadable file, unknown exercise...)."""


@dataclass
class QuestionScore:
    question: str
    points: float
    max: float
    messages: list[str] = field(default_factory=list)


@dataclass
class Report:
    file: str
    exercise: str | None
    questions: list[QuestionScore]
    error: str | None = None
    cell_errors: list[str] = field(default_factory=list)

    @property
    def points(self) -> float:
        return sum(q.points for q in self.questions)

    @property
    def max(self) -> float:
        return sum(q.max for q in self.questions)


def fmt(x: float) -> str:
    """``2.0 -> '2'``, ``1.5 -> '1.5'``."""
    return f"{x:g}"


# ---------------------------------------------------------------------------- submissions


def read_submission(path: str | os.PathLike):
    """The notebook (an ``nbformat`` node) of a submission: an ``.ipynb`` or an export zip."""
    import nbformat

    path = Path(path)
    if not path.is_file():
        raise GradingError(f"submission {str(path)!r} is not a file")
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as zf:
                names = [n for n in zf.namelist()
                         if n.endswith(".ipynb") and ".ipynb_checkpoints" not in n]
                if len(names) != 1:
                    raise GradingError(f"submission {path.name!r}: an export zip holds one "
                                       f"notebook, found {len(names)}")
                text = zf.read(names[0]).decode("utf-8")
        else:
            text = path.read_text(encoding="utf-8")
        return nbformat.reads(text, as_version=4)
    except GradingError:
        raise
    except Exception as e:  # not JSON, not a notebook
        raise GradingError(f"submission {path.name!r} is not a readable notebook: {e}") from None


_EXERCISE_IN_SOURCE = re.compile(r"""public_tests\(\s*["']([0-9A-Za-z_]+)["']""")


def exercise_of(nb) -> str:
    """The exercise a notebook belongs to (otter's ``assignment_name``, else its fetch cell)."""
    name = (nb.metadata.get("otter") or {}).get("assignment_name")
    if name:
        return str(name)
    for cell in nb.cells:
        m = _EXERCISE_IN_SOURCE.search(cell.source if cell.cell_type == "code" else "")
        if m:
            return m.group(1)
    raise GradingError("the notebook does not say which exercise it is "
                       "(no otter assignment_name in its metadata)")


def code_of(nb) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "code"]


# ---------------------------------------------------------------------------- tests


def find_tests(exercise: str, autograder_dirs: list[Path] = ()) -> Path:
    """The folder of the exercise's autograder tests (public and hidden)."""
    candidates = []
    for d in autograder_dirs:
        d = Path(d)
        candidates += [d / exercise / "autograder" / "tests", d / "autograder" / "tests",
                       d / exercise / "tests", d / "tests"]
    candidates.append(REPO / "exercises" / exercise / "autograder" / "tests")
    for c in candidates:
        if c.is_dir() and any(c.glob("*.py")):
            master = REPO / "solutions" / f"{exercise}.ipynb"
            if master.is_file() and master.stat().st_mtime > max(
                    p.stat().st_mtime for p in c.glob("*.py")):
                print(f"labkit grade: warning: the hidden tests in {c} are older than "
                      f"{master.relative_to(REPO)}; rebuild them with "
                      "`python -m labkit grade --assign`", file=sys.stderr)
            return c
    raise GradingError(
        f"no hidden tests for {exercise!r}: build them with `python -m labkit grade --assign` "
        f"(otter assign solutions/{exercise}.ipynb exercises/{exercise})")


def question_files(tests_dir: Path) -> list[Path]:
    files = [p for p in Path(tests_dir).glob("*.py") if p.name != "__init__.py"]
    return sorted(files, key=lambda p: (len(p.stem), p.stem))


# ---------------------------------------------------------------------------- running


class _Runner:
    """Imports what every submission needs once; runs each submission in a forked child."""

    def __init__(self):
        os.environ.setdefault("MPLBACKEND", "Agg")
        import otter  # noqa: F401  (the notebooks import it; importing once makes forks cheap)
        from otter.test_files.ok_test import OKTestFile  # noqa: F401
        from traitlets.config import Config
        from IPython.core.interactiveshell import InteractiveShell
        import labkit  # noqa: F401
        from . import checks, notebook  # noqa: F401

        config = Config()
        config.HistoryManager.enabled = False
        self.shell_class = InteractiveShell
        self.config = config

    def start(self, sources: list[str], tests_dir: Path) -> "_Child":
        """Fork a child that runs one submission; its result comes back through a pipe."""
        work = tempfile.mkdtemp(prefix="labkit-grade-")
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: never returns
            code = 0
            try:
                os.close(read_fd)
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                data = json.dumps(_grade_here(self, sources, tests_dir, work)).encode()
            except BaseException as e:  # report, never raise out of a fork
                data = json.dumps({"error": f"{type(e).__name__}: {e}"}).encode()
                code = 1
            with os.fdopen(write_fd, "wb") as w:
                w.write(data)
            os._exit(code)
        os.close(write_fd)
        return _Child(pid, read_fd, work)

    def run_all(self, jobs: list[tuple[list[str], Path]], timeout: float,
                parallel: int) -> list[dict]:
        """Run each (sources, tests_dir), up to ``parallel`` at a time; results in order."""
        if not hasattr(os, "fork"):  # no fork (Windows): one after another, in this process
            results = []
            for sources, tests_dir in jobs:
                cwd = os.getcwd()
                try:
                    results.append(_grade_here(self, sources, tests_dir,
                                               tempfile.mkdtemp(prefix="labkit-grade-")))
                finally:
                    os.chdir(cwd)
            return results
        import select

        results: list[dict | None] = [None] * len(jobs)
        waiting = list(range(len(jobs)))
        running: dict[int, _Child] = {}
        while waiting or running:
            while waiting and len(running) < parallel:
                i = waiting.pop(0)
                child = self.start(*jobs[i])
                child.deadline = time.monotonic() + timeout
                running[i] = child
            ready, _, _ = select.select([c.fd for c in running.values()], [], [], 0.5)
            now = time.monotonic()
            for i, child in list(running.items()):
                if child.fd in ready:
                    chunk = os.read(child.fd, 1 << 16)
                    if chunk:
                        child.chunks.append(chunk)
                        continue
                    results[i] = child.finish()
                    del running[i]
                elif now > child.deadline:
                    results[i] = child.kill(timeout)
                    del running[i]
        return results


class _Child:
    def __init__(self, pid: int, fd: int, work: str):
        self.pid, self.fd, self.work = pid, fd, work
        self.chunks: list[bytes] = []
        self.deadline = 0.0

    def _cleanup(self):
        import shutil
        os.close(self.fd)
        os.waitpid(self.pid, 0)
        shutil.rmtree(self.work, ignore_errors=True)

    def finish(self) -> dict:
        self._cleanup()
        try:
            return json.loads(b"".join(self.chunks) or b"{}") or {
                "error": "the grading process ended without a result"}
        except ValueError:
            return {"error": "the grading process ended without a result"}

    def kill(self, timeout: float) -> dict:
        os.kill(self.pid, signal.SIGKILL)
        self._cleanup()
        return {"error": f"stopped after {timeout:g} s (the notebook did not finish)"}


def _grade_here(runner: _Runner, sources: list[str], tests_dir: Path, work: str) -> dict:
    """Run the notebook's cells in a fresh IPython shell in ``work``, then every test file."""
    import otter
    from otter.test_files.ok_test import OKTestFile
    from .notebook import line_of

    os.chdir(work)
    otter.Notebook.init_grading_mode(str(tests_dir))
    shell = runner.shell_class.instance(config=runner.config)
    cell_errors = []
    for i, source in enumerate(sources):
        result = shell.run_cell(source, store_history=False)
        if not result.success:
            err = result.error_in_exec or result.error_before_exec
            cell_errors.append(f"code cell {i + 1}: {type(err).__name__}: {err}"[:300])
    env = shell.user_ns
    questions = []
    for path in question_files(tests_dir):
        try:
            tf = OKTestFile.from_file(str(path))
        except Exception as e:
            raise GradingError(f"test file {path.name} cannot be read: {e}") from None
        with _quiet():
            tf.run(env)
        messages = [f"{'hidden' if r.test_case.hidden else 'public'}: {line_of(r.message)}"
                    for r in tf.test_case_results if not r.passed]
        questions.append({"question": tf.name, "points": float(tf.score),
                          "max": float(tf.possible), "messages": messages})
    return {"questions": questions, "cell_errors": cell_errors}


class _quiet:
    def __enter__(self):
        self._out, self._err = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = io.StringIO()

    def __exit__(self, *exc):
        sys.stdout, sys.stderr = self._out, self._err


_RUNNER: _Runner | None = None


def grade(submissions: list[str | os.PathLike], autograder_dirs: list[Path] = (),
          timeout: float = 300.0, parallel: int | None = None) -> list[Report]:
    """Grade each submission; returns one :class:`Report` per submission, in order.

    ``parallel`` submissions run at a time (default: the number of CPUs, at most 8)."""
    global _RUNNER
    reports: list[Report | None] = []
    jobs, slots = [], []
    for sub in submissions:
        name = str(sub)
        try:
            nb = read_submission(sub)
            exercise = exercise_of(nb)
            tests_dir = find_tests(exercise, list(autograder_dirs)).resolve()
        except GradingError as e:
            reports.append(Report(name, None, [], error=str(e)))
            continue
        slots.append((len(reports), name, exercise, tests_dir))
        reports.append(None)
        jobs.append((code_of(nb), tests_dir))
    if jobs:
        if _RUNNER is None:
            _RUNNER = _Runner()
        parallel = parallel or max(1, min(8, os.cpu_count() or 1))
        cwd = os.getcwd()
        try:
            results = _RUNNER.run_all(jobs, timeout, parallel)
        finally:
            os.chdir(cwd)
        for (i, name, exercise, tests_dir), result in zip(slots, results):
            if "error" in result:
                # a notebook that cannot run scores 0 on every question
                questions = [QuestionScore(p.stem, 0.0, _possible(p))
                             for p in question_files(tests_dir)]
                reports[i] = Report(name, exercise, questions, error=result["error"])
            else:
                reports[i] = Report(name, exercise, [
                    QuestionScore(q["question"], q["points"], q["max"], q["messages"])
                    for q in result["questions"]], cell_errors=result.get("cell_errors", []))
    return reports


def _possible(path: Path) -> float:
    from otter.test_files.ok_test import OKTestFile
    return float(OKTestFile.from_file(str(path)).possible)
