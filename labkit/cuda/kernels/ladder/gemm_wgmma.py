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
  8-byte stores), while the producer already fetches the next tile's first k-tiles.

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

import functools
from dataclasses import dataclass

import numpy as np

from labkit.atoms.instructions import WARPGROUP, require_sm
from labkit.cuda.kernels.ladder.gemm_common import ceil_div, check_operands, set_dynamic_shared
from labkit.cuda.kernels.ladder.gemm_config import check_sm
from labkit.cuda.kernels.ladder.gemm_statements import NO_INSTRUCTION, Writer, render
from labkit.errors import ConfigError, DeviceError, InstructionError

__all__ = ["STEP", "WgmmaConfig", "CONFIGS", "DEFAULT", "RULES", "k_descriptors", "statements",
           "source", "launch", "kernel_config", "kernel_report", "WGMMA_CALLS"]

STEP = "wgmma"
BK = 64                    # one 128-byte swizzled row of f16
K16_STEPS = BK // 16       # wgmma k16 instructions per k-tile


@dataclass(frozen=True)
class WgmmaConfig:
    """A CTA tile of ``consumers`` warpgroups, each ``m64 x bn`` (one wgmma m64nBNk16 per k16),
    ``stages`` shared-memory stages of ``bm x 64`` A and ``bn x 64`` B, one producer warpgroup.
    ``group_m``: tile rows per raster group (L2 reuse); ``max_registers``: the cap ptxas gets;
    ``setmaxnreg``: (producer, consumer) registers after ``setmaxnreg`` (None: not used)."""

    consumers: int = 2
    bn: int = 256
    stages: int = 4
    group_m: int = 8
    max_registers: int = 168
    setmaxnreg: tuple | None = None

    @property
    def bm(self):
        return 64 * self.consumers

    @property
    def bk(self):
        return BK

    @property
    def threads(self):
        return WARPGROUP * (1 + self.consumers)

    @property
    def a_bytes(self):
        return self.bm * BK * 2

    @property
    def stage_bytes(self):
        return (self.bm + self.bn) * BK * 2

    def smem_bytes(self, sm=90):
        """Dynamic shared memory: the stages, two mbarriers a stage, 1024 bytes of alignment slack."""
        return self.stages * self.stage_bytes + 16 * self.stages + 1024


CONFIGS = {
    "128x256x64s4": WgmmaConfig(),
    "128x256x64s4r": WgmmaConfig(setmaxnreg=(40, 232)),
    "128x256x64s3": WgmmaConfig(stages=3),
    "128x128x64s6": WgmmaConfig(bn=128, stages=6),
}
DEFAULT = "128x256x64s4"
#: sm_90 and more (sm_90a is checked at launch); K % 8 == 0 (TMA row pitch), 16-byte pointers
RULES = dict(min_sm=90, k_multiple=8, align_bytes=16)

#: the wgmma names the kernel calls (``labkit.cuda.ptx``), in one place
WGMMA_CALLS = {"fence": "wgmma_fence", "commit": "wgmma_commit_group", "wait": "wgmma_wait_group",
               "zeros": "wgmma_zeros", "fence_operand": "wgmma_fence_operand",
               "mma": "SM90_64x{n}x16_F32F16F16_SS"}     # the CuTe atom; its registry entry names the intrinsic
_GEMM_PTX_CALLS = ("mbarrier_init", "fence_mbarrier_init", "mbarrier_arrive_expect_tx", "mbarrier_arrive",
                   "mbarrier_try_wait", "tma_load_2d", "st_global_v2_f32")


def k_descriptors(cfg):
    """The 64-bit wgmma descriptors (start address 0) of the k-tile's four k16 slices: the k-blocks
    of ``make_fragment_A`` of stage 0's ``sA``, consumer 0 (:mod:`gemm_wgmma_operands`); B's at
    address 0 are the same (K-major, B128, SBO 1024 bytes)."""
    from labkit.cuda.kernels.ladder.gemm_wgmma_operands import kernel_descriptors

    base, steps = kernel_descriptors(cfg)
    return [base + s for s in steps]


def _mma_name(cfg):
    from labkit.atoms.instructions import instruction

    return instruction(WGMMA_CALLS["mma"].format(n=cfg.bn)).name


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
    W = WGMMA_CALLS
    w = Writer()
    w.header(f"def {name}(C, M, N, K, maps):")
    w.doc(f'"""{cfg.bm}x{cfg.bn}x{BK} CTA tile, {cfg.consumers} consumer warpgroups of m64n{cfg.bn}, '
          f'one TMA producer warpgroup, {S} stages, f32 accumulate."""')
    with w.concept("sA"):
        w.code("smem = cuda.shared.array(0, uint16)")
    w.lines(f"""
        tid = int32(cuda.threadIdx.x)
        wg = int32(tid // {WARPGROUP})
        tiles_m = int32((M + {cfg.bm - 1}) // {cfg.bm})
        tiles_n = int32((N + {cfg.bn - 1}) // {cfg.bn})
        ntiles = int32(tiles_m * tiles_n)
        per_group = int32({cfg.group_m} * tiles_n)
    """)
    with w.concept("k_tile"):
        w.code(f"ktiles = int32((K + {BK - 1}) // {BK})")
    with w.concept("sA"):
        w.comment("128-byte swizzle (TMA and GMMA B128): stages start 1024-aligned")
        w.code("sbase = uint32((uint32(smem_addr(smem, 0)) + uint32(1023)) & uint32(0xFFFFFC00))",
               call="smem_addr")
    with w.concept("mbarrier"):
        w.code(f"full0 = uint32(sbase + {S * SB})  # full[s]: the stage's k-tile has landed")
        w.code(f"empty0 = uint32(full0 + {8 * S})  # empty[s]: both consumers are done with it")
        with w.block("if tid == 0:"):
            with w.block(f"for s in range({S}):"):
                w.code("mbarrier_init(full0 + 8 * s, 1)", call="mbarrier_init")
                w.code(f"mbarrier_init(empty0 + 8 * s, {cfg.consumers})", call="mbarrier_init")
            w.code("fence_mbarrier_init()", call="fence_mbarrier_init")
        w.code("cuda.syncthreads()", call="cuda.syncthreads")

    def tile_coords():
        w.code("first_m = int32((tile // per_group) * " + str(cfg.group_m) + ")")
        w.code(f"rows_in_group = int32(min(tiles_m - first_m, {cfg.group_m}))")
        w.code(f"m0 = int32((first_m + (tile % per_group) % rows_in_group) * {cfg.bm})", cute="gA")
        w.code(f"n0 = int32(((tile % per_group) // rows_in_group) * {cfg.bn})", cute="gB")

    with w.block("if wg == 0:"):
        if cfg.setmaxnreg:
            w.code(f"setmaxnreg_dec_{cfg.setmaxnreg[0]}()", call=f"setmaxnreg_dec_{cfg.setmaxnreg[0]}")
        w.comment("the producer: one thread asks the TMA unit for each k-tile")
        with w.block("if tid == 0:"):
            with w.concept("k_pipe"):
                w.code("stage = int32(0)")
                w.code("phase = uint32(0)")
            w.code("tile = int32(cuda.blockIdx.x)")
            with w.block("while tile < ntiles:"):
                tile_coords()
                with w.in_phase("mainloop"), w.block("for kt in range(ktiles):", cute="k_tile"):
                    with w.concept("mbarrier"):
                        w.comment("wait until the consumers freed the stage (parity 1 passes at once the first time)")
                        with w.block("while mbarrier_try_wait(empty0 + 8 * stage, phase ^ uint32(1)) == 0:",
                                     call="mbarrier_try_wait"):
                            w.code("pass")
                        w.code("fb = uint32(full0 + 8 * stage)")
                        w.code(f"mbarrier_arrive_expect_tx(fb, {SB})", call="mbarrier_arrive_expect_tx")
                    with w.concept("copy"):
                        w.code(f"sa = uint32(sbase + stage * {SB})")
                        w.code(f"tma_load_2d(sa, maps, 0, int32(kt * {BK}), m0, fb)", call="tma_load_2d")
                        w.code(f"tma_load_2d(uint32(sa + {AB}), maps, 16, int32(kt * {BK}), n0, fb)",
                               call="tma_load_2d")
                    with w.concept("k_pipe"):
                        w.code("stage += 1")
                        with w.block(f"if stage == {S}:"):
                            w.code("stage = 0")
                            w.code("phase ^= uint32(1)")
                w.code("tile += int32(cuda.gridDim.x)")
    with w.block("else:"):
        if cfg.setmaxnreg:
            w.code(f"setmaxnreg_inc_{cfg.setmaxnreg[1]}()", call=f"setmaxnreg_inc_{cfg.setmaxnreg[1]}")
        w.comment(f"a consumer warpgroup: rows 64c .. 64c+63 of the tile, m64n{cfg.bn}k16 from shared memory")
        w.lines(f"""
            c = int32(wg - 1)
            t = int32(tid % {WARPGROUP})
            warp = int32(t // 32)
            lane = int32(t % 32)
            a_off = uint32(c * {64 * BK * 2})
        """)
        with w.concept("k_pipe"):
            w.code("stage = int32(0)")
            w.code("phase = uint32(0)")
            w.code("prev = int32(0)")
        w.code("tile = int32(cuda.blockIdx.x)")
        with w.block("while tile < ntiles:"):
            tile_coords()
            w.code(f"acc = {W['zeros']}({R})", call=W["zeros"], op=NO_INSTRUCTION, cute="tCrC")
            with w.in_phase("mainloop"), w.block("for kt in range(ktiles):", cute="k_tile"):
                with w.concept("wait_stage"):
                    with w.block("while mbarrier_try_wait(full0 + 8 * stage, phase) == 0:",
                                 call="mbarrier_try_wait"):
                        w.code("pass")
                with w.concept("gemm"):
                    w.code(f"sa = uint32(sbase + stage * {SB})")
                    w.code(f"da = uint64(uint64((sa + a_off) >> 4) | uint64({base:#x}))")
                    w.code(f"db = uint64(uint64((sa + {AB}) >> 4) | uint64({base:#x}))")
                    w.code(f"{W['fence']}()", call=W["fence"])
                    for k, d in enumerate(steps):
                        off = f" + uint64({d})" if d else ""
                        w.code(f"acc = {mma}(da{off}, db{off}, acc, 1, 1, 1, 0, 0)", call=mma, repeat="mma")
                    w.code(f"{W['commit']}()", call=W["commit"])
                    w.code(f"{W['wait']}(1)", call=W["wait"])
                with w.concept("mbarrier"):
                    w.comment("the previous k-tile's MMAs are complete: free its stage")
                    with w.block("if kt > 0 and t == 0:"):
                        w.code("mbarrier_arrive(empty0 + 8 * prev)", call="mbarrier_arrive")
                with w.concept("k_pipe"):
                    w.code("prev = stage")
                    w.code("stage += 1")
                    with w.block(f"if stage == {S}:"):
                        w.code("stage = 0")
                        w.code("phase ^= uint32(1)")
            with w.in_phase("epilogue"):
                w.code(f"{W['wait']}(0)", call=W["wait"])
                with w.block("if ktiles > 0 and t == 0:"):
                    w.code("mbarrier_arrive(empty0 + 8 * prev)", call="mbarrier_arrive",
                           cute="mbarrier")
                w.code(f"acc = {W['fence_operand']}(acc)", call=W["fence_operand"], op=NO_INSTRUCTION,
                       cute="tCrC")
                with w.concept("tCgC"):
                    w.comment("wgmma's D fragment: warp w holds rows 16w + lane/4 (+8), columns 8j + 2(lane%4) (+1)")
                    w.code("r0 = int32(m0 + 64 * c + 16 * warp + lane // 4)")
                    w.code("col = int32(n0 + 2 * (lane % 4))")
                    w.code("i0 = int32(r0 * N + col)")
                    w.code("i1 = int32(i0 + 8 * N)")
                with w.concept("axpby"):
                    with w.block(f"if m0 + {cfg.bm} <= M and n0 + {cfg.bn} <= N:"):
                        for j in range(cfg.bn // 8):
                            w.code(f"st_global_v2_f32(C, i0 + {8 * j}, acc[{4 * j}], acc[{4 * j + 1}])",
                                   call="st_global_v2_f32", repeat="st0")
                            w.code(f"st_global_v2_f32(C, i1 + {8 * j}, acc[{4 * j + 2}], acc[{4 * j + 3}])",
                                   call="st_global_v2_f32", repeat="st0")
                    with w.block("else:", cute="residue"):
                        w.code("ok0 = r0 < M", cute="residue")
                        w.code("ok1 = r0 + 8 < M", cute="residue")
                        for j in range(cfg.bn // 8):
                            with w.block(f"if col + {8 * j} < N:", cute="residue"):
                                with w.block("if ok0:", cute="residue"):
                                    w.code(f"st_global_v2_f32(C, i0 + {8 * j}, acc[{4 * j}], acc[{4 * j + 1}])",
                                           call="st_global_v2_f32")
                                with w.block("if ok1:", cute="residue"):
                                    w.code(f"st_global_v2_f32(C, i1 + {8 * j}, acc[{4 * j + 2}], acc[{4 * j + 3}])",
                                           call="st_global_v2_f32")
            w.code("tile += int32(cuda.gridDim.x)")
    return tuple(w.statements)


def _pick(config):
    if isinstance(config, WgmmaConfig):
        return config
    if config not in CONFIGS:
        raise ConfigError(f"config: must be a WgmmaConfig or one of {sorted(CONFIGS)}, got {config!r}")
    return CONFIGS[config]


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
    for key, n in WGMMA_CALLS.items():
        n = _mma_name(cfg) if key == "mma" else n
        scope[n] = getattr(ptx, n)
    if cfg.setmaxnreg:
        scope.update(gemm_ptx.setmaxnreg_calls(*cfg.setmaxnreg))
    return scope


def program(cfg, name="gemm_wgmma"):
    """The :class:`~labkit.cuda.program.KernelProgram` of the kernel: its rendered statements over
    :func:`namespace`."""
    from labkit.cuda.program import KernelProgram

    sts = statements(cfg, name)
    return KernelProgram(name, render(sts), namespace(cfg), statements=sts,
                         label=f"gemm {name} {cfg.bm}x{cfg.bn}x{BK}s{cfg.stages}")


@functools.lru_cache(maxsize=None)
def build_kernel(cfg, name="gemm_wgmma"):
    """The compiled-on-first-launch kernel (a :class:`labkit.cuda.launch.Kernel`: it refuses a
    device without sm_90a before each launch)."""
    return program(cfg, name).kernel(min_sm=90, fastmath=True, lineinfo=False, max_registers=cfg.max_registers)


def signature():
    """numba argument types of the kernel: C (f32, 1-D), M, N, K, the tensor maps (uint64, 1-D)."""
    from labkit.cuda import _numba

    t = _numba.types
    return (t.Array(t.float32, 1, "C"), t.int32, t.int32, t.int32, t.Array(t.uint64, 1, "C"))


def _require_sm90a(sm, acc):
    from labkit.cuda import ptx

    if acc != "f32":
        raise DeviceError(f"acc: step 'wgmma' accumulates in f32 (wgmma m64nNk16 f32.f16.f16); got {acc!r}")
    if ptx.SIMULATED:
        raise DeviceError("step 'wgmma' does not run under the CUDA simulator: wgmma has no simulator twin "
                          "(it runs only on an sm_90a GPU: H100, H200)")
    require_sm(WGMMA_CALLS["mma"].format(n=64), check_sm(sm))     # the one arch check: sm_90a


def launch(A, B, C, acc, sm, config=DEFAULT):
    """Check the operands and return a no-argument function that launches the kernel once
    (grid: one CTA per SM, at most one per tile)."""
    cfg = _pick(config)
    _require_sm90a(sm, acc)
    M, N, K = check_operands(STEP, A, B, C, acc, sm, **RULES)
    if N % 2:
        raise DeviceError(f"N: step 'wgmma' stores C two f32 at a time (8-byte stores), so N must be even; got N={N}")
    from numba import cuda

    from labkit.cuda.kernels.ladder.gemm_tma_maps import tensor_maps

    kernel = build_kernel(cfg)
    kernel.check()
    A1, B1, C1 = A.reshape(M * K), B.reshape(N * K), C.reshape(M * N)
    maps = tensor_maps(cfg, A1, B1, M, N, K)
    args = (C1, np.int32(M), np.int32(N), np.int32(K), maps)
    kernel.dispatcher.compile(signature())
    smem = cfg.smem_bytes()
    set_dynamic_shared(kernel.dispatcher, smem)
    sms = cuda.get_current_device().MULTIPROCESSOR_COUNT
    grid = min(sms, ceil_div(M, cfg.bm) * ceil_div(N, cfg.bn))
    configured = kernel.dispatcher[(grid,), (cfg.threads,), 0, smem]
    keep = (A, B, maps)  # the tensor maps point into A and B: keep them alive with the launch

    def run():
        configured(*args)
        return keep

    return run


def ptx_text(config=DEFAULT, name="gemm_wgmma"):
    """The kernel's PTX for sm_90a, compiled without a GPU (``numba.cuda.compile_ptx``)."""
    return program(_pick(config), name).compile_ptx(signature(), cc=(9, 0, "a"), fastmath=True)


def kernel_report(acc="f32", sm=90, sass_path=None, config=DEFAULT):
    """Registers, spills, shared memory and SASS mix of the compiled kernel (it must have been
    launched once). ``per_ktile`` counts one consumer warp's k-tile of the main loop (the loop
    with the most ``HGMMA``), with ``UTMALDG`` from the producer's loop."""
    from labkit.cuda.kernels.ladder import gemm_sass

    cfg = _pick(config)
    kernel = build_kernel(cfg).dispatcher
    if not kernel.overloads:
        raise DeviceError("kernel: gemm_wgmma has not been compiled yet; launch it first")

    def one(v):
        return next(iter(v.values())) if isinstance(v, dict) else v

    regs = one(kernel.get_regs_per_thread())
    report = dict(regs=regs, local_bytes=one(kernel.get_local_mem_per_thread()),
                  static_smem=one(kernel.get_shared_mem_per_block()), dynamic_smem=cfg.smem_bytes(),
                  threads=cfg.threads, mix={}, per_ktile={}, sass="", sass_from="")
    report["ctas_per_sm"] = gemm_sass.ctas_per_sm(regs, cfg.threads, cfg.smem_bytes() + report["static_smem"], 90)
    try:
        sass = one(kernel.inspect_sass())
        report["sass_from"] = "inspect_sass (nvdisasm)"
    except Exception:
        sass = ""
    if sass:
        report["sass"] = sass
        report["mix"] = dict(gemm_sass.instruction_mix(sass))
        report["per_ktile"] = gemm_sass.wgmma_ktile_mix(sass, K16_STEPS)
        if sass_path:
            with open(sass_path, "w") as out:
                out.write(sass)
    return report
