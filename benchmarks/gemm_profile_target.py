"""Launch one ladder kernel, or cuBLAS, a few times at one size: a target for ``ncu`` (no timing here).

    ncu --clock-control none --section SpeedOfLight -k regex:gemm --launch-skip 2 --launch-count 1 \
        python benchmarks/gemm_profile_target.py pipeline 128x128x64s3ca 4096

``cublas`` as the step runs ``torch.matmul`` (f16 in, f32 accumulate, f16 out) on the same
operands, A (M, K) times B (N, K) transposed, as ``bench gemm`` times it; its kernel's name
depends on the cuBLAS version (``ncu -k regex:'gemm|nvjet|xmma'``).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labkit.cuda.kernels.ladder.gemm_common import random_operands  # noqa: E402

step, config, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
A, B = random_operands(size, size, size, seed=5)
if step == "cublas":
    import torch

    tA, tB = torch.from_numpy(A).cuda(), torch.from_numpy(B).cuda()
    for _ in range(4):
        C = tA @ tB.T
    torch.cuda.synchronize()
else:
    from numba import cuda

    from labkit.cuda.kernels.ladder import gemm

    dA, dB = cuda.to_device(A), cuda.to_device(B)
    opts = {"config": config} if config != "-" else {}
    C, launch = gemm.prepare(step, dA, dB, None, "f32", **opts)
    for _ in range(4):
        launch()
    cuda.synchronize()
print("launched", step, config, size)
