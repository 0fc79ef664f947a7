"""Shared-memory banks, wavefronts and bank conflicts.

Shared memory is modelled as ``num_banks`` banks (32 on every NVIDIA GPU since
Fermi) of ``bank_bytes`` bytes (4): the byte at address ``a`` lives in bank
``(a // 4) % 32``. A warp instruction is served in *phases*: groups of lanes
whose requests together cover at most one full row of banks (128 bytes), so
4-byte accesses put all 32 lanes in one phase, 8-byte accesses 16 lanes and
16-byte accesses 8 lanes. Inside a phase, lanes that touch the same 4-byte word
share it (broadcast); lanes that touch *different* words of the same bank are
served one after another. A phase therefore costs as many wavefronts as the
largest number of distinct words any one bank must deliver, and a warp access
costs the sum over its phases. ``degree`` is the worst phase's count: 1 means
conflict-free, ``n`` means an ``n``-way bank conflict.

Seed 001 ("swizzle, banks and wavefronts") teaches this model; "wavefront" is
Nsight Compute's name for one such pass over the banks.

``ldmatrix`` (PTX ``ldmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16``) reads
8x8 matrices whose rows are 16 contiguous bytes; each lane of a group of 8
supplies one row address, so each matrix is one 8-lane phase of 16-byte reads.

>>> r = bank_conflicts([128 * lane for lane in range(8)], 16)
>>> (r.wavefronts, r.degree)
(8, 8)
"""

from labkit.banks.bank_model import (ACCESS_BYTES, BANK_BYTES, NUM_BANKS, BankConflicts,  # noqa: F401
                                     bank_conflicts, bank_of, lanes_per_phase, slot_of)
from labkit.banks.batch_conflicts import BatchConflicts, bank_conflicts_batch
from labkit.banks.layout_access import access_addresses, access_conflicts
from labkit.banks.ldmatrix_conflicts import (ldmatrix_conflicts, ldmatrix_phases, ldmatrix_rows,
                                             ldmatrix_tile_conflicts)
from labkit.layout.offsets import layout_offsets

__all__ = [
    "bank_of",
    "slot_of",
    "lanes_per_phase",
    "BankConflicts",
    "BatchConflicts",
    "bank_conflicts",
    "bank_conflicts_batch",
    "layout_offsets",
    "access_addresses",
    "access_conflicts",
    "ldmatrix_rows",
    "ldmatrix_phases",
    "ldmatrix_conflicts",
    "ldmatrix_tile_conflicts",
]
