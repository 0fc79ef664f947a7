"""The labs floor: what a lab or chapter runs on top of ``sim`` and ``cuda``.

``labkit.lab`` itself is the fragment lab (:mod:`labkit.lab.fragments`): one call runs a trace
of ``ldmatrix`` + ``mma.sync`` on a GPU, numba's CUDA simulator or labkit's numpy model and
compares them. The modules beside it:

- :mod:`~labkit.lab.experiments`: the chapters' GPU experiments (coalescing, banks, transposes);
- :mod:`~labkit.lab.predicated_copy`: the ragged-matrix copy (tiles, masks, sectors);
- :mod:`~labkit.lab.ldmatrix_order`: ldmatrix-to-mma register order;
- :mod:`~labkit.lab.ladder_banks`, :mod:`~labkit.lab.kernel_source`,
  :mod:`~labkit.lab.ladder_cute`: the GEMM ladder's bank accounting, instruction counts and
  its steps beside the CuTe calls they stand for; :mod:`~labkit.lab.own_step`, a step with the
  reader's own shared-memory layout (lab 9);
- :mod:`~labkit.lab.measurements`: the measured figures the book cites.

>>> from labkit import lab
>>> lab.trace_mma(backend="sim").matches_sim
True
"""

from labkit.lab.fragments import *  # noqa: F401,F403
from labkit.lab.fragments import __all__
