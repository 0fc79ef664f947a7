"""Every MMA atom of the instruction registry against CuTe's own ``MMA_Traits``, printed by g++.

A C++ program includes CuTe's headers (pip ``nvidia-cutlass``, plus the CUDA header wheels its
``config.hpp`` needs; see ``tests/test_cute_cpp.py``) and prints, for each CuTe atom name in the
registry, ``Shape_MNK``, ``ThrID``, ``ALayout``, ``BLayout`` and ``CLayout`` of its
``MMA_Traits``. The registry's TV layout text must be what CuTe prints, so a new atom's layouts
come from CuTe, never from labkit. The program is generated from the registry: an entry added
later is checked without editing this file.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

import labkit as lk
from labkit.atoms import instructions as isa


def _include_dirs():
    spec = importlib.util.find_spec("cutlass_library")
    nv = importlib.util.find_spec("nvidia")
    if spec is None or nv is None or not spec.submodule_search_locations or not nv.submodule_search_locations:
        return None
    cutlass = Path(list(spec.submodule_search_locations)[0]) / "source" / "include"
    roots = [Path(p) for p in nv.submodule_search_locations]

    def find(sub, probe):
        return next((r / sub / "include" for r in roots if (r / sub / "include" / probe).exists()), None)

    dirs = [cutlass, find("cuda_runtime", "cuda_runtime.h"), find("cuda_nvcc", "crt/host_defines.h"),
            find("cuda_cccl", "cuda/std/type_traits")]
    ok = all(d is not None for d in dirs) and (cutlass / "cute" / "atom" / "mma_traits_sm80.hpp").exists()
    return dirs if ok else None


ATOMS = sorted(a for ins in isa.MMA.values() for a in ins.atoms)


def _program(atoms):
    shows = "\n".join(f'  show<{a}>("{a}");' for a in atoms)
    return r"""#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm75.hpp>
#include <cute/atom/mma_traits_sm80.hpp>
#include <cstdio>
using namespace cute;
template <class Op> void show(const char* name) {
  using T = MMA_Traits<Op>;
  printf("%s|", name); print(typename T::Shape_MNK{}); printf("|"); print(typename T::ThrID{});
  printf("|"); print(typename T::ALayout{}); printf("|"); print(typename T::BLayout{});
  printf("|"); print(typename T::CLayout{}); printf("\n");
}
int main() {
""" + shows + "\n}\n"


@pytest.fixture(scope="module")
def cute_traits():
    gxx, dirs = shutil.which("g++"), _include_dirs()
    if gxx is None or dirs is None:
        pytest.skip("needs g++ and CuTe's headers (nvidia-cutlass and the CUDA header wheels)")
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / "mma.cpp", Path(tmp) / "mma"
        src.write_text(_program(ATOMS))
        cmd = [gxx, "-std=c++17", "-O0", "-w", *(f"-I{d}" for d in dirs), str(src), "-o", str(exe)]
        built = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert built.returncode == 0, built.stderr[-3000:]
        out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60).stdout
    return {row[0]: row[1:] for row in (line.split("|") for line in out.splitlines() if line)}


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
