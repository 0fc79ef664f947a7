"""A numpy model of one CTA's shared memory and warps: ldmatrix, stmatrix, mma.sync, cp.async.

Written from the PTX ISA (not from labkit.atoms), so comparing the two checks both:

- :class:`SharedMemory`: bytes plus a bank-conflict account of every warp access.
- :func:`ldmatrix`: ``ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16``.
- :func:`stmatrix`: ``stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16`` (sm_90), its reverse.
- :func:`mma_sync`: ``mma.sync.aligned.m16n8k{8,16}.row.col`` with f16/bf16 inputs and
  f16/f32 accumulators (:class:`MmaSpec`, :func:`mma_spec`, :func:`fragment_coords`,
  :func:`pack_fragment`, :func:`unpack_fragment`).
- :class:`CpAsync`: ``cp.async`` 16-byte copies, ``commit_group`` and ``wait_group``.
- :class:`Warp`: 32 lanes of named registers issuing the above.
- :mod:`labkit.sim.fragment_trace`: run the lab's trace plans (one MMA, one sgemm_sm80 CTA).

Every function takes leading batch axes, so many warps (or all 32 MMAs of a k-block)
run in one numpy call.

>>> import labkit.sim as sim
>>> sim.mma_spec("SM75_16x8x8_F32F16F16F32_TN").registers("A")
2
"""

from labkit.sim.cp_async import CpAsync
from labkit.sim.ldmatrix import ldmatrix, ldmatrix_op
from labkit.sim.mma_fragments import MMA_SPECS, MmaSpec, fragment_coords, mma_spec, mma_sync, pack_fragment, unpack_fragment
from labkit.sim.numbers import from_bits, pack_pairs, to_bits, unpack_pairs
from labkit.sim.smem import Access, SharedMemory
from labkit.sim.stmatrix import stmatrix, stmatrix_op
from labkit.sim.warp import Warp

__all__ = [
    "SharedMemory",
    "Access",
    "ldmatrix",
    "ldmatrix_op",
    "stmatrix",
    "stmatrix_op",
    "MmaSpec",
    "MMA_SPECS",
    "mma_spec",
    "mma_sync",
    "fragment_coords",
    "pack_fragment",
    "unpack_fragment",
    "CpAsync",
    "Warp",
    "to_bits",
    "from_bits",
    "pack_pairs",
    "unpack_pairs",
]

