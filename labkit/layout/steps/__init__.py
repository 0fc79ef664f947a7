"""The layout algebra step by step: the intermediate values CuTe computes on the way.

``composition``, ``complement``, ``right_inverse`` and ``left_inverse`` of
:mod:`labkit.layout.algebra` give only the answer. The functions here walk the same
procedure (``include/cute/layout.hpp``) and keep every intermediate value, so that a reader
can follow, and predict, a new case. Every final answer is taken from the algebra itself
(``composition(A, B)``, ``complement(L, n)``, ...), and each trace checks that its own steps
rebuild that answer. :mod:`.compose` traces composition and complement, :mod:`.inverses` the
inverses; this package hands their names on.

>>> import labkit as lk
>>> from labkit.layout import steps
>>> t = steps.composition_steps(lk.parse_layout("(_4,_8):(_8,_1)"), lk.parse_layout("_4:_2"))
>>> print(t.result, t.exact)
(_2,_2):(_16,_1) True
>>> print(steps.complement_steps(lk.parse_layout("(_2,_2):(_1,_6)"), 24).result)
(_3,2):(_2,_12)
"""

from .compose import (ComplementPick, ComplementSteps, CompositionSteps, ModeWalk, WalkStep, complement_steps,
                      composition_steps)
from .inverses import (InverseStep, InverseSteps, left_inverse_from_complement, left_inverse_steps,
                       right_inverse_steps)

__all__ = ["WalkStep", "ModeWalk", "CompositionSteps", "composition_steps", "ComplementPick",
           "ComplementSteps", "complement_steps", "InverseStep", "InverseSteps",
           "right_inverse_steps", "left_inverse_steps", "left_inverse_from_complement"]
