"""One wgmma operand in shared memory (``labkit.atoms.gmma_smem``): CuTe's GMMA atoms tiled over
the operand give the byte addresses the PTX ISA's "Shared Memory Matrix Layout" describes (core
matrices of 8 rows x 16 bytes; in a 128-byte swizzle, 16-byte chunk c of row r at c ^ (r % 8)),
and one descriptor per k16 step."""

from __future__ import annotations

import numpy as np
import pytest

from labkit.atoms.gmma_desc import decode
from labkit.atoms.gmma_smem import fits, gmma_operand
from labkit.errors import LayoutError


@pytest.mark.parametrize("rows", [8, 64, 256])
def test_k_major_sw128_is_the_isas_swizzled_rows(rows):
    addr = gmma_operand("K", "SW128", rows, 64).byte_addresses()
    r, k = np.meshgrid(np.arange(rows), np.arange(64), indexing="ij")
    assert (addr == (r // 8) * 1024 + (r % 8) * 128 + ((k // 8) ^ (r % 8)) * 16 + (k % 8) * 2).all()


def test_mn_major_sw128_is_the_isas_swizzled_k_rows():
    addr = gmma_operand("MN", "SW128", 64, 64, start=2048).byte_addresses()
    mn, k = np.meshgrid(np.arange(64), np.arange(64), indexing="ij")
    assert (addr == 2048 + (k // 8) * 1024 + (k % 8) * 128 + ((mn // 8) ^ (k % 8)) * 16 + (mn % 8) * 2).all()


@pytest.mark.parametrize("major", ["K", "MN"])
@pytest.mark.parametrize("sw", ["INTER", "SW32", "SW64", "SW128"])
def test_every_element_has_its_own_two_bytes_and_core_matrices_are_whole(major, sw):
    op = gmma_operand(major, sw, 64, 64)
    addr = op.byte_addresses()
    assert sorted(addr.ravel().tolist()) == list(range(0, 64 * 64 * 2, 2))
    # 8 elements contiguous along the major mode make one 16-byte chunk (a core-matrix row)
    chunks = addr[:, ::8] if major == "K" else addr[::8, :]
    assert (chunks % 16 == 0).all()
    descs = op.descriptors()
    assert len(descs) == 4 and {int(d.layout_type) for d in descs} == {{"INTER": 0, "SW32": 3, "SW64": 2, "SW128": 1}[sw]}
    assert all(decode(d.encode()) == d and d.base_offset == 0 for d in descs)


def test_store_writes_the_codes_at_the_addresses():
    op = gmma_operand("K", "SW32", 8, 16)
    img = np.zeros(256, np.uint8)
    bits = (np.arange(128).reshape(8, 16) * 257).astype(np.uint16)
    op.store(img, bits)
    a = op.byte_addresses()
    assert (img[a] | (img[a + 1].astype(np.uint16) << 8) == bits).all()


def test_bad_operands_are_refused():
    assert not fits("MN", "SW32", 8, 64) and fits("MN", "INTER", 8, 64)
    with pytest.raises(LayoutError, match="MN-major SW128 atom is 64 elements wide"):
        gmma_operand("MN", "SW128", 32, 16)
    with pytest.raises(LayoutError, match="1024-byte aligned"):
        gmma_operand("K", "SW128", 64, 64, start=512)
    with pytest.raises(LayoutError, match="k=24 must be a positive multiple of 16"):
        gmma_operand("K", "INTER", 64, 24)
    with pytest.raises(LayoutError, match="past the"):
        gmma_operand("K", "INTER", 8, 16).store(np.zeros(16, np.uint8), np.zeros((8, 16), np.uint16))
