"""local_tile / local_partition on numpy-backed tensors read what numpy slicing says they should,
and an identity tensor partitioned the same way predicates a ragged tile exactly.

The expected values come from the definitions (a block's tile is ``A[bm*BM:(bm+1)*BM, ...]``;
thread (r, c) of an (R, C) thread grid owns ``tile[r::R, c::C]``), computed by numpy indexing.
The layouts themselves are checked against CuTe C++ in test_cute_tensor_cpp.py.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import labkit as lk

S = lk.S


def gmem(M, N):
    """A row-major (M, N) tensor of distinct values, and the numpy matrix it views."""
    A = np.arange(M * N, dtype=np.int64).reshape(M, N) * 7 + 3
    return lk.make_tensor(A.reshape(-1), lk.make_layout((M, N), (N, S(1)))), A


def colex(t, shape2):
    """The elements of a rank-2 view, as an (m, n) numpy matrix (mode 0 = rows)."""
    m, n = shape2
    return np.array([[t(i, j) for j in range(n)] for i in range(m)])


@pytest.mark.parametrize(("M", "N", "BM", "BN"), [(256, 128, 64, 32), (96, 64, 32, 64),
                                                   (130, 100, 32, 32)])
def test_local_tile_is_the_numpy_block(M, N, BM, BN):
    t, A = gmem(M, N)
    cI = lk.make_identity_tensor((M, N))
    for bm, bn in itertools.product(range(-(-M // BM)), range(-(-N // BN))):
        blk = lk.local_tile(t, (S(BM), S(BN)), (bm, bn))
        cblk = lk.local_tile(cI, (S(BM), S(BN)), (bm, bn))
        want = A[bm * BM:(bm + 1) * BM, bn * BN:(bn + 1) * BN]
        for i, j in itertools.product(range(BM), range(BN)):
            inside = lk.elem_less(cblk(i, j), (M, N))
            assert inside == (bm * BM + i < M and bn * BN + j < N)
            assert tuple(cblk(i, j)) == (bm * BM + i, bn * BN + j)
            if inside:
                assert blk(i, j) == want[i, j]


@pytest.mark.parametrize("thr_major", ["left", "right"])
def test_local_partition_is_a_strided_numpy_slice(thr_major):
    M, N, BM, BN, R, C = 200, 136, 64, 64, 16, 8
    t, A = gmem(M, N)
    cI = lk.make_identity_tensor((M, N))
    thr = lk.make_layout((S(R), S(C)), lk.compact_major((S(R), S(C)), thr_major))
    bm, bn = 3, 2                                             # the ragged corner block
    blk, cblk = (lk.local_tile(x, (S(BM), S(BN)), (bm, bn)) for x in (t, cI))
    tile = A[bm * BM:(bm + 1) * BM, bn * BN:(bn + 1) * BN]
    owned = np.zeros((BM, BN), dtype=int)
    for tid in range(R * C):
        r, c = (tid % R, tid // R) if thr_major == "left" else (tid // C, tid % C)
        part, cpart = (lk.local_partition(x, thr, tid) for x in (blk, cblk))
        assert (int(lk.size(part, 0)), int(lk.size(part, 1))) == (BM // R, BN // C)
        for i, j in itertools.product(range(BM // R), range(BN // C)):
            gi, gj = cpart(i, j)
            assert (gi, gj) == (bm * BM + r + i * R, bn * BN + c + j * C)
            if lk.elem_less(cpart(i, j), (M, N)):
                assert part(i, j) == tile[r + i * R, c + j * C]
                owned[r + i * R, c + j * C] += 1
    # every in-bounds element of the ragged block is owned by exactly one thread
    rows, cols = min(BM, M - bm * BM), min(BN, N - bn * BN)
    assert (owned[:rows, :cols] == 1).all() and owned[rows:, :].sum() == 0


def test_projection_drops_the_x_mode():
    # one (BM, BN, BK) tiler for A (M, K): Step<_1, X, _1> keeps BM and BK
    M, K = 128, 96
    t, A = gmem(M, K)
    gA = lk.local_tile(t, (S(32), S(64), S(16)), (2, 0, lk._), (1, lk.X, 1))
    assert len(gA) == 3 and int(lk.size(gA, 2)) == K // 16
    for k in range(K // 16):
        got = colex(gA(lk._, lk._, k), (32, 16))
        assert (got == A[64:96, 16 * k:16 * (k + 1)]).all()
