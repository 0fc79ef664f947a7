"""Step 7's descriptors come from its TiledMMA's make_fragment_A/B of each stage's shared-memory
tensors (CuTe's wgmma_tma_sm90), and the kernel's one line per operand reproduces every one of them.

Expected values are the PTX ISA's "Matrix Descriptor Format" fields for K-major operands with the
128-byte swizzle: start address (bits 0-13, 16-byte units), leading byte offset 1 (bits 16-29),
stride byte offset 1024 bytes = 64 units (bits 32-45), layout type 1 = SWIZZLE_128B (bits 62-63).
"""

from __future__ import annotations

import re

import pytest

from labkit.cuda.kernels.ladder import gemm_wgmma as g
from labkit.cuda.kernels.ladder import gemm_wgmma_operands as ops
from labkit.errors import DeviceError


def isa_desc(byte_address):
    return (1 << 62) | (64 << 32) | (1 << 16) | ((byte_address >> 4) & 0x3FFF)


@pytest.mark.parametrize("name", sorted(g.CONFIGS))
def test_every_stage_and_consumer_gets_the_isa_descriptors(name):
    cfg = g.CONFIGS[name]
    for stage in range(cfg.stages):
        for consumer in range(cfg.consumers):
            tA, tB = ops.fragments(cfg, stage, consumer)
            b = stage * cfg.stage_bytes + cfg.bm * 128                  # B after the stage's A tile
            # k-block k: 32 bytes (16 halves, 32 8-bit floats) further along the 128-byte swizzled row
            assert ops.fragment_descriptors(tB) == tuple(isa_desc(b + 32 * k) for k in range(4))
            # consumer c: rows 64c.. of A (128-byte rows); in ping-pong each consumer has every
            # 64-row block of the tile, block m at row 64m
            blocks = [(m, m) for m in range(cfg.bm // 64)] if cfg.pingpong else [(0, consumer)]
            for m, row_block in blocks:
                a = stage * cfg.stage_bytes + row_block * 64 * 128
                assert ops.fragment_descriptors(tA, m) == tuple(isa_desc(a + 32 * k) for k in range(4))


def test_the_kernel_issues_the_fragments_descriptors():
    cfg = g.CONFIGS[g.DEFAULT]
    src = g.source(g.DEFAULT)
    base, steps = ops.kernel_descriptors(cfg)
    assert base == isa_desc(0) and steps == (0, 2, 4, 6)
    assert f"| uint64({base:#x})" in src
    mmas = [line for line in src.splitlines() if "wgmma_m64n256k16" in line and "acc =" in line]
    assert [re.findall(r"da( \+ uint64\((\d+)\))?", m)[0][1] or "0" for m in mmas] == ["0", "2", "4", "6"]


def test_the_tiled_mma_is_one_atom_per_consumer():
    cfg = g.CONFIGS[g.DEFAULT]
    mma = ops.tiled_mma(cfg)
    assert [int(x) for x in mma.tile_shape_mnk] == [cfg.bm, cfg.bn, 16] and int(mma.num_threads) == 128 * cfg.consumers


def test_a_layout_the_kernel_cannot_address_is_refused(monkeypatch):
    import labkit as lk
    from labkit.atoms.gmma_layouts import gmma_layout_atom

    # 64-byte swizzle: the TMA writes 128-byte rows, and k-block 2 would start in the next atom
    monkeypatch.setattr(ops, "smem_layout",
                        lambda rows, cfg=None: lk.tile_to_shape(gmma_layout_atom("K", "SW64", "half_t"),
                                                                (lk.S(rows), lk.S(64))))
    with pytest.raises(DeviceError, match="differ from make_fragment_A/B"):
        ops.kernel_descriptors(g.CONFIGS[g.DEFAULT])


def test_bad_stage_or_consumer_names_the_argument():
    cfg = g.CONFIGS[g.DEFAULT]
    with pytest.raises(DeviceError, match="stage: must be in 0..3"):
        ops.fragments(cfg, 4, 0)
    with pytest.raises(DeviceError, match="consumer: must be in 0..1"):
        ops.fragments(cfg, 0, 2)
