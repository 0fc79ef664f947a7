"""Variants: each student's own numbers for an exercise's hand-computation questions.

A variant is a seed. Variant 0 is the exercise as the book prints it; any other seed draws new
shapes, strides, coordinates and indices from the same ranges of well-posed questions, and the
expected answers are computed with labkit when the notebook is graded. A student's seed comes
from the id they enter in the notebook's first cell (:func:`seed_of`), or the instructor gives
one with ``labkit grade --variant SEED``.

>>> v = of("01_shape_stride", 0)           # variant 0: the book's numbers
>>> v.seed, str(v.L), v.c1
(0, '(4,8):(8,1)', (2, 3))
>>> answer("01_shape_stride", "q1", 0)
19
>>> of("01_shape_stride", "student-42").seed == seed_of("student-42") != 0
True
>>> for_student("01_shape_stride", "book").seed, for_student("01_shape_stride", 7).seed == seed_of("7")
(0, True)
"""


from __future__ import annotations

import copy
import functools

from ..errors import LabkitError
from . import variants_gemm as _gemm
from . import variants_wgmma as _wgmma
from .variant import Variant, _seed, seed_of
from .variants_hardware import (_banks_swizzle, _banks_swizzle_answers, _fragment_trace,
                                _fragment_trace_answers, _named_axes, _named_axes_answers,
                                _replication_offset, _replication_offset_answers)
from .variants_layouts import (_global_to_thread, _global_to_thread_answers, _shape_stride,
                               _shape_stride_answers, _tiling, _tiling_answers)

__all__ = ["seed_of", "of", "for_student", "answer", "answers", "questions", "EXERCISES", "Variant"]


EXERCISES = {
    "01_shape_stride": (_shape_stride, _shape_stride_answers),
    "02_tiling": (_tiling, _tiling_answers),
    "03_named_axes": (_named_axes, _named_axes_answers),
    "02b_global_to_thread": (_global_to_thread, _global_to_thread_answers),
    "04_replication_offset": (_replication_offset, _replication_offset_answers),
    "05_banks_swizzle": (_banks_swizzle, _banks_swizzle_answers),
    "06_fragment_trace": (_fragment_trace, _fragment_trace_answers),
    "07_gemm_ladder": (lambda seed: Variant("07_gemm_ladder", seed, *_gemm.numbers(seed)), _gemm.answers),
    "08_wgmma": (lambda seed: Variant("08_wgmma", seed, *_wgmma.numbers(seed)), _wgmma.answers),
}


def questions(exercise: str) -> list[str]:
    """The questions of ``exercise`` whose numbers come from the variant."""
    _check(exercise)
    return sorted(_answers(exercise, 0), key=lambda q: (len(q), q))


def _check(exercise):
    if exercise not in EXERCISES:
        raise LabkitError(f"exercise must be one of {', '.join(sorted(EXERCISES))} (the exercises "
                          f"with variants); got {exercise!r}")


def of(exercise: str, seed_or_id=0) -> Variant:
    """The numbers of ``exercise`` for a variant seed or a student id (``""``: the book's).
    Every variant but 0 differs from the book in every question's answer (see :func:`_draw`)."""
    _check(exercise)
    v = _draw(exercise, _seed(seed_or_id))     # cached: the caller gets its own dict and lines
    return Variant(v.exercise, v.seed, dict(v.numbers), list(v.lines))


_TRIES = 400
_STRIDE = 1_000_003        # a draw past the first is one no student id's seed can ask for


@functools.lru_cache(maxsize=1024)
def _draw(exercise: str, seed: int) -> Variant:
    """Variant ``seed``'s numbers: drawn from the seed, and drawn again (from ``seed + k *
    _STRIDE``, the same on every machine) while any question's answer is the book's, so
    copying the book's answers scores nothing in a variant."""
    build, work_out = EXERCISES[exercise]
    if seed == 0:
        return build(0)
    book = _answers(exercise, 0)
    for k in range(_TRIES):
        v = build(seed + k * _STRIDE)
        mine = work_out(v)
        if all(mine[q] != book[q] for q in book):
            v.seed = seed
            return v
    raise LabkitError(f"variant {seed} of {exercise}: no draw in {_TRIES} differs from the book "
                      "in every question")


def for_student(exercise: str, student_id) -> Variant:
    """The numbers a notebook prints for its ``student_id``, by the rule the grader reads it
    with (:func:`labkit.grading.variant.student_seed`: ``"book"`` is the book's numbers)."""
    from .variant import student_seed

    _check(exercise)
    return of(exercise, student_seed(student_id))    # refuses what the rule refuses


@functools.lru_cache(maxsize=1024)
def _answers(exercise: str, seed: int) -> dict:
    return EXERCISES[exercise][1](_draw(exercise, seed))


def answers(exercise: str, seed_or_id=0) -> dict:
    """Every expected answer of a variant, ``{question: answer}`` (worked out once per variant)."""
    _check(exercise)
    return copy.deepcopy(_answers(exercise, _seed(seed_or_id)))


def answer(exercise: str, question: str, seed_or_id=0):
    """The expected answer of ``question`` in a variant, computed with labkit."""
    _check(exercise)
    answers = _answers(exercise, _seed(seed_or_id))
    if question not in answers:
        raise LabkitError(f"question must be one of {', '.join(answers)}; got {question!r}")
    return copy.deepcopy(answers[question])
