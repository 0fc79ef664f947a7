"""The tensor-core GEMM kernels of the ladder (steps 3-6), written out as tagged statements.

:func:`statements` writes the numba kernel of one :class:`~labkit.cuda.kernels.ladder.gemm_config.TileConfig`,
accumulator and SM as a list of :class:`~labkit.cuda.kernels.ladder.gemm_statements.Statement`, every
register a named local variable: the MMA loops are unrolled in the source itself, so no
accumulator or fragment ever lives in an array (which would put it in local memory) and every
shared-memory offset in the inner loop is a constant. Each statement says which intrinsic it
calls (:data:`INTRINSICS`: the PTX instruction it issues), which CuTe concept it implements and
in which phase of the kernel it sits; :func:`kernel_source` renders the text. Print it to read
the whole warp program.

Shared memory holds, per stage, the A tile then the B tile, laid out by
``gemm_layout.smem_layout`` (row-major, ``Swizzle<b,3,3>``, or the TMA's 128-byte swizzle) and
addressed through its closed form ``smem_offset``; the lanes' ldmatrix rows come from
``gemm_layout.ldmatrix_lanes``, and every constant row step in the unrolled loops is the layout's
offset, checked to be a translation. With ``loader="tma"`` (step 6, sm_90) one thread fills each
stage with two Tensor Memory Accelerator boxes and an mbarrier per stage counts the bytes in.

Edges cost nothing in the main loop: rows of A (B) past M (N) are read from the last row
instead (their products only reach rows or columns of C that are never stored), and the
k-tiles start at column ``K - ktiles*bk <= 0``, so only the first one can be partial; its
columns below 0 are zero-filled (``cp.async`` with a source size of 0).

>>> from labkit.cuda.kernels.ladder.gemm_config import TileConfig
>>> cfg = TileConfig(bm=64, bn=64, bk=64, warps_m=2, warps_n=2, stages=1, swizzle=False,
...                  double_buffer=False)
>>> st = statements(cfg, "f32", 80)
>>> sum(s.op == "mma" for s in st), sum(s.op == "ldmatrix" for s in st)
(32, 16)
>>> kernel_source(cfg, "f32", 80).count("mma_m16n8k16_f32f16f16f32(")
32
"""

from __future__ import annotations

from labkit.atoms.instructions import require_sm
from labkit.cuda.kernels.ladder.gemm_config import check_sm
from labkit.cuda.kernels.ladder.gemm_layout import lane_expr, layout_offset, ldmatrix_lanes, tile_layout
from labkit.cuda.kernels.ladder.gemm_statements import BARRIER, Writer, op_of, render
from labkit.errors import ConfigError, DeviceError

__all__ = ["INTRINSICS", "TYPES", "mma_name", "statements", "kernel_source"]

#: every intrinsic a generated kernel calls -> the PTX operation it issues, as counted (the registry's
#: ``Instruction.op``, which also gives its minimum SM); ``cuda.syncthreads`` is numba's ``bar.sync``
INTRINSICS = {name: op_of(name) for name in (
    "smem_addr", "ldmatrix_x4", "mma_m16n8k16_f32f16f16f32", "mma_m16n8k16_f16f16f16f16", "mma_m16n8k8_f32f16f16f32",
    "mma_m16n8k8_f16f16f16f16", "cp_async_16", "cp_async_cg_16", "cp_async_cg_16_zfill", "cp_async_commit_group",
    "cp_async_wait_group", "ld_global_v4", "st_shared_v4", "st_global_u32", "st_global_v2_f32", "mbarrier_init",
    "fence_mbarrier_init", "mbarrier_arrive_expect_tx", "mbarrier_try_wait", "tma_load_2d", BARRIER)}
#: the scalar types a generated kernel converts to (numba's, by these names)
TYPES = ("uint16", "uint32", "int32", "float32")
_SMEM_WORDS = {"plain": "row-major", "swizzle": "swizzled", "tma": "swizzled", "custom": "its own layout of"}
_BARRIER = BARRIER


def mma_name(acc, sm):
    """``(intrinsic, k)`` of the MMA the kernels issue: m16n8k16 on sm_80+, m16n8k8 on sm_75.

    >>> mma_name("f16", 75)
    ('mma_m16n8k8_f16f16f16f16', 8)
    """
    if check_sm(sm) >= 80:
        return ("mma_m16n8k16_f32f16f16f32" if acc == "f32" else "mma_m16n8k16_f16f16f16f16"), 16
    return ("mma_m16n8k8_f32f16f16f32" if acc == "f32" else "mma_m16n8k8_f16f16f16f16"), 8


class _Kernel(Writer):
    def call(self, text, call, **tags):
        """A statement that calls intrinsic ``call`` (its PTX instruction from :data:`INTRINSICS`)."""
        self.code(text, call=call, **tags)

    def sync(self, comment="", **tags):
        self.call("cuda.syncthreads()" + (f"  # {comment}" if comment else ""), _BARRIER, **tags)


def statements(cfg, acc, sm, name="gemm_tc", static_smem=False):
    """The tagged statements of the kernel ``name(A, B, C, M, N, K)`` for ``cfg``, ``acc``, ``sm``.

    A, B and C come flattened (1-D views of the row-major (M, K), (N, K) and (M, N) arrays);
    C is float32 for ``acc="f32"``, uint16 (the bits of float16) for ``acc="f16"``. Shared
    memory is dynamic (sized at launch), or a static array with ``static_smem=True`` (used under
    the simulator, where a static array is one object that outlives every thread of the block).
    """
    sm = check_sm(sm)
    if acc not in ("f32", "f16"):
        raise DeviceError(f"acc: must be 'f32' or 'f16', got {acc!r}")
    bm, bn, bk = cfg.bm, cfg.bn, cfg.bk
    wtm, wtn = cfg.warp_tile
    MI, NI = cfg.atoms
    KK = bk // 16
    T = cfg.threads
    stages = cfg.stages_for(sm)
    dbuf = cfg.double_buffer_for(sm)
    SB = cfg.stage_bytes()
    B_OFF = 2 * cfg.tile_elements(bm)  # bytes from a stage's A tile to its B tile
    chunks = bk // 8  # 16-byte chunks per row
    rpp = T // chunks  # rows one copy pass covers
    PA, PB = bm // rpp, bn // rpp
    mma, mma_k = mma_name(acc, sm)
    tma = cfg.loader == "tma"
    if tma and sm < 90:
        raise DeviceError(f"sm: loader='tma' needs sm_90 (TMA, mbarrier transactions), got sm_{sm}")
    kind = cfg.smem_kind
    offset = layout_offset(tile_layout(cfg))
    a_lane, b_lane = ldmatrix_lanes("A"), ldmatrix_lanes("B")

    def row_shift(rows, span):
        """Elements from row r to row r + rows, the same for every r < span and column."""
        d = offset(rows, 0) - offset(0, 0)
        if any(offset(r + rows, k) - offset(r, k) != d for r in range(span) for k in range(bk)):
            raise ConfigError(f"config: the {kind} layout is not a translation by {rows} rows ({cfg})")
        return d

    w = _Kernel()
    w.header(f"def {name}(A, B, C, M, N, K{', maps' if tma else ''}):")
    w.doc(f'"""{bm}x{bn}x{bk} CTA tile, {cfg.warps_m}x{cfg.warps_n} warps of {wtm}x{wtn}, '
          f'{stages} stage(s), {_SMEM_WORDS[kind]} shared memory, '
          f'{mma} ({acc} accumulate)."""')
    with w.concept("sA"):
        w.code(f"smem = cuda.shared.array({cfg.smem_bytes(sm) // 2 if static_smem else 0}, uint16)")
    w.lines(f"""
        # index arithmetic is held in int32/uint32 variables (numba would otherwise use int64)
        tid = int32(cuda.threadIdx.x)
        lane = int32(tid % 32)
        warp = int32(tid // 32)
        wm = int32(warp % {cfg.warps_m})
        wn = int32(warp // {cfg.warps_m})
        # CTA raster: groups of group_m tile rows, walked column by column
        tiles_m = int32((M + {bm - 1}) // {bm})
        tiles_n = int32((N + {bn - 1}) // {bn})
        pid = int32(cuda.blockIdx.x)
        per_group = int32({cfg.group_m} * tiles_n)
        first_m = int32((pid // per_group) * {cfg.group_m})
        rows_in_group = int32(min(tiles_m - first_m, {cfg.group_m}))
    """)
    w.code(f"m0 = int32((first_m + (pid % per_group) % rows_in_group) * {bm})", cute="gA", defines=("m0",))
    w.code(f"n0 = int32(((pid % per_group) // rows_in_group) * {bn})", cute="gB", defines=("n0",))
    with w.concept("residue"):
        w.code(f"interior = (m0 + {bm} <= M) and (n0 + {bn} <= N)")
    with w.concept("k_tile"):
        w.code(f"ktiles = int32((K + {bk - 1}) // {bk})")
    with w.concept("sA"):
        if tma:
            w.comment("TMA's 128-byte swizzle is a function of address bits 4-9: tiles start 1024-aligned")
            w.call("sbase = uint32((uint32(smem_addr(smem, 0)) + uint32(1023)) & uint32(0xFFFFFC00))", "smem_addr")
            w.code(f"bar0 = uint32(sbase + {stages * SB})  # one 8-byte mbarrier per stage", cute="mbarrier")
        else:
            w.call("sbase = uint32(smem_addr(smem, 0))", "smem_addr")
    if not tma:
        w.comment(f"copies: thread tid moves 16-byte chunk tid % {chunks} of rows tid // {chunks} + {rpp}*p")
        with w.concept("tAgA"):
            w.code(f"crow = int32(tid // {chunks})")
            w.code(f"cchunk = int32(tid % {chunks})")
        w.code("st_a = uint32(sbase + 2 * smem_offset(crow, 8 * cchunk))", cute="tAsA")
        w.code(f"st_b = uint32(st_a + {B_OFF})", cute="tBsB")
        w.comment("""
            row p of the copies: clamped to the last row of A (B), whose values then only reach
            rows (columns) of C that are never stored
        """)
        with w.concept("residue"):
            w.code("a_left = int32(M - m0 - crow)")
            w.code("b_left = int32(N - n0 - crow)")
        w.code("a_idx = int32((m0 + crow) * K + 8 * cchunk)", cute="tAgA")
        w.code("b_idx = int32((n0 + crow) * K + 8 * cchunk)", cute="tBgB")
        for v, P in (("a", PA), ("b", PB)):
            for p in range(P):
                w.code(f"{v}_src{p} = int32({v}_idx + min({p * rpp}, {v}_left - 1) * K)",
                       cute=f"t{v.upper()}g{v.upper()}", repeat=f"{v}_src")
    w.comment("""
        k-tiles: tile t covers columns k_first + t*bk ...; k_first <= 0, so only tile 0 can
        be partial (columns < 0 are zero-filled) and every later tile is whole
    """)
    w.code(f"k_first = int32(K - ktiles * {bk})", cute="k_tile")
    w.comment("ldmatrix.x4 row addresses (ldmatrix_lanes: the registry's ldmatrix and SM80_16x8x16's TV layouts)")
    w.code(f"arow = int32(wm * {wtm} + {lane_expr(a_lane[0])})", cute="tXsA")
    w.code(f"brow = int32(wn * {wtn} + {lane_expr(b_lane[0])})", cute="tXsB")
    for kk in range(KK):
        w.code(f"ld_a{kk} = uint32(sbase + 2 * smem_offset(arow, {16 * kk} + {lane_expr(a_lane[1])}))",
               cute="tXsA", repeat="ld_a")
        w.code(f"ld_b{kk} = uint32(sbase + {B_OFF} + 2 * smem_offset(brow, {16 * kk} + {lane_expr(b_lane[1])}))",
               cute="tXsB", repeat="ld_b")
    zero = "float32(0.0)" if acc == "f32" else "uint32(0)"
    nc = 4 if acc == "f32" else 2
    w.comment("accumulators, one named register each")
    for mi in range(MI):
        w.code(" = ".join(f"c_{mi}_{ni}_{r}" for ni in range(NI) for r in range(nc)) + f" = {zero}",
               cute="tCrC", repeat="c")

    operands = (("a", "A", PA, "st_a"), ("b", "B", PB, "st_b"))

    def copy_tile(stage_expr, k_expr, async_, guarded):
        """Copy the k-tile starting at column k_expr into the stage at byte offset stage_expr."""
        with w.concept("copy"):
            if guarded:
                w.code(f"kok = {k_expr} + 8 * cchunk >= 0", cute="residue")
                w.code(f"kcl = max({k_expr}, -8 * cchunk)", cute="residue")
            for v, src, P, st in operands:
                for p in range(P):
                    dst = f"uint32({st} + {stage_expr} + {2 * row_shift(p * rpp, rpp)})"
                    at = f"int32({v}_src{p} + {'kcl' if guarded else k_expr})"
                    if async_ and guarded:
                        w.call(f"cp_async_cg_16_zfill({dst}, {src}, {at}, uint32(16) if kok else uint32(0))",
                               "cp_async_cg_16_zfill", repeat=f"cp {v}")
                    elif async_:
                        copy = "cp_async_cg_16" if cfg.cache == "cg" else "cp_async_16"
                        w.call(f"{copy}({dst}, {src}, {at})", copy, repeat=f"cp {v}")
                    else:
                        w.call(f"v{v}{p} = ld_global_v4({src}, {at}, {'kok' if guarded else 'True'})",
                               "ld_global_v4", repeat=f"ld {v}")
            if not async_:
                for v, src, P, st in operands:
                    for p in range(P):
                        w.call(f"st_shared_v4(uint32({st} + {2 * row_shift(p * rpp, rpp)}), v{v}{p}[0], "
                               f"v{v}{p}[1], v{v}{p}[2], v{v}{p}[3])", "st_shared_v4", repeat=f"st {v}")

    def load_frags(kk, buf, stage_expr):
        with w.concept("s2r_copy"):
            for mi in range(MI):
                regs = ", ".join(f"a{buf}_{mi}_{r}" for r in range(4))
                w.call(f"{regs} = ldmatrix_x4(uint32(ld_a{kk} + {stage_expr} + {2 * row_shift(16 * mi, 16)}))",
                       "ldmatrix_x4", repeat="ldsm a")
            for nj in range(NI // 2):
                regs = f"b{buf}_{2 * nj}_0, b{buf}_{2 * nj}_1, b{buf}_{2 * nj + 1}_0, b{buf}_{2 * nj + 1}_1"
                w.call(f"{regs} = ldmatrix_x4(uint32(ld_b{kk} + {stage_expr} + {2 * row_shift(16 * nj, 16)}))",
                       "ldmatrix_x4", repeat="ldsm b")

    def mmas(buf):
        with w.concept("gemm"):
            for mi in range(MI):
                cols = range(NI) if mi % 2 == 0 else range(NI - 1, -1, -1)  # serpentine: reuse B
                for ni in cols:
                    c = ", ".join(f"c_{mi}_{ni}_{r}" for r in range(nc))
                    a = [f"a{buf}_{mi}_{r}" for r in range(4)]
                    b = [f"b{buf}_{ni}_{r}" for r in range(2)]
                    if mma_k == 16:
                        w.call(f"{c} = {mma}({', '.join(a + b)}, {c})", mma, repeat="mma")
                    else:  # two m16n8k8: k 0-7 from (a0, a1, b0), k 8-15 from (a2, a3, b1)
                        w.call(f"{c} = {mma}({a[0]}, {a[1]}, {b[0]}, {c})", mma, repeat="mma")
                        w.call(f"{c} = {mma}({a[2]}, {a[3]}, {b[1]}, {c})", mma, repeat="mma")

    if stages == 1:
        with w.in_phase("mainloop"), w.block("for kt in range(ktiles):", cute="k_tile"):
            w.sync("every warp is done with the previous k-tile", cute="copy")
            w.code(f"k0 = int32(k_first + kt * {bk})", cute="k_tile")
            copy_tile("0", "k0", async_=False, guarded=True)
            w.sync(cute="copy")
            for kk in range(KK):
                load_frags(kk, 0, "0")
                mmas(0)
    elif tma:
        _tma_pipeline(w, stages, SB, B_OFF, bk, KK, load_frags, mmas)
    else:
        _cp_async_pipeline(w, stages, SB, bk, KK, dbuf, copy_tile, load_frags, mmas)
    with w.in_phase("epilogue"):
        _epilogue(w, acc, MI, NI, wtm, wtn)
    for call in sorted({s.call for s in w.statements if s.call and s.call != _BARRIER}):
        require_sm(call, sm)  # the registry's minimum SM of every instruction the kernel issues
    return w.statements


def _cp_async_pipeline(w, stages, SB, bk, KK, dbuf, copy_tile, load_frags, mmas):
    last = (stages - 1) * SB
    with w.in_phase("prologue"):
        w.comment(f"prologue: k-tiles 0..{stages - 2} in flight")
        for s in range(stages - 1):
            with w.block(f"if {s} < ktiles:", cute="residue"):
                copy_tile(str(s * SB), f"k_first + {s * bk}", async_=True, guarded=(s == 0))
            w.call("cp_async_commit_group()", "cp_async_commit_group", cute="cp_async_fence")
        w.call(f"cp_async_wait_group({stages - 2})", "cp_async_wait_group", cute="cp_async_wait")
        w.sync(cute="cp_async_wait")
        with w.concept("k_pipe"):
            w.code("rd = uint32(0)")
            w.code(f"wr = uint32({last})")
        w.code(f"kload = int32(k_first + {(stages - 1) * bk})", cute="k_tile")
        if dbuf:
            load_frags(0, 0, "rd")
    with w.in_phase("mainloop"), w.block("for kt in range(ktiles):", cute="k_tile"):
        for kk in range(KK):
            w.comment(f"k-block {kk}")
            if dbuf:
                if kk == KK - 1:
                    w.call(f"cp_async_wait_group({stages - 2})  # k-tile kt+1 has landed", "cp_async_wait_group",
                           cute="cp_async_wait")
                    w.sync(cute="cp_async_wait")
                    w.code(f"rd = uint32(0) if rd == {last} else uint32(rd + {SB})", cute="k_pipe")
                load_frags((kk + 1) % KK, (kk + 1) % 2, "rd")
            else:
                load_frags(kk, 0, "rd")
            if kk == 0:
                with w.block("if kload < K:", cute="residue"):
                    copy_tile("wr", "kload", async_=True, guarded=False)
                w.call("cp_async_commit_group()", "cp_async_commit_group", cute="cp_async_fence")
                w.code(f"wr = uint32(0) if wr == {last} else uint32(wr + {SB})", cute="k_pipe")
                w.code(f"kload = int32(kload + {bk})", cute="k_tile")
            mmas(kk % 2 if dbuf else 0)
        if not dbuf:
            w.call(f"cp_async_wait_group({stages - 2})", "cp_async_wait_group", cute="cp_async_wait")
            w.sync(cute="cp_async_wait")
            w.code(f"rd = uint32(0) if rd == {last} else uint32(rd + {SB})", cute="k_pipe")


def _tma_pipeline(w, stages, SB, B_OFF, bk, KK, load_frags, mmas):
    last = (stages - 1) * SB

    def issue(stage_expr, bar_expr, k_expr):
        with w.concept("copy"):
            w.call(f"mbarrier_arrive_expect_tx({bar_expr}, uint32({SB}))", "mbarrier_arrive_expect_tx",
                   cute="mbarrier")
            w.call(f"tma_load_2d(uint32(sbase + {stage_expr}), maps, 0, int32({k_expr}), m0, {bar_expr})",
                   "tma_load_2d", repeat="tma a")
            w.call(f"tma_load_2d(uint32(sbase + {stage_expr} + {B_OFF}), maps, 16, int32({k_expr}), n0, "
                   f"{bar_expr})", "tma_load_2d", repeat="tma b")

    def wait(comment):
        with w.block(f"while mbarrier_try_wait(rbar, rphase) == 0:  # {comment}", call="mbarrier_try_wait",
                     cute="wait_stage"):
            w.code("pass")

    with w.in_phase("prologue"):
        w.comment("one thread sets up one mbarrier per stage (one arrival: the thread that issues the copy)")
        with w.concept("mbarrier"), w.block("if tid == 0:"):
            for st in range(stages):
                w.call(f"mbarrier_init(uint32(bar0 + {8 * st}), uint32(1))", "mbarrier_init", repeat="init")
            w.call("fence_mbarrier_init()", "fence_mbarrier_init")
        w.sync(cute="mbarrier")
        w.comment(f"""
            prologue: thread 0 asks the TMA unit for k-tiles 0..{stages - 2}; columns < 0 and rows
            past M (N) are outside the tensor and arrive as zeros
        """)
        with w.block("if tid == 0:", cute="copy"):
            for st in range(stages - 1):
                with w.block(f"if {st} < ktiles:", cute="residue"):
                    issue(str(st * SB), f"uint32(bar0 + {8 * st})", f"k_first + {st * bk}")
        with w.concept("k_pipe"):
            w.code("rd = uint32(0)")
            w.code("rbar = uint32(bar0)", cute="mbarrier")
            w.code("rphase = uint32(0)", cute="mbarrier")
            w.code(f"wr = uint32({last})")
            w.code(f"wbar = uint32(bar0 + {8 * (stages - 1)})", cute="mbarrier")
        w.code(f"kload = int32(k_first + {(stages - 1) * bk})", cute="k_tile")
        wait("k-tile 0 has landed")
        load_frags(0, 0, "rd")
    with w.in_phase("mainloop"), w.block("for kt in range(ktiles):", cute="k_tile"):
        for kk in range(KK):
            w.comment(f"k-block {kk}")
            if kk == KK - 1:
                w.sync("every warp is done reading k-tile kt-1's stage (refilled below)", cute="wait_stage")
                with w.block(f"if rd == {last}:", cute="k_pipe"):
                    w.code("rd = uint32(0)", cute="k_pipe")
                    w.code("rbar = uint32(bar0)", cute="mbarrier")
                    w.code("rphase = uint32(rphase ^ 1)", cute="mbarrier")
                with w.block("else:", cute="k_pipe"):
                    w.code(f"rd = uint32(rd + {SB})", cute="k_pipe")
                    w.code("rbar = uint32(rbar + 8)", cute="mbarrier")
                with w.block("if kt + 1 < ktiles:", cute="residue"):
                    wait("k-tile kt+1 has landed")
            load_frags((kk + 1) % KK, (kk + 1) % 2, "rd")
            if kk == 0:
                with w.block("if tid == 0 and kload < K:", cute="residue"):
                    issue("wr", "wbar", "kload")
                with w.block(f"if wr == {last}:", cute="k_pipe"):
                    w.code("wr = uint32(0)", cute="k_pipe")
                    w.code("wbar = uint32(bar0)", cute="mbarrier")
                with w.block("else:", cute="k_pipe"):
                    w.code(f"wr = uint32(wr + {SB})", cute="k_pipe")
                    w.code("wbar = uint32(wbar + 8)", cute="mbarrier")
                w.code(f"kload = int32(kload + {bk})", cute="k_tile")
            mmas(kk % 2)


def _epilogue(w, acc, MI, NI, wtm, wtn):
    w.comment("""
        epilogue: atom (mi, ni) holds rows g, g+8 and columns 2q, 2q+1 of its 16x8 block;
        C is flat, indexed with unsigned int32 (no negative-index fix-up)
    """)
    with w.concept("tCgC"):
        w.code(f"erow = int32(m0 + wm * {wtm} + lane // 4)")
        w.code(f"ecol = int32(n0 + wn * {wtn} + 2 * (lane % 4))")
        w.code("ebase = int32(erow * N + ecol)")

    def value(mi, ni, half, j):
        if acc == "f32":
            return f"c_{mi}_{ni}_{2 * half + j}"
        return f"uint16(c_{mi}_{ni}_{half} & 0xFFFF)" if j == 0 else f"uint16(c_{mi}_{ni}_{half} >> 16)"

    with w.concept("axpby"):
        with w.block("if interior and N % 2 == 0:  # pairs of columns are 4- (f16) or 8-byte (f32) aligned",
                     cute="residue"):
            for mi in range(MI):
                for half in range(2):
                    for ni in range(NI):
                        at = f"int32(ebase + {mi * 16 + 8 * half} * N + {ni * 8})"
                        if acc == "f32":
                            w.call(f"st_global_v2_f32(C, {at}, c_{mi}_{ni}_{2 * half}, c_{mi}_{ni}_{2 * half + 1})",
                                   "st_global_v2_f32", repeat="st")
                        else:
                            w.call(f"st_global_u32(C, {at}, c_{mi}_{ni}_{half})", "st_global_u32", repeat="st")
        with w.block("else:", cute="residue"):
            for mi in range(MI):
                for half in range(2):
                    with w.block(f"if erow + {mi * 16 + 8 * half} < M:", cute="residue"):
                        for ni in range(NI):
                            at = f"ebase + {mi * 16 + 8 * half} * N + {ni * 8}"
                            for j in range(2):
                                with w.block(f"if ecol + {ni * 8 + j} < N:", cute="residue"):
                                    w.code(f"C[uint32({at}{' + 1' if j else ''})] = {value(mi, ni, half, j)}",
                                           repeat="st edge")


def kernel_source(cfg, acc, sm, name="gemm_tc", static_smem=False):
    """Python source of the kernel ``name(A, B, C, M, N, K)``: :func:`statements`, rendered."""
    return render(statements(cfg, acc, sm, name, static_smem))
