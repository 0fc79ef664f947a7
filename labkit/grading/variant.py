"""One variant of an exercise: its seed, its numbers, and how the notebook prints them.

A student's seed comes from the id they enter in the notebook's first cell; ``""`` is variant 0,
the book's numbers.

>>> seed_of(""), seed_of("student-42") == seed_of("student-42") > 0
(0, True)
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


__all__ = ["seed_of", "draw_numbers", "Variant", "lk"]


def seed_of(student_id) -> int:
    """The variant of a student id: 0 for ``""`` (the book's numbers), else a stable number
    from 1 to 999999 (the same id gives the same variant on every machine)."""
    if student_id is None or str(student_id).strip() == "":
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
        raise AttributeError(f"variant of {self.exercise} has no number {name!r}")

    def __str__(self):
        head = (f"{self.exercise}, variant {self.seed}"
                + (" (the book's numbers)" if self.seed == 0 else ""))
        return "\n".join([head, *self.lines])

    def __repr__(self):
        return str(self)

