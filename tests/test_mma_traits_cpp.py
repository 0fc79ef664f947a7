"""Every MMA atom of the instruction registry against CuTe's own ``MMA_Traits``, printed by g++.

A C++ program includes CuTe's headers (``tests/cute_oracle.py``: compiled once per toolchain,
then cached) and prints, for each CuTe atom name in the registry, ``Shape_MNK``, ``ThrID``, ``ALayout``, ``BLayout`` and ``CLayout`` of its
``MMA_Traits``. The registry's TV layout text must be what CuTe prints, so a new atom's layouts
come from CuTe, never from labkit. The program is generated from the registry: an entry added
later is checked without editing this file.
"""

from __future__ import annotations

import pytest

import labkit as lk
from labkit.atoms import instructions as isa
import cute_oracle


ATOMS = sorted(a for ins in isa.MMA.values() for a in ins.atoms)


@pytest.fixture(scope="module")
def cute_traits():
    if not cute_oracle.available():
        pytest.skip(cute_oracle.SKIP_REASON)
    return cute_oracle.mma_traits(ATOMS, ("cute/atom/mma_traits_sm75.hpp", "cute/atom/mma_traits_sm80.hpp"))


@pytest.mark.slow
@pytest.mark.parametrize("atom", ATOMS)
def test_registry_tv_layouts_are_cutes(cute_traits, atom):
    shape, thr, a, b, c = cute_traits[atom]
    ins = isa.instruction(atom)
    assert shape == "(_" + ",_".join(str(x) for x in ins.shape_mnk) + ")"
    assert thr == "_32:_1"
    assert (ins.layout_A, ins.layout_B, ins.layout_C) == (a, b, c)
    mma = lk.mma_atom(atom)
    assert (str(mma.layout_A), str(mma.layout_B), str(mma.layout_C)) == (a, b, c)
