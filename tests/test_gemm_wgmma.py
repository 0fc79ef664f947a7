"""The ladder's wgmma step: listed, refused where it cannot run, its sm_90a PTX, its descriptors.

Expected values come from the PTX ISA ("Matrix Descriptor Format"; the K-major 128-byte-swizzle
canonical layout: 8 rows of 128 bytes per core-matrix group, so SBO = 1024 bytes; a k16 slice of
f16 is 32 bytes) and from the instruction text the PTX ISA gives for each operation.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from labkit.cuda import ptx
from labkit.cuda.kernels.ladder import gemm, gemm_sass, gemm_wgmma
from labkit.errors import DeviceError, InstructionError


def test_the_step_is_listed_after_tma():
    assert gemm.ALL_STEPS[-2:] == ("tma", "wgmma") and "wgmma" not in gemm.STEPS
    assert gemm.step_module("wgmma") is gemm_wgmma


def test_descriptors_are_the_ptx_isa_fields_for_k_major_128b():
    cfg = gemm_wgmma.CONFIGS[gemm_wgmma.DEFAULT]
    # layout type 1 (128B swizzle) in bits 62-63, SBO 1024 >> 4 in bits 32-45, LBO 1 (unused for
    # swizzled K-major) in bits 16-29, start address (32 bytes per k16 slice) >> 4 in bits 0-13
    want = [(1 << 62) | ((1024 >> 4) << 32) | (1 << 16) | ((32 * k) >> 4) for k in range(4)]
    assert gemm_wgmma.k_descriptors(cfg) == want


def test_configs_fit_shared_memory_and_registers():
    for name, cfg in gemm_wgmma.CONFIGS.items():
        assert cfg.smem_bytes() <= 227 * 1024, name                 # sm_90's opt-in shared memory per CTA
        assert cfg.threads * cfg.max_registers <= 65536, name       # one CTA per SM
        assert cfg.bn in (64, 128, 256) and cfg.bm == 64 * cfg.consumers


@pytest.mark.parametrize("sm", [80, 89, 100, 120])
def test_other_gpus_are_refused_with_a_labkit_error(sm):
    if ptx.SIMULATED:
        pytest.skip("under the simulator the step is refused before the SM is looked at")
    A = np.zeros((128, 64), np.float16)
    with pytest.raises(InstructionError, match="sm_90a"):
        gemm_wgmma.launch(A, A, None, "f32", sm)


def test_f16_accumulation_is_refused():
    A = np.zeros((128, 64), np.float16)
    with pytest.raises(DeviceError, match="acc: step 'wgmma' accumulates in f32"):
        gemm_wgmma.launch(A, A, None, "f16", 90)


def test_unknown_config_is_refused():
    with pytest.raises(DeviceError, match="config: must be a WgmmaConfig or one of"):
        gemm_wgmma.source(config="64x64")


def test_statements_are_tagged_with_the_instructions_they_issue():
    st = gemm_wgmma.statements()
    main = [s.op for s in st if s.phase == "mainloop" and s.op]
    assert main.count("wgmma.mma_async") == 4                     # four k16 slices of one k-tile
    assert main.count("cp.async.bulk.tensor") == 2                # the A box and the B box
    for op in ("wgmma.fence", "wgmma.commit_group", "wgmma.wait_group", "mbarrier.arrive.expect_tx",
               "mbarrier.try_wait", "mbarrier.arrive"):
        assert op in main, op
    stores = [s for s in st if s.phase == "epilogue" and s.op == "st.global.v2"]
    assert len(stores) == 2 * 2 * 256 // 8                           # 128 f32 a thread, 2 a store, fast + guarded path


def _ptx(config):
    if ptx.SIMULATED:
        pytest.skip("the GPU bindings are not imported under the CUDA simulator")
    try:
        return gemm_wgmma.ptx_text(config)
    except Exception as e:                       # no NVVM in this environment
        if "NVVM" in str(e) or "libnvvm" in str(e).lower():
            pytest.skip(f"numba-cuda cannot find NVVM: {e}")
        raise


@pytest.mark.slow
def test_the_kernel_compiles_to_sm_90a_wgmma_tma_and_mbarriers():
    text = _ptx(gemm_wgmma.DEFAULT)
    assert re.search(r"^\.target sm_90a$", text, re.M)
    mma = re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n256k16\.f32\.f16\.f16 \{(.*?)\}, %rd\d+, %rd\d+, p, "
                     r"1, 1, 0, 0;", text)
    assert len(mma) == 4 and all(len(m.split(",")) == 128 for m in mma)
    counts = {op: text.count(op) for op in (
        "wgmma.fence.sync.aligned;", "wgmma.commit_group.sync.aligned;", "wgmma.wait_group.sync.aligned 1;",
        "wgmma.wait_group.sync.aligned 0;",
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
        "mbarrier.arrive.expect_tx.shared::cta.b64", "mbarrier.arrive.shared::cta.b64", "st.global.v2.f32")}
    # the set-up loop and the spin-waits are unrolled or duplicated as LLVM likes: present, not counted
    assert text.count("mbarrier.init.shared::cta.b64") >= 2
    assert text.count("mbarrier.try_wait.parity.shared::cta.b64") >= 2
    assert counts == {
        "wgmma.fence.sync.aligned;": 1, "wgmma.commit_group.sync.aligned;": 1,
        "wgmma.wait_group.sync.aligned 1;": 1, "wgmma.wait_group.sync.aligned 0;": 1,
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes": 2,
        "mbarrier.arrive.expect_tx.shared::cta.b64": 1, "mbarrier.arrive.shared::cta.b64": 2,
        "st.global.v2.f32": 128,
    }, counts


@pytest.mark.slow
def test_setmaxnreg_config_moves_registers_between_warpgroups():
    text = _ptx("128x256x64s4r")
    assert "setmaxnreg.dec.sync.aligned.u32 40;" in text
    assert "setmaxnreg.inc.sync.aligned.u32 232;" in text


def test_setmaxnreg_counts_are_checked():
    from labkit.cuda.kernels.ladder import gemm_ptx

    with pytest.raises(DeviceError, match="multiple of 8 in 24..256"):
        gemm_ptx.setmaxnreg_calls(41, 232)


def test_hgmma_per_k_tile_is_read_from_the_consumer_loop():
    # SASS shape of the H200 build (benchmarks/results/wgmma_step_h200_2026-12-02.json): the producer's
    # loop issues two UTMALDG a k-tile, the consumer's four HGMMA inside a tile loop that also loops back
    sass = """
        /*0000*/                   UTMALDG.2D [UR8], [UR4] ;
        /*0010*/                   UTMALDG.2D [UR12], [UR4] ;
        /*0020*/               @P0 BRA 0x0 ;
        /*0030*/                   MOV R2, RZ ;
        /*0040*/                   WARPGROUP.ARRIVE ;
        /*0050*/                   HGMMA.64x256x16.F32 R24, gdesc[UR4], R24 ;
        /*0060*/                   HGMMA.64x256x16.F32 R24, gdesc[UR8], R24 ;
        /*0070*/                   HGMMA.64x256x16.F32 R24, gdesc[UR12], R24 ;
        /*0080*/                   HGMMA.64x256x16.F32 R24, gdesc[UR16], R24, gsb0 ;
        /*0090*/               @P1 BRA 0x40 ;
        /*00a0*/                   STG.E.64 desc[UR4][R2.64], R24 ;
        /*00b0*/               @P2 BRA 0x30 ;
    """
    k = gemm_sass.wgmma_ktile_mix(sass, 4)
    assert (k["HGMMA"], k["UTMALDG"], k["total"]) == (4.0, 2.0, 6.0)


@pytest.mark.gpu
@pytest.mark.parametrize("config", sorted(gemm_wgmma.CONFIGS))
def test_wgmma_configs_on_gpu(config):
    from labkit.cuda.launch import device_sm

    if device_sm() != 90:
        pytest.skip("wgmma needs sm_90a")
    step = 16 // gemm_wgmma.operand_dtypes(config)[0].itemsize     # K: rows of 16-byte multiples (TMA)
    for M, N, K in ((257, 264, 136), (1000, 776, 1032)):
        K = -(-K // step) * step
        err, tol = gemm.check("wgmma", M, N, K, config=config)
        assert err <= tol, f"{config} {M}x{N}x{K}: {err:.3g} over {tol:.3g}"
    rep = gemm.kernel_report("wgmma", "f32", config=config)
    # SASS names wgmma HGMMA for 16-bit operands and QGMMA for 8-bit floats
    opcode = "HGMMA" if gemm_wgmma.CONFIGS[config].a == "f16" else "QGMMA"
    assert rep["local_bytes"] == 0 and rep["mix"].get(opcode, 0) >= 4 and rep["mix"].get("HMMA", 0) == 0


# --- operand types: fp8 in, f16 / bf16 out ------------------------------------------------------

def test_fp8_configs_use_cutes_k32_atoms_and_128_byte_k_tiles():
    from labkit.cuda.kernels.ladder.gemm_wgmma_operands import atom_name

    # PTX ISA, wgmma.mma_async: K = 32 for .e4m3/.e5m2 (16 for .f16); a 128-byte swizzled row
    # holds 128 one-byte elements, so a k-tile is still four wgmmas, each 32 bytes further along K
    cfg = gemm_wgmma.CONFIGS["128x256x128s4-e4m3"]
    assert atom_name(cfg) == "SM90_64x256x32_F32E4M3E4M3_SS_TN"
    assert atom_name(gemm_wgmma.CONFIGS["128x256x128s4-e5m2e4m3"]) == "SM90_64x256x32_F32E5M2E4M3_SS_TN"
    assert cfg.bk == 128 and cfg.stage_bytes == (128 + 256) * 128
    want = [(1 << 62) | ((1024 >> 4) << 32) | (1 << 16) | ((32 * k) >> 4) for k in range(4)]
    assert gemm_wgmma.k_descriptors(cfg) == want
    st = gemm_wgmma.statements(cfg)
    main = [s for s in st if s.phase == "mainloop" and s.op == "wgmma.mma_async"]
    assert len(main) == 4 and all("f32e4m3e4m3" in s.text and s.text.endswith("acc, 1, 1, 1)") for s in main)
    # bf16 C: each thread's 128 accumulators go out as 64 pairs (cvt.rn.bf16x2.f32, 4-byte stores),
    # on the full-tile path and again on the guarded one; each multiplied by alpha first
    cvt = [s for s in st if s.phase == "epilogue" and s.call == "cvt_rn_bf16x2_f32"]
    stores = [s for s in st if s.phase == "epilogue" and s.call == "st_global_u32"]
    assert len(cvt) == len(stores) == 2 * 64 and all(s.text.count("* alpha") == 2 for s in cvt)
    assert gemm_wgmma.operand_dtypes(cfg) == (np.dtype(np.uint8), np.dtype(np.uint16))
    assert gemm_wgmma.operand_dtypes("128x256x64s4-f16out") == (np.dtype(np.float16), np.dtype(np.float16))


@pytest.mark.parametrize("kw, why", [
    (dict(a="e4m3", b="f16"), "a and b must both be f16, or both 8-bit floats"),
    (dict(a="bf16", b="bf16"), "a and b must both be f16, or both 8-bit floats"),
    (dict(c="e4m3"), "c must be one of f32, f16, bf16"),
    (dict(a="fp7"), "config: element_type='fp7' is not an element type"),
])
def test_operand_types_are_checked(kw, why):
    from labkit.errors import ConfigError

    with pytest.raises(ConfigError, match=why):
        gemm_wgmma.WgmmaConfig(**kw)


def test_fp8_launch_checks_dtypes_and_alpha_before_the_gpu():
    if ptx.SIMULATED:
        pytest.skip("under the simulator the step is refused first")
    f16 = np.zeros((128, 128), np.float16)
    u8 = np.zeros((128, 128), np.uint8)
    with pytest.raises(DeviceError, match="A: must be uint8, got float16"):
        gemm_wgmma.launch(f16, f16, np.zeros((128, 128), np.uint16), "f32", 90, config="128x256x128s4-e4m3")
    with pytest.raises(DeviceError, match="C: step 'wgmma' with this configuration writes uint16, got a float32"):
        gemm_wgmma.launch(u8, u8, np.zeros((128, 128), np.float32), "f32", 90, config="128x256x128s4-e4m3")
    with pytest.raises(DeviceError, match="K: step 'wgmma' needs K to be a multiple of 16"):
        gemm_wgmma.launch(u8[:, :120].copy(), u8[:, :120].copy(), np.zeros((128, 128), np.uint16), "f32", 90,
                          config="128x256x128s4-e4m3")
    with pytest.raises(DeviceError, match="alpha: configuration '128x256x64s4' is not scaled"):
        gemm_wgmma.launch(f16, f16, np.zeros((128, 128), np.float32), "f32", 90, alpha=2.0)


@pytest.mark.slow
def test_the_fp8_kernel_compiles_to_k32_wgmma_and_bf16_pairs():
    text = _ptx("128x256x128s4-e4m3")
    mma = re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n256k32\.f32\.e4m3\.e4m3 \{(.*?)\}, %rd\d+, %rd\d+, p, "
                     r"1, 1;", text)
    assert len(mma) == 4 and all(len(m.split(",")) == 128 for m in mma)
    assert text.count("cvt.rn.bf16x2.f32") == 128 and text.count("st.global.b32") == 128
    assert "st.global.v2.f32" not in text


def test_pingpong_consumers_take_turns_on_whole_tiles():
    cfg = gemm_wgmma.CONFIGS["128x128x64s6pp"]
    assert (cfg.bm, cfg.bn, cfg.consumers) == (128, 128, 2)
    st = gemm_wgmma.statements(cfg)
    text = "\n".join(s.text for s in st)
    # one warpgroup covers the tile's 128 rows: two m64n128k16 a k-slice, eight a k-tile
    main = [s for s in st if s.phase == "mainloop" and s.op == "wgmma.mma_async"]
    assert len(main) == 8 and {s.text.split(" = ")[0] for s in main} == {"acc0", "acc1"}
    # tiles alternate between the consumers; each finds its stage from the tile's place in the stream
    assert "tile = int32(cuda.blockIdx.x + c * cuda.gridDim.x)" in text and "seq += 2" in text
    assert "stage = int32(pos % 6)" in text and "phase = uint32((pos // 6) & 1)" in text
    # each stage has one consumer, freed by one arrival; a turn barrier per consumer orders the main loops
    assert text.count("mbarrier_init(empty0 + 8 * s, 1)") == 1
    assert "mbarrier_arrive(empty0 + 48 + 8 * (1 - c))" in text
    assert cfg.smem_bytes() == 6 * (128 + 128) * 128 + 16 * 6 + 16 + 1024


def test_the_tma_store_epilogue_stages_swizzled_boxes_and_stores_each_once():
    cfg = gemm_wgmma.CONFIGS["128x256x64s3-tma"]
    st = gemm_wgmma.statements(cfg)
    epi = [s for s in st if s.phase == "epilogue"]
    calls = [s.call for s in epi]
    # 128 accumulators a thread: 64 pairs rounded and staged; 256 columns: four boxes of 64
    assert calls.count("st_shared_u32") == 64 and calls.count("cvt_rn_f16x2_f32") == 64
    assert calls.count("tma_store_2d") == 4 and calls.count("cp_async_bulk_commit_group") == 1
    assert "st_global_u32" not in calls and "st_global_v2_f32" not in calls       # no thread stores C itself
    # the order the PTX ISA asks for: wait until the staging buffer was read, meet, write, fence the
    # async proxy, meet, store
    order = [c for c in calls if c in ("cp_async_bulk_wait_group_read", "bar_sync_named", "st_shared_u32",
                                       "fence_proxy_async_shared_cta", "tma_store_2d")]
    firsts = [order.index(c) for c in ("cp_async_bulk_wait_group_read", "bar_sync_named", "st_shared_u32",
                                       "fence_proxy_async_shared_cta", "tma_store_2d")]
    assert firsts == sorted(firsts) and order.count("bar_sync_named") == 2
    assert cfg.smem_bytes() == 3 * (128 + 256) * 128 + 2 * 64 * 256 * 2 + 16 * 3 + 1024 <= 227 * 1024


def test_two_slots_of_room_send_each_box_as_its_own_group_and_leave_room_for_four_stages():
    import re

    cfg = gemm_wgmma.CONFIGS["128x256x64s4-tma"]
    calls = [s for s in gemm_wgmma.statements(cfg) if s.phase == "epilogue"]
    seq = [s.call for s in calls if s.call in ("cp_async_bulk_wait_group_read", "bar_sync_named", "st_shared_u32",
                                                "fence_proxy_async_shared_cta", "tma_store_2d",
                                                "cp_async_bulk_commit_group")]
    one = (["cp_async_bulk_wait_group_read", "bar_sync_named"] + ["st_shared_u32"] * 16
           + ["fence_proxy_async_shared_cta", "bar_sync_named", "tma_store_2d", "cp_async_bulk_commit_group"])
    assert seq == one * 4            # a box at a time: wait, meet, write its 64 columns, fence, meet, store
    # CUTLASS's StagesD ring: the slot about to be written was last read by the group StagesD boxes
    # ago, so all but the StagesD - 1 = 1 newest groups must be done reading
    waits = [s.text for s in calls if s.call == "cp_async_bulk_wait_group_read"]
    assert waits == ["cp_async_bulk_wait_group_read(1)"] * 4
    stores = [s.text for s in calls if s.call == "tma_store_2d"]
    assert [re.search(r"n0 \+ (\d+)", t).group(1) for t in stores] == ["0", "64", "128", "192"]
    assert [re.search(r"stg \+ (\d+)", t).group(1) for t in stores] == ["0", "8192", "0", "8192"]
    offsets = [int(s.text.rsplit(",", 1)[1].rstrip(")")) for s in calls if s.call == "st_shared_u32"]
    assert sorted(set(offsets)) == [0, 1024, 8192, 9216]      # two slots of 8 KB, rows 0-7 and 8-15 of a warp
    # 4 stages of A and B, 2 consumers x 2 boxes of 64 x 64 f16, 2 mbarriers a stage, 1 KB slack
    assert cfg.smem_bytes() == 4 * (128 + 256) * 128 + 2 * 2 * 64 * 64 * 2 + 16 * 4 + 1024 <= 227 * 1024


@pytest.mark.parametrize("kw", [dict(stages_d=2), dict(c="f16", epilogue="tma", stages_d=3),
                                dict(c="f16", epilogue="tma", stages_d=8)])
def test_stages_d_is_checked(kw):
    from labkit.errors import ConfigError

    with pytest.raises(ConfigError, match="stages_d is a divisor of bn / 64"):
        gemm_wgmma.WgmmaConfig(**kw)


def test_a_warps_staged_stores_of_one_column_block_hit_32_banks():
    """The 128-byte swizzle (16-byte chunk j of row r at chunk j ^ (r % 8)) against the bank rule
    (32 banks of 4 bytes): lane l stores row l // 4 (+8), bytes 4 (l % 4) of column block j."""
    from labkit.cuda.kernels.ladder.gemm_wgmma_epilogue import staged_chunk

    for j in range(32):
        for hi in (0, 1):
            banks = set()
            for lane in range(32):
                r = lane // 4 + 8 * hi
                addr = (j // 8) * 8192 + r * 128 + 16 * staged_chunk(j, r) + 4 * (lane % 4)
                banks.add(addr // 4 % 32)
            assert len(banks) == 32
    # unswizzled 512-byte rows would put the 8 rows of a column block in the same 4 banks
    assert len({(r * 512 + 16 * 3 + 4 * q) // 4 % 32 for r in range(8) for q in range(4)}) == 4


def test_tma_store_configs_are_checked():
    from labkit.errors import ConfigError

    with pytest.raises(ConfigError, match="the TMA-store epilogue stores 16-bit C"):
        gemm_wgmma.WgmmaConfig(epilogue="tma")
    with pytest.raises(ConfigError, match="epilogue must be 'direct' or 'tma'"):
        gemm_wgmma.WgmmaConfig(c="f16", epilogue="smem")


@pytest.mark.slow
def test_the_tma_store_kernel_compiles_to_bulk_tensor_stores():
    text = _ptx("128x256x64s3-tma")
    assert text.count("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group") == 4
    assert text.count("st.shared.b32") == 64 and text.count("cp.async.bulk.commit_group;") == 1
    assert "cp.async.bulk.wait_group.read 0;" in text and "cp.async.bulk.wait_group 0;" in text
    assert "st.global" not in text


# --- block scales: 1 x 128 blocks of A, 128 x 128 of B ---------------------------------------------

def test_block_scales_promote_each_k_tile_apart():
    cfg = gemm_wgmma.CONFIGS["128x128x128s6-e4m3-bs"]
    st = gemm_wgmma.statements(cfg)
    main = [s for s in st if s.phase == "mainloop"]
    mma = [s.text for s in main if s.op == "wgmma.mma_async"]
    # a fresh partial each k-tile: scale-d 0 on its first wgmma (D = A B), 1 after (D = A B + D)
    assert [m.split("part, ")[1].split(",")[0] for m in mma] == ["0", "1", "1", "1"]
    waits = [s.text for s in main if s.op == "wgmma.wait_group"]
    assert waits == ["wgmma_wait_group(0)"]              # the partial is read before the next k-tile
    total = next(s.text for s in main if s.text.startswith("total = "))
    # D fragment: values 4j, 4j+1 in row 16w + lane/4, 4j+2, 4j+3 eight rows below (PTX ISA, wgmma D)
    assert "total[0] + part[0] * s0" in total and "total[2] + part[2] * s1" in total
    assert "total[63] + part[63] * s1" in total and total.count("part[") == 64
    assert gemm_wgmma.signature(cfg)[-2:] == gemm_wgmma.signature(cfg)[-1:] * 2


def test_block_quantized_operands_use_each_blocks_range():
    from labkit.cuda.kernels.ladder.gemm_wgmma_check import block_dequantized, block_quantized_operands

    A8, B8, sa, sb = block_quantized_operands(5, 200, 300, "e4m3", "e4m3", seed=3)
    assert sa.shape == (5, 3) and sb.shape == (2, 3)
    # the largest magnitude of every block codes as e4m3's largest finite value, S.1111.110
    for k in range(3):
        cols = slice(128 * k, 128 * k + 128)
        assert ((A8[:, cols] & 0x7F).max(axis=1) == 0x7E).all()
        assert all((B8[128 * n:128 * n + 128, cols] & 0x7F).max() == 0x7E for n in range(2))
    # dequantized, each block's largest magnitude is e4m3's largest finite value (448, OCP) times its
    # scale, and B's 128-row blocks take one scale each
    a, b = block_dequantized(A8, "e4m3", sa, 1), block_dequantized(B8, "e4m3", sb, 128)
    for k in range(3):
        cols = slice(128 * k, 128 * k + 128)
        assert (np.abs(a[:, cols]).max(axis=1) == 448.0 * sa[:, k].astype(np.float64)).all()
        assert all(np.abs(b[128 * n:128 * n + 128, cols]).max() == 448.0 * float(sb[n, k]) for n in range(2))


@pytest.mark.parametrize("kw, why", [
    (dict(a="f16", b="f16", block_scales=True), "block scales are for 8-bit operands"),
    (dict(a="e4m3", b="e4m3", bn=256, block_scales=True), "N = 128"),
    (dict(a="e4m3", b="e4m3", bn=128, scaled=True, block_scales=True), "no per-tensor alpha"),
])
def test_block_scale_configs_are_checked(kw, why):
    from labkit.errors import ConfigError

    with pytest.raises(ConfigError, match=why):
        gemm_wgmma.WgmmaConfig(**kw)


def test_block_scales_arguments_are_checked():
    from labkit.cuda.kernels.ladder.gemm_wgmma_scales import arguments

    cfg = gemm_wgmma.CONFIGS["128x128x128s6-e4m3-bs"]
    with pytest.raises(DeviceError, match=r"scales=\(scale_a, scale_b\)"):
        arguments(cfg, None, 256, 256, 512)
    with pytest.raises(DeviceError, match="no block scales"):
        arguments(gemm_wgmma.CONFIGS[gemm_wgmma.DEFAULT], (1, 2), 256, 256, 512)

    class Device:                       # what the launch reads of a device array: its interface
        def __init__(self, shape, typestr="<f4"):
            self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (0, False),
                                             "strides": None, "version": 3}

        def reshape(self, n):
            return ("flat", n)

    assert arguments(cfg, (Device((256, 4)), Device((2, 4))), 256, 256, 512) == (("flat", 1024), ("flat", 8))
    with pytest.raises(DeviceError, match=r"scale_b must be a contiguous float32 \(2, 4\) array"):
        arguments(cfg, (Device((256, 4)), Device((2, 3))), 256, 256, 512)
    with pytest.raises(DeviceError, match=r"scale_a must be a contiguous float32 \(256, 4\) array .* float64"):
        arguments(cfg, (Device((256, 4), "<f8"), Device((2, 4))), 256, 256, 512)
    with pytest.raises(DeviceError, match="scale_a must be a device array"):
        arguments(cfg, (np.ones((256, 4), np.float32), np.ones((2, 4), np.float32)), 256, 256, 512)


@pytest.mark.slow
def test_the_block_scale_kernel_compiles_to_64_fmas_a_k_tile():
    text = _ptx("128x128x128s6-e4m3-bs")
    assert text.count("wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3") == 4
    assert len(re.findall(r"^\s*fma\.rn(\.ftz)?\.f32", text, re.M)) == 64
    assert text.count("wgmma.wait_group.sync.aligned 0;") == 1 and "wgmma.wait_group.sync.aligned 1;" not in text


def test_the_ablation_pairs_are_configurations_that_differ_in_their_technique_alone():
    from dataclasses import asdict

    from labkit.cli import bench_ablation

    assert set(bench_ablation.configs()) <= set(gemm_wgmma.CONFIGS)
    for what, without, with_ in bench_ablation.ABLATION:
        a, b = asdict(gemm_wgmma.CONFIGS[without]), asdict(gemm_wgmma.CONFIGS[with_])
        changed = {k for k in a if a[k] != b[k]}
        # the TMA-store epilogue needs room for its staging buffer: one stage fewer goes with it
        allowed = {"group_m"} if "raster" in what else {"setmaxnreg"} if "setmaxnreg" in what else \
            {"pingpong"} if "ping-pong" in what else {"cluster"} if "cluster" in what else \
            {"block_scales", "scaled"} if "per-block" in what else \
            {"stages", "stages_d"} if what.startswith("four stages") else \
            {"stream_k"} if what.startswith("stream-K") else {"stmatrix"} if what.startswith("stmatrix") else \
            {"overlap_store"} if what.startswith("C stored during") else {"epilogue", "stages"}
        assert changed and changed <= allowed, (what, changed)
    rows = [dict(size="8192", step="wgmma[128x128x64s6]", tflops=500.0)]
    line = [x for x in bench_ablation.table(rows, ["8192"]).splitlines() if x.startswith("| ping-pong")][0]
    assert line.endswith("| — |")                 # the pair was not both timed: a dash, not a number


# --- clusters of two CTAs: B multicast by TMA ------------------------------------------------------

def test_a_cluster_shares_b_by_multicast_and_frees_stages_in_both_ctas():
    cfg = gemm_wgmma.CONFIGS["128x256x64s4c2"]
    st = gemm_wgmma.statements(cfg)
    text = "\n".join(s.text for s in st)
    calls = [s.call for s in st if s.call]
    # each stage's empty barrier hears from the two consumers of both CTAs (CUTLASS PipelineTmaAsync)
    assert "mbarrier_init(empty0 + 8 * s, 4)" in text and "mbarrier_init(full0 + 8 * s, 1)" in text
    # A: the CTA's own 128 rows; B: 128 of the 256 rows from each CTA, multicast to both (mask 0b11)
    assert calls.count("tma_load_2d") == 1 and calls.count("tma_load_2d_multicast") == 1
    assert "int32(n0 + rank * 128), fb, 3)" in text and "rank * 16384" in text
    # the stage's bytes are still all of A and B: the peer's half lands on this CTA's barrier too
    assert "mbarrier_arrive_expect_tx(fb, 49152)" in text
    # a consumer frees a stage in CTA 0 and CTA 1 (threads 0 and 1), twice a tile (loop and epilogue)
    assert calls.count("mbarrier_arrive_cluster") == 2 and "mbarrier_arrive" not in calls
    assert text.count("t < 2:") == 2
    # the cluster meets after the barriers are made; the producer leaves once every stage is free
    assert calls.count("barrier_cluster_sync") == 1 and "cuda.syncthreads" not in calls
    assert calls.index("barrier_cluster_sync") > calls.index("fence_mbarrier_init")
    tail = [s for s in st if s.cute == "cluster" and s.text.startswith("for s in range(4)")]
    assert len(tail) == 1 and calls.count("mbarrier_try_wait") == 3
    assert all(s.cute == "cluster" for s in st if s.call in gemm_wgmma._CLUSTER_CALLS)


def test_cluster_pairs_take_tiles_one_above_the_other_in_raster_groups():
    from labkit.cuda.kernels.ladder.gemm_wgmma_schedule import raster

    cfg = gemm_wgmma.CONFIGS["128x256x64s4c2"]
    tiles_m, tiles_n = 11, 3                     # an odd number of tile rows: the last pair half empty
    pairs = -(-tiles_m // 2) * tiles_n
    seen = [t for i in range(pairs) for t in raster(cfg, i, tiles_m, tiles_n)]
    # every tile once, the pair's CTAs on rows 2p and 2p + 1 of the same column
    assert sorted(seen) == sorted((m, n) for m in range(12) for n in range(tiles_n))
    for i in range(pairs):
        (m0, n0), (m1, n1) = raster(cfg, i, tiles_m, tiles_n)
        assert m1 == m0 + 1 and m0 % 2 == 0 and n0 == n1
    # groups of 8 tile rows (4 pairs), down the group first, as the single-CTA raster
    single = gemm_wgmma.CONFIGS["128x256x64s4"]
    assert [raster(single, i, 12, 3)[0] for i in range(9)] == [(m, 0) for m in range(8)] + [(0, 1)]
    assert [raster(cfg, i, 12, 3)[0] for i in range(5)] == [(0, 0), (2, 0), (4, 0), (6, 0), (0, 1)]


@pytest.mark.parametrize("kw", [dict(cluster=3), dict(cluster=2, pingpong=True, bn=128),
                                dict(cluster=2, group_m=3)])
def test_cluster_configs_are_checked(kw):
    from labkit.errors import ConfigError

    with pytest.raises(ConfigError, match="cluster"):
        gemm_wgmma.WgmmaConfig(**kw)


@pytest.mark.slow
def test_the_cluster_kernel_compiles_to_multicast_and_remote_arrivals():
    text = _ptx("128x256x64s4c2")
    assert text.count("multicast::cluster") == 1 and text.count("mapa.shared::cluster.u32") == 2
    assert text.count("barrier.cluster.arrive.release.aligned") == 1
    assert "%cluster_ctarank" in text


@pytest.mark.parametrize("grid, cluster", [(3, 2), (0, 2), (4, 0)])
def test_a_cluster_launch_needs_whole_clusters(grid, cluster):
    from labkit.cuda import _numba

    with pytest.raises(DeviceError, match="whole clusters"):
        _numba.prepared_launch(None, grid, 32, 0, (), cluster)


@pytest.mark.gpu
def test_a_cluster_launch_numbers_ctas_in_pairs():
    # CUDA: a 1-D grid launched in clusters of 2 along x puts CTAs 2i and 2i+1 in cluster i,
    # with %cluster_ctarank = blockIdx.x % 2
    import numba
    from numba import cuda

    from labkit.cuda import _numba
    from labkit.cuda.kernels.ladder import gemm_cluster as cl

    @cuda.jit
    def ranks(out):
        out[cuda.blockIdx.x] = cl.cluster_ctarank() + 10 * cuda.blockIdx.x

    out = cuda.to_device(np.full(8, 99, np.uint32))
    _numba.prepared_launch(ranks.compile((numba.uint32[::1],)), 8, 32, 0, (out,), cluster=2)()
    assert out.copy_to_host().tolist() == [0, 11, 20, 31, 40, 51, 60, 71]


@pytest.mark.gpu
def test_a_prepared_launch_runs_each_time_and_refuses_host_arrays():
    # marshalled once, launched twice: both launches land; a host array would be copied in and
    # back on every launch, which a prepared launch cannot do, so it is refused by name
    import numba
    from numba import cuda

    from labkit.cuda import _numba

    @cuda.jit
    def bump(out, by):
        out[cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x] += by

    compiled = bump.compile((numba.int32[::1], numba.int32))
    out = cuda.to_device(np.arange(64, dtype=np.int32))
    go = _numba.prepared_launch(compiled, 2, 32, 0, (out, np.int32(5)))
    go()
    go()
    assert out.copy_to_host().tolist() == [i + 10 for i in range(64)]
    with pytest.raises(DeviceError, match="args: a prepared launch takes device arrays"):
        _numba.prepared_launch(compiled, 2, 32, 0, (np.zeros(64, np.int32), np.int32(1)))


def test_the_ablation_table_shows_only_pairs_its_run_timed():
    # every row of the recorded table is a pair whose two configurations the run timed at some size;
    # every pair the run timed at some size has its row
    from labkit.cuda.kernels.ladder.gemm_wgmma_config import ABLATION
    from labkit.lab import measurements
    from labkit.lab.measurement_records import record, run_name

    rows = record(run_name("gemm-hopper-ablation"))["ladder"]
    timed = {(r["size"], r.get("config")) for r in rows if r["step"] == "wgmma"}
    sizes = {s for s, _ in timed}
    want = [what for what, a, b in ABLATION if any((n, a) in timed and (n, b) in timed for n in sizes)]
    lines = str(measurements.ablation("gemm-hopper-ablation")).splitlines()[1:]
    assert want and [w for w in want if any(line.startswith(w) for line in lines)] == want
    assert len(lines) == len(want)


# --- stmatrix staging and the held tile (overlap_store) ---------------------------------------------

def _stmatrix_places(cfg, warp):
    """Where the generated stmatrix statements put each element of ``warp``'s accumulators:
    ``{(row, col): byte offset in the consumer's room}``, from the statements' own address
    expressions and the PTX ISA's two fragment rules (wgmma's D: lane l holds rows l/4 (+8), columns
    8j + 2(l%4) (+1) of column block j, accumulators 4j + 2hi + e; stmatrix.x4: lane 8i + r gives
    the address of row r of matrix i, and lane l's register i holds row l/4, columns 2(l%4) (+1) of it)."""
    import re

    st = [s for s in gemm_wgmma.statements(cfg) if s.phase == "epilogue"]
    text = {s.text.split(" = ", 1)[0]: s.text.split(" = ", 1)[1] for s in st if s.text.startswith(("srow =", "q ="))}
    calls, named = [], {}
    for s in st:            # p0 .. p3 = cvt(acc[2w + 1], acc[2w]): word w of the rounded pairs
        if s.call and s.call.startswith("cvt_rn") and s.text.startswith("p"):
            named[s.text.split(" = ")[0]] = int(re.search(r"\[(\d+)\]\)$", s.text).group(1)) // 2
        if s.call == "stmatrix_x4":
            calls.append(re.sub(r"\bp(\d)\b", lambda m: f"held[{named['p' + m.group(1)]}]", s.text))
    calls = calls[:len(calls) // 2] if cfg.overlap_store else calls     # the held tile: stored in two places
    env = dict(uint32=int, stg=0)
    places = {}
    for lane in range(32):
        env.update(lane=lane, warp=warp)
        env["srow"] = eval(text["srow"], env)
        env["q"] = eval(text["q"], env)
        for call in calls:
            addr, *regs = [x.strip() for x in re.match(r"stmatrix_x4\((.*)\)$", call).group(1).split(",")]
            for i, reg in enumerate(regs):                      # register i of this lane -> matrix i
                word = int(re.search(r"\[(\d+)\]", reg).group(1))
                row_lane = 8 * i + lane // 4                     # the lane that addresses that row of matrix i
                env2 = dict(env, lane=row_lane)
                env2["srow"], env2["q"] = eval(text["srow"], env2), eval(text["q"], env2)
                base = eval(addr, env2)
                j, hi = divmod(word, 2)
                for e in (0, 1):
                    row, col = 16 * warp + lane // 4 + 8 * hi, 8 * j + 2 * (lane % 4) + e
                    places[(row, col)] = base + 2 * (2 * (lane % 4) + e)
    return places


@pytest.mark.parametrize("config", ["128x256x64s4rm-tma", "128x256x64s4rmo-tma"])
def test_stmatrix_stages_each_element_where_the_tma_box_expects_it(config):
    from labkit.cuda.kernels.ladder.gemm_wgmma_epilogue import BOX_BYTES, staged_chunk

    cfg = gemm_wgmma.CONFIGS[config]
    for warp in range(4):
        places = _stmatrix_places(cfg, warp)
        assert len(places) == 16 * cfg.bn                     # every element of the warp's 16 rows, once
        for (row, col), at in places.items():
            box = col // 64
            want = (box % cfg.boxes_d) * BOX_BYTES + row * 128 + staged_chunk(col // 8, row) * 16 + (col % 8) * 2
            assert at == want, (warp, row, col)


def test_stmatrix_stages_a_tile_with_a_quarter_of_the_stores():
    def count(config):
        calls = [s.call for s in gemm_wgmma.statements(gemm_wgmma.CONFIGS[config]) if s.phase == "epilogue"]
        return calls.count("st_shared_u32"), calls.count("stmatrix_x4")

    # 64 words of C a thread: 64 four-byte stores, or 16 stmatrix.x4 of four words
    assert count("128x256x64s4r-tma") == (64, 0) and count("128x256x64s4rm-tma") == (0, 16)


def test_the_held_tile_is_stored_inside_the_next_tiles_first_k_tile_and_after_the_last():
    cfg = gemm_wgmma.CONFIGS["128x256x64s4rmo-tma"]
    st = gemm_wgmma.statements(cfg)
    texts = [s.text for s in st]
    loop = texts.index("for kt in range(ktiles):", texts.index("c = int32(wg - 1)"))
    body = st[loop + 1:]
    end = next(i for i, s in enumerate(body) if s.depth <= st[loop].depth)
    body, after = body[:end], body[end:]
    mma = [s.text for s in body if s.repeat == "mma"]
    # a tile's first k16 step: scale-d off (D = A B) in its first k-tile; the others accumulate
    assert ", int32(kt > 0), 1, 1, 0, 0)" in mma[0] and all(", acc, 1, 1, 1, 0, 0)" in m for m in mma[1:])
    # the accumulators are zeroed once, before the consumer's tile loop, never inside it
    consumer = texts.index("c = int32(wg - 1)")
    tiles = texts.index("while tile < ntiles:", consumer)
    zeros = [i for i, s in enumerate(st) if s.call == "wgmma_zeros" and i > consumer]
    assert zeros and all(i < tiles for i in zeros)
    calls = [s.call for s in body]
    commit, store = calls.index("wgmma_commit_group"), calls.index("stmatrix_x4")
    wait = calls.index("wgmma_wait_group")
    assert commit < store < wait                # staged while the k-tile's wgmmas run
    guard = [s.text for s in body if s.kind == "block" and "holding" in s.text]
    assert guard == ["if kt == 0 and holding != 0:"]
    rounding = [s for s in after if s.text.startswith("held = ")]
    assert rounding[0].text.count("cvt_rn_f16x2_f32(") == 64 and rounding[1].call == "wgmma_fence_operand"
    tail = [s.text for s in after]
    assert "if holding != 0:" in tail and tail.index("if holding != 0:") < tail.index("cp_async_bulk_wait_group()")


@pytest.mark.parametrize("kw", [dict(overlap_store=True), dict(c="f16", epilogue="tma", overlap_store=True),
                                dict(c="f16", epilogue="tma", overlap_store=True, setmaxnreg=(40, 232),
                                     stream_k=1),
                                dict(stmatrix=True)])
def test_overlap_store_and_stmatrix_are_checked(kw):
    from labkit.errors import ConfigError

    with pytest.raises(ConfigError, match="overlap_store|stmatrix stages C"):
        gemm_wgmma.WgmmaConfig(**kw)


@pytest.mark.gpu
@pytest.mark.parametrize("config", ["128x256x64s4rm-tma", "128x256x64s4rmo-tma"])
def test_held_tiles_are_stored_right_when_ctas_walk_many_tiles(config):
    """More tiles than SMs (each CTA stores a held tile during its next tile), edge tiles on both sides."""
    from labkit.cuda.launch import device_sm

    if device_sm() != 90:
        pytest.skip("wgmma needs sm_90a")
    for M, N, K in ((4100, 2056, 136), (2048, 4096, 64)):
        err, tol = gemm.check("wgmma", M, N, K, config=config)
        assert err <= tol, f"{config} {M}x{N}x{K}: {err:.3g} over {tol:.3g}"
