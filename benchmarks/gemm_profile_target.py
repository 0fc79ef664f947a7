"""Launch one ladder kernel a few times at one size: a target for ``ncu`` (no timing here).

    ncu --clock-control none --section SpeedOfLight -k regex:gemm --launch-skip 2 --launch-count 1 \
        python benchmarks/gemm_profile_target.py pipeline 128x128x64s3ca 4096
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from numba import cuda  # noqa: E402

from labkit.cuda.kernels.ladder import gemm  # noqa: E402
from labkit.cuda.kernels.ladder.gemm_common import random_operands  # noqa: E402

step, config, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
A, B = random_operands(size, size, size, seed=5)
dA, dB = cuda.to_device(A), cuda.to_device(B)
opts = {"config": config} if config != "-" else {}
C, launch = gemm.prepare(step, dA, dB, None, "f32", **opts)
for _ in range(4):
    launch()
cuda.synchronize()
print("launched", step, config, size)
