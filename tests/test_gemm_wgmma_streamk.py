"""Stream-K in step 7: the schedule's arithmetic (the kernel's own statements, run in Python), the
flags' PTX, and on a GPU the sums of tiles two CTAs share."""

import numpy as np
import pytest

from labkit.cuda.kernels.ladder import gemm_wgmma
from labkit.cuda.kernels.ladder import gemm_wgmma_streamk as sk
from labkit.errors import ConfigError

# (tiles, k-tiles, grid): 4096³, 8192³, 4096x14336x4096, 4096x4096x16384 at 128x256x64 on 132 SMs,
# a single short wave over more tiles than SMs, a grid that divides the tiles, and small odd cases
SHAPES = [(512, 64, 132), (2048, 128, 132), (1792, 64, 132), (512, 256, 132), (144, 5, 132), (264, 64, 132),
          (7, 3, 5), (9, 1, 4), (11, 7, 3)]


@pytest.mark.parametrize("waves", sk.WAVES)
@pytest.mark.parametrize("tiles, ktiles, grid", SHAPES + [(200, 64, 132), (200, 20, 132), (465, 64, 132)])
def test_every_k_tile_of_every_tile_is_computed_once(tiles, ktiles, grid, waves):
    seen = {}
    for cta, mine in enumerate(sk.units(tiles, ktiles, grid, waves)):
        for tile, kb, ke in mine:
            assert 0 <= kb < ke <= ktiles
            for k in range(kb, ke):
                assert (tile, k) not in seen
                seen[tile, k] = cta
    assert len(seen) == tiles * ktiles


@pytest.mark.parametrize("tiles, ktiles, grid", SHAPES)
def test_a_shared_tile_is_handed_from_the_start_of_one_run_to_the_end_of_the_run_before(tiles, ktiles, grid):
    # the kernel's contract: a unit with kb > 0 is its CTA's first (it waits for nothing before it
    # writes its sums), and its tile's first k-tiles are the last stream-K unit of CTA - 1 (the
    # kernel reads the sums of CTA + 1); the last CTA never waits
    runs = sk.units(tiles, ktiles, grid)
    for cta, mine in enumerate(runs):
        for n, (tile, kb, ke) in enumerate(mine):
            if kb > 0:
                assert n == 0 and ke == ktiles
                before = [u for u in runs[cta - 1] if u[0] == tile]
                assert cta > 0 and before == [(tile, 0, kb)]
                stream = [u for u in runs[cta - 1] if u[2] - u[1] < ktiles or u[0] < sk.split(tiles, ktiles, grid, 0)[0]]
                assert stream[-1] == (tile, 0, kb)
            if kb == 0 and ke < ktiles:
                assert cta < grid - 1 and runs[cta + 1][0] == (tile, ke, ktiles)


@pytest.mark.parametrize("tiles, ktiles, grid", SHAPES)
def test_runs_differ_by_at_most_one_k_tile_and_whole_tiles_follow_in_waves(tiles, ktiles, grid):
    lengths = [sk.split(tiles, ktiles, grid, cta)[2] - sk.split(tiles, ktiles, grid, cta)[1] for cta in range(grid)]
    assert max(lengths) - min(lengths) <= 1
    streamed = sk.split(tiles, ktiles, grid, 0)[0]
    if tiles % grid == 0 or tiles < grid:
        assert streamed == 0 and set(lengths) == {0}
    else:     # the last partial wave and one full wave: at least a tile a CTA, so no tile splits three ways
        assert streamed == tiles % grid + grid and min(lengths) >= ktiles


def test_at_4096_cubed_the_busiest_sm_runs_249_k_tiles_instead_of_256():
    # 512 tiles of 128x256 over 132 SMs: 4 waves of 64 k-tiles = 256 for the busiest SM without
    # stream-K. With it: 248 tiles (116 + 132) x 64 = 15872 k-tiles in runs of 120 or 121, then the
    # remaining 264 tiles two a CTA: 121 + 128 = 249
    runs = sk.units(512, 64, 132)
    assert max(sum(ke - kb for _, kb, ke in r) for r in runs) == 249
    assert min(sum(ke - kb for _, kb, ke in r) for r in runs) == 248


@pytest.mark.parametrize("tiles, ktiles, grid", SHAPES + [(200, 64, 132), (200, 20, 132), (465, 64, 132)])
def test_one_wave_walks_whole_tiles_first_and_deals_out_only_a_partial_wave_of_half_the_grid(tiles, ktiles, grid):
    for mine in sk.units(tiles, ktiles, grid, waves=1):
        whole = [u for u in mine if u[1:] == (0, ktiles)]
        assert mine[:len(whole)] == whole
    streamed = sk.split(tiles, ktiles, grid, 0, waves=1)[0]
    if tiles < grid or 2 * (tiles % grid) < grid:        # no partial wave, or one under half the grid
        assert streamed == 0
    else:
        assert streamed == tiles % grid


@pytest.mark.parametrize("tiles, ktiles, grid", [(512, 64, 132), (1792, 64, 132), (200, 20, 132), (465, 64, 132),
                                                 (11, 7, 3), (200, 64, 132)])
def test_one_wave_hands_sums_to_the_holder_of_the_last_k_tiles_through_at_most_one_middle(tiles, ktiles, grid):
    # the kernel's contract for one wave: a shared tile is split between at most three runs (each at
    # least half a tile); the holder of its first k-tiles walks that piece first in its run and waits
    # for nothing; a middle piece (a whole run inside the tile) waits for the first piece's holder,
    # CTA - 1; the holder of the last k-tiles (kb > 0, ke == ktiles) waits for CTA - 1 only
    runs = sk.units(tiles, ktiles, grid, waves=1)
    first = tiles - sk.split(tiles, ktiles, grid, 0, waves=1)[0]
    pieces = {}
    for cta, mine in enumerate(runs):
        stream = [u for u in mine if u[0] >= first]
        assert len(stream) <= 2
        for n, (tile, kb, ke) in enumerate(stream):
            pieces.setdefault(tile, []).append((kb, ke, cta))
            if ke < ktiles:
                assert n == 0                                   # hands on before it could ever wait
            if kb > 0:
                before = [u for u in runs[cta - 1] if u[0] == tile]
                assert cta > 0 and len(before) == 1 and before[0][2] == kb
                assert [u for u in runs[cta - 1] if u[0] >= first][0] == before[0]
    for tile, got in pieces.items():
        assert 1 <= len(got) <= 3 and sorted(got)[0][0] == 0 and sorted(got)[-1][1] == ktiles
        assert [c for _, _, c in sorted(got)] == sorted(c for _, _, c in got)    # CTA order is k order


def test_one_wave_at_4096_cubed_starts_every_run_near_k_tile_0():
    # 512 tiles: 3 whole waves of 132 (396 tiles) then 116 tiles dealt out as 116 * 64 = 7424 k-tiles in
    # runs of 56 or 57: the busiest SM walks 3 * 64 + 57 = 249 k-tiles instead of 256. Each run walks its
    # last tile's piece first, which starts at k-tile 0 unless the run lies inside one tile: then it
    # starts at most 64 - 56 = 8 k-tiles in, so the CTAs walk K nearly together
    runs = sk.units(512, 64, 132, waves=1)
    assert max(sum(ke - kb for _, kb, ke in r) for r in runs) == 3 * 64 + 57
    assert min(sum(ke - kb for _, kb, ke in r) for r in runs) == 3 * 64 + 56
    starts = [next(kb for tile, kb, _ in r if tile >= 396) for r in runs]
    assert max(starts) <= 64 - 56 and starts.count(0) > len(starts) // 2


def test_the_kernel_runs_the_statements_the_model_runs():
    src = gemm_wgmma.source("128x256x64s4sk-tma")
    for line in sk.SPLIT[2] + sk.NEXT[2]:
        assert src.count(line) == 2          # the producer's loop and the consumers' loop
    assert "for kt in range(kb, ke):" in src and "for kt in range(ktiles):" not in src
    src = gemm_wgmma.source("128x256x64s4rsk1-tma")
    for line in sk.SPLIT[1] + sk.NEXT[1]:
        assert src.count(line) == 2


def test_the_sums_are_released_per_thread_and_acquired_before_the_warpgroup_reads_them():
    st = [s for s in gemm_wgmma.statements(gemm_wgmma.CONFIGS["128x256x64s4sk-tma"]) if s.cute == "streamk"
          or s.call in ("red_release_gpu", "ld_acquire_gpu", "bar_sync_named")]
    text = [s.text for s in st]
    stores = [i for i, t in enumerate(text) if t.startswith("ws[slot + ")]
    release = text.index("red_release_gpu(flags, cta * 2 + c, 1)")
    assert len(stores) == 128 and max(stores) < release
    wait = text.index("while ld_acquire_gpu(flags, peer) != 128:")
    assert text.index("flags[peer] = uint32(0)") > wait
    assert next(i for i, t in enumerate(text) if t.startswith("bar_sync_named") and i > wait) < \
        text.index("other = int32(slot + 32768)")


@pytest.mark.slow
@pytest.mark.parametrize("config", ["128x256x64s4sk-tma", "128x256x64s4rsk1-tma"])
def test_the_stream_k_kernel_compiles_to_the_flag_ptx_without_spills(config):
    import shutil
    import subprocess
    import tempfile
    from pathlib import Path

    text = gemm_wgmma.ptx_text(config)
    assert "fence.acq_rel.gpu;" in text and "red.relaxed.gpu.global.add.u32" in text
    assert "ld.global.acquire.gpu.b32" in text
    ptxas = shutil.which("ptxas") or next(
        (str(p) for p in Path(np.__file__).parents[1].glob("nvidia/cuda_nvcc/bin/ptxas")), None)
    if ptxas is None:
        pytest.skip("no ptxas here")
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "k.ptx"
        src.write_text(text)
        out = subprocess.run([ptxas, "-arch=sm_90a", "-v", "--maxrregcount", "168", str(src), "-o",
                              str(Path(d) / "k.cubin")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "0 bytes spill stores" in out.stderr and "C7515" not in out.stderr      # no wgmma serialization


@pytest.mark.parametrize("kw", [dict(pingpong=True, bn=128), dict(cluster=2),
                                dict(a="e4m3", b="e4m3", c="bf16", bn=128, block_scales=True)])
@pytest.mark.parametrize("waves", [1, 2])
def test_stream_k_configs_are_checked(kw, waves):
    with pytest.raises(ConfigError, match="stream_k runs cooperative consumers of one CTA"):
        gemm_wgmma.WgmmaConfig(stream_k=waves, **kw)


@pytest.mark.parametrize("bad", [True, 3, -1, "1"])
def test_stream_k_is_a_count_of_waves(bad):
    with pytest.raises(ConfigError, match="stream_k is how many last waves"):
        gemm_wgmma.WgmmaConfig(stream_k=bad)
    with pytest.raises(ConfigError, match="waves: the waves stream-K deals out"):
        sk.units(512, 64, 132, waves=bad)


@pytest.mark.gpu
@pytest.mark.parametrize("config, M, N, K, waves", [
    # 18 x 8 = 144 tiles of 128x256 on the GPU's SMs (132 on an H100): every CTA runs a stream-K run
    ("128x256x64s4sk-tma", 2304, 2048, 264, 2),
    # 25 x 8 = 200 tiles: one whole wave, then 68 tiles of 20 k-tiles in runs of 10 or 11, so some
    # runs lie inside one tile and three CTAs sum it
    ("128x256x64s4rsk1-tma", 3200, 2048, 1280, 1)])
def test_tiles_ctas_share_come_out_right_launch_after_launch(config, M, N, K, waves):
    # the same launch runs twice with new values in A: a flag the first launch left set would let
    # the second read the first launch's sums
    from numba import cuda

    from labkit.cuda.kernels.ladder import gemm
    from labkit.cuda.kernels.ladder.gemm_common import random_operands, reference, relative_error, tolerance
    from labkit.cuda.kernels.ladder.gemm_wgmma_check import ROUNDOFF
    from labkit.cuda.launch import device_sm

    if device_sm() != 90:
        pytest.skip("wgmma needs sm_90a")
    sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
    tiles, ktiles = (M // 128) * (N // 256), -(-K // 64)
    shared = [u for r in sk.units(tiles, ktiles, min(sms, tiles), waves) for u in r if u[1:] != (0, ktiles)]
    assert shared, "no tile is shared on this GPU: pick another shape"
    if waves == 1:
        assert any(kb > 0 and ke < ktiles for _, kb, ke in shared)        # a middle piece: three CTAs
    A, B = random_operands(M, N, K, 5)
    dA, dB, dC = cuda.to_device(A), cuda.to_device(B), cuda.to_device(np.full((M, N), np.nan, np.float16))
    _, run = gemm.prepare("wgmma", dA, dB, dC, "f32", 90, config=config)
    for seed in (5, 6):
        A = random_operands(M, N, K, seed)[0]
        dA.copy_to_device(A)
        dC.copy_to_device(np.full((M, N), np.nan, np.float16))
        run()
        err = relative_error(dC.copy_to_host().astype(np.float64), reference(A.astype(np.float64), B.astype(np.float64)))
        assert err <= tolerance("f32", K) + ROUNDOFF["f16"], (seed, err)


@pytest.mark.parametrize("config", ["128x256x64s4sk-tma", "128x256x64s4rsk1-tma"])
def test_partial_sums_are_loaded_a_batch_before_the_stores_that_add_them(config):
    # every term added to accumulator i is the workspace word 128 * i past the peer's slot, and the
    # whole batch of loads comes before the first store that uses one of them (a load between two
    # asm stores would wait out its latency alone)
    import re

    from labkit.cuda.kernels.ladder.gemm_wgmma_epilogue import ADD_BATCH

    lines = [x.strip() for x in gemm_wgmma.source(config).splitlines()]
    loaded, batches, uses = {}, [], 0
    for line in lines:
        m = re.fullmatch(r"q(\d+) = ws\[other \+ (\d+)\]", line)
        if m:
            if not loaded or batches[-1] == "used":
                batches.append(0)
                loaded = {}
            loaded[int(m[1])] = int(m[2])
            batches[-1] += 1
            continue
        for acc, q in re.findall(r"acc\[(\d+)\] \+ q(\d+)", line):
            assert loaded[int(q)] == 128 * int(acc), line
            uses += 1
            if isinstance(batches[-1], int):
                assert batches[-1] == ADD_BATCH
                batches.append("used")
    assert uses >= 128 and batches.count(ADD_BATCH) >= 128 // ADD_BATCH
