"""Grade submissions without Docker: run each notebook apart, then grade its answers as data.

A submission is a notebook (``.ipynb``) or an otter export zip holding one. Its exercise is
recognised from the notebook (otter's ``assignment_name`` metadata, else the exercise named in
its cells). The tests are otter assign's autograder tests (public and hidden), found under
``exercises/<name>/autograder/tests`` or under a folder given with ``autograder_dirs``
(``labkit grade --tests DIR``: masters kept outside the repository).

How a submission is graded:

1. every exercise's tests are read into memory (:class:`TestSuite`) before any submission runs;
2. the submission's code cells run in a new process (:mod:`labkit.grading.child`), isolated as
   :func:`labkit.grading.sandbox.choose` allows, which sends each answer variable as data after
   every cell (:mod:`labkit.grading.answers`), so a crash, ``os._exit`` or timeout keeps the
   answers already given; a function answer is called there on inputs the grader picks after
   the notebook ran, and its outputs come back as data;
3. the public and hidden tests run here, in the grader's process, on that data, with modules the
   submission never touched; each question scores at most its points.

Each step is a module of its own: :mod:`~labkit.grading.submission` (reading a submission),
:mod:`~labkit.grading.suite` (the tests in memory), :mod:`~labkit.grading.runner` (the child
process), :mod:`~labkit.grading.scores` (what comes back); :func:`grade` joins them, and this
module hands their names on.
"""


from __future__ import annotations

import os
import sys
from pathlib import Path

from .runner import MAX_OUTPUT, _env_of, _Run, _run_child, _stop  # noqa: F401 - handed on
from .scores import GradingError, QuestionScore, Report, fmt  # noqa: F401 - handed on
from .submission import code_of, exercise_of, read_submission, student_variant  # noqa: F401
from .suite import REPO, TestGuard, TestSuite, find_tests, question_files  # noqa: F401


def _hidden_dirs(suites, autograder_dirs, submissions) -> list[Path]:
    """Folders a submission must not see: the tests, the masters, the other submissions."""
    keep = [Path(p).resolve() for p in (REPO, sys.prefix, sys.base_prefix,
                                        Path(sys.executable).parent)]
    found = [REPO / "solutions", *sorted((REPO / "exercises").glob("*/autograder"))]
    found += [Path(d) for d in autograder_dirs]
    for s in suites:
        d = s.tests_dir
        found.append(d.parent if d.parent.name == "autograder" else d)
    found += [Path(p).resolve().parent for p in submissions]
    out = []
    for d in found:
        d = Path(d).resolve()
        if any(k == d or k.is_relative_to(d) for k in keep) or d in out or not d.is_dir():
            continue
        out.append(d)
    return out


_SANDBOXES: dict = {}
last_isolation: str | None = None


def grade(submissions: list[str | os.PathLike], autograder_dirs: list[Path] = (),
          timeout: float = 300.0, parallel: int | None = None, isolation: str = "auto",
          variant: int | None = None) -> list[Report]:
    """Grade each submission; returns one :class:`Report` per submission, in order.

    ``parallel`` submissions run at a time (default: the number of CPUs, at most 8);
    ``isolation``: see :func:`labkit.grading.sandbox.choose` (the one used is in each report and
    in ``grade.last_isolation``); ``variant``: the variant seed of every submission (default:
    each notebook's own, from the student id in its first cell; 0 without one)."""
    global last_isolation
    from concurrent.futures import ThreadPoolExecutor

    from . import sandbox

    if variant is not None and (type(variant) is not int or variant < 0):
        raise GradingError(f"variant must be a seed, an int >= 0 (0: the book's numbers); "
                           f"got {variant!r}")
    reports: list[Report | None] = []
    suites: dict[Path, TestSuite] = {}
    jobs = []
    for sub in submissions:
        name = str(sub)
        try:
            nb = read_submission(sub)
            exercise = exercise_of(nb)
            tests_dir = find_tests(exercise, list(autograder_dirs)).resolve()
            if tests_dir not in suites:
                suites[tests_dir] = TestSuite.load(exercise, tests_dir)
        except GradingError as e:
            reports.append(Report(name, None, [], error=str(e)))
            continue
        jobs.append((len(reports), name, suites[tests_dir], code_of(nb),
                     student_variant(nb) if variant is None else int(variant)))
        reports.append(None)
    if not jobs:
        return reports
    hide = _hidden_dirs(suites.values(), autograder_dirs, submissions)
    key = (isolation, tuple(hide))
    if key not in _SANDBOXES:
        _SANDBOXES[key] = sandbox.choose(isolation, hide)
    box = _SANDBOXES[key]
    last_isolation = box.description
    guard = TestGuard(suites.values())
    parallel = parallel or max(1, min(8, os.cpu_count() or 1))

    def work(job):
        _, _, suite, cells, _ = job
        run = _run_child(box, cells, suite.answer_names, suite.calls, timeout)
        functions = [n for n in suite.calls if run.answers.get(n, [None])[:1] == ["function"]]
        if functions and not run.done and run.last_cell >= 0:
            replay = _run_child(box, cells[:run.last_cell + 1], suite.answer_names,
                                suite.calls, timeout)
            for n in functions:
                if n in replay.calls and replay.answers.get(n) == run.answers.get(n):
                    run.calls[n] = replay.calls[n]
        return run

    with ThreadPoolExecutor(max_workers=parallel) as pool:
        runs = list(pool.map(work, jobs))
    restored = guard.restore()
    from .variants import EXERCISES as _WITH_VARIANTS

    for (i, name, suite, _, seed), run in zip(jobs, runs):
        questions = suite.run(_env_of(run, suite.calls), seed)
        error = run.error
        if restored:
            note = "test files changed while grading were put back: " + ", ".join(restored)
            error = f"{error}; {note}" if error else note
        reports[i] = Report(name, suite.exercise, questions, error=error,
                            cell_errors=run.cell_errors, isolation=box.description,
                            variant=seed if suite.exercise in _WITH_VARIANTS else None)
    return reports
