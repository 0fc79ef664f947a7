"""An exercise's autograder tests: where they are, read into memory, and kept from change.

Every exercise's tests are read (:class:`TestSuite`) before any submission runs; they run in
the grader's process on the answers as data, and :class:`TestGuard` puts back any test file a
submission changed. A hidden test's ``checks.exact(name, KIND, ...)`` whose kind has
``inputs()`` tells the grader which calls to make of a function answer.

>>> from labkit.grading.suite import _call_plan
>>> plan = _call_plan("checks.exact(f, kernels.PairAddress(), 0, 'f')")
>>> list(plan), plan["f"][0]
(['f'], [0, 0, 0, 0])
"""

from __future__ import annotations

import ast
import runpy

import io
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from .scores import GradingError, QuestionScore

__all__ = ["REPO", "find_tests", "question_files", "TestSuite", "TestGuard"]

REPO = Path(__file__).resolve().parents[2]


def find_tests(exercise: str, autograder_dirs: list[Path] = ()) -> Path:
    """The folder of the exercise's autograder tests (public and hidden)."""
    from .submission import EXERCISE_NAME

    if not EXERCISE_NAME.fullmatch(str(exercise)):
        raise GradingError(f"exercise must be a name like 01_shape_stride; got {exercise!r}")
    candidates = []
    for d in autograder_dirs:
        d = Path(d)
        candidates += [d / exercise / "autograder" / "tests", d / exercise / "tests"]
        if d.name == exercise:         # the folder is that exercise's own otter assign output
            candidates += [d / "autograder" / "tests", d / "tests"]
    if not autograder_dirs:   # masters kept elsewhere are never mixed with the repository's
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
    if autograder_dirs:
        raise GradingError(f"no hidden tests for {exercise!r} in "
                           f"{', '.join(str(d) for d in autograder_dirs)} (looked for "
                           f"{exercise}/autograder/tests and {exercise}/tests)")
    raise GradingError(
        f"no hidden tests for {exercise!r}: build them with `python -m labkit grade --assign` "
        f"(otter assign solutions/{exercise}.ipynb exercises/{exercise})")


def question_files(tests_dir: Path) -> list[Path]:
    files = [p for p in Path(tests_dir).glob("*.py") if p.name != "__init__.py"]
    return sorted(files, key=lambda p: (len(p.stem), p.stem))


_ANSWER_VAR = re.compile(r"\b(?:checks|kernels)\.(?:exact|form)\(\s*([A-Za-z_]\w*)\s*,")


def _case_source(code: str) -> str:
    """A doctest case's Python source (its ``>>>``/``...`` lines)."""
    lines = []
    for ln in code.splitlines():
        s = ln.strip()
        if s.startswith(">>> ") or s == ">>>":
            lines.append(s[4:])
        elif s.startswith("... ") or s == "...":
            lines.append(s[4:])
    return "\n".join(lines)


@dataclass
class TestSuite:
    """One exercise's tests, read before any submission runs: ``specs`` (question -> otter's OK
    test dict), the answer variables they read, and the calls each function answer needs."""

    exercise: str
    tests_dir: Path
    texts: dict
    specs: dict
    answer_names: list
    calls: dict

    @classmethod
    def load(cls, exercise: str, tests_dir: Path) -> "TestSuite":
        texts, specs, names, calls = {}, {}, [], {}
        for path in question_files(tests_dir):
            try:
                text = path.read_text(encoding="utf-8")
                spec = runpy.run_path(str(path))["test"]      # otter's test file: it defines `test`
                float(spec["points"])
            except Exception as e:  # noqa: BLE001
                raise GradingError(f"test file {path} cannot be read: {e}") from None
            texts[path.stem], specs[path.stem] = text, spec
            for case in spec["suites"][0]["cases"]:
                for name in _ANSWER_VAR.findall(case["code"]):
                    if name not in names:
                        names.append(name)
                if case.get("hidden"):
                    calls.update(_call_plan(_case_source(case["code"])))
        return cls(exercise, Path(tests_dir), texts, specs, names, calls)

    def possible(self, question: str) -> float:
        return float(self.specs[question]["points"])

    def run(self, env: dict, variant: int | None = None) -> list[QuestionScore]:
        """Run every question's tests here on ``env`` (answers as data); scores capped."""
        from otter.test_files.ok_test import OKTestFile
        from . import checks
        from .notebook import line_of

        out = []
        for q, spec in self.specs.items():
            tf = OKTestFile.from_spec(spec, path=str(self.tests_dir / f"{q}.py"))
            glob = dict(env)
            glob["variant"] = variant
            checks.take_notes()
            with _quiet():
                tf.run(glob)
            messages = [f"{'hidden' if r.test_case.hidden else 'public'}: {line_of(r.message)}"
                        for r in tf.test_case_results if not r.passed]
            messages += [f"note: {n}" for n in checks.take_notes()]
            possible = self.possible(q)
            points = min(max(float(tf.score), 0.0), possible)
            out.append(QuestionScore(q, points, possible, list(dict.fromkeys(messages))))
        return out


def _call_plan(source: str) -> dict:
    """``{name: inputs}`` for each ``checks.exact(name, KIND, ...)`` whose kind has ``inputs()``
    (a function answer the grader calls in the submission's process)."""
    import ast

    from . import checks, kernels

    plan = {}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return plan
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "exact" and len(node.args) >= 2
                and isinstance(node.args[0], ast.Name)):
            try:
                kind = _resolve(node.args[1], {"checks": checks, "kernels": kernels})
            except Exception:  # noqa: BLE001 - not a kind the grader can call
                continue
            if callable(getattr(kind, "inputs", None)):
                plan[node.args[0].id] = [list(a) for a in kind.inputs()]
    return plan


class TestGuard:
    """The bytes of every test file read, and putting back any that a submission changed."""

    def __init__(self, suites):
        self.files = {}
        for suite in suites:
            for q, text in suite.texts.items():
                self.files[suite.tests_dir / f"{q}.py"] = text.encode("utf-8")

    def restore(self) -> list[str]:
        changed = []
        for path, data in self.files.items():
            try:
                same = path.read_bytes() == data
            except OSError:
                same = False
            if not same:
                changed.append(str(path))
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
        return changed


class _quiet:
    def __enter__(self):
        self._out, self._err = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = io.StringIO()

    def __exit__(self, *exc):
        sys.stdout, sys.stderr = self._out, self._err


def _resolve(node, names):
    """The value of a test file's check kind, read without running its text: a name of
    ``names``, attributes of it, literals, and calls of those on arguments of the same kinds
    (``checks.Outputs([(1,), (7,)], checks.INT)``).

    >>> from labkit.grading import checks
    >>> _call_plan("checks.exact(double, checks.Outputs([(1,), (7,)], checks.INT), (2, 14), 'd')")
    {'double': [[1], [7]]}
    """
    if isinstance(node, ast.Name):
        return names[node.id]
    if isinstance(node, ast.Attribute):
        return getattr(_resolve(node.value, names), node.attr)
    if isinstance(node, ast.Call):
        fn = _resolve(node.func, names)
        return fn(*(_resolve(a, names) for a in node.args),
                  **{k.arg: _resolve(k.value, names) for k in node.keywords if k.arg})
    return ast.literal_eval(node)
