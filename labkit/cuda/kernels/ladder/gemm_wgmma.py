"""GEMM ladder, step 7: warpgroup MMA (``wgmma``) straight from shared memory (sm_90a).

Step 6 keeps every operand on its way through registers: ``ldmatrix`` reads each 8x8 block of
A and B out of shared memory into the warp's registers, and ``mma.sync`` (m16n8k16) multiplies
them; on an H200 register-only chains of mma.sync issue at most 639 TFLOP/s. Hopper's
``wgmma.mma_async`` is issued by a whole warpgroup (4 warps, 128 threads) and reads A and B
from shared memory through 64-bit matrix descriptors: no ldmatrix, no fragments, one
instruction for a 64x256x16 product, its 128 f32 accumulators a thread in registers.

The kernel is warp-specialized and persistent (one CTA per SM, walking output tiles):

- warpgroup 0 is the **producer**: one thread waits until a stage is free (its ``empty``
  mbarrier), arms the stage's ``full`` mbarrier with the bytes to come
  (``mbarrier.arrive.expect_tx``) and asks the TMA unit for the A box (``bm x 64``) and the B
  box (``bn x 64``) of the next k-tile. The boxes land 128-byte swizzled, which is exactly
  CuTe's ``GMMA::Layout_K_SW128_Atom`` (``Sw<3,4,3> o (8,64):(64,1)``), the layout the wgmma
  descriptor's B128 mode reads;
- warpgroups 1 and 2 are the **consumers**: each waits on the stage's ``full`` barrier, issues
  four ``wgmma.mma_async.m64n256k16`` (the k-tile's four 32-byte K slices: the descriptors'
  start address advances by 2 units of 16 bytes), commits them as one group, waits until only
  that group is pending (``wgmma.wait_group 1``) and frees the previous stage (one
  ``mbarrier.arrive`` per warpgroup on its ``empty`` barrier). Consumer ``c`` computes rows
  ``64c .. 64c+63`` of the 128x256 CTA tile;
- after the last k-tile the consumers write their accumulators to C (f32, registers to global,
  8-byte stores, or by TMA: :mod:`~labkit.cuda.kernels.ladder.gemm_wgmma_epilogue`), while the
  producer already fetches the next tile's first k-tiles. The tiles come from the persistent
  scheduler (:mod:`~labkit.cuda.kernels.ladder.gemm_wgmma_schedule`), or as runs of k-tiles from
  stream-K (:mod:`~labkit.cuda.kernels.ladder.gemm_wgmma_streamk`).

The descriptors come from the step's TiledMMA as CuTe's ``wgmma_tma_sm90`` makes them:
``make_fragment_A/B`` of each consumer's ``partition_A/B`` of each stage's shared-memory tensors
(:mod:`~labkit.cuda.kernels.ladder.gemm_wgmma_operands`), evaluated once on the host and checked
for every stage and consumer: the kernel ORs the stage's shared address (>> 4) into their fixed
bits and adds each k-block's step.

Needs sm_90a (wgmma is arch-specific PTX: compute capability 9.0 exactly) and f32
accumulation; any other GPU, or ``acc="f16"``, is refused with a :class:`~labkit.errors.DeviceError`
before launch. Under numba's CUDA simulator the step is refused too (wgmma has no twin).

>>> from labkit.cuda.kernels.ladder import gemm_wgmma as g
>>> cfg = g.CONFIGS[g.DEFAULT]
>>> (cfg.bm, cfg.bn, cfg.bk), cfg.stages, cfg.consumers, cfg.threads
((128, 256, 64), 4, 2, 384)
>>> [hex(d) for d in g.k_descriptors(cfg)]
['0x4000004000010000', '0x4000004000010002', '0x4000004000010004', '0x4000004000010006']
"""

from __future__ import annotations

import contextlib
import functools

import numpy as np

from labkit.atoms.instructions import WARPGROUP, require_sm
from labkit.cuda.kernels.ladder.gemm_common import ceil_div, check_operands, set_dynamic_shared
from labkit.cuda.kernels.ladder.gemm_config import check_sm
from labkit.cuda.kernels.ladder import gemm_wgmma_epilogue as epilogue
from labkit.cuda.kernels.ladder import gemm_wgmma_scales as block_scales
from labkit.cuda.kernels.ladder import gemm_wgmma_schedule as schedule
from labkit.cuda.kernels.ladder import gemm_wgmma_streamk as streamk
from labkit.cuda.kernels.ladder.gemm_statements import NO_INSTRUCTION, Writer, render
from labkit.cuda.kernels.ladder.gemm_wgmma_config import CONFIGS, DEFAULT, RULES, WgmmaConfig, operand_dtypes
from labkit.cuda.kernels.ladder.gemm_wgmma_config import pick as _pick
from labkit.errors import DeviceError

__all__ = ["STEP", "WgmmaConfig", "CONFIGS", "DEFAULT", "RULES", "k_descriptors", "statements",
           "source", "launch", "kernel_config", "kernel_report", "WGMMA_CALLS", "operand_dtypes", "signature"]

STEP = "wgmma"
K16_STEPS = 4              # wgmma instructions per k-tile: 128 bytes of K, 32 bytes each


#: the wgmma names the kernel calls (``labkit.cuda.ptx``), in one place
WGMMA_CALLS = {"fence": "wgmma_fence", "commit": "wgmma_commit_group", "wait": "wgmma_wait_group",
               "zeros": "wgmma_zeros", "fence_operand": "wgmma_fence_operand",
               "mma": "SM90_64x{n}x16_F32F16F16_SS"}     # the CuTe atom; its registry entry names the intrinsic
_GEMM_PTX_CALLS = ("mbarrier_init", "fence_mbarrier_init", "mbarrier_arrive_expect_tx", "mbarrier_arrive",
                   "mbarrier_try_wait", "tma_load_2d", "st_global_v2_f32", "st_global_u32", "cvt_rn_f16x2_f32",
                   "cvt_rn_bf16x2_f32", "st_shared_u32", "bar_sync_named", "tma_store_2d",
                   "cp_async_bulk_commit_group", "cp_async_bulk_wait_group_read", "cp_async_bulk_wait_group")
_CLUSTER_CALLS = ("cluster_ctarank", "barrier_cluster_sync", "mbarrier_arrive_cluster", "tma_load_2d_multicast")


def k_descriptors(cfg):
    """The 64-bit wgmma descriptors (start address 0) of the k-tile's four k16 slices: the k-blocks
    of ``make_fragment_A`` of stage 0's ``sA``, consumer 0 (:mod:`gemm_wgmma_operands`); B's at
    address 0 are the same (K-major, B128, SBO 1024 bytes)."""
    from labkit.cuda.kernels.ladder.gemm_wgmma_operands import kernel_descriptors

    base, steps = kernel_descriptors(cfg)
    return [base + s for s in steps]


def _mma_entry(cfg):
    from labkit.atoms.instructions import instruction
    from labkit.cuda.kernels.ladder.gemm_wgmma_operands import atom_name

    return instruction(atom_name(cfg))


def _mma_name(cfg):
    return _mma_entry(cfg).name


def _mma_immediates(cfg):
    """The atom's immediates as the kernel passes them: scales +1, K-major (no transpose)."""
    return ", ".join("1" if i.startswith("imm_scale") else "0" for i in _mma_entry(cfg).immediates)


def statements(cfg=None, name="gemm_wgmma"):
    """The tagged statements (:mod:`labkit.cuda.kernels.ladder.gemm_statements`) of ``cfg``'s kernel."""
    cfg = cfg or CONFIGS[DEFAULT]
    from labkit.cuda.kernels.ladder.gemm_wgmma_operands import kernel_descriptors

    # make_fragment_A/B of each stage's sA, sB (CuTe's wgmma_tma_sm90): the descriptors' fixed bits
    # and each k-block's step, checked for every stage and consumer
    base, steps = kernel_descriptors(cfg)
    R = cfg.bn // 2
    S, SB, AB = cfg.stages, cfg.stage_bytes, cfg.a_bytes
    mma = _mma_name(cfg)
    imm = _mma_immediates(cfg)
    BKc = cfg.bk
    W = WGMMA_CALLS
    w = Writer()
    w.header(f"def {name}(C, M, N, K, maps{', alpha' if cfg.scaled else ''}"
             f"{', scale_a, scale_b' if cfg.block_scales else ''}{', ws, flags' if cfg.stream_k else ''}):")
    w.doc(f'"""{cfg.bm}x{cfg.bn}x{BKc} CTA tile, {cfg.consumers} consumer warpgroups of m64n{cfg.bn}, '
          f'one TMA producer warpgroup, {S} stages, {cfg.a} x {cfg.b}, f32 accumulate, C in {cfg.c}."""')
    with w.concept("sA"):
        w.code("smem = cuda.shared.array(0, uint16)")
    w.lines(f"""
        tid = int32(cuda.threadIdx.x)
        wg = int32(tid // {WARPGROUP})
    """)
    schedule.tiles(w, cfg)
    with w.concept("k_tile"):
        w.code(f"ktiles = int32((K + {BKc - 1}) // {BKc})")
    with w.concept("sA"):
        w.comment("128-byte swizzle (TMA and GMMA B128): stages start 1024-aligned")
        w.code("sbase = uint32((uint32(smem_addr(smem, 0)) + uint32(1023)) & uint32(0xFFFFFC00))",
               call="smem_addr")
    with w.concept("mbarrier"):
        w.code(f"full0 = uint32(sbase + {S * SB + cfg.staging_bytes})  # full[s]: the stage's k-tile has landed")
        w.code(f"empty0 = uint32(full0 + {8 * S})  # empty[s]: the consumers it feeds are done with it")
        with w.block("if tid == 0:"):
            with w.block(f"for s in range({S}):"):
                w.code("mbarrier_init(full0 + 8 * s, 1)", call="mbarrier_init")
                w.code(f"mbarrier_init(empty0 + 8 * s, {1 if cfg.pingpong else cfg.consumers * cfg.cluster})",
                       call="mbarrier_init")
            if cfg.pingpong:
                w.comment("order[c]: the other consumer's main loop is done, consumer c's turn (one arrival)")
                w.code(f"mbarrier_init(empty0 + {8 * S}, 1)", call="mbarrier_init")
                w.code(f"mbarrier_init(empty0 + {8 * S + 8}, 1)", call="mbarrier_init")
            w.code("fence_mbarrier_init()", call="fence_mbarrier_init")
        schedule.meet(w, cfg)

    def tile_coords():
        schedule.tile_coords(w, cfg)

    @contextlib.contextmanager
    def units(first=schedule.first_tile(cfg), step=(f"tile += {schedule.tile_step(cfg)}",), also=()):
        """The persistent loop over this CTA's tiles (or stream-K units) with each tile's coordinates;
        ``step``: the statements that move to the next tile, ``also``: more state set up beside ``tile``."""
        if cfg.stream_k:
            with streamk.loop(w, cfg):
                streamk.unit(w, cfg)
                tile_coords()
                yield
            return
        w.code(f"tile = {first}")
        for line in also:
            w.code(line)
        with w.block("while tile < ntiles:"):
            tile_coords()
            yield
            for line in step:
                w.code(line)

    with w.block("if wg == 0:"):
        if cfg.setmaxnreg:
            w.code(f"setmaxnreg_dec_{cfg.setmaxnreg[0]}()", call=f"setmaxnreg_dec_{cfg.setmaxnreg[0]}")
        w.comment("the producer: one thread asks the TMA unit for each k-tile")
        with w.block("if tid == 0:"):
            with w.concept("k_pipe"):
                w.code("stage = int32(0)")
                w.code("phase = uint32(0)")
            with units():
                with w.in_phase("mainloop"), w.block(f"for kt in {streamk.k_range(cfg)[0]}:", cute="k_tile"):
                    with w.concept("mbarrier"):
                        w.comment("wait until the consumers freed the stage (parity 1 passes at once the first time)")
                        with w.block("while mbarrier_try_wait(empty0 + 8 * stage, phase ^ uint32(1)) == 0:",
                                     call="mbarrier_try_wait"):
                            w.code("pass")
                        w.code("fb = uint32(full0 + 8 * stage)")
                        w.code(f"mbarrier_arrive_expect_tx(fb, {SB})", call="mbarrier_arrive_expect_tx")
                    with w.concept("copy"):
                        w.code(f"sa = uint32(sbase + stage * {SB})")
                        w.code(f"tma_load_2d(sa, maps, 0, int32(kt * {BKc}), m0, fb)", call="tma_load_2d")
                        schedule.load_b(w, cfg, f"int32(kt * {BKc})")
                    with w.concept("k_pipe"):
                        w.code("stage += 1")
                        with w.block(f"if stage == {S}:"):
                            w.code("stage = 0")
                            w.code("phase ^= uint32(1)")
            schedule.producer_tail(w, cfg, S)
    with w.block("else:"):
        if cfg.setmaxnreg:
            w.code(f"setmaxnreg_inc_{cfg.setmaxnreg[1]}()", call=f"setmaxnreg_inc_{cfg.setmaxnreg[1]}")
        MB = _m_blocks(cfg)
        accs = ["part"] if cfg.block_scales else [f"acc{m}" if MB > 1 else "acc" for m in range(MB)]
        if cfg.pingpong:
            w.comment(f"a consumer warpgroup: every other tile of the CTA, all {cfg.bm} rows "
                      f"({MB} x m64n{cfg.bn}k16 a k-slice); while it stores one tile the other computes")
        else:
            w.comment(f"a consumer warpgroup: rows 64c .. 64c+63 of the tile, m64n{cfg.bn}k16 from shared memory")
        w.lines(f"""
            c = int32(wg - 1)
            t = int32(tid % {WARPGROUP})
            warp = int32(t // 32)
            lane = int32(t % 32)
            a_off = uint32({0 if cfg.pingpong else "c * " + str(64 * 128)})
        """)
        with w.concept("k_pipe"):
            w.code("stage = int32(0)")
            w.code("phase = uint32(0)")
            w.code("prev = int32(0)")
        held = cfg.overlap_store
        if held:
            epilogue.hold_init(w, cfg)
            w.code(f"{accs[0]} = {W['zeros']}({R})", call=W["zeros"], op=NO_INSTRUCTION, cute="tCrC")
        loop = units("int32(cuda.blockIdx.x + c * cuda.gridDim.x)", ("tile += int32(2 * cuda.gridDim.x)", "seq += 2"),
                     ("seq = int32(c)",)) if cfg.pingpong else units()
        with loop:
            if cfg.pingpong:
                with w.concept("k_pipe"):
                    w.comment("the producer fills the stages tile after tile: this tile's first k-tile is "
                              "k-tile seq * ktiles of the CTA's stream")
                    w.code("pos = int32(seq * ktiles)")
                    w.code(f"stage = int32(pos % {S})")
                    w.code(f"phase = uint32((pos // {S}) & 1)")
            for acc in ([] if held else accs) + (["total"] if cfg.block_scales else []):
                w.code(f"{acc} = {W['zeros']}({R})", call=W["zeros"], op=NO_INSTRUCTION, cute="tCrC")
            if cfg.block_scales:
                block_scales.rows(w)
            if cfg.pingpong:
                with w.concept("mbarrier"):
                    w.comment("wait for this consumer's turn: the other's previous main loop has been issued "
                              "(so the stages this tile reads are at most one round ahead: parities cannot alias)")
                    w.code("turn = uint32(((seq // 2) & 1) ^ (1 - c))")
                    with w.block(f"while mbarrier_try_wait(empty0 + {8 * S} + 8 * c, turn) == 0:",
                                 call="mbarrier_try_wait"):
                        w.code("pass")
            kts, k0 = streamk.k_range(cfg)
            with w.in_phase("mainloop"), w.block(f"for kt in {kts}:", cute="k_tile"):
                with w.concept("wait_stage"):
                    with w.block("while mbarrier_try_wait(full0 + 8 * stage, phase) == 0:",
                                 call="mbarrier_try_wait"):
                        w.code("pass")
                with w.concept("gemm"):
                    w.code(f"sa = uint32(sbase + stage * {SB})")
                    for m in range(MB):
                        at = "sa + a_off" + (f" + {64 * 128 * m}" if m else "")
                        w.code(f"da{m if MB > 1 else ''} = uint64(uint64(({at}) >> 4) | uint64({base:#x}))")
                    w.code(f"db = uint64(uint64((sa + {AB}) >> 4) | uint64({base:#x}))")
                    w.code(f"{W['fence']}()", call=W["fence"])
                    for k, d in enumerate(steps):
                        off = f" + uint64({d})" if d else ""
                        for m, acc in enumerate(accs):
                            da = f"da{m if MB > 1 else ''}"
                            # k16 step 0 starts afresh (D = A B): every k-tile's partial with block scales,
                            # a tile's first k-tile where the accumulators are not zeroed
                            scale_d = (0 if cfg.block_scales else "int32(kt > 0)" if held else 1) if k == 0 else 1
                            w.code(f"{acc} = {mma}({da}{off}, db{off}, {acc}, {scale_d}, {imm})", call=mma,
                                   repeat="mma")
                    w.code(f"{W['commit']}()", call=W["commit"])
                    if held:
                        with w.in_phase("epilogue"):
                            epilogue.store_held(w, cfg, "kt == 0 and holding != 0")
                    if cfg.block_scales:
                        block_scales.load(w)
                    w.code(f"{W['wait']}({0 if cfg.block_scales else 1})", call=W["wait"])
                if cfg.block_scales:
                    block_scales.promote(w, R)                 # frees this k-tile's stage itself
                else:
                    with w.concept("mbarrier"):
                        w.comment("the previous k-tile's MMAs are complete: free its stage")
                        schedule.release(w, cfg, "prev", f"kt > {k0}")
                with w.concept("k_pipe"):
                    if not cfg.block_scales:
                        w.code("prev = stage")
                    w.code("stage += 1")
                    with w.block(f"if stage == {S}:"):
                        w.code("stage = 0")
                        w.code("phase ^= uint32(1)")
            if cfg.pingpong:
                with w.concept("mbarrier"):
                    w.comment("hand the tensor cores to the other consumer; this one goes on to its epilogue")
                    with w.block("if t == 0:"):
                        w.code(f"mbarrier_arrive(empty0 + {8 * S} + 8 * (1 - c))", call="mbarrier_arrive")
            with w.in_phase("epilogue"):
                if cfg.block_scales:
                    epilogue.store_c(w, cfg, "total", "64 * c")
                else:
                    w.code(f"{W['wait']}(0)", call=W["wait"])
                    schedule.release(w, cfg, "prev", "ke > kb" if cfg.stream_k else "ktiles > 0")
                    for m, acc in enumerate(accs):
                        w.code(f"{acc} = {W['fence_operand']}({acc})", call=W["fence_operand"], op=NO_INSTRUCTION,
                               cute="tCrC")
                    if cfg.stream_k:
                        streamk.end(w, cfg, accs[0], lambda add: epilogue.store_c(w, cfg, accs[0], add=add))
                    if held:
                        epilogue.hold(w, cfg, accs[0])
                    for m, acc in enumerate(accs if not (cfg.stream_k or held) else ()):
                        epilogue.store_c(w, cfg, acc, f"{64 * m}" if cfg.pingpong else "64 * c")
        if held:
            with w.in_phase("epilogue"):
                epilogue.store_held(w, cfg)
        epilogue.drain(w, cfg)
    return tuple(w.statements)


def _m_blocks(cfg):
    """m64 blocks a consumer warpgroup computes per tile: 1, or all of them in ping-pong."""
    return cfg.bm // 64 if cfg.pingpong else 1


def source(config=DEFAULT, name="gemm_wgmma"):
    """The generated Python source of the kernel."""
    return render(statements(_pick(config), name))


def kernel_config(config=DEFAULT):
    """(WgmmaConfig, kernel name) of the step."""
    return _pick(config), "gemm_wgmma"


def namespace(cfg):
    """What the generated source refers to: numba's types, ``cuda``, ``min``, the GEMM PTX
    (:mod:`gemm_ptx`), ``smem_addr`` and the wgmma intrinsics of ``labkit.cuda.ptx``."""
    from numba import cuda

    from labkit.cuda import _numba, ptx
    from labkit.cuda.kernels.ladder import gemm_ptx

    scope = {"cuda": cuda, "min": min, "max": max, "smem_addr": ptx.smem_addr}
    scope.update({t: getattr(_numba.types, t) for t in ("uint16", "uint32", "uint64", "int32", "float32")})
    scope.update({n: getattr(gemm_ptx, n) for n in _GEMM_PTX_CALLS})
    if cfg.cluster > 1:
        from labkit.cuda.kernels.ladder import gemm_cluster

        scope.update({n: getattr(gemm_cluster, n) for n in _CLUSTER_CALLS})
    for key, n in WGMMA_CALLS.items():
        n = _mma_name(cfg) if key == "mma" else n
        scope[n] = getattr(ptx, n)
    scope.update({n: getattr(ptx, n) for n in ("fence_proxy_async_shared_cta", "stmatrix_x4", "wgmma_zeros_u32")})
    if cfg.setmaxnreg:
        scope.update(gemm_ptx.setmaxnreg_calls(*cfg.setmaxnreg))
    if cfg.stream_k:
        scope.update(red_release_gpu=streamk.red_release_gpu, ld_acquire_gpu=streamk.ld_acquire_gpu)
    return scope


def program(cfg, name="gemm_wgmma"):
    """The :class:`~labkit.cuda.program.KernelProgram` of the kernel: its rendered statements over
    :func:`namespace`."""
    from labkit.cuda.program import KernelProgram

    sts = statements(cfg, name)
    return KernelProgram(name, render(sts), namespace(cfg), statements=sts,
                         label=f"gemm {name} {cfg.bm}x{cfg.bn}x{cfg.bk}s{cfg.stages}")


@functools.lru_cache(maxsize=None)
def build_kernel(cfg, name="gemm_wgmma"):
    """The compiled-on-first-launch kernel (a :class:`labkit.cuda.launch.Kernel`: it refuses a
    device without sm_90a before each launch)."""
    return program(cfg, name).kernel(min_sm=90, fastmath=True, lineinfo=False, max_registers=cfg.max_registers)


def signature(cfg=None):
    """numba argument types of the kernel: C (f32, 1-D; for f16 or bf16 C its 32-bit words), M, N, K,
    the tensor maps (uint64, 1-D), and ``alpha`` (f32) when the configuration is scaled."""
    from labkit.cuda import _numba

    cfg = cfg or CONFIGS[DEFAULT]
    t = _numba.types
    c = t.float32 if cfg.c == "f32" else t.uint32
    args = (t.Array(c, 1, "C"), t.int32, t.int32, t.int32, t.Array(t.uint64, 1, "C"))
    scales = (t.Array(t.float32, 1, "C"),) * 2 if cfg.block_scales else ()
    sk = (t.Array(t.float32, 1, "C"), t.Array(t.uint32, 1, "C")) if cfg.stream_k else ()
    return args + ((t.float32,) if cfg.scaled else ()) + scales + sk


def _require_sm90a(sm, acc):
    from labkit.cuda import ptx

    if acc != "f32":
        raise DeviceError(f"acc: step 'wgmma' accumulates in f32 (wgmma m64nNk16 f32.f16.f16); got {acc!r}")
    if ptx.SIMULATED:
        raise DeviceError("step 'wgmma' does not run under the CUDA simulator: wgmma has no simulator twin "
                          "(it runs only on an sm_90a GPU: H100, H200)")
    require_sm(WGMMA_CALLS["mma"].format(n=64), check_sm(sm))     # the one arch check: sm_90a


def launch(A, B, C, acc, sm, config=DEFAULT, alpha=1.0, scales=None):
    """Check the operands and return a no-argument function that launches the kernel once
    (grid: one CTA per SM, at most one per tile). ``alpha`` scales C in a scaled configuration
    (the product of A's and B's per-tensor scales) and must stay 1.0 otherwise. A block-scaled
    configuration takes ``scales = (scale_a, scale_b)``: float32 device arrays of
    ``M x ceil(K/128)`` (A's 1 x 128 blocks) and ``ceil(N/128) x ceil(K/128)`` (B's 128 x 128)."""
    cfg = _pick(config)
    _require_sm90a(sm, acc)
    ab, cd = operand_dtypes(cfg)
    if C is None:
        raise DeviceError("C: step 'wgmma' needs C, a device array (M, N) of " + str(cd))
    M, N, K = check_operands(STEP, A, B, C, acc, sm, **dict(RULES, k_multiple=16 // ab.itemsize),
                             ab_dtype=ab, c_dtype=cd)
    if N % 2:
        raise DeviceError(f"N: step 'wgmma' stores C two elements at a time, so N must be even; got N={N}")
    if cfg.epilogue == "tma" and N % 8:
        raise DeviceError(f"N: the TMA-store epilogue needs rows of C in 16-byte multiples (N % 8 == 0); got N={N}")
    if not cfg.scaled and alpha != 1.0:
        raise DeviceError(f"alpha: configuration {config!r} is not scaled (scaled=False); got alpha={alpha!r}")
    scale_args = block_scales.arguments(cfg, scales, M, N, K)
    from numba import cuda

    from labkit.cuda.kernels.ladder.gemm_tma_maps import tensor_maps

    kernel = build_kernel(cfg)
    kernel.check()
    A1, B1, C1 = A.reshape(M * K), B.reshape(N * K), C.reshape(M * N)
    if cfg.c != "f32":
        C1 = C1.view(np.uint32)                      # two 16-bit elements a word
    maps = tensor_maps(cfg, A1, B1, M, N, K, C=C.reshape(M * N) if cfg.epilogue == "tma" else None)
    args = (C1, np.int32(M), np.int32(N), np.int32(K), maps) + ((np.float32(alpha),) if cfg.scaled else ()) \
        + scale_args
    compiled = kernel.dispatcher.compile(signature(cfg))
    smem = cfg.smem_bytes()
    set_dynamic_shared(kernel.dispatcher, smem)
    sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
    keep = (A, B, C1, maps, scale_args)  # the tensor maps point into A and B: keep them alive with the launch
    from labkit.cuda import _numba

    C_ = cfg.cluster
    tiles = ceil_div(ceil_div(M, cfg.bm), C_) * ceil_div(N, cfg.bn)      # tiles of one CTA, or cluster
    fits = (_numba.max_active_clusters(compiled, cfg.threads, smem, C_) or sms // C_) if C_ > 1 else sms
    grid = C_ * min(fits, tiles)
    if cfg.stream_k:       # the partial sums' workspace and its flags, all 0: each reader sets its flag back
        sk = (cuda.device_array(streamk.workspace_words(cfg, grid), np.float32),
              cuda.to_device(np.zeros(grid * cfg.consumers, np.uint32)))
        args, keep = args + sk, keep + sk
    go = _numba.prepared_launch(compiled, grid, cfg.threads, smem, args, C_)

    def run():
        go()
        return keep

    return run


def check(M, N, K, acc="f32", sm=None, seed=None, config=DEFAULT):
    """Run ``config`` on fresh operands of its element types; ``(relative error, bound)``
    (:mod:`~labkit.cuda.kernels.ladder.gemm_wgmma_check`)."""
    from labkit.cuda.kernels.ladder.gemm_wgmma_check import check as run

    _require_sm90a(90 if sm is None else sm, acc)
    return run(M, N, K, config, sm=sm, seed=seed)


def ptx_text(config=DEFAULT, name="gemm_wgmma"):
    """The kernel's PTX for sm_90a, compiled without a GPU (``numba.cuda.compile_ptx``)."""
    cfg = _pick(config)
    return program(cfg, name).compile_ptx(signature(cfg), cc=(9, 0, "a"), fastmath=True)


def kernel_report(acc="f32", sm=90, sass_path=None, config=DEFAULT):
    """Registers, spills, shared memory and SASS mix of the compiled kernel (it must have been
    launched once). ``per_ktile`` counts one consumer warp's k-tile of the main loop (the loop
    with the most ``HGMMA``), with ``UTMALDG`` from the producer's loop."""
    from labkit.cuda.kernels.ladder.gemm_wgmma_report import kernel_report as report

    cfg = _pick(config)
    return report(build_kernel(cfg).dispatcher, cfg, K16_STEPS * _m_blocks(cfg), sass_path)
