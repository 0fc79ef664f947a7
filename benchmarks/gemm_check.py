"""Check ladder steps on the GPU against a float64 reference at awkward shapes (edges, K tails).

    python benchmarks/gemm_check.py tma pipeline      # exit status 1 if any result is off
"""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labkit.cuda.kernels.ladder import gemm  # noqa: E402

SHAPES = [(257, 263, 136), (512, 512, 512), (1000, 776, 1032), (300, 520, 72)]


def main(steps):
    bad = 0
    for step in steps:
        for acc in ("f32", "f16"):
            for M, N, K in SHAPES:
                t = time.time()
                err, tol = gemm.check(step, M, N, K, acc=acc, seed=M + N + K)
                ok = err <= tol
                bad += not ok
                print(f"check {step} {acc} {M}x{N}x{K}: rel err {err:.3g} (tolerance {tol:.3g}) "
                      f"{'ok' if ok else 'FAIL'} {time.time() - t:.1f} s", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or list(gemm.STEPS)))
