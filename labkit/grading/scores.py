"""What grading a submission gives back: a score per question, a report per submission.

>>> from labkit.grading.scores import QuestionScore, Report, fmt
>>> r = Report("hw.ipynb", "01_layouts", [QuestionScore("q1", 2.0, 2.0), QuestionScore("q2", 0.5, 1.0)])
>>> f"{fmt(r.points)}/{fmt(r.max)}"
'2.5/3'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import LabkitError

__all__ = ["GradingError", "QuestionScore", "Report", "fmt"]


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
    isolation: str | None = None
    variant: int | None = None
    student_id: str | None = None

    @property
    def points(self) -> float:
        return sum(q.points for q in self.questions)

    @property
    def max(self) -> float:
        return sum(q.max for q in self.questions)


def fmt(x: float) -> str:
    """``2.0 -> '2'``, ``1.5 -> '1.5'``."""
    return f"{x:g}"
