"""stmatrix (sm_90): the registry, CuTe's atoms, labkit.sim and the numba kernels, each against the
PTX ISA ("Warp-level matrix store instruction: stmatrix") or CuTe's headers.

The ISA's rules, written out here once and used by every test below:

- lanes ``8i..8i+7`` give the addresses of rows ``0..7`` of matrix ``i`` (``.x1``: lanes 0-7
  count, ``.x2``: lanes 0-15); register ``i`` of every lane holds its piece of matrix ``i``;
- without ``.trans`` lane ``t`` stores row ``t // 4``, elements ``2*(t % 4)`` (low half of the
  register) and ``2*(t % 4) + 1`` (high half) -- a group of four lanes stores one 16-byte row;
- with ``.trans`` the matrix is stored column-major: the low and high halves go to element
  ``t // 4`` of rows ``2*(t % 4)`` and ``2*(t % 4) + 1``;
- ldmatrix reads with the same fragment layout, so ldmatrix (same ``.num``, same ``.trans``,
  same addresses) after stmatrix gives every lane back its registers.

Expected CuTe layouts are CuTe's own: ``copy_traits_sm90.hpp`` (Src = the LDSM's Dst, Dst = the
LDSM's Src, Ref = Src), written below and, where g++ and the headers are there, printed by a C++
program that includes them. The kernels run in a child Python under numba's CUDA simulator (it
must be on before numba is imported) and, with ``-m gpu`` on an sm_90 GPU, on the hardware.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sim_child import run_child

import cute_oracle

import labkit as lk
from labkit import sim
from labkit.atoms import instructions as isa

REPO = Path(__file__).resolve().parents[1]

VARIANTS = [(1, False), (2, False), (4, False), (1, True), (2, True), (4, True)]
# CuTe copy_sm90.hpp: the atom that issues each form
CUTE_ATOMS = {(1, False): "SM90_U32x1_STSM_N", (2, False): "SM90_U32x2_STSM_N",
              (4, False): "SM90_U32x4_STSM_N", (1, True): "SM90_U16x2_STSM_T",
              (2, True): "SM90_U16x4_STSM_T", (4, True): "SM90_U16x8_STSM_T"}


def isa_target(lane, reg, half, trans):
    """PTX ISA: (matrix, row, element) where half ``half`` of register ``reg`` of ``lane`` is stored."""
    if trans:
        return reg, 2 * (lane % 4) + half, lane // 4
    return reg, lane // 4, 2 * (lane % 4) + half


def _name(num, trans):
    return f"stmatrix_x{num}" + ("_trans" if trans else "")


def _regs(num, seed):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 1 << 32, (32, num), dtype=np.uint32)


def _row_offsets(seed, rows=64):
    """32 distinct, scattered 16-byte rows (element offsets, multiples of 8) out of ``rows``."""
    rng = np.random.default_rng(seed)
    return (8 * rng.permutation(rows)[:32]).astype(np.int64)


def _expected_image(num, trans, regs, offsets, init):
    """The shared memory after stmatrix, element by element from the ISA's table."""
    out = np.array(init, np.uint16, copy=True)
    for lane in range(32):
        for r in range(num):
            word = int(regs[lane, r])
            for h, value in enumerate((word & 0xFFFF, word >> 16)):
                m, row, col = isa_target(lane, r, h, trans)
                out[offsets[8 * m + row] + col] = value
    return out


# --- the registry ------------------------------------------------------------------------------

@pytest.mark.parametrize("num,trans", VARIANTS)
def test_registry_entry_follows_the_isa_and_cute(num, trans):
    ins = isa.instruction(_name(num, trans))
    assert ins.kind == "stmatrix" and (ins.num, ins.trans) == (num, trans)
    # PTX ISA syntax: stmatrix.sync.aligned.shape.num{.trans}{.ss}.type; Target ISA notes: sm_90
    assert ins.ptx == f"stmatrix.sync.aligned.m8n8.x{num}{'.trans' if trans else ''}.shared.b16"
    assert ins.min_sm == 90
    assert ins.atom == CUTE_ATOMS[num, trans]
    assert isa.instruction(CUTE_ATOMS[num, trans]) is ins
    assert isa.instruction(CUTE_ATOMS[num, trans], kind="stmatrix") is ins


def test_stmatrix_needs_sm_90_and_is_no_ldmatrix():
    with pytest.raises(lk.InstructionError, match="needs sm_90; this device is sm_80"):
        isa.require_sm("SM90_U32x4_STSM_N", 80)
    assert isa.require_sm("stmatrix_x4_trans", 90).num == 4
    with pytest.raises(lk.InstructionError, match="no ldmatrix instruction named 'stmatrix_x4'"):
        isa.instruction("stmatrix_x4", kind="ldmatrix")
    with pytest.raises(lk.InstructionError):
        lk.copy_atom("SM90_U32x8_STSM_N")           # the ISA has no .x8
    from labkit.cuda import ptx

    assert ptx.min_sm(ptx.stmatrix_x2_trans) == 90 and ptx.instruction_of(ptx.stmatrix_x1).num == 1


# --- CuTe's Copy_Traits and Copy_Atom<_, half_t> -----------------------------------------------
# copy_traits_sm90.hpp (SrcLayout = LDSM DstLayout, DstLayout = LDSM SrcLayout, RefLayout = SrcLayout)
# with copy_traits_sm75.hpp's LDSM layouts; the half_t column is recast_layout<uint1_t, half_t>.
CUTE_TRAITS = {
    "SM90_U32x1_STSM_N": ("(_32,_32):(_32,_1)", "((_8,_4),_128):((_128,_0),_1)",
                          "(_32,_2):(_2,_1)", "((_8,_4),_8):((_8,_0),_1)"),
    "SM90_U32x2_STSM_N": ("(_32,(_32,_2)):(_32,(_1,_1024))", "((_16,_2),_128):((_128,_0),_1)",
                          "(_32,(_2,_2)):(_2,(_1,_64))", "((_16,_2),_8):((_8,_0),_1)"),
    "SM90_U32x4_STSM_N": ("(_32,(_32,_4)):(_32,(_1,_1024))", "(_32,_128):(_128,_1)",
                          "(_32,(_2,_4)):(_2,(_1,_64))", "(_32,_8):(_8,_1)"),
    "SM90_U16x2_STSM_T": ("((_4,_8),(_16,_2)):((_256,_16),(_1,_128))", "((_8,_4),_128):((_128,_0),_1)",
                          "((_4,_8),(_1,_2)):((_16,_1),(_1,_8))", "((_8,_4),_8):((_8,_0),_1)"),
    "SM90_U16x4_STSM_T": ("((_4,_8),(_16,_2,_2)):((_256,_16),(_1,_128,_1024))",
                          "((_16,_2),_128):((_128,_0),_1)",
                          "((_4,_8),(_1,_2,_2)):((_16,_1),(_1,_8,_64))", "((_16,_2),_8):((_8,_0),_1)"),
    "SM90_U16x8_STSM_T": ("((_4,_8),(_16,_2,_4)):((_256,_16),(_1,_128,_1024))", "(_32,_128):(_128,_1)",
                          "((_4,_8),(_1,_2,_4)):((_16,_1),(_1,_8,_64))", "(_32,_8):(_8,_1)"),
}


@pytest.mark.parametrize("name", sorted(CUTE_TRAITS))
def test_copy_traits_and_f16_atom_are_cutes(name):
    src, dst, src16, dst16 = CUTE_TRAITS[name]
    t = lk.COPY_TRAITS[name]
    assert (str(t.thr_id), str(t.src_bits), str(t.dst_bits), str(t.ref_bits)) == ("_32:_1", src, dst, src)
    a = lk.copy_atom(name, "f16")
    assert (str(a.layout_src), str(a.layout_dst), str(a.layout_ref)) == (src16, dst16, src16)
    assert a.ptx.startswith("stmatrix.") and a.min_sm == 90 and t.instruction == isa.instruction(name).name
    # ldmatrix's reverse: the same two layouts as the LDSM atom of the same shape, swapped
    ld = lk.COPY_TRAITS[name.replace("SM90", "SM75").replace("STSM", "LDSM")]
    assert (str(ld.src_bits), str(ld.dst_bits)) == (dst, src)


@pytest.mark.parametrize("num,trans", VARIANTS)
def test_atom_layouts_put_each_register_half_where_the_isa_stores_it(num, trans):
    # Src (t, v): value v = 2r + h is half h of register r; Dst (s, j) is element j of the row lane
    # s addresses. The element numbers agree exactly when the ISA stores (t, r, h) at (s, j).
    a = lk.copy_atom(CUTE_ATOMS[num, trans], "f16")
    dst_of = {}
    for s in range(32):
        for j in range(8):
            dst_of.setdefault(int(a.layout_dst(s, j)), (s, j))      # lanes past 8*num repeat rows
    for t in range(32):
        for r in range(num):
            for h in range(2):
                m, row, col = isa_target(t, r, h, trans)
                assert dst_of[int(a.layout_src(t, 2 * r + h))] == (8 * m + row, col)


# --- CuTe's headers, compiled (where g++ and the headers are installed) -----------------------

CPP = r"""#include <cute/tensor.hpp>
#include <cute/atom/copy_atom.hpp>
#include <cute/atom/copy_traits_sm90.hpp>
#include <cstdio>
using namespace cute;
template <class Op> void show(const char* name) {
  using T = Copy_Traits<Op>;
  using A = Copy_Atom<Op, half_t>;
  printf("%s|", name); print(typename T::ThrID{}); printf("|"); print(typename T::SrcLayout{});
  printf("|"); print(typename T::DstLayout{}); printf("|"); print(typename T::RefLayout{});
  printf("|"); print(typename A::ValLayoutSrc{}); printf("|"); print(typename A::ValLayoutDst{});
  printf("|"); print(typename A::ValLayoutRef{}); printf("\n");
}
int main() {
  show<SM90_U32x1_STSM_N>("SM90_U32x1_STSM_N"); show<SM90_U32x2_STSM_N>("SM90_U32x2_STSM_N");
  show<SM90_U32x4_STSM_N>("SM90_U32x4_STSM_N"); show<SM90_U16x2_STSM_T>("SM90_U16x2_STSM_T");
  show<SM90_U16x4_STSM_T>("SM90_U16x4_STSM_T"); show<SM90_U16x8_STSM_T>("SM90_U16x8_STSM_T");
}
"""


def test_labkit_atoms_print_what_cute_cpp_prints():
    if not cute_oracle.available():
        pytest.skip(cute_oracle.SKIP_REASON)
    out = cute_oracle.program_output(CPP)
    rows = [line.split("|") for line in out.splitlines() if line]
    assert sorted(r[0] for r in rows) == sorted(CUTE_ATOMS.values())
    for name, thr, src, dst, ref, vsrc, vdst, vref in rows:
        t, a = lk.COPY_TRAITS[name], lk.copy_atom(name, "f16")
        assert (str(t.thr_id), str(t.src_bits), str(t.dst_bits), str(t.ref_bits)) == (thr, src, dst, ref)
        assert (str(a.layout_src), str(a.layout_dst), str(a.layout_ref)) == (vsrc, vdst, vref)


# --- labkit.sim against the ISA's table ---------------------------------------------------------

@pytest.mark.parametrize("num,trans", VARIANTS)
def test_sim_stores_each_half_where_the_isa_says(num, trans):
    regs = _regs(num, seed=10 * num + trans)
    off = _row_offsets(seed=num + 7 * trans)
    init = np.random.default_rng(3).integers(0, 1 << 16, 64 * 8, dtype=np.uint16)
    s = sim.SharedMemory(2 * init.size)
    s.fill(0, init)
    sim.stmatrix(s, 2 * off, regs, num, trans)
    assert np.array_equal(s.read(0, init.size), _expected_image(num, trans, regs, off, init))
    acc = s.log[-1]
    assert acc.op == isa.instruction(_name(num, trans)).ptx and acc.min_wavefronts == num


@pytest.mark.parametrize("num,trans", VARIANTS)
def test_sim_round_trip_ldmatrix_of_stmatrix(num, trans):
    regs = _regs(num, seed=100 + num + trans)
    off = _row_offsets(seed=200 + num)
    s = sim.SharedMemory(64 * 16)
    sim.stmatrix(s, 2 * off, regs, num, trans)
    assert np.array_equal(sim.ldmatrix(s, 2 * off, num, trans), regs)


def test_sim_x4_on_a_16x16_tile_is_the_isa_fragment_of_each_quadrant():
    # x4 with lane l addressing row l % 16, column block l // 16 of a row-major 16x16 tile:
    # matrix i covers rows 8*(i % 2).., columns 8*(i // 2)..; lane t's register i holds
    # (row, 2*(t%4)) and (row, 2*(t%4)+1) with row = 8*(i % 2) + t//4.
    lane = np.arange(32)
    regs = np.zeros((32, 4), np.uint32)
    tile = np.arange(256, dtype=np.uint32).reshape(16, 16)
    for t in range(32):
        for i in range(4):
            r, c = 8 * (i % 2) + t // 4, 8 * (i // 2) + 2 * (t % 4)
            regs[t, i] = tile[r, c] | (tile[r, c + 1] << 16)
    s = sim.SharedMemory(512)
    sim.stmatrix(s, 2 * ((lane % 16) * 16 + (lane // 16) * 8), regs, 4)
    assert s.read(0, 256).tolist() == list(range(256))


def test_sim_rejects_bad_input():
    s = sim.SharedMemory(1024)
    lane = np.arange(32)
    with pytest.raises(lk.DeviceError, match="aligned to 16 bytes"):
        sim.stmatrix(s, lane * 16 + 2, np.zeros((32, 1), np.uint32), 1)
    with pytest.raises(lk.DeviceError, match="regs must be integers of shape"):
        sim.stmatrix(s, lane * 16, np.zeros((32, 2), np.uint32), 4)
    with pytest.raises(lk.InstructionError, match="num must be 1, 2 or 4"):
        sim.stmatrix(s, lane * 16, np.zeros((32, 3), np.uint32), 3)


# --- kernels: numba's CUDA simulator (the twins), and with -m gpu an sm_90 GPU ------------------

SCRIPT = r'''
import contextlib, json
import numpy as np
import numba
from numba import cuda
from labkit.cuda import ptx, jit, simulate_sm
from labkit.errors import DeviceError, InstructionError

cfg = json.loads(__import__("sys").argv[1])
align = "" if ptx.SIMULATED else ", alignment=128"
SRC = """
def kernel(regs, off, dump, back):
    s = cuda.shared.array(1024, numba.uint16{align})
    lane = cuda.threadIdx.x
    for i in range(lane, 1024, 32):
        s[i] = 0xFFFF
    cuda.syncthreads()
    a = ptx.smem_addr(s, off[lane])
    ptx.stmatrix_{name}(a, {regs})
    cuda.syncthreads()
    for i in range(lane, 1024, 32):
        dump[i] = s[i]
    r = ptx.ldmatrix_{name}(a)
{store}
"""

def build(num, trans):
    name = f"x{num}" + ("_trans" if trans else "")
    regs = ", ".join(f"regs[lane, {i}]" for i in range(num))
    store = "    back[lane, 0] = r" if num == 1 else "\n".join(f"    back[lane, {i}] = r[{i}]" for i in range(num))
    scope = {"cuda": cuda, "numba": numba, "ptx": ptx}
    exec(SRC.format(align=align, name=name, regs=regs, store=store), scope)
    return jit(scope["kernel"])

def sm90():
    return simulate_sm(90) if ptx.SIMULATED else contextlib.nullcontext()

out = {"simulated": ptx.SIMULATED, "runs": {}}
with sm90():
    for num, trans in cfg["variants"]:
        k = build(num, trans)
        regs = np.array(cfg["regs"][f"{num}{trans}"], np.uint32)
        off = np.array(cfg["off"], np.int32)
        dump = np.zeros(1024, np.uint16); back = np.zeros((32, num), np.uint32)
        k[1, 32](regs, off, dump, back)
        out["runs"][f"{num}{trans}"] = {"dump": dump.tolist(), "back": back.tolist(), "min_sm": k.min_sm}

if ptx.SIMULATED:
    k = build(4, False)
    args = (np.zeros((32, 4), np.uint32), np.array(cfg["off"], np.int32), np.zeros(1024, np.uint16),
            np.zeros((32, 4), np.uint32))
    try:
        with simulate_sm(80):
            k[1, 32](*args)
        out["sm80"] = None
    except InstructionError as e:
        out["sm80"] = str(e)
    try:
        with sm90():
            k[1, 32](args[0], np.array(cfg["off"], np.int32) + 4, args[2], args[3])
        out["misaligned"] = None
    except DeviceError as e:
        out["misaligned"] = str(e)

print("RESULTS" + json.dumps(out))
'''

OFFSETS = _row_offsets(seed=5, rows=128)          # 32 scattered rows of a 1024-element array
KERNEL_REGS = {f"{n}{t}": _regs(n, seed=50 + 10 * n + t) for n, t in VARIANTS}


def _run(simulated: bool) -> dict:
    cfg = {"variants": VARIANTS, "off": OFFSETS.tolist(), "regs": {k: v.tolist() for k, v in KERNEL_REGS.items()}}
    return run_child(SCRIPT, simulated, json.dumps(cfg), drop=("LABKIT_SIMULATED_SM",))


_CACHE: dict = {}


@pytest.fixture(scope="module", params=["cudasim", pytest.param("gpu", marks=pytest.mark.gpu)])
def res(request):
    if request.param not in _CACHE:
        _CACHE[request.param] = _run(request.param == "cudasim")
    return _CACHE[request.param]


@pytest.mark.parametrize("num,trans", VARIANTS)
def test_kernel_stores_what_the_isa_table_says(res, num, trans):
    run = res["runs"][f"{num}{trans}"]
    want = _expected_image(num, trans, KERNEL_REGS[f"{num}{trans}"], OFFSETS, np.full(1024, 0xFFFF, np.uint16))
    assert run["dump"] == want.tolist()        # and every element the ISA does not name keeps 0xFFFF
    assert run["min_sm"] == 90                 # the kernel knows it needs sm_90 (PTX ISA)


@pytest.mark.parametrize("num,trans", VARIANTS)
def test_kernel_round_trip_ldmatrix_of_stmatrix(res, num, trans):
    assert res["runs"][f"{num}{trans}"]["back"] == KERNEL_REGS[f"{num}{trans}"].tolist()


def test_simulated_sm80_refuses_the_kernel_naming_sm90(res):
    if not res["simulated"]:
        pytest.skip("needs the simulator's settable SM")
    msg = res["sm80"]
    assert msg is not None and "sm_90" in msg and "sm_80" in msg
    assert "stmatrix.sync.aligned.m8n8.x4.shared.b16" in msg


def test_simulator_refuses_a_misaligned_row_address(res):
    if not res["simulated"]:
        pytest.skip("simulator check")
    assert res["misaligned"] is not None and "not 16-byte aligned" in res["misaligned"]
