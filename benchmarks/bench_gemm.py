"""The GEMM ladder benchmark: every step's TFLOP/s beside cuBLAS (and, with ``--anchor``, CuTe's own
sgemm_sm80, and on sm_90 its wgmma_sm90 and wgmma_tma_sm90, built with nvcc), each step checked
against float64 first.

Same as ``python -m labkit bench gemm``; arguments pass through (``--help`` lists them).
Figures from an NVIDIA H200 are in ``docs/benchmarks.md`` ("GEMM ladder"), notes on each
version in ``benchmarks/gemm_notes.md``.

    python benchmarks/bench_gemm.py --sizes 4096,8192 --anchor --csv gemm.csv --sass sass/

Beside it: ``gemm_sweep.py`` (many tile configurations in one session), ``gemm_mma_rate.py``
(the mma.sync issue ceiling), ``gemm_check.py`` (steps at awkward shapes on a GPU) and
``gemm_profile_target.py`` (a launch target for Nsight Compute).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labkit.cli.bench import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["gemm", *sys.argv[1:]]))
