"""labkit.lab.ladder_banks: the shared-memory accesses of the GEMM ladder's kernels and their cost.

Expected values, by hand from the bank rule (32 banks of 4 bytes; 16-byte accesses are served
8 lanes per phase) and the PTX ISA: step 2's sA[lane, 0] with rows of 64 fp32 words puts all 32
words in bank 0 (32 wavefronts); rows of 65 words put lane l in bank l (1). Its loads
sA[k, ty + 16 i] touch two words (broadcast) and sB[k, tx + 16 j] 16 consecutive words: one
wavefront each, 8 per k. A 64-wide fp16 row is 128 bytes, all 32 banks, so the 8 rows of an
ldmatrix phase start in the same bank: 8 wavefronts per phase, 32 per ldmatrix.x4 where 4 would
do; 16 ldmatrix.x4 per 64-deep k-tile (2 A atoms + 2 B pairs, 4 k-blocks): 512 against 64.
The A rows of one ldmatrix.x4 are mma.m16n8k16's a0..a3 (rows 0-7/8-15 at K 0-7, then K 8-15);
B's are b0, b1 of two 8-column atoms.
"""

from __future__ import annotations

import numpy as np
import pytest

from labkit.lab import ladder_banks as lb
from labkit.banks import ldmatrix_rows
from labkit.errors import LabkitError


def test_step2_loads_and_the_transposed_store():
    s = lb.smem_step_conflicts()
    assert (s["loads"].count, s["loads"].wavefronts, s["loads"].worst_degree) == (8, 8, 1)
    assert (s["store"].wavefronts, s["store"].worst_degree) == (32, 32)
    assert lb.smem_step_conflicts(pad=1)["store"].wavefronts == 1
    assert lb.smem_step_conflicts(pad=2)["store"].worst_degree == 2     # 66 words: lanes l, l+16 share a bank
    with pytest.raises(LabkitError, match="pad"):
        lb.smem_step_conflicts(pad=-1)


def test_ldmatrix_rows_are_the_mma_fragments():
    for kk in range(4):
        assert np.array_equal(lb.ldmatrix_x4_rows("A", kk, 1), ldmatrix_rows(4, origin=(16, 16 * kk)))
    b = lb.ldmatrix_x4_rows("B", 0, 0)
    t = np.arange(32)
    expected = np.stack([np.where(t < 16, t % 8, 8 + t % 8), np.where((t // 8) % 2 == 1, 8, 0)], axis=1)
    assert np.array_equal(b, expected)
    with pytest.raises(LabkitError, match="operand"):
        lb.ldmatrix_x4_rows("C", 0)


def test_tensorcore_steps_row_major_against_swizzled():
    from labkit.cuda.kernels.ladder import gemm_mma
    plain = lb.tensorcore_step_conflicts(gemm_mma.CONFIG, swizzled=False)
    swz = lb.tensorcore_step_conflicts(gemm_mma.CONFIG, swizzled=True)
    assert (plain["ldmatrix"].count, plain["ldmatrix"].wavefronts, plain["ldmatrix"].min_wavefronts,
            plain["ldmatrix"].worst_degree) == (16, 512, 64, 8)
    assert (swz["ldmatrix"].wavefronts, swz["ldmatrix"].worst_degree) == (64, 1)
    # 8 threads store the 8 chunks of one 128-byte row: 4 wavefronts per 32-lane store, either way
    for c in (plain, swz):
        assert (c["store"].count, c["store"].wavefronts, c["store"].worst_degree) == (8, 32, 1)


def test_copy_stores_follow_the_tile_width():
    # bk = 32: a row is 4 chunks of 16 bytes, so 32 lanes store 8 whole rows, 512 contiguous
    # bytes of a row-major tile: 4 wavefronts of 128 bytes, no bank shared
    from labkit.cuda.kernels.ladder import gemm_pipeline
    cfg = gemm_pipeline.CONFIGS["128x128x32s4"]
    store = lb.tensorcore_step_conflicts(cfg, swizzled=False)["store"]
    passes = (cfg.bm + cfg.bn) // (cfg.threads // (cfg.bk // 8))
    assert (store.count, store.wavefronts, store.worst_degree) == (passes, 4 * passes, 1)
