"""The per-SM limits table against CUDA's own occupancy calculator.

``cuda_occupancy.h`` (pip ``nvidia-cuda-runtime-cu12``) is CUDA's occupancy calculator as a
header: it compiles with g++ on a CPU. A C++ program fills ``cudaOccDeviceProp`` from
``labkit.atoms.sm_limits.SM_LIMITS`` (the Programming Guide's figures: shared memory per SM and
per block, threads, registers) and prints ``cudaOccMaxActiveBlocksPerMultiprocessor`` for many
``(sm, registers, threads, shared memory)`` cases; labkit's :func:`occupancy` must give the same
number of CTAs (the per-architecture CTA limits, granularities and register sub-partitions are the
header's, not labkit's), and must raise where CUDA says 0 CTAs fit.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from labkit.atoms.sm_limits import SM_LIMITS, occupancy, sm_limits
from labkit.errors import DeviceError


def _header_dir():
    nv = importlib.util.find_spec("nvidia")
    if nv is None or not nv.submodule_search_locations:
        return None
    for root in nv.submodule_search_locations:
        d = Path(root) / "cuda_runtime" / "include"
        if (d / "cuda_occupancy.h").exists():
            return d
    return None


GXX = shutil.which("g++")
HEADERS = _header_dir()

CPP = r"""#include <cstdio>
#include <cstdlib>
#include "cuda_occupancy.h"
// argv: major minor smem_per_sm smem_per_block_optin threads_per_sm regs_per_sm reserved
// stdin: regs threads smem per line
int main(int argc, char** argv) {
  cudaOccDeviceProp p;
  p.computeMajor = atoi(argv[1]); p.computeMinor = atoi(argv[2]);
  p.maxThreadsPerBlock = 1024; p.maxThreadsPerMultiprocessor = atoi(argv[5]);
  p.regsPerBlock = 65536; p.regsPerMultiprocessor = atoi(argv[6]); p.warpSize = 32;
  p.sharedMemPerBlock = 48 * 1024; p.sharedMemPerMultiprocessor = atol(argv[3]);
  p.numSms = 1; p.sharedMemPerBlockOptin = atol(argv[4]); p.reservedSharedMemPerBlock = atol(argv[7]);
  int regs, threads; long smem;
  while (scanf("%d %d %ld", &regs, &threads, &smem) == 3) {
    cudaOccFuncAttributes a;
    a.maxThreadsPerBlock = 1024; a.numRegs = regs; a.sharedSizeBytes = 0;
    a.partitionedGCConfig = PARTITIONED_GC_OFF; a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    a.maxDynamicSharedSizeBytes = p.sharedMemPerBlockOptin; a.numBlockBarriers = 1;
    cudaOccDeviceState s;
    cudaOccResult r;
    cudaOccError e = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &s, threads, smem);
    printf("%d\n", e == CUDA_OCC_SUCCESS ? r.activeBlocksPerMultiprocessor : -1);
  }
}
"""


@pytest.fixture(scope="module")
def cuda_calculator():
    if GXX is None or HEADERS is None:
        pytest.skip("needs g++ and cuda_occupancy.h (pip nvidia-cuda-runtime-cu12)")
    tmp = tempfile.TemporaryDirectory()
    src, exe = Path(tmp.name) / "occ.cpp", Path(tmp.name) / "occ"
    src.write_text(CPP)
    built = subprocess.run([GXX, "-std=c++17", "-O1", "-w", f"-I{HEADERS}", str(src), "-o", str(exe)],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-3000:]

    def run(sm, cases):
        lim = sm_limits(sm)
        args = [str(exe), str(sm // 10), str(sm % 10), str(lim.smem_per_sm), str(lim.smem_per_block),
                str(lim.threads_per_sm), str(lim.regs_per_sm), str(lim.smem_reserved_per_block)]
        text = "".join(f"{r} {t} {s}\n" for r, t, s in cases)
        out = subprocess.run(args, input=text, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return [int(x) for x in out.stdout.split()]

    yield run
    tmp.cleanup()


def _cases(sm, seed):
    """Registers, threads and shared memory over the whole range, plus the edges."""
    lim = sm_limits(sm)
    rng = np.random.default_rng(seed)
    cases = [(r, t, s) for r in (1, 16, 32, 40, 64, 72, 128, 168, 255)
             for t in (32, 96, 128, 256, 384, 512, 1024)
             for s in (0, 1, 48 * 1024, lim.smem_per_block // 2, lim.smem_per_block)]
    n = 1500
    regs = rng.integers(1, lim.regs_per_thread + 1, n)
    threads = rng.integers(1, lim.threads_per_block + 1, n)
    smem = np.where(rng.random(n) < 0.2, 0, rng.integers(0, lim.smem_per_block + 1, n))
    cases += [(int(r), int(t), int(s)) for r, t, s in zip(regs, threads, smem)]
    return cases


def _labkit(r, t, s, sm):
    try:
        return occupancy(regs=r, threads=t, smem=s, sm=sm)
    except DeviceError:
        return 0


@pytest.mark.parametrize("sm", sorted(SM_LIMITS))
def test_occupancy_is_cudas(cuda_calculator, sm):
    cases = _cases(sm, seed=sm)
    cuda = cuda_calculator(sm, cases)
    ours = [_labkit(r, t, s, sm) for r, t, s in cases]
    bad = [(c, o, w) for c, o, w in zip(cases, ours, cuda) if o != w]
    assert -1 not in cuda
    assert not bad, f"sm_{sm}: {len(bad)} of {len(cases)} differ, e.g. (regs, threads, smem), labkit, CUDA: {bad[:5]}"
    assert sum(1 for w in cuda if w == 0) < len(cases)          # the cases are mostly runnable


def test_a_cta_that_cannot_fit_raises_and_cuda_agrees(cuda_calculator):
    lim = sm_limits(80)
    assert cuda_calculator(80, [(255, 1024, 0), (32, 128, lim.smem_per_block + 1024)]) == [0, 0]
    with pytest.raises(DeviceError, match="regs"):
        occupancy(regs=255, threads=1024, smem=0, sm=80)
    with pytest.raises(DeviceError, match="smem"):
        occupancy(regs=32, threads=128, smem=lim.smem_per_block + 1024, sm=80)


def test_programming_guide_figures():
    # CUDA C++ Programming Guide, "Technical Specifications per Compute Capability": shared memory
    # per SM / per block (opt-in), threads per SM, resident blocks per SM, 64K registers
    want = {75: (64, 64, 1024, 16), 80: (164, 163, 2048, 32), 86: (100, 99, 1536, 16),
            89: (100, 99, 1536, 24), 90: (228, 227, 2048, 32)}
    for sm, (per_sm, per_block, threads, ctas) in want.items():
        lim = sm_limits(sm)
        assert (lim.smem_per_sm, lim.smem_per_block) == (per_sm * 1024, per_block * 1024)
        assert (lim.threads_per_sm, lim.ctas_per_sm, lim.regs_per_sm) == (threads, ctas, 65536)
    with pytest.raises(DeviceError, match="sm_75, sm_80"):
        sm_limits(70)
