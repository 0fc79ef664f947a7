"""One variant of an exercise: its seed, its numbers, and how the notebook prints them.

A student's seed comes from the id they enter in the notebook's first cell, by one rule that
the notebook and the grader share (:func:`student_seed`): ``student_id`` is a plain string or a
non-negative int literal; ``"book"`` asks for variant 0, the book's numbers; any other id gives
a stable seed from 1 to 999999 (``4127`` and ``"4127"`` give the same).

>>> student_seed("book"), student_seed("student-42") == seed_of("student-42") > 0
(0, True)
>>> student_seed(4127) == student_seed("4127")
True
>>> student_id_literal('student_id = "ana" + ".lima"')
Traceback (most recent call last):
...
labkit.errors.LabkitError: student_id must be a plain string or a non-negative int literal (student_id = "ana.lima", student_id = 4127, or student_id = "book" for the book's numbers); got "ana" + ".lima"
>>> v = Variant("01_shape_stride", 0, {"c1": (2, 3)}, ["c1 = (2, 3)"])
>>> v.c1
(2, 3)
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from ..errors import LabkitError
from labkit import atoms as _atoms
from labkit import axe as _axe
from labkit import banks as _banks
from labkit import layout as _layout
from labkit import swizzle_atoms as _swizzle_atoms
from labkit import tiled as _tiled


class _Floors:
    """``lk.<name>`` for the names the variants use, read from the floors below grading (the
    package's face, ``import labkit as lk``, stands above this floor)."""

    _FLOORS = (_layout, _axe, _banks, _swizzle_atoms, _atoms, _tiled)

    def __getattr__(self, name):
        for floor in self._FLOORS:
            if name in getattr(floor, "__all__", ()) or hasattr(floor, name):
                return getattr(floor, name)
        raise AttributeError(f"labkit has no {name!r} below the grading floor")


lk = _Floors()


__all__ = ["seed_of", "student_seed", "student_id_literal", "check_student_id", "BOOK_ID",
           "draw_numbers", "Variant", "lk"]

BOOK_ID = "book"
"""The student id that asks for the book's numbers (variant 0)."""
_RULE = ("a plain string or a non-negative int literal (student_id = \"ana.lima\", "
         "student_id = 4127, or student_id = \"book\" for the book's numbers)")


def student_seed(student_id) -> int:
    """The variant of a notebook's ``student_id``: the rule the notebook and the grader share.
    ``"book"`` is 0; any other non-empty ``str`` or ``int >= 0`` is :func:`seed_of` its text;
    anything else (an empty id, a bool, a negative number, a float...) is refused."""
    if type(student_id) is int and student_id >= 0:
        return seed_of(str(student_id))
    if type(student_id) is not str:
        raise LabkitError(f"student_id must be {_RULE}; got {student_id!r}")
    if not student_id.strip():
        raise LabkitError("student_id is empty: enter the id your course gave you, or "
                          "student_id = \"book\" for the book's numbers")
    return seed_of(student_id)


def student_id_literal(source: str):
    """The value of ``student_id = LITERAL`` in ``source`` (None when it sets no student_id),
    read without running anything; a ``student_id`` set any other way, or more than once, is
    refused (the notebook would print one variant's numbers and be graded as another)."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    stores = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "student_id"
              and isinstance(n.ctx, (ast.Store, ast.Del))]
    if not stores:
        return None
    plain = [n for n in tree.body if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and n.targets[0].id == "student_id"]
    if len(stores) > 1 or len(plain) != 1:
        raise LabkitError(f"student_id must be set once, as {_RULE}")
    value = plain[0].value
    if not (isinstance(value, ast.Constant) and type(value.value) in (str, int)):
        shown = ast.get_source_segment(source, value)
        raise LabkitError(f"student_id must be {_RULE}; got {shown}")
    student_seed(value.value)       # an empty id or a negative literal is refused here too
    return value.value


def check_student_id(student_id, source: str | None = None) -> None:
    """What the notebook's first cell calls: refuses a ``student_id`` :func:`student_seed`
    refuses, after checking that the cell sets it as a literal (``source``: the cell's text; by
    default the running IPython cell's), so the notebook refuses what the grader refuses."""
    if source is None:
        try:
            from IPython import get_ipython

            history = (get_ipython().user_ns.get("In") or [""]) if get_ipython() else [""]
            source = history[-1]
        except Exception:  # noqa: BLE001 - not in IPython: the value alone is checked
            source = ""
    literal = student_id_literal(source)
    if literal is not None and literal != student_id:
        raise LabkitError("student_id changed after its literal was set: set it once, as "
                          f"{_RULE}")
    student_seed(student_id)


def seed_of(student_id) -> int:
    """The variant of a student id: 0 for ``""`` and ``"book"`` (the book's numbers), else a
    stable number from 1 to 999999 (the same id gives the same variant on every machine)."""
    if student_id is None or str(student_id).strip() in ("", BOOK_ID):
        return 0
    digest = hashlib.sha256(str(student_id).strip().encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % 999_999 + 1


def draw_numbers(exercise: str, seed: int, book: dict, draws: dict, answer) -> dict:
    """Variant ``seed``'s numbers: 0 is ``book``; any other draws each question's numbers with
    ``draws[q](rng)`` anew until ``answer(q, numbers)`` differs from the book's answer (the rng is
    seeded by the exercise and the seed, so every machine draws the same).

    >>> draw_numbers("x", 3, {"a": 1}, {"q1": lambda r: {"a": r.randrange(2)}}, lambda q, n: n["a"])
    {'a': 0}
    """
    if seed == 0:
        return dict(book)
    rng, drawn = random.Random(f"{exercise}/{seed}"), {}
    for q, draw in draws.items():
        while True:
            mine = draw(rng)
            if answer(q, mine) != answer(q, book):
                break
        drawn.update(mine)
    return drawn


def _seed(seed_or_id) -> int:
    if isinstance(seed_or_id, bool):
        raise LabkitError(f"a variant is a seed (int >= 0) or a student id (str); got {seed_or_id!r}")
    if isinstance(seed_or_id, int):
        if seed_or_id < 0:
            raise LabkitError(f"a variant seed is an int >= 0; got {seed_or_id}")
        return seed_or_id
    if isinstance(seed_or_id, str):
        return seed_of(seed_or_id)
    raise LabkitError(f"a variant is a seed (int >= 0) or a student id (str); got {seed_or_id!r}")


@dataclass
class Variant:
    """One variant's numbers (attributes), and how the notebook prints them."""

    exercise: str
    seed: int
    numbers: dict
    lines: list

    def __getattr__(self, name):
        numbers = self.__dict__.get("numbers", {})
        if name in numbers:
            return numbers[name]
        raise AttributeError(f"variant of {self.__dict__.get('exercise')} has no number {name!r}")

    def __str__(self):
        head = (f"{self.exercise}, variant {self.seed}"
                + (" (the book's numbers)" if self.seed == 0 else ""))
        return "\n".join([head, *self.lines])

    def __repr__(self):
        return str(self)

