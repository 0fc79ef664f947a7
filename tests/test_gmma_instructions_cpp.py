"""The wgmma registry entries (``labkit.atoms.instructions.GMMA``) against CuTe's own headers:
every ``SM90_64xNxK_*_{SS,RS}[_TN]`` atom CuTe defines for f16, bf16, tf32, e4m3, e5m2, s8 and
u8 is an entry, and each entry's shape, ThrID and A, B, C TV layouts are what g++ prints of
CuTe's ``MMA_Traits`` (``tests/cute_oracle.py``; K-major A and B for the 16-bit atoms)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from labkit.atoms import instructions as isa
from labkit.errors import InstructionError
import cute_oracle

ATOMS = sorted(a for g in isa.GMMA.values() for a in g.atoms)
CHUNK = 240


@pytest.fixture(scope="module")
def cute_traits():
    if not cute_oracle.available():
        pytest.skip(cute_oracle.SKIP_REASON)
    headers = ("cute/arch/mma_sm90_gmma_ext.hpp", "cute/atom/mma_traits_sm90_gmma.hpp",
               "cute/atom/mma_traits_sm90_gmma_ext.hpp")
    out = {}
    kinds = ((lambda a: not a.endswith("_TN"), "{atom}<GMMA::Major::K, GMMA::Major::K>"),
             (lambda a: a.endswith("_TN") and "_S32" not in a, "{atom}<>"),       # scales only
             (lambda a: "_S32" in a, "{atom}"))                                   # integers: no template
    for pick, op in kinds:
        atoms = [a for a in ATOMS if pick(a)]
        for i in range(0, len(atoms), CHUNK):
            out.update(cute_oracle.mma_traits(atoms[i:i + CHUNK], headers, op=op))
    return out


def _cute_atoms():
    """The dense GMMA atoms CuTe's headers define (no sparse, no _SATURATE): the ``SM90_64x...``
    names of ``arch/`` (``struct MMA_64x...`` in ``SM90::GMMA``) and of ``atom/`` (the aliases)."""
    cute = cute_oracle.INCLUDES[0] / "cute"
    text = "".join((cute / f).read_text() for f in ("arch/mma_sm90_gmma.hpp", "arch/mma_sm90_gmma_ext.hpp",
                                                    "atom/mma_traits_sm90_gmma.hpp", "atom/mma_traits_sm90_gmma_ext.hpp"))
    names = {"SM90_" + n for n in re.findall(r"struct MMA_(64x\d+x\d+_[A-Z0-9]+_[RS]S(?:_TN)?)\b", text)}
    names |= set(re.findall(r"using (SM90_64x\d+x\d+_[A-Z0-9]+_[RS]S(?:_TN)?)\s*=", text))
    types = re.compile(r"_(F16F16F16|F32F16F16|F32BF16BF16|F32TF32TF32|(?:F16|F32)E[45]M[23]E[45]M[23]|S32[SU]8[SU]8)_")
    return {n for n in names if types.search(n)}


def test_the_table_holds_every_atom_cute_defines():
    if not cute_oracle.available():
        pytest.skip(cute_oracle.SKIP_REASON)
    assert set(ATOMS) == _cute_atoms()
    assert len(ATOMS) == len(isa.GMMA) == 2 * (32 * 12 + 18 * 4)


@pytest.mark.parametrize("atom", ATOMS)
def test_gmma_tv_layouts_are_cutes(cute_traits, atom):
    shape, thr, a, b, c = cute_traits[atom]
    g = isa.instruction(atom)
    assert shape == "(_" + ",_".join(str(x) for x in g.shape_mnk) + ")"
    assert thr == g.thr_id
    assert (g.layout_A, g.layout_B, g.layout_C) == (a, b, c)


def test_instruction_finds_gmma_by_name_atom_and_ptx():
    g = isa.instruction("wgmma_m64n256k16_f32bf16bf16_rs", kind="wgmma")
    assert g.atoms == ("SM90_64x256x16_F32BF16BF16_RS",)
    assert (g.registers("A"), g.register_type("A"), g.threads, g.arch) == (4, "u32", 128, "sm_90a")
    assert isa.instruction("wgmma.mma_async.sync.aligned.m64n24k32.s32.u8.s8") is \
        isa.GMMA["wgmma_m64n24k32_s32u8s8_ss"]
    with pytest.raises(InstructionError):
        isa.instruction("SM90_64x8x16_F32F16F16_SS", kind="mma")
    assert "wgmma_m64n8k16_f16f16f16_ss" in isa.INSTRUCTIONS
