"""Grade submissions without Docker: run each notebook apart, then grade its answers as data.

A submission is a notebook (``.ipynb``) or an otter export zip holding one. Its exercise is
recognised from the notebook (otter's ``assignment_name`` metadata, else the exercise named in
its cells) and must be one of a fixed list (:func:`known_exercises`), or the one ``exercise``
names. The tests are otter assign's autograder tests (public and hidden), found under
``exercises/<name>/autograder/tests`` or under a folder given with ``autograder_dirs``
(``labkit grade --tests DIR``: masters kept outside the repository).

How a submission is graded:

1. every exercise's tests are read into memory (:class:`TestSuite`) before any submission runs;
2. the submission's code cells run in a new process (:mod:`labkit.grading.child`), in a
   bubblewrap sandbox of its own (:mod:`labkit.grading.sandbox`), which sends each answer
   variable as data after every cell (:mod:`labkit.grading.answers`), so a crash, ``os._exit``
   or timeout keeps the answers already given; a function answer is called there on inputs the grader picks after
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
from .submission import (code_of, exercise_of, known_exercises, read_submission,  # noqa: F401
                         student_id_of, student_variant)
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
MAX_JOBS = 256
"""Children one grader runs at once (each has a uid of its own: see :func:`sandbox.uid_for`)."""


def grade(submissions: list[str | os.PathLike], autograder_dirs: list[Path] = (),
          timeout: float = 300.0, parallel: int | None = None, unsafe: bool = False,
          variant: int | None = None, exercise: str | None = None, limits=None) -> list[Report]:
    """Grade each submission; returns one :class:`Report` per submission, in order.

    ``parallel`` submissions run at a time (default: the number of CPUs, at most 8), each in a
    sandbox of its own (:mod:`labkit.grading.sandbox`; ``unsafe``: without one, where bubblewrap
    cannot run; the one used is in each report and in ``grade.last_isolation``); ``exercise``:
    every submission must be this exercise (default: the one its metadata names, from the fixed
    list :func:`known_exercises`); ``variant``: the variant seed of every submission (default:
    each notebook's own, from its ``student_id``); ``limits``: a :class:`sandbox.Limits`."""
    global last_isolation
    from concurrent.futures import ThreadPoolExecutor

    from . import sandbox
    from .variants import EXERCISES as _WITH_VARIANTS

    if variant is not None and (type(variant) is not int or variant < 0):
        raise GradingError(f"variant must be a seed, an int >= 0 (0: the book's numbers); "
                           f"got {variant!r}")
    if parallel is not None and (type(parallel) is not int or not 1 <= parallel <= MAX_JOBS):
        raise GradingError(f"jobs must be an int from 1 to {MAX_JOBS}; got {parallel!r}")
    if type(timeout) not in (int, float) or not timeout > 0:
        raise GradingError(f"timeout must be a number of seconds > 0; got {timeout!r}")
    known = known_exercises(autograder_dirs)
    if exercise is not None and exercise not in known:
        raise GradingError(f"exercise must be one of {', '.join(known)}; got {exercise!r}")
    reports: list[Report | None] = []
    suites: dict[Path, TestSuite] = {}
    jobs = []
    for sub in submissions:
        name = str(sub)
        try:
            nb = read_submission(sub)
            ex = exercise_of(nb, known, exercise)
            if variant is None:
                seed = student_variant(nb, needed=ex in _WITH_VARIANTS)
            else:
                seed = variant
            try:
                sid = student_id_of(nb)
            except GradingError:
                sid = None
            tests_dir = find_tests(ex, list(autograder_dirs)).resolve()
            if tests_dir not in suites:
                suites[tests_dir] = TestSuite.load(ex, tests_dir)
        except GradingError as e:
            reports.append(Report(name, None, [], error=str(e)))
            continue
        jobs.append((len(reports), name, suites[tests_dir], code_of(nb),
                     seed if ex in _WITH_VARIANTS else None, sid))
        reports.append(None)
    if not jobs:
        return reports
    hide = _hidden_dirs(suites.values(), autograder_dirs, submissions)
    limits = limits or sandbox.Limits()
    key = (bool(unsafe), tuple(hide), limits)
    if key not in _SANDBOXES:
        _SANDBOXES[key] = sandbox.choose(unsafe, hide, limits)
    box = _SANDBOXES[key]
    last_isolation = box.description
    guard = TestGuard(suites.values())
    parallel = parallel or max(1, min(8, os.cpu_count() or 1))

    def work(job):
        suite, cells = job[2], job[3]
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
    for (i, name, suite, _, seed, sid), run in zip(jobs, runs):
        questions = suite.run(_env_of(run, suite.calls), seed)
        error = run.error
        if restored:
            note = "test files changed while grading were put back: " + ", ".join(restored)
            error = f"{error}; {note}" if error else note
        reports[i] = Report(name, suite.exercise, questions, error=error,
                            cell_errors=run.cell_errors, isolation=box.description,
                            variant=seed, student_id=None if sid is None else str(sid))
    return reports
