"""labkit.cuda kernels: the same kernel source under numba's CUDA simulator and, when present, on a GPU.

The kernels run in a child Python (the simulator must be switched on before numba is
imported, and other tests import numba without it). Expected values come from seed 000,
FACTS.md (the H200 probe) and the PTX ISA fragment rules, and from labkit.sim / numpy.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sim_child import run_child

REPO = Path(__file__).resolve().parents[1]

SCRIPT = r'''
import json, sys
import numpy as np
import numba
from numba import cuda
import labkit as lk
from labkit import lab
from labkit.cuda import ptx, jit, simulate_sm
from labkit.errors import DeviceError

out = {"backend": lab.backend()}

@jit
def probe(A, B, C, regA, regB, regD):
    s = cuda.shared.array(384, numba.uint16)
    lane = cuda.threadIdx.x
    for i in range(lane, 256, 32):
        s[i] = A[i // 16, i % 16]
    for i in range(lane, 128, 32):
        s[256 + i] = B[i // 16, i % 16]
    cuda.syncthreads()
    a = ptx.ldmatrix_x4(ptx.smem_addr(s, (lane % 16) * 16 + (lane // 16) * 8))
    b = ptx.ldmatrix_x2(ptx.smem_addr(s, 256 + (lane % 8) * 16 + ((lane // 8) % 2) * 8))
    d = ptx.mma_m16n8k16_f32f16f16f32(a[0], a[1], a[2], a[3], b[0], b[1],
                                      C[lane, 0], C[lane, 1], C[lane, 2], C[lane, 3])
    for r in range(4):
        regA[lane, r] = a[r]
        regD[lane, r] = d[r]
    for r in range(2):
        regB[lane, r] = b[r]

A = (np.arange(16)[:, None] * 16 + np.arange(16)[None, :]).astype(np.float16)
B = (np.arange(8)[:, None] * 16 + np.arange(16)[None, :]).astype(np.float16)
C = np.full((32, 4), 0.5, np.float32)
regA = np.zeros((32, 4), np.uint32); regB = np.zeros((32, 2), np.uint32); regD = np.zeros((32, 4), np.float32)
probe[1, 32](A.view(np.uint16), B.view(np.uint16), C, regA, regB, regD)
out["probe"] = {"A": regA.view(np.float16).reshape(32, 8).tolist(), "B": regB.view(np.float16).reshape(32, 4).tolist(),
                "D": regD.tolist(), "min_sm": probe.min_sm}

traces = {}
for atom, variants in (("SM80_16x8x16_F16F16F16F16_TN", [("x4", "x2"), ("x1", "x2.trans"), ("x2.trans", "x1")]),
                       ("SM80_16x8x16_F32BF16BF16F32_TN", [("x4.trans", "x1.trans")]),
                       ("SM75_16x8x8_F32F16F16F32_TN", [("x2", "x1"), ("x1.trans", "x1.trans")])):
    for v, bv in variants:
        t = lab.trace_mma(atom, v, bv)
        traces[f"{atom} {v} {bv}"] = {"backend": t.backend, "matches_sim": t.matches_sim,
            "A_ok": bool(np.array_equal(t.matrix("A"), t.a)), "B_ok": bool(np.array_equal(t.matrix("B"), t.b)),
            "D": t.matrix("D").tolist(), "ref": (t.a @ t.b.T + t.c).tolist(), "coords_A0": t.coords("A")[0].tolist()}
out["traces"] = traces

kbs = 4 if out["backend"] == "gpu" else 1
ct = lab.trace_cta(k_blocks=kbs)
out["cta"] = {"matches_sim": ct.matches_sim, "k_blocks": ct.k_blocks,
              "d_ok": bool(np.array_equal(ct.d(), ct.a[:, :16 * kbs] @ ct.b[:, :16 * kbs].T)),
              "conflicts": {k: list(v) for k, v in ct.conflicts().items()}}

@jit
def copies(src, dst, early, late):
    s = cuda.shared.array(512, numba.uint16)
    t = cuda.threadIdx.x
    for i in range(t, 512, 32):
        s[i] = 7
    cuda.syncthreads()
    ptx.cp_async_16(ptx.smem_addr(s, 8 * t), src, 8 * t)
    ptx.cp_async_commit_group()
    ptx.cp_async_16(ptx.smem_addr(s, 256 + 8 * t), src, 256 + 8 * t)
    ptx.cp_async_commit_group()
    ptx.cp_async_wait_group(1)
    early[t] = s[8 * t + 1]
    late[t] = s[256 + 8 * t + 1]
    ptx.cp_async_wait_all()
    cuda.syncthreads()
    for i in range(t, 512, 32):
        dst[i] = s[i]

src = np.arange(1000, 1512, dtype=np.uint16)
dst = np.zeros(512, np.uint16); early = np.zeros(32, np.uint16); late = np.zeros(32, np.uint16)
copies[1, 32](src, dst, early, late)
out["cp_async"] = {"dst_ok": bool(np.array_equal(dst, src)), "early": early.tolist(), "late": late.tolist(),
                   "min_sm": copies.min_sm}

if ptx.SIMULATED:
    with simulate_sm(75):
        out["sm75_default"] = lab.default_atom()
        t = lab.trace_mma()
        out["sm75_trace"] = {"atom": t.atom, "matches_sim": t.matches_sim}
        try:
            lab.trace_mma("SM80_16x8x16_F16F16F16F16_TN")
            out["sm75_refused"] = None
        except DeviceError as e:
            out["sm75_refused"] = str(e)
            out["sm75_refused_by"] = type(e).__name__

    @jit
    def misaligned(o):
        s = cuda.shared.array(256, numba.uint16)
        r = ptx.ldmatrix_x1(ptx.smem_addr(s, 4 + 8 * (cuda.threadIdx.x % 8)))
        o[cuda.threadIdx.x] = r
    try:
        misaligned[1, 32](np.zeros(32, np.uint32))
        out["misaligned"] = None
    except Exception as e:
        out["misaligned"] = f"{type(e).__name__}: {e}"

print("RESULTS" + json.dumps(out))
'''


def _run(simulated: bool) -> dict:
    return run_child(SCRIPT, simulated)


_CACHE: dict = {}


@pytest.fixture(scope="module", params=["cudasim", pytest.param("gpu", marks=pytest.mark.gpu)])
def res(request):
    if request.param not in _CACHE:
        _CACHE[request.param] = _run(request.param == "cudasim")
    return _CACHE[request.param]


def test_backend_is_reported(res):
    assert res["backend"] in ("cudasim", "gpu")


def test_probe_lane0_halves_match_facts(res):
    # FACTS.md: lane 0's A halves were A(0,0),A(0,1),A(8,0),A(8,1),A(0,8),A(0,9),A(8,8),A(8,9); A[m,k] = 16m+k
    assert res["probe"]["A"][0] == [0, 1, 128, 129, 8, 9, 136, 137]


def test_probe_every_lane_follows_seed_000(res):
    # seed 000, section 2: m = t//4 + 8*v1, k = 2*(t%4) + v0 + 8*v2; B: n = t//4, k = 2*(t%4) + v%2 + 8*(v//2)
    A, B = res["probe"]["A"], res["probe"]["B"]
    for t in range(32):
        for v in range(8):
            m = t // 4 + 8 * ((v // 2) % 2)
            k = 2 * (t % 4) + v % 2 + 8 * (v // 4)
            assert A[t][v] == 16 * m + k
        for v in range(4):
            assert B[t][v] == 16 * (t // 4) + 2 * (t % 4) + v % 2 + 8 * (v // 2)


def test_probe_d_is_a_times_b_transposed_plus_c(res):
    # FACTS.md: C layout row = t//4 + 8*(v//2), col = 2*(t%4) + v%2; coordinate inputs are exact in f32
    A = np.arange(16)[:, None] * 16.0 + np.arange(16)[None, :]
    B = np.arange(8)[:, None] * 16.0 + np.arange(16)[None, :]
    ref = A @ B.T + 0.5
    D = res["probe"]["D"]
    for t in range(32):
        for v in range(4):
            assert D[t][v] == ref[t // 4 + 8 * (v // 2), 2 * (t % 4) + v % 2]


def test_kernels_know_their_minimum_sm(res):
    assert res["probe"]["min_sm"] == 80      # mma.m16n8k16 (PTX ISA: sm_80)
    assert res["cp_async"]["min_sm"] == 80   # cp.async (PTX ISA: sm_80)


@pytest.mark.parametrize("key", [
    "SM80_16x8x16_F16F16F16F16_TN x4 x2", "SM80_16x8x16_F16F16F16F16_TN x1 x2.trans",
    "SM80_16x8x16_F16F16F16F16_TN x2.trans x1", "SM80_16x8x16_F32BF16BF16F32_TN x4.trans x1.trans",
    "SM75_16x8x8_F32F16F16F32_TN x2 x1", "SM75_16x8x8_F32F16F16F32_TN x1.trans x1.trans",
])
def test_trace_mma_every_variant_matches_sim_and_inputs(res, key):
    t = res["traces"][key]
    assert t["backend"] == res["backend"]
    assert t["matches_sim"] and t["A_ok"] and t["B_ok"]
    assert t["coords_A0"][:2] == [[0, 0], [0, 1]] and t["coords_A0"][2] == [8, 0]
    d, ref = np.array(t["D"]), np.array(t["ref"])
    if "F32" in key.split()[0].split("_")[2][:3]:
        assert np.array_equal(d, ref)        # coordinate products are exact in f32
    else:
        assert np.allclose(d, ref, rtol=2e-3)  # f16 accumulator rounds


def test_trace_cta_matches_sim_and_numpy(res):
    c = res["cta"]
    assert c["matches_sim"] and c["d_ok"]
    # per k-block and warp: 4 ldmatrix.x4 for A and 4 for B (seed 000); Swizzle<3,3,3> is conflict-free
    n, wave, ideal, degree = c["conflicts"]["ldmatrix.sync.aligned.m8n8.x4.shared.b16"]
    assert n == c["k_blocks"] * 4 * 8 and degree == 1 and wave == ideal == 4 * n
    n, wave, ideal, degree = c["conflicts"]["cp.async.ca.shared.global"]
    assert degree == 1 and n == 2 * 8 * 4


def test_cp_async_lands_by_wait(res):
    c = res["cp_async"]
    assert c["dst_ok"]
    assert c["early"] == [1000 + 8 * t + 1 for t in range(32)]   # group 1 retired by wait_group(1)


def test_cp_async_wait_group_keeps_newest_group_pending_in_simulator(res):
    if res["backend"] != "cudasim":
        pytest.skip("on hardware the newest group may or may not have landed")
    assert res["cp_async"]["late"] == [7] * 32


def test_sm75_picks_m16n8k8_and_refuses_m16n8k16(res):
    if res["backend"] != "cudasim":
        pytest.skip("needs the simulator's settable SM")
    assert res["sm75_default"] == "SM75_16x8x8_F32F16F16F32_TN"
    assert res["sm75_trace"] == {"atom": "SM75_16x8x8_F32F16F16F32_TN", "matches_sim": True}
    msg = res["sm75_refused"]
    assert msg is not None and "sm_80" in msg and "sm_75" in msg and "m16n8k16" in msg
    assert res["sm75_refused_by"] == "InstructionError"      # the one error for "not on this SM"


def test_misaligned_ldmatrix_address_is_refused_in_simulator(res):
    if res["backend"] != "cudasim":
        pytest.skip("simulator check")
    assert res["misaligned"] is not None and "16-byte aligned" in res["misaligned"]


def test_trace_cta_on_sm75_says_what_to_do():
    # a T4 (sm_75) has neither cp.async nor m16n8k16: refuse before launch, naming the way out
    script = (
        "import labkit as lk\n"
        "try:\n"
        "    lk.lab.trace_cta(k_blocks=1, backend='cudasim')\n"
        "except lk.DeviceError as e:\n"
        "    print('REFUSED', e)\n"
        "print('SIM', lk.lab.trace_cta(k_blocks=1, backend='sim').backend)\n")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", LABKIT_SIMULATED_SM="75")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "REFUSED" in done.stdout and "sm_80" in done.stdout and "backend='sim'" in done.stdout
    assert "SIM sim" in done.stdout


def test_mma_plan_looks_up_the_instruction_registry():
    """mma_plan keys on the registry: a CuTe atom name resolves to its PTX name (CuTe's
    SM80_16x8x16_F16F16F16F16_TN is mma.sync m16n8k16 f16.f16.f16.f16), an unknown or
    non-MMA name raises InstructionError."""
    from labkit.cuda.kernels.probes import trace_kernels
    from labkit.errors import InstructionError

    plan = trace_kernels.mma_plan("SM80_16x8x16_F16F16F16F16_TN")
    assert (plan.instruction, plan.m, plan.n, plan.k) == ("mma_m16n8k16_f16f16f16f16", 16, 8, 16)
    for bad in ("mma_m16n8k32_s32u8u8s32", "ldmatrix_x4"):
        with pytest.raises(InstructionError, match="no mma instruction named"):
            trace_kernels.mma_plan(bad)


def test_every_thread_of_a_block_sees_one_shared_array():
    """CUDA semantics: a static ``cuda.shared.array`` is one array per block. numba's simulator
    allocates it in two unlocked steps (look up, then insert), so a thread switch between them
    gave a thread a private array: after the barrier it read uninitialised memory and a GEMM
    check came out wrong now and then. With labkit imported, 20 launches of 256 threads at a
    1 microsecond switch interval (which widens that window) must all read what every thread
    wrote: sum(0..255) = 32640 in every lane."""
    script = (
        "import sys\n"
        "import numpy as np\n"
        "from numba import cuda, float32\n"
        "import labkit.cuda\n"
        "sys.setswitchinterval(1e-6)\n"
        "@cuda.jit\n"
        "def k(out):\n"
        "    s = cuda.shared.array(256, float32)\n"
        "    t = cuda.threadIdx.x\n"
        "    s[t] = t\n"
        "    cuda.syncthreads()\n"
        "    acc = 0.0\n"
        "    for i in range(256):\n"
        "        acc += s[i]\n"
        "    out[t] = acc\n"
        "wrong = 0\n"
        "for _ in range(20):\n"
        "    out = np.zeros(256, np.float32)\n"
        "    k[1, 256](out)\n"
        "    wrong += int(np.sum(out != 32640))\n"
        "print('WRONG', wrong)\n")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "WRONG 0" in done.stdout, done.stdout
