"""The tensor-core GEMM kernels of the ladder (steps 3-6), written out from a tile configuration.

A :class:`TileConfig` says how a CTA tile of C is cut: ``bm x bn`` outputs and a ``bk`` slab
of K per k-tile, ``warps_m x warps_n`` warps, each owning a ``(bm/warps_m) x (bn/warps_n)``
warp tile made of 16x8 MMA atoms; how many shared-memory stages the k-tiles flow through;
whether shared memory is swizzled; whether the next k-block's fragments load while this one's
MMAs run; and the CTA raster. :func:`kernel_source` writes the Python source of the numba
kernel for one configuration, accumulator and architecture, with every register a named
local variable: the MMA loops are unrolled in the source itself, so no accumulator or
fragment ever lives in an array (which would put it in local memory) and every shared-memory
offset in the inner loop is a constant. Print the source to read the whole warp program.

Shared memory holds, per stage, the A tile (bm x bk) then the B tile (bn x bk), both
K-major. Unswizzled, element (r, k) sits at ``r*bk + k``; swizzled, at CuTe's
``Swizzle<b,3,3> o (8,(8,2^b)):(8,(1,64))`` tiled over the rows (``b = log2(bk/8)``;
``Swizzle<3,3,3>`` for ``bk = 64``, as in CUTLASS's ``sgemm_sm80``)::

    offset(r, k) = (r // 8) * 8*bk + 64*(k // 8) + 8*((r % 8) ^ (k // 8)) + k % 8

so the eight 16-byte rows one ldmatrix phase reads fall in eight different bank groups.
The kernels do not hand-copy that formula: :func:`smem_layout` builds the CuTe layout and
:func:`offset_source` reads its strides and the swizzle's bits, base and shift into the closed
form the kernel calls (``smem_offset``); the lanes' ldmatrix addresses come from the
registry's ldmatrix and the MMA atom's TV layouts (:func:`ldmatrix_lanes`), and every constant
row step in the unrolled loops is the layout's offset, checked to be a translation.

With ``loader="tma"`` (step 6, sm_90) one thread fills each stage with two Tensor Memory
Accelerator boxes described by tensor maps (:func:`tensor_maps`), an mbarrier per stage counts
the bytes in, and the tiles are laid out as the TMA's 128-byte swizzle writes them
(:func:`tma_offset`); boxes past the edges of A and B arrive as zeros.

Edges cost nothing in the main loop: rows of A (B) past M (N) are read from the last row
instead (their products only reach rows or columns of C that are never stored), and the
k-tiles start at column ``K - ktiles*bk <= 0``, so only the first one can be partial; its
columns below 0 are zero-filled (``cp.async`` with a source size of 0).

>>> cfg = TileConfig(bm=64, bn=64, bk=64, warps_m=2, warps_n=2, stages=1, swizzle=False,
...                  double_buffer=False)
>>> cfg.warp_tile, cfg.atoms, cfg.threads, cfg.smem_bytes((9, 0))
((32, 32), (2, 4), 128, 16384)
>>> swizzled_offset(9, 16, 64), swizzled_offset(1, 8, 64), plain_offset(9, 16, 64)
(664, 64, 592)
>>> src = kernel_source(cfg, "f32", (8, 0))
>>> src.count("mma_m16n8k16_f32f16f16f32("), src.count("ldmatrix_x4(")
(32, 16)
"""

from __future__ import annotations

import functools
import linecache
import textwrap
from dataclasses import dataclass

import numba
from numba import cuda

from labkit import layout as lk
from labkit.atoms import mma_atom
from labkit.atoms.instructions import instruction
from labkit.cuda import ptx
from labkit.cuda.kernels import gemm_ptx
from labkit.cuda.kernels.gemm_common import ceil_div, check_operands, set_dynamic_shared
from labkit.errors import DeviceError

__all__ = [
    "TileConfig",
    "smem_layout",
    "offset_source",
    "offset_function",
    "ldmatrix_lanes",
    "plain_offset",
    "swizzled_offset",
    "tma_offset",
    "tensor_maps",
    "kernel_source",
    "build_kernel",
    "launch_config",
    "RULES",
    "launch",
    "step_functions",
    "kernel_report",
    "offline_report",
    "ktile_mix",
    "hmma_per_ktile",
    "occupancy",
]


def smem_layout(kind, bk, rows=256):
    """CuTe layout of a ``rows x bk`` fp16 tile in shared memory, (row, column) -> element.

    ``"plain"``: row-major ``(rows,bk):(bk,1)``. ``"swizzle"``: ``Swizzle<b,3,3> o
    (8,(8,2^b)):(8,(1,64))`` tiled down the rows, ``b = log2(bk/8)`` (CUTLASS ``sgemm_sm80``'s
    for bk = 64). ``"tma"``: ``Swizzle<3,3,3> o (8,64):(64,1)`` tiled down the rows, the K-major
    128-byte TMA swizzle atom (bk = 64).

    >>> print(smem_layout("swizzle", 64, rows=128))
    Sw<3,3,3> o _0 o ((_8,_16),((_8,_8),_1)):((_8,_512),((_1,_64),_0))
    """
    S = lk.S
    if kind == "plain":
        return lk.make_layout((S(rows), S(bk)), (S(bk), S(1)))
    if kind == "swizzle":
        atom = lk.make_layout((S(8), (S(8), S(bk // 8))), (S(8), (S(1), S(64))))
        return lk.composition(lk.Swizzle((bk // 8).bit_length() - 1, 3, 3),
                              lk.tile_to_shape(atom, (S(rows), S(bk))))
    if kind == "tma":
        if bk != 64:
            raise DeviceError(f"bk: the 128-byte TMA swizzle atom holds 64 fp16 columns, got bk={bk}")
        atom = lk.make_layout((S(8), S(64)), (S(64), S(1)))
        return lk.composition(lk.Swizzle(3, 3, 3), lk.tile_to_shape(atom, (S(rows), S(64))))
    raise DeviceError(f"kind: must be 'plain', 'swizzle' or 'tma', got {kind!r}")


def _terms(x, modes):
    """Terms of ``sum_i ((x // prefix_i) % n_i) * d_i`` over ``modes`` [(n_i, d_i)], coalesced
    as CuTe's ``coalesce`` does (``n_i*d_i == d_{i+1}`` merges two modes); the last mode is
    unbounded, so the form continues past the layout's extent."""
    merged = []
    for n, d in modes:
        if n == 1:
            continue
        if merged and merged[-1][1] * merged[-1][0] == d:
            merged[-1] = (merged[-1][0] * n, merged[-1][1])
        else:
            merged.append((n, d))
    terms, prefix = [], 1
    for i, (n, d) in enumerate(merged):
        if d:
            t = x if prefix == 1 else f"({x} // {prefix})"
            if i < len(merged) - 1:
                t = f"({t} % {n})"
            terms.append(t if d == 1 else f"{d} * {t}")
        prefix *= n
    return terms


def _mode_expr(x, shape, stride):
    def flat(t):
        f = lk.flatten(t)
        return [int(v) for v in (f if isinstance(f, tuple) else (f,))]

    return _terms(x, list(zip(flat(shape), flat(stride))))


def offset_source(layout, name="offset"):
    """Python source of ``name(r, k)``: ``layout``'s offset of (row r, column k) in closed form.

    The strides come from the layout's row and column modes; a swizzle ``Sw<B,M,S>`` adds
    ``y ^ ((y >> S) & mask)`` with its bits, base and shift.

    >>> print(offset_source(smem_layout("tma", 64)))
    def offset(r, k):
        y = 64 * r + k
        return y ^ ((y >> 3) & 56)
    """
    swz, inner = (layout.layout_a, layout.layout_b) if hasattr(layout, "layout_b") else (None, layout)
    if swz is not None and int(layout.offset):
        raise DeviceError(f"layout: offset_source needs a swizzle composed at offset 0, got {layout}")
    terms = _mode_expr("r", inner.shape[0], inner.stride[0]) + _mode_expr("k", inner.shape[1], inner.stride[1])
    lines = [f"def {name}(r, k):", f"    y = {' + '.join(terms) or '0'}"]
    if swz is None or swz.bits == 0:
        lines.append("    return y")
    elif swz.shift > 0:
        lines.append(f"    return y ^ ((y >> {swz.shift}) & {swz.zzz_mask})")
    else:
        lines.append(f"    return y ^ ((y << {-swz.shift}) & {swz.zzz_mask})")
    return "\n".join(lines) + "\n"


@functools.lru_cache(maxsize=None)
def offset_function(kind, bk):
    """``offset(r, k)`` of :func:`smem_layout` ``(kind, bk)`` as a Python function (the kernels
    call the same function compiled as a numba device function).

    >>> offset_function("swizzle", 64)(9, 16), offset_function("plain", 64)(9, 16)
    (664, 592)
    """
    scope = {}
    exec(compile(offset_source(smem_layout(kind, bk)), f"<labkit smem offset {kind} {bk}>", "exec"), scope)
    return scope["offset"]


def plain_offset(r, k, bk):
    """Element offset of (row r, column k) in a row-major ``rows x bk`` tile."""
    return offset_function("plain", bk)(r, k)


def tma_offset(r, k, bk):
    """Element offset of (row r, column k) where a 128-byte-swizzled TMA box puts it.

    Row r is 128 bytes at ``r*bk``; its 16-byte chunk ``c = k // 8`` goes to slot
    ``c ^ (r % 8)``: CuTe's ``Swizzle<3,3,3> o (8,64):(64,1)`` (the K-major 128-byte swizzle
    atom of Hopper GEMMs), which needs ``bk = 64`` and a 1024-byte-aligned tile.

    >>> tma_offset(1, 8, 64), tma_offset(9, 0, 64)
    (64, 584)
    """
    return offset_function("tma", bk)(r, k)


def swizzled_offset(r, k, bk):
    """Element offset of (row r, column k) under ``Swizzle<log2(bk/8),3,3>`` (see module text).

    Row 1, column 8 of the bk=64 atom: 8*1 + 64*1 = 72 before the swizzle; bits 6-8 (1)
    flip bits 3-5 (1), leaving 64.

    >>> swizzled_offset(1, 8, 64)
    64
    """
    return offset_function("swizzle", bk)(r, k)


def ldmatrix_lanes(operand):
    """``(row, column)`` strides of the address each lane gives one ``ldmatrix.x4`` of an operand.

    From the registry and CuTe's atoms: in ``ldmatrix.x4`` (its source TV layout
    ``(32,128):(128,1)``) lane t gives row ``t % 8`` of matrix ``t // 8``; the matrix is the
    fragment register ``j`` of ``SM80_16x8x16``'s A (B: of two neighbouring n8 atoms, registers
    0-1 then 2-3), whose origin is the atom's TV coordinate of (thread 0, value 2j). Returned as
    the strides of lane ``(8,2,2)`` for the row and the column, checked on all 32 lanes.

    >>> ldmatrix_lanes("A"), ldmatrix_lanes("B")
    (((1, 8, 0), (0, 0, 8)), ((1, 0, 8), (0, 8, 0)))
    """
    ld = instruction("ldmatrix_x4", "ldmatrix")
    src = lk.parse_layout(ld.src_bits)
    atom = mma_atom("SM80_16x8x16_F32F16F16F32_TN")

    def origin(j):
        if operand == "A":
            return atom.coord_A(0, 2 * j)
        n, k = atom.coord_B(0, 2 * (j % 2))
        return 8 * (j // 2) + n, k

    def lane_rc(t):
        row = int(src(t, 0)) // 128  # the 128-bit row lane t addresses
        r0, c0 = origin(row // 8)
        return r0 + row % 8, c0

    base = [lane_rc(t) for t in (1, 8, 16)]
    rows, cols = tuple(b[0] for b in base), tuple(b[1] for b in base)
    for t in range(32):
        want = (t % 8 * rows[0] + (t // 8) % 2 * rows[1] + t // 16 * rows[2],
                t % 8 * cols[0] + (t // 8) % 2 * cols[1] + t // 16 * cols[2])
        if lane_rc(t) != want:
            raise DeviceError(f"ldmatrix_lanes: lane {t} of {operand} is not linear in (8,2,2)")
    return rows, cols


def _lane_expr(strides):
    return " + ".join(_terms("lane", list(zip((8, 2, 2), strides)))) or "0"


@dataclass(frozen=True)
class TileConfig:
    """How one CTA computes its tile of C (see the module text).

    ``stages``: 1 means plain 16-byte loads into one shared buffer between two barriers;
    2 or more means a ring of that many buffers filled by ``cp.async`` (sm_80+; on sm_75 the
    kernel falls back to 1). ``double_buffer``: load k-block kk+1's fragments before
    k-block kk's MMAs (needs ``stages >= 2``). ``group_m``: the CTA raster walks groups of
    ``group_m`` tile rows column by column, so CTAs running together share A and B tiles
    in L2 (1: row by row). ``cache``: ``"cg"`` copies bypass L1 (``cp.async.cg``), ``"ca"``
    ones allocate in L1 (``cp.async.ca``), which CTAs on one multiprocessor can share.
    ``max_registers``: a register cap for ptxas (None: its choice). ``loader``: ``"cp.async"``
    (every thread copies 16-byte chunks) or ``"tma"`` (sm_90: one thread asks the Tensor Memory
    Accelerator for each whole A and B tile, which lands swizzled as CuTe's
    ``Swizzle<3,3,3> o (8,64):(64,1)``, the 128-byte TMA swizzle, and completes an mbarrier;
    needs ``bk = 64``, tiles of at most 256 rows, double-buffered fragments).
    """

    bm: int = 128
    bn: int = 128
    bk: int = 64
    warps_m: int = 2
    warps_n: int = 2
    stages: int = 3
    swizzle: bool = True
    double_buffer: bool = True
    group_m: int = 8
    cache: str = "cg"
    max_registers: int | None = None
    loader: str = "cp.async"

    def __post_init__(self):
        def bad(rule):
            raise DeviceError(f"config: {rule} ({self})")

        if self.bk not in (16, 32, 64):
            bad("bk must be 16, 32 or 64")
        if self.bm % (16 * self.warps_m) or self.bn % (16 * self.warps_n):
            bad("each warp tile must be a multiple of 16 rows (bm/warps_m) and 16 columns (bn/warps_n)")
        if self.stages < 1 or self.group_m < 1:
            bad("stages and group_m must be >= 1")
        if self.cache not in ("ca", "cg"):
            bad("cache must be 'ca' or 'cg'")
        if self.double_buffer and self.stages < 2:
            bad("double_buffer needs stages >= 2")
        if self.double_buffer and (self.bk // 16) % 2:
            bad("double_buffer needs an even number of k-blocks (bk/16)")
        if self.loader not in ("cp.async", "tma"):
            bad("loader must be 'cp.async' or 'tma'")
        if self.loader == "tma":
            if self.bk != 64 or max(self.bm, self.bn) > 256 or not self.double_buffer or not self.swizzle:
                bad("loader='tma' needs bk=64 (128-byte rows), bm and bn <= 256 (one TMA box), "
                    "swizzle and double_buffer")
            return
        chunks = self.bk // 8
        if self.threads % chunks or (self.threads // chunks) % 8:
            bad("threads / (bk/8) must be a multiple of 8 rows (one copy pass)")
        rows = self.threads // chunks
        if self.bm % rows or self.bn % rows:
            bad(f"bm and bn must be multiples of the {rows} rows one copy pass covers")

    @property
    def threads(self):
        """Threads per CTA (32 per warp)."""
        return 32 * self.warps_m * self.warps_n

    @property
    def warp_tile(self):
        """(rows, columns) of C per warp."""
        return self.bm // self.warps_m, self.bn // self.warps_n

    @property
    def atoms(self):
        """(16-row, 8-column) MMA atoms per warp tile."""
        wm, wn = self.warp_tile
        return wm // 16, wn // 8

    @property
    def smem_kind(self):
        """Layout of the tiles in shared memory (:func:`smem_layout`): plain, swizzle or tma."""
        return "tma" if self.loader == "tma" else ("swizzle" if self.swizzle else "plain")

    def stages_for(self, arch):
        """Stages the kernel really uses on ``arch`` (cp.async needs sm_80)."""
        return self.stages if tuple(arch) >= (8, 0) else 1

    def stage_bytes(self):
        """Bytes of one shared-memory stage (A tile, then B tile)."""
        return (self.bm + self.bn) * self.bk * 2

    def smem_bytes(self, arch):
        """Dynamic shared memory of one CTA on ``arch`` (TMA: plus 1 KB of alignment slack, in
        which the stages' mbarriers also live)."""
        tiles = self.stages_for(arch) * self.stage_bytes()
        return tiles + 1024 if self.loader == "tma" else tiles

    def double_buffer_for(self, arch):
        """Whether fragments are double-buffered on ``arch`` (only with a cp.async ring)."""
        return self.double_buffer and self.stages_for(arch) >= 2


class _Writer:
    def __init__(self):
        self.lines = []
        self.depth = 1

    def __call__(self, text=""):
        """Write ``text`` at the current depth: one line, or a block (dedented, so it can be
        written as an indented triple-quoted string)."""
        for line in textwrap.dedent(text).strip("\n").split("\n") if "\n" in text else [text]:
            self.lines.append(("    " * self.depth + line) if line else "")

    def indent(self):
        w = self

        class _Block:
            def __enter__(self):
                w.depth += 1

            def __exit__(self, *exc):
                w.depth -= 1

        return _Block()


def _mma_names(acc, arch):
    if tuple(arch) >= (8, 0):
        return ("mma_m16n8k16_f32f16f16f32" if acc == "f32" else "mma_m16n8k16_f16f16f16f16"), 16
    return ("mma_m16n8k8_f32f16f16f32" if acc == "f32" else "mma_m16n8k8_f16f16f16f16"), 8


def kernel_source(cfg, acc, arch, name="gemm_tc", static_smem=False):
    """Python source of the kernel ``name(A, B, C, M, N, K)`` for ``cfg``, ``acc``, ``arch``.

    A, B and C come flattened (1-D views of the row-major (M, K), (N, K) and (M, N)
    arrays); C is float32 for ``acc="f32"``, uint16 (the bits of float16) for ``acc="f16"``. Shared memory is dynamic
    (sized at launch), or a static array with ``static_smem=True`` (used under the
    simulator, where a static array is one object that outlives every thread of the block).
    """
    arch = tuple(arch)
    bm, bn, bk = cfg.bm, cfg.bn, cfg.bk
    wtm, wtn = cfg.warp_tile
    MI, NI = cfg.atoms
    KK = bk // 16
    T = cfg.threads
    stages = cfg.stages_for(arch)
    dbuf = cfg.double_buffer_for(arch)
    SB = cfg.stage_bytes()
    B_OFF = bm * bk * 2  # bytes from a stage's A tile to its B tile
    chunks = bk // 8  # 16-byte chunks per row
    rpp = T // chunks  # rows one copy pass covers
    PA, PB = bm // rpp, bn // rpp
    mma, mma_k = _mma_names(acc, arch)
    tma = cfg.loader == "tma"
    if tma and tuple(arch) < (9, 0):
        raise DeviceError(f"arch: loader='tma' needs sm_90 (TMA, mbarrier transactions), got sm_{arch[0]}{arch[1]}")
    kind = cfg.smem_kind
    offset = offset_function(kind, bk)
    a_lane, b_lane = ldmatrix_lanes("A"), ldmatrix_lanes("B")

    def row_shift(rows, span):
        """Elements from row r to row r + rows, the same for every r < span and column."""
        d = offset(rows, 0) - offset(0, 0)
        if any(offset(r + rows, k) - offset(r, k) != d for r in range(span) for k in range(bk)):
            raise DeviceError(f"config: the {kind} layout is not a translation by {rows} rows ({cfg})")
        return d
    w = _Writer()
    L = w.lines
    L.append(f"def {name}(A, B, C, M, N, K{', maps' if tma else ''}):")
    w(f'"""{bm}x{bn}x{bk} CTA tile, {cfg.warps_m}x{cfg.warps_n} warps of {wtm}x{wtn}, '
      f'{stages} stage(s), {"swizzled" if cfg.swizzle else "row-major"} shared memory, '
      f'{mma} ({acc} accumulate)."""')
    if static_smem:
        w(f"smem = cuda.shared.array({cfg.smem_bytes(arch) // 2}, uint16)")
    else:
        w("smem = cuda.shared.array(0, uint16)")
    w(f"""
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
        m0 = int32((first_m + (pid % per_group) % rows_in_group) * {bm})
        n0 = int32(((pid % per_group) // rows_in_group) * {bn})
        interior = (m0 + {bm} <= M) and (n0 + {bn} <= N)
        ktiles = int32((K + {bk - 1}) // {bk})
    """)
    if tma:
        w("# TMA's 128-byte swizzle is a function of address bits 4-9: tiles start 1024-aligned")
        w("sbase = uint32((uint32(smem_addr(smem, 0)) + uint32(1023)) & uint32(0xFFFFFC00))")
        w(f"bar0 = uint32(sbase + {stages * SB})  # one 8-byte mbarrier per stage")
    else:
        w("sbase = uint32(smem_addr(smem, 0))")
    if not tma:
        w(f"""
            # copies: thread tid moves 16-byte chunk tid % {chunks} of rows tid // {chunks} + {rpp}*p
            crow = int32(tid // {chunks})
            cchunk = int32(tid % {chunks})
            st_a = uint32(sbase + 2 * smem_offset(crow, 8 * cchunk))
            st_b = uint32(st_a + {B_OFF})
            # row p of the copies: clamped to the last row of A (B), whose values then only reach
            # rows (columns) of C that are never stored
            a_left = int32(M - m0 - crow)
            b_left = int32(N - n0 - crow)
            a_idx = int32((m0 + crow) * K + 8 * cchunk)
            b_idx = int32((n0 + crow) * K + 8 * cchunk)
        """)
        for v, P in (("a", PA), ("b", PB)):
            for p in range(P):
                w(f"{v}_src{p} = int32({v}_idx + min({p * rpp}, {v}_left - 1) * K)")
    w(f"""
        # k-tiles: tile t covers columns k_first + t*bk ...; k_first <= 0, so only tile 0 can
        # be partial (columns < 0 are zero-filled) and every later tile is whole
        k_first = int32(K - ktiles * {bk})
        # ldmatrix.x4 row addresses (ldmatrix_lanes: the registry's ldmatrix and SM80_16x8x16's TV layouts)
        arow = int32(wm * {wtm} + {_lane_expr(a_lane[0])})
        brow = int32(wn * {wtn} + {_lane_expr(b_lane[0])})
    """)
    for kk in range(KK):
        w(f"ld_a{kk} = uint32(sbase + 2 * smem_offset(arow, {16 * kk} + {_lane_expr(a_lane[1])}))")
        w(f"ld_b{kk} = uint32(sbase + {B_OFF} + 2 * smem_offset(brow, {16 * kk} + {_lane_expr(b_lane[1])}))")
    zero = "float32(0.0)" if acc == "f32" else "uint32(0)"
    nc = 4 if acc == "f32" else 2
    w("# accumulators, one named register each")
    for mi in range(MI):
        w(" = ".join(f"c_{mi}_{ni}_{r}" for ni in range(NI) for r in range(nc)) + f" = {zero}")

    operands = (("a", "A", PA, "st_a"), ("b", "B", PB, "st_b"))

    def copy_tile(stage_expr, k_expr, async_, guarded):
        """Copy the k-tile starting at column k_expr into the stage at byte offset stage_expr."""
        if guarded:
            w(f"kok = {k_expr} + 8 * cchunk >= 0")
            w(f"kcl = max({k_expr}, -8 * cchunk)")
        for v, src, P, st in operands:
            for p in range(P):
                dst = f"uint32({st} + {stage_expr} + {2 * row_shift(p * rpp, rpp)})"
                at = f"int32({v}_src{p} + {'kcl' if guarded else k_expr})"
                if async_ and guarded:
                    w(f"cp_async_cg_16_zfill({dst}, {src}, {at}, uint32(16) if kok else uint32(0))")
                elif async_:
                    copy = "cp_async_cg_16" if cfg.cache == "cg" else "cp_async_16"
                    w(f"{copy}({dst}, {src}, {at})")
                else:
                    w(f"v{v}{p} = ld_global_v4({src}, {at}, {'kok' if guarded else 'True'})")
        if not async_:
            for v, src, P, st in operands:
                for p in range(P):
                    w(f"st_shared_v4(uint32({st} + {2 * row_shift(p * rpp, rpp)}), v{v}{p}[0], v{v}{p}[1], "
                      f"v{v}{p}[2], v{v}{p}[3])")

    def load_frags(kk, buf, stage_expr):
        for mi in range(MI):
            regs = ", ".join(f"a{buf}_{mi}_{r}" for r in range(4))
            w(f"{regs} = ldmatrix_x4(uint32(ld_a{kk} + {stage_expr} + {2 * row_shift(16 * mi, 16)}))")
        for nj in range(NI // 2):
            regs = f"b{buf}_{2 * nj}_0, b{buf}_{2 * nj}_1, b{buf}_{2 * nj + 1}_0, b{buf}_{2 * nj + 1}_1"
            w(f"{regs} = ldmatrix_x4(uint32(ld_b{kk} + {stage_expr} + {2 * row_shift(16 * nj, 16)}))")

    def mmas(buf):
        for mi in range(MI):
            cols = range(NI) if mi % 2 == 0 else range(NI - 1, -1, -1)  # serpentine: reuse B
            for ni in cols:
                c = ", ".join(f"c_{mi}_{ni}_{r}" for r in range(nc))
                a = [f"a{buf}_{mi}_{r}" for r in range(4)]
                b = [f"b{buf}_{ni}_{r}" for r in range(2)]
                if mma_k == 16:
                    w(f"{c} = {mma}({', '.join(a + b)}, {c})")
                else:  # two m16n8k8: k 0-7 from (a0, a1, b0), k 8-15 from (a2, a3, b1)
                    w(f"{c} = {mma}({a[0]}, {a[1]}, {b[0]}, {c})")
                    w(f"{c} = {mma}({a[2]}, {a[3]}, {b[1]}, {c})")

    if stages == 1:
        w("for kt in range(ktiles):")
        with w.indent():
            w("cuda.syncthreads()  # every warp is done with the previous k-tile")
            w(f"k0 = int32(k_first + kt * {bk})")
            copy_tile("0", "k0", async_=False, guarded=True)
            w("cuda.syncthreads()")
            for kk in range(KK):
                load_frags(kk, 0, "0")
                mmas(0)
    elif tma:
        last = (stages - 1) * SB

        def issue(stage_expr, bar_expr, k_expr):
            w(f"mbarrier_arrive_expect_tx({bar_expr}, uint32({SB}))")
            w(f"tma_load_2d(uint32(sbase + {stage_expr}), maps, 0, int32({k_expr}), m0, {bar_expr})")
            w(f"tma_load_2d(uint32(sbase + {stage_expr} + {B_OFF}), maps, 16, int32({k_expr}), n0, {bar_expr})")

        w("# one thread sets up one mbarrier per stage (one arrival: the thread that issues the copy)")
        w("if tid == 0:")
        with w.indent():
            for st in range(stages):
                w(f"mbarrier_init(uint32(bar0 + {8 * st}), uint32(1))")
            w("fence_mbarrier_init()")
        w(f"""
            cuda.syncthreads()
            # prologue: thread 0 asks the TMA unit for k-tiles 0..{stages - 2}; columns < 0 and rows
            # past M (N) are outside the tensor and arrive as zeros
            if tid == 0:
        """)
        with w.indent():
            for st in range(stages - 1):
                w(f"if {st} < ktiles:")
                with w.indent():
                    issue(str(st * SB), f"uint32(bar0 + {8 * st})", f"k_first + {st * bk}")
        w(f"""
            rd = uint32(0)
            rbar = uint32(bar0)
            rphase = uint32(0)
            wr = uint32({last})
            wbar = uint32(bar0 + {8 * (stages - 1)})
            kload = int32(k_first + {(stages - 1) * bk})
            while mbarrier_try_wait(rbar, rphase) == 0:  # k-tile 0 has landed
                pass
        """)
        load_frags(0, 0, "rd")
        w("for kt in range(ktiles):")
        with w.indent():
            for kk in range(KK):
                w(f"# k-block {kk}")
                if kk == KK - 1:
                    w(f"""
                        cuda.syncthreads()  # every warp is done reading k-tile kt-1's stage (refilled below)
                        if rd == {last}:
                            rd = uint32(0)
                            rbar = uint32(bar0)
                            rphase = uint32(rphase ^ 1)
                        else:
                            rd = uint32(rd + {SB})
                            rbar = uint32(rbar + 8)
                        if kt + 1 < ktiles:
                            while mbarrier_try_wait(rbar, rphase) == 0:  # k-tile kt+1 has landed
                                pass
                    """)
                load_frags((kk + 1) % KK, (kk + 1) % 2, "rd")
                if kk == 0:
                    w("if tid == 0 and kload < K:")
                    with w.indent():
                        issue("wr", "wbar", "kload")
                    w(f"""
                        if wr == {last}:
                            wr = uint32(0)
                            wbar = uint32(bar0)
                        else:
                            wr = uint32(wr + {SB})
                            wbar = uint32(wbar + 8)
                        kload = int32(kload + {bk})
                    """)
                mmas(kk % 2)
    else:
        last = (stages - 1) * SB
        w(f"# prologue: k-tiles 0..{stages - 2} in flight")
        for s in range(stages - 1):
            w(f"if {s} < ktiles:")
            with w.indent():
                copy_tile(str(s * SB), f"k_first + {s * bk}", async_=True, guarded=(s == 0))
            w("cp_async_commit_group()")
        w(f"""
            cp_async_wait_group({stages - 2})
            cuda.syncthreads()
            rd = uint32(0)
            wr = uint32({last})
            kload = int32(k_first + {(stages - 1) * bk})
        """)
        if dbuf:
            load_frags(0, 0, "rd")
        w("for kt in range(ktiles):")
        with w.indent():
            for kk in range(KK):
                w(f"# k-block {kk}")
                if dbuf:
                    if kk == KK - 1:
                        w(f"cp_async_wait_group({stages - 2})  # k-tile kt+1 has landed")
                        w("cuda.syncthreads()")
                        w(f"rd = uint32(0) if rd == {last} else uint32(rd + {SB})")
                    load_frags((kk + 1) % KK, (kk + 1) % 2, "rd")
                else:
                    load_frags(kk, 0, "rd")
                if kk == 0:
                    w("if kload < K:")
                    with w.indent():
                        copy_tile("wr", "kload", async_=True, guarded=False)
                    w("cp_async_commit_group()")
                    w(f"wr = uint32(0) if wr == {last} else uint32(wr + {SB})")
                    w(f"kload = int32(kload + {bk})")
                mmas(kk % 2 if dbuf else 0)
            if not dbuf:
                w(f"cp_async_wait_group({stages - 2})")
                w("cuda.syncthreads()")
                w(f"rd = uint32(0) if rd == {last} else uint32(rd + {SB})")
    w(f"""
        # epilogue: atom (mi, ni) holds rows g, g+8 and columns 2q, 2q+1 of its 16x8 block;
        # C is flat, indexed with unsigned int32 (no negative-index fix-up)
        erow = int32(m0 + wm * {wtm} + lane // 4)
        ecol = int32(n0 + wn * {wtn} + 2 * (lane % 4))
        ebase = int32(erow * N + ecol)
    """)

    def value(mi, ni, half, j):
        if acc == "f32":
            return f"c_{mi}_{ni}_{2 * half + j}"
        return f"uint16(c_{mi}_{ni}_{half} & 0xFFFF)" if j == 0 else f"uint16(c_{mi}_{ni}_{half} >> 16)"

    w("if interior and N % 2 == 0:  # pairs of columns are 4- (f16) or 8-byte (f32) aligned")
    with w.indent():
        for mi in range(MI):
            for half in range(2):
                for ni in range(NI):
                    at = f"int32(ebase + {mi * 16 + 8 * half} * N + {ni * 8})"
                    if acc == "f32":
                        w(f"st_global_v2_f32(C, {at}, c_{mi}_{ni}_{2 * half}, c_{mi}_{ni}_{2 * half + 1})")
                    else:
                        w(f"st_global_u32(C, {at}, c_{mi}_{ni}_{half})")
    w("else:")
    with w.indent():
        for mi in range(MI):
            for half in range(2):
                w(f"if erow + {mi * 16 + 8 * half} < M:")
                with w.indent():
                    for ni in range(NI):
                        at = f"ebase + {mi * 16 + 8 * half} * N + {ni * 8}"
                        w(f"""
                            if ecol + {ni * 8} < N:
                                C[uint32({at})] = {value(mi, ni, half, 0)}
                            if ecol + {ni * 8 + 1} < N:
                                C[uint32({at} + 1)] = {value(mi, ni, half, 1)}
                        """)
    return "\n".join(L) + "\n"


def _namespace(cfg):
    return {
        "smem_offset": _jit_offset(offset_function(cfg.smem_kind, cfg.bk)),
        "cuda": cuda,
        "uint16": numba.uint16,
        "uint32": numba.uint32,
        "int32": numba.int32,
        "float32": numba.float32,
        "min": min,
        "max": max,
        "mbarrier_init": gemm_ptx.mbarrier_init,
        "fence_mbarrier_init": gemm_ptx.fence_mbarrier_init,
        "mbarrier_arrive_expect_tx": gemm_ptx.mbarrier_arrive_expect_tx,
        "mbarrier_try_wait": gemm_ptx.mbarrier_try_wait,
        "tma_load_2d": gemm_ptx.tma_load_2d,
        "smem_addr": ptx.smem_addr,
        "ldmatrix_x4": ptx.ldmatrix_x4,
        "mma_m16n8k16_f32f16f16f32": ptx.mma_m16n8k16_f32f16f16f32,
        "mma_m16n8k16_f16f16f16f16": ptx.mma_m16n8k16_f16f16f16f16,
        "mma_m16n8k8_f32f16f16f32": ptx.mma_m16n8k8_f32f16f16f32,
        "mma_m16n8k8_f16f16f16f16": ptx.mma_m16n8k8_f16f16f16f16,
        "cp_async_commit_group": ptx.cp_async_commit_group,
        "cp_async_cg_16": ptx.cp_async_cg_16,
        "cp_async_16": ptx.cp_async_16,
        "cp_async_wait_group": ptx.cp_async_wait_group,
        "cp_async_cg_16_zfill": gemm_ptx.cp_async_cg_16_zfill,
        "ld_global_v4": gemm_ptx.ld_global_v4,
        "st_shared_v4": gemm_ptx.st_shared_v4,
        "st_global_u32": gemm_ptx.st_global_u32,
        "st_global_v2_f32": gemm_ptx.st_global_v2_f32,
    }


@functools.lru_cache(maxsize=None)
def _jit_offset(fn):
    if ptx.SIMULATED:
        return fn
    return cuda.jit(device=True, inline="always")(fn)


@functools.lru_cache(maxsize=None)
def build_kernel(cfg, acc, arch, name="gemm_tc"):
    """Compile-on-first-launch numba kernel for ``cfg``, ``acc`` ("f32"/"f16") and ``arch``."""
    src = kernel_source(cfg, acc, tuple(arch), name, static_smem=ptx.SIMULATED)
    filename = f"<labkit gemm {name} {cfg.bm}x{cfg.bn}x{cfg.bk} {acc} sm_{arch[0]}{arch[1]}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    scope = _namespace(cfg)
    exec(compile(src, filename, "exec"), scope)
    options = dict(fastmath=True, lineinfo=False)
    if cfg.max_registers:
        options["max_registers"] = cfg.max_registers
    if ptx.SIMULATED:
        return cuda.jit(scope[name])
    return cuda.jit(**options)(scope[name])


#: operand rules of the tensor-core steps: ldmatrix/mma need sm_75; rows of A and B are
#: copied 16 bytes at a time, so K % 8 == 0 and 16-byte-aligned pointers
RULES = dict(min_arch=(7, 5), k_multiple=8, align_bytes=16)


def launch_config(cfg, M, N, arch):
    """(grid, block, dynamic shared bytes) for an M x N output."""
    return (ceil_div(M, cfg.bm) * ceil_div(N, cfg.bn),), (cfg.threads,), cfg.smem_bytes(arch)


def tensor_maps(cfg, A, B, M, N, K):
    """Device array holding the TMA tensor maps of A (words 0-15) and B (words 16-31).

    Each describes a row-major fp16 (rows, K) matrix with boxes of ``bm`` (``bn``) rows by 64
    columns, 128-byte swizzle, zeros outside the matrix (``cuTensorMapEncodeTiled``; under the
    simulator, a key into the twin's table).
    """
    import numpy as np

    if ptx.SIMULATED:
        words = np.concatenate([gemm_ptx.sim_tensor_map(A, M, K, cfg.bm, 64),
                                gemm_ptx.sim_tensor_map(B, N, K, cfg.bn, 64)])
        return cuda.to_device(words)
    from cuda.bindings import driver as drv

    def encode(X, rows, box_rows):
        ptr = int(X.__cuda_array_interface__["data"][0])
        err, tmap = drv.cuTensorMapEncodeTiled(
            drv.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, ptr,
            [drv.cuuint64_t(K), drv.cuuint64_t(rows)], [drv.cuuint64_t(2 * K)],
            [drv.cuuint32_t(64), drv.cuuint32_t(box_rows)], [drv.cuuint32_t(1), drv.cuuint32_t(1)],
            drv.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
            drv.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B,
            drv.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
        if err != drv.CUresult.CUDA_SUCCESS:
            raise DeviceError(f"tensor map: cuTensorMapEncodeTiled failed ({err}) for a ({rows}, {K}) operand")
        return np.array([int(v) for v in tmap.opaque], np.uint64)

    return cuda.to_device(np.concatenate([encode(A, M, cfg.bm), encode(B, N, cfg.bn)]))


def launch(step, cfg, A, B, C, acc, arch, name="gemm_tc"):
    """Check operands for ``step`` and return a no-argument function launching ``cfg``'s kernel."""
    import numpy as np

    rules = dict(RULES, min_arch=(9, 0)) if cfg.loader == "tma" else RULES
    M, N, K = check_operands(step, A, B, C, acc, arch, **rules)
    for operand, rows, tile in (("A", M, cfg.bm), ("B", N, cfg.bn)):
        if (rows + tile) * K > 2**31 - 1:
            raise DeviceError(f"{operand}: ({rows} + {tile}) * K = {(rows + tile) * K} is over the "
                              "int32 index range (2**31 - 1) the kernel computes in")
    kernel = build_kernel(cfg, acc, tuple(arch), name)
    grid, block, smem = launch_config(cfg, M, N, arch)
    A1, B1 = A.reshape(M * K), B.reshape(N * K)
    Cv = (C if acc == "f32" else C.view(np.uint16)).reshape(M * N)
    args = (A1, B1, Cv, np.int32(M), np.int32(N), np.int32(K))
    if cfg.loader == "tma":
        args += (tensor_maps(cfg, A1, B1, M, N, K),)
    if not ptx.SIMULATED:
        kernel.compile(tuple(numba.typeof(a) for a in args))
        set_dynamic_shared(kernel, smem)
    configured = kernel[grid, block, 0, 0 if ptx.SIMULATED else smem]
    return lambda: configured(*args)


def step_functions(step, name, configs, default=None, default_arch=(8, 0), loader=None):
    """``(source, launch, kernel_config)`` of a ladder step built on :func:`kernel_source`.

    ``configs`` is one :class:`TileConfig` (the functions then take no ``config``) or a dict of
    named ones with ``default`` the step's own; ``loader`` (if given) is the only loader a
    caller's own TileConfig may use.

    >>> source, launch, kernel_config = step_functions("mma", "gemm_mma", TileConfig(stages=1,
    ...     double_buffer=False))
    >>> kernel_config()[1], "def gemm_mma(" in source()
    ('gemm_mma', True)
    """
    if isinstance(configs, TileConfig):
        one = configs

        def source(acc="f32", arch=default_arch):
            return kernel_source(one, acc, arch, name)

        def launch(A, B, C, acc, arch):
            return globals()["launch"](step, one, A, B, C, acc, arch, name)

        def kernel_config():
            return one, name
    else:
        def pick(config):
            if isinstance(config, TileConfig):
                if loader is not None and config.loader != loader:
                    raise DeviceError(f"config: step {step!r} needs loader={loader!r}, got {config.loader!r}")
                return config
            if config not in configs:
                raise DeviceError(f"config: must be a TileConfig or one of {sorted(configs)}, got {config!r}")
            return configs[config]

        def source(acc="f32", arch=default_arch, config=default):
            return kernel_source(pick(config), acc, arch, name)

        def launch(A, B, C, acc, arch, config=default):
            return globals()["launch"](step, pick(config), A, B, C, acc, arch, name)

        def kernel_config(config=default):
            return pick(config), name

    source.__doc__ = f"The generated Python source of step {step!r}'s kernel."
    launch.__doc__ = "Check the operands and return a no-argument function that launches the kernel once."
    kernel_config.__doc__ = f"(TileConfig, kernel name) of step {step!r}."
    return source, launch, kernel_config


def _tool(name):
    """Path of a CUDA binary utility (ptxas, cuobjdump, nvdisasm), or None.

    Looks on the PATH, under ``$CUDA_HOME/bin`` (default /usr/local/cuda), then in the
    ``nvidia-cuda-*`` pip wheels (``nvidia/cu13/bin``, ``nvidia/cuda_nvcc/bin``).
    """
    import glob
    import os
    import shutil
    import sys

    found = shutil.which(name)
    if found:
        return found
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    candidates = [os.path.join(home, "bin", name)]
    for site in sys.path:
        candidates += sorted(glob.glob(os.path.join(site, "nvidia", "*", "bin", name)))
    return next((c for c in candidates if os.path.isfile(c) and os.access(c, os.X_OK)), None)


def _disassemble(cubin_bytes):
    """SASS text of a cubin through cuobjdump (or nvdisasm); '' when neither is installed."""
    import subprocess
    import tempfile

    for name, flags in (("cuobjdump", ["-sass"]), ("nvdisasm", [])):
        path = _tool(name)
        if path is None:
            continue
        with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
            f.write(bytes(cubin_bytes))
            f.flush()
            done = subprocess.run([path, *flags, f.name], capture_output=True, text=True, timeout=300)
        if done.returncode == 0 and done.stdout.strip():
            return done.stdout
    return ""


def hmma_per_ktile(cfg, arch):
    """``HMMA`` instructions one warp issues per k-tile: every atom of its tile, each k-block.

    >>> hmma_per_ktile(TileConfig(), (9, 0)), hmma_per_ktile(TileConfig(), (7, 5))
    (128, 256)
    """
    MI, NI = cfg.atoms
    per = MI * NI * (cfg.bk // 16)
    return per if tuple(arch) >= (8, 0) else 2 * per


def _signature(acc, cfg=None):
    from numba import types

    c = types.float32 if acc == "f32" else types.uint16

    def arr(t):
        return types.Array(t, 1, "C")

    sig = (arr(types.float16), arr(types.float16), arr(c), types.int32, types.int32, types.int32)
    return sig + (arr(types.uint64),) if cfg is not None and cfg.loader == "tma" else sig


def offline_report(cfg, acc, arch, name="gemm_tc", sass_path=None):
    """Build ``cfg``'s kernel without a GPU and read registers, spills and SASS from it.

    numba writes the PTX (``numba.cuda.compile_ptx``: needs the CUDA toolkit's NVVM and
    NVRTC); ``ptxas -v`` assembles it for ``arch`` with the kernel's register cap and reports
    registers, spill bytes and stack; ``cuobjdump -sass`` gives the instructions, counted
    over the whole kernel (``mix``) and per k-tile of the main loop (``per_ktile``).
    """
    import os
    import re
    import subprocess
    import tempfile

    from labkit.cuda.kernels.gemm_common import instruction_mix

    ptxas = _tool("ptxas")
    if ptxas is None:
        raise DeviceError("ptxas: not found (PATH, $CUDA_HOME/bin); offline_report needs the CUDA toolkit")
    src = kernel_source(cfg, acc, tuple(arch), name)
    scope = _namespace(cfg)
    exec(compile(src, f"<labkit gemm {name}>", "exec"), scope)
    ptx_text, _ = cuda.compile_ptx(scope[name], _signature(acc, cfg), cc=tuple(arch), fastmath=True)
    with tempfile.TemporaryDirectory() as tmp:
        ptx_path, cubin_path = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(ptx_path, "w") as f:
            f.write(ptx_text)
        args = [ptxas, f"-arch=sm_{arch[0]}{arch[1]}", "-v", ptx_path, "-o", cubin_path]
        if cfg.max_registers:
            args.insert(1, f"-maxrregcount={cfg.max_registers}")
        done = subprocess.run(args, capture_output=True, text=True, timeout=600)
        if done.returncode:
            raise DeviceError(f"ptxas: failed on {name}: {done.stderr[-2000:]}")
        with open(cubin_path, "rb") as f:
            cubin = f.read()
    info = done.stderr

    def num(pattern):
        m = re.search(pattern, info)
        return int(m.group(1)) if m else 0

    sass = _disassemble(cubin)
    if sass_path and sass:
        with open(sass_path, "w") as out:
            out.write(sass)
    regs = num(r"Used (\d+) registers")
    return dict(
        regs=regs, spill_stores=num(r"(\d+) bytes spill stores"),
        spill_loads=num(r"(\d+) bytes spill loads"), stack=num(r"(\d+) bytes stack frame"),
        dynamic_smem=cfg.smem_bytes(arch), threads=cfg.threads,
        ctas_per_sm=occupancy(regs, cfg.threads, cfg.smem_bytes(arch), arch=arch),
        mix=dict(instruction_mix(sass)), per_ktile=ktile_mix(sass, hmma_per_ktile(cfg, arch)),
        sass=sass, ptxas=info,
    )


def ktile_mix(sass, hmma_ktile):
    """Instruction counts of the main loop, per k-tile, from ``cuobjdump``/``nvdisasm`` SASS.

    The main loop is the backward branch whose body holds the most ``HMMA``; its counts are
    divided by the k-tiles one trip covers (``HMMA`` in the body / ``hmma_ktile``). Empty
    when there is no SASS or no such loop.

    >>> sass = '''
    ...         /*0000*/                   MOV R1, c[0x0][0x28] ;
    ...         /*0010*/                   HMMA.16816.F32 R4, R8, R12, R4 ;
    ...         /*0020*/                   LDSM.16.M88.4 R8, [R3] ;
    ...         /*0030*/                   HMMA.16816.F32 R4, R8, R12, R4 ;
    ...         /*0040*/               @P0 BRA 0x10 ;
    ... '''
    >>> ktile_mix(sass, 2)
    {'HMMA': 2.0, 'LDSM': 1.0, 'BRA': 1.0, 'total': 4.0}
    """
    import collections
    import re

    line_re = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)([^;]*)")
    label_re = re.compile(r"^\s*(\.L\w+):")
    insts, labels, pending = [], {}, []
    for line in sass.splitlines():
        m = label_re.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = line_re.match(line)
        if m:
            addr = int(m.group(1), 16)
            for lab in pending:
                labels[lab] = addr
            pending = []
            insts.append((addr, m.group(2), m.group(3)))
    best = None
    for i, (addr, op, rest) in enumerate(insts):
        if op != "BRA":
            continue
        t = re.search(r"0x([0-9a-f]+)", rest)
        lab = re.search(r"(\.L\w+)", rest)
        target = int(t.group(1), 16) if t else (labels.get(lab.group(1)) if lab else None)
        if target is None or target >= addr:
            continue
        body = [o for a, o, _ in insts[: i + 1] if a >= target]
        hmma = body.count("HMMA")
        if hmma and (best is None or hmma > best[0]):
            best = (hmma, body)
    if best is None:
        return {}
    trips = best[0] / hmma_ktile
    out = {k: v / trips for k, v in collections.Counter(best[1]).most_common()}
    out["total"] = len(best[1]) / trips
    return out


def occupancy(regs, threads, smem, arch=None):
    """CTAs one multiprocessor holds: the least of what registers, shared memory and threads allow.

    Registers are allocated per warp in units of 256; each CTA also takes 1 KB of shared
    memory for the system. With ``arch=None`` the limits are read from the current GPU;
    otherwise Hopper's and Ampere's (64 K registers, 228 KB of shared memory a
    multiprocessor, 2048 threads; sm_75: 64 KB, 1024 threads).

    >>> occupancy(254, 128, 98304, arch=(9, 0)), occupancy(168, 128, 65536, arch=(9, 0))
    (2, 3)
    """
    if arch is None:
        dev = cuda.get_current_device()
        limits = dict(regs=dev.MAX_REGISTERS_PER_MULTIPROCESSOR,
                      smem=dev.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
                      threads=dev.MAX_THREADS_PER_MULTIPROCESSOR)
    elif tuple(arch) >= (8, 0):
        limits = dict(regs=65536, smem=233472, threads=2048)
    else:
        limits = dict(regs=65536, smem=65536, threads=1024)
    warps = ceil_div(threads, 32)
    per_warp = ceil_div(max(regs, 1) * 32, 256) * 256
    by_regs = limits["regs"] // (per_warp * warps)
    by_smem = limits["smem"] // (smem + 1024)
    return int(min(by_regs, by_smem, limits["threads"] // threads, 32))


def kernel_report(cfg, acc, arch, name="gemm_tc", sass_path=None):
    """Registers, local memory (spills), shared memory and SASS instruction mix of a kernel.

    The kernel must have been launched (compiled) already. Everything comes through numba's
    public dispatcher API: ``get_regs_per_thread``, ``get_local_mem_per_thread``,
    ``get_shared_mem_per_block``, and the SASS from ``inspect_sass`` (nvdisasm on the
    cubin) or, without nvdisasm, ``inspect_asm``'s PTX assembled by ptxas and read by
    cuobjdump. ``mix`` counts the whole kernel, ``per_ktile`` one k-tile of the main loop.
    """
    import os
    import subprocess
    import tempfile

    from labkit.cuda.kernels.gemm_common import instruction_mix

    kernel = build_kernel(cfg, acc, tuple(arch), name)
    if not kernel.overloads:
        raise DeviceError(f"kernel: {name} has not been compiled yet; launch it first")

    def one(v):
        return next(iter(v.values())) if isinstance(v, dict) else v

    regs = one(kernel.get_regs_per_thread())
    report = dict(regs=regs, local_bytes=one(kernel.get_local_mem_per_thread()),
                  static_smem=one(kernel.get_shared_mem_per_block()),
                  dynamic_smem=cfg.smem_bytes(arch), threads=cfg.threads, mix={}, per_ktile={},
                  sass="", sass_from="")
    report["ctas_per_sm"] = occupancy(regs, cfg.threads, cfg.smem_bytes(arch) + report["static_smem"])
    sass = ""
    try:
        sass = one(kernel.inspect_sass())
        report["sass_from"] = "inspect_sass (nvdisasm)"
    except Exception:  # no nvdisasm: assemble the PTX numba produced
        ptxas = _tool("ptxas")
        if ptxas is not None:
            ptx_text = one(kernel.inspect_asm())
            with tempfile.TemporaryDirectory() as tmp:
                p, c = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
                with open(p, "w") as f:
                    f.write(ptx_text)
                args = [ptxas, f"-arch=sm_{arch[0]}{arch[1]}", p, "-o", c]
                if cfg.max_registers:
                    args.insert(1, f"-maxrregcount={cfg.max_registers}")
                if subprocess.run(args, capture_output=True, timeout=600).returncode == 0:
                    with open(c, "rb") as f:
                        sass = _disassemble(f.read())
                    report["sass_from"] = "inspect_asm + ptxas + cuobjdump"
    if sass:
        report["sass"] = sass
        report["mix"] = dict(instruction_mix(sass))
        report["per_ktile"] = ktile_mix(sass, hmma_per_ktile(cfg, arch))
        if sass_path:
            with open(sass_path, "w") as out:
                out.write(sass)
    return report
