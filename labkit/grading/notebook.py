"""The ``grader`` of an exercise notebook: otter's ``Notebook`` with one-line results.

``grader.check("q1")`` runs the question's public tests (they check the answer's form only)
and shows one line per failed check, e.g. ``q1: offset_23: not answered yet``, instead of a
doctest report. ``grader.export()`` writes otter's submission zip; on Google Colab, where otter
cannot export, it says how to download the notebook instead.

>>> line_of("Exception raised:\\n    Traceback (most recent call last):\\n"
...         "    labkit.grading.checks.Hint: x: not answered yet\\n")
'x: not answered yet'
>>> line_of("Exception raised:\\n    NameError: name 'x' is not defined\\n")
"x is not defined: run the question's cell first"
"""

from __future__ import annotations

import html
import os
import re
import sys

import otter
from otter.check.utils import IPythonInterpreter, list_available_tests

COLAB_SUBMIT = (
    "On Colab, submit the notebook itself: File → Download → Download .ipynb, then hand in "
    "that file (your instructor grades it with `python -m labkit grade`)."
)

_CHECK_ERROR = re.compile(r"^\s*labkit\.grading\.checks\.(?:Hint|NotAnswered|Wrong): (.*)$")
_NAME_ERROR = re.compile(r"^\s*NameError: name '(\w+)' is not defined")


def line_of(report: str) -> str:
    """The one line that says why a test case failed, read from otter's doctest report."""
    lines = [ln for ln in (report or "").splitlines() if ln.strip()]
    for ln in reversed(lines):
        m = _CHECK_ERROR.match(ln)
        if m:
            return m.group(1)
        m = _NAME_ERROR.match(ln)
        if m:
            return f"{m.group(1)} is not defined: run the question's cell first"
    # some other error: its last line (``TypeError: ...``), never the doctest's source lines
    for ln in reversed(lines):
        if re.match(r"^\s*[\w.]+(Error|Exception): ", ln):
            return ln.strip()
    return "the check failed"


class CheckResult:
    """What ``grader.check`` shows: one line per question, one more per failed public check."""

    def __init__(self, question: str, problems: list[str], test_file=None):
        self.question = question
        self.problems = problems
        self.test_file = test_file

    @classmethod
    def from_test_file(cls, question: str, test_file) -> "CheckResult":
        problems = []
        for tcr in test_file.test_case_results:
            if tcr.test_case.hidden or tcr.passed:
                continue
            problems.append(line_of(tcr.message))
        return cls(question, list(dict.fromkeys(problems)), test_file)

    @property
    def passed(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        if self.passed:
            return [f"{self.question}: the answer has the expected form "
                    "(its value is graded when you submit)"]
        return [f"{self.question}: {p}" for p in self.problems]

    def __repr__(self):
        return "\n".join(self.lines())

    def _repr_html_(self):
        color = "green" if self.passed else "#b00"
        return "".join(f"<p style='color:{color};margin:0'><code>{html.escape(ln)}</code></p>"
                       for ln in self.lines())


class CheckAllResult:
    """What ``grader.check_all()`` shows: one line per question."""

    def __init__(self, results: list[CheckResult]):
        self.results = results

    def __repr__(self):
        return "\n".join(ln for r in self.results for ln in r.lines())

    def _repr_html_(self):
        return "".join(r._repr_html_() for r in self.results)


class Notebook(otter.Notebook):
    """``otter.Notebook`` whose checks answer in one line and whose export works on Colab."""

    def check(self, question: str, global_env: dict | None = None) -> CheckResult:
        if type(self)._grading_mode:      # while grading: the grader reads the answers itself
            return None
        if global_env is None:
            global_env = sys._getframe(1).f_globals
        if not os.path.isfile(
                os.path.join(self._tests_dir, f"{question}.py")):
            where = os.path.abspath(self._tests_dir)
            return CheckResult(question, [
                f"no public test {question}.py in {where}: keep the notebook next to its tests "
                "folder (on Colab, run the first cell)"])
        test_file = super().check(question, global_env)
        return CheckResult.from_test_file(question, test_file)

    def check_all(self) -> CheckAllResult | None:
        if type(self)._grading_mode:
            return None
        env = sys._getframe(1).f_globals
        names = sorted(list_available_tests(self._tests_dir, self._nbmeta_config),
                       key=lambda q: (len(q), q))
        return CheckAllResult([self.check(q, env) for q in names])

    def export(self, nb_path: str | None = None, **kwargs):
        """Write the submission zip (no PDF); on Colab, say how to submit the notebook instead."""
        if type(self)._grading_mode:
            return None
        if on_colab() or self.interpreter is IPythonInterpreter.COLAB:
            print(COLAB_SUBMIT)
            return None
        kwargs.setdefault("pdf", False)
        # otter's run_tests starts a second kernel to re-run the zip; check_all above already
        # ran the same public tests, and that kernel only adds a transport warning
        kwargs.setdefault("run_tests", False)
        result = super().export(nb_path, **kwargs)
        print("Submit the zip file (or the notebook itself); the instructor grades it with "
              "`python -m labkit grade`.")
        return result


def on_colab() -> bool:
    """Whether this runs on Google Colab (the test the exercise's install cell makes too)."""
    return "google.colab" in sys.modules
