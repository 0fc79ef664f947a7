"""The wgmma registry entries (``labkit.atoms.gmma_instructions``) against CuTe's own
``MMA_Traits``, printed by g++ (``tests/cute_oracle.py``): shape, ThrID and the A, B, C TV
layouts of every ``SM90_64xNx16_*_{SS,RS}`` atom, each with K-major A and B."""

from __future__ import annotations

import pytest

from labkit.atoms import instructions as isa
from labkit.atoms.gmma_instructions import GMMA, GMMA_BY_ATOM
from labkit.errors import InstructionError
import cute_oracle

ATOMS = sorted(GMMA_BY_ATOM)


@pytest.fixture(scope="module")
def cute_traits():
    if not cute_oracle.available():
        pytest.skip(cute_oracle.SKIP_REASON)
    return cute_oracle.mma_traits(ATOMS, ("cute/atom/mma_traits_sm90_gmma.hpp",), op="{atom}<GMMA::Major::K, GMMA::Major::K>")


def test_the_table_holds_every_asked_form():
    assert len(GMMA) == 36 and len(ATOMS) == 36


@pytest.mark.parametrize("atom", ATOMS)
def test_gmma_tv_layouts_are_cutes(cute_traits, atom):
    shape, thr, a, b, c = cute_traits[atom]
    g = isa.instruction(atom)
    assert shape == "(_" + ",_".join(str(x) for x in g.shape_mnk) + ")"
    assert thr == g.thr_id
    assert (g.layout_A, g.layout_B, g.layout_C) == (a, b, c)


def test_instruction_finds_gmma_by_name_and_kind():
    g = isa.instruction("wgmma_m64n256k16_f32bf16bf16_rs", kind="wgmma")
    assert g.atoms == ("SM90_64x256x16_F32BF16BF16_RS",) and g.registers["A"] == (4, "u32")
    with pytest.raises(InstructionError):
        isa.instruction("SM90_64x8x16_F32F16F16_SS", kind="mma")
    assert "wgmma_m64n8k16_f16f16f16_ss" not in isa.INSTRUCTIONS
