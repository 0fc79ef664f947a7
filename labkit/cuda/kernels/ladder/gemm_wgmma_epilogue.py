"""Step 7's epilogue: how a consumer warpgroup's accumulators become C.

``"direct"``: each thread stores its accumulators straight from the registers (f32 pairs of 8
bytes, or f16 / bf16 pairs of 4 bytes rounded by ``cvt.rn.{f16,bf16}x2.f32``), with a guarded
path for a tile that overhangs C.

``"tma"`` (CUTLASS's TMA-store epilogue): the warpgroup writes its 64 rows of 16-bit C into shared
memory as TMA boxes of 64 rows by 128 bytes in the 128-byte swizzle (16-byte chunk ``j`` of row
``r`` at chunk ``j XOR (r % 8)``: a warp's 4-byte stores of one column block then fall in 32
different banks), every thread fences its stores for the async proxy (``fence.proxy.async``),
the warpgroup meets at a named barrier, and one thread hands the boxes to the TMA unit
(``cp.async.bulk.tensor`` global <- shared), which clips what lies outside C, so no thread tests
a bound. Before the warpgroup writes the staging buffer again, that thread waits until the
previous tile's stores have read it (``cp.async.bulk.wait_group.read 0``). With ``stages_d`` boxes
of room (CUTLASS's ``StagesD``), the boxes go out one bulk group each through a ring of that many
slots: before box ``b`` is written into slot ``b % stages_d``, all but the ``stages_d - 1`` newest
groups must have read the room (``cp.async.bulk.wait_group.read stages_d - 1``).

>>> from labkit.cuda.kernels.ladder.gemm_wgmma_config import CONFIGS
>>> staged_chunk(j=3, row=13), CONFIGS["128x256x64s3-tma"].staging_bytes
(6, 65536)
"""

from __future__ import annotations

from labkit.cuda.kernels.ladder.gemm_statements import NO_INSTRUCTION

__all__ = ["store_c", "drain", "staged_chunk", "BOX_BYTES", "ADD_BATCH", "preload", "hold_init", "hold", "store_held"]

#: bytes of one staged TMA box: 64 rows of 128 bytes (64 columns of 16-bit C)
BOX_BYTES = 64 * 128


def staged_chunk(j: int, row: int) -> int:
    """The 16-byte chunk where column block ``j`` (8 columns of 16-bit C) of ``row`` is staged
    inside its box: the TMA's 128-byte swizzle, ``(j % 8) XOR (row % 8)``."""
    return (j % 8) ^ (row % 8)


def store_c(w, cfg, acc="acc", rows="64 * c", add=None):
    """The statements that store accumulator tuple ``acc`` (rows ``m0 + rows`` ... of the tile);
    ``add``: a term added to accumulator ``i`` first, ``add.format(128 * i)`` (stream-K's partial sums,
    loaded :data:`ADD_BATCH` at a time just before they are stored, so they never all sit in
    registers and the loads of a batch overlap)."""
    if cfg.epilogue == "tma":
        _tma(w, cfg, acc, add)
    else:
        _direct(w, cfg, acc, rows, add)


def drain(w, cfg):
    """After a consumer's last tile: its TMA stores are complete before the CTA exits."""
    if cfg.epilogue == "tma":
        with w.concept("tCgC"), w.block("if t == 0:"):
            w.code("cp_async_bulk_wait_group()", call="cp_async_bulk_wait_group")


#: accumulators whose added terms are loaded together, before any of them is stored: the loads then
#: overlap, where a load issued between two stores would wait out its whole latency alone. A thread's
#: share of one 64 x 64 box of C (the TMA-store epilogue stages a box at a time)
ADD_BATCH = 64 * 64 // 128


def preload(w, add, idxs):
    """Load the terms ``add`` adds to accumulators ``idxs`` into registers ``q0, q1, ...``, all before
    the stores that use them; ``{index: register}`` (empty without ``add``)."""
    if add is None:
        return {}
    w.comment(f"load the {len(idxs)} terms first, so their loads overlap")
    for n, i in enumerate(idxs):
        w.code(f"q{n} = {add.format(128 * i)}", repeat="preload")
    return {i: f"q{n}" for n, i in enumerate(idxs)}


def _scaled(cfg, acc, i, terms=None):
    x = f"({acc}[{i}] + {terms[i]})" if terms else f"{acc}[{i}]"
    return x + (" * alpha" if cfg.scaled else "")


def _direct(w, cfg, acc, rows, add):
    f32 = cfg.c == "f32"
    per = ADD_BATCH // 4                                       # column blocks of 8 whose terms load together

    def store(j, hi, terms, repeat=None):
        x, y = _scaled(cfg, acc, 4 * j + 2 * hi, terms), _scaled(cfg, acc, 4 * j + 2 * hi + 1, terms)
        if f32:
            w.code(f"st_global_v2_f32(C, i{hi} + {8 * j}, {x}, {y})", call="st_global_v2_f32", repeat=repeat)
            return
        cvt = f"cvt_rn_{cfg.c}x2_f32"
        w.code(f"p = {cvt}({y}, {x})", call=cvt, repeat=repeat and "cvt")
        w.code(f"st_global_u32(C, i{hi} + {4 * j}, p)", call="st_global_u32", repeat=repeat)

    def batch(j0):
        return preload(w, add, [4 * j + e for j in range(j0, min(j0 + per, cfg.bn // 8)) for e in range(4)])

    with w.concept("tCgC"):
        w.comment("wgmma's D fragment: warp w holds rows 16w + lane/4 (+8), columns 8j + 2(lane%4) (+1)")
        w.code(f"r0 = int32(m0 + {rows} + 16 * warp + lane // 4)")
        w.code("col = int32(n0 + 2 * (lane % 4))")
        if f32:
            w.code("i0 = int32(r0 * N + col)")
            w.code("i1 = int32(i0 + 8 * N)")
        else:
            w.comment(f"C as 32-bit words, two {cfg.c} each (the lower column in the low half)")
            w.code("i0 = int32((r0 * N + col) // 2)")
            w.code("i1 = int32(i0 + 4 * N)")
    with w.concept("axpby"):
        with w.block(f"if m0 + {cfg.bm} <= M and n0 + {cfg.bn} <= N:"):
            for j0 in range(0, cfg.bn // 8, per):
                terms = batch(j0)
                for j in range(j0, min(j0 + per, cfg.bn // 8)):
                    for hi in (0, 1):
                        store(j, hi, terms, "st0")
        with w.block("else:", cute="residue"):
            w.code("ok0 = r0 < M", cute="residue")
            w.code("ok1 = r0 + 8 < M", cute="residue")
            for j0 in range(0, cfg.bn // 8, per):
                terms = batch(j0)
                for j in range(j0, min(j0 + per, cfg.bn // 8)):
                    with w.block(f"if col + {8 * j} < N:", cute="residue"):
                        for hi in (0, 1):
                            with w.block(f"if ok{hi}:", cute="residue"):
                                store(j, hi, terms)


def _tma(w, cfg, acc, add, packed=None, at=("m0", "n0")):
    cvt = f"cvt_rn_{cfg.c}x2_f32"
    room = f"uint32(sbase + {cfg.stages * cfg.stage_bytes} + c * {cfg.boxes_d * BOX_BYTES})"
    boxes = range(cfg.bn // 64)
    if not cfg.stages_d:                      # room for the whole row of boxes: one bulk group a tile
        _stage(w, cfg, acc, cvt, list(boxes), 0, room, "the previous tile's TMA stores have read it", add,
               packed, at)
        return
    for b in boxes:                           # a ring of stages_d boxes: one bulk group a box
        _stage(w, cfg, acc, cvt, [b], cfg.stages_d - 1, room if b == 0 else None,
               f"all but the {cfg.stages_d - 1} newest TMA stores have read it" if cfg.stages_d > 1 else
               "the previous TMA store has read it", add, packed, at)


def _word(w, cfg, acc, cvt, terms, j, hi, packed, name):
    """The 32-bit word of column block ``j``, row half ``hi``: ``packed``'s, or rounded now into ``name``."""
    if packed:
        return f"{packed}[{2 * j + hi}]"
    x, y = _scaled(cfg, acc, 4 * j + 2 * hi, terms), _scaled(cfg, acc, 4 * j + 2 * hi + 1, terms)
    w.code(f"{name} = {cvt}({y}, {x})", call=cvt, repeat="cvt")
    return name


def _stage(w, cfg, acc, cvt, boxes, pending, room, why, add, packed, at):
    """Stage ``boxes`` (each 64 columns of the consumer's rows) in their slots of the room and
    store them as one bulk group, once at most ``pending`` newer groups may still read the room."""
    slot = {b: b % cfg.boxes_d for b in boxes}
    with w.concept("tCsC"):
        w.comment("the staging buffer is free once " + why)
        with w.block("if t == 0:"):
            w.code(f"cp_async_bulk_wait_group_read({pending})", call="cp_async_bulk_wait_group_read")
        w.code("bar_sync_named(1 + c, 128)", call="bar_sync_named")
        if room:
            w.comment(f"boxes of 64 rows x 128 bytes, 128-byte swizzle: column block j of row r at chunk (j % 8) ^ (r % 8)")
            w.code(f"stg = {room}")
            if cfg.stmatrix:
                w.comment("stmatrix.x4: lanes 8i .. 8i+7 address the rows of 8x8 block i (row half i % 2, "
                          "column block i // 2 of the pair); for an even j, chunk (j + i // 2) ^ (r % 8) = j ^ q")
                w.code("srow = uint32(stg + (16 * warp + lane % 8 + 8 * ((lane // 8) % 2)) * 128)")
                w.code("q = uint32((lane // 16) ^ (lane % 8))")
            else:
                w.code("lrow = uint32(lane // 4)")
                w.code("at = uint32(stg + (16 * warp + lrow) * 128 + 4 * (lane % 4))")
        for b in boxes:
            terms = preload(w, add, list(range(ADD_BATCH * b, ADD_BATCH * (b + 1))))    # the box's accumulators
            for j in range(8 * b, 8 * b + 8, 2 if cfg.stmatrix else 1):
                if cfg.stmatrix:
                    regs = [_word(w, cfg, acc, cvt, terms, j + i // 2, i % 2, packed, f"p{i}") for i in range(4)]
                    w.code(f"stmatrix_x4(srow + (({j % 8} ^ q) << 4) + {slot[b] * BOX_BYTES}, {', '.join(regs)})",
                           call="stmatrix_x4", repeat="stsm")
                    continue
                for hi in (0, 1):
                    p = _word(w, cfg, acc, cvt, terms, j, hi, packed, "p")
                    w.code(f"st_shared_u32(at + (({j % 8} ^ lrow) << 4), {p}, {slot[b] * BOX_BYTES + 1024 * hi})",
                           call="st_shared_u32", repeat="sts")
        w.comment("the generic proxy's stores, visible to the TMA unit (the async proxy), then the warpgroup meets")
        w.code("fence_proxy_async_shared_cta()", call="fence_proxy_async_shared_cta")
        w.code("bar_sync_named(1 + c, 128)", call="bar_sync_named")
    with w.concept("tCgC"), w.block("if t == 0:"):
        if room:
            w.comment("one thread stores the boxes; TMA leaves out what lies past M or N")
        for b in boxes:
            w.code(f"tma_store_2d(maps, 32, int32({at[1]} + {64 * b}), int32({at[0]} + 64 * c), "
                   f"uint32(stg + {slot[b] * BOX_BYTES}))", call="tma_store_2d")
        w.code("cp_async_bulk_commit_group()", call="cp_async_bulk_commit_group")


# --- overlap_store: a tile's C waits in registers, stored during the next tile's first k-tile ------

def hold_init(w, cfg):
    """Before a consumer's first tile: no tile waits to be stored yet."""
    w.comment("C of the tile before, rounded to 16-bit pairs, waiting to be stored during this tile's first k-tile")
    w.code(f"held = wgmma_zeros_u32({cfg.bn // 4})", call="wgmma_zeros_u32", op=NO_INSTRUCTION, cute="tCrC")
    w.code("hm0 = int32(0)")
    w.code("hn0 = int32(0)")
    w.code("holding = int32(0)")


def hold(w, cfg, acc):
    """After a tile's last wgmma completed: round its accumulators into ``held``, pinned there (an
    empty asm statement), so they are computed before the next tile's wgmmas write ``acc``."""
    cvt = f"cvt_rn_{cfg.c}x2_f32"
    words = [f"{cvt}({_scaled(cfg, acc, 2 * i + 1)}, {_scaled(cfg, acc, 2 * i)})" for i in range(cfg.bn // 4)]
    # tuples of 16 added together: a longer tuple display compiles to bytecode numba cannot read
    w.code("held = " + " + ".join(f"({', '.join(words[i:i + 16])},)" for i in range(0, len(words), 16)),
           call=cvt, cute="tCrC")
    w.code("held = wgmma_fence_operand(held)", call="wgmma_fence_operand", op=NO_INSTRUCTION, cute="tCrC")
    w.code("hm0 = m0")
    w.code("hn0 = n0")
    w.code("holding = int32(1)")


def store_held(w, cfg, when="holding != 0"):
    """Stage and store the held tile (if ``when``): its rows ``hm0 + 64c``, columns ``hn0`` ..."""
    with w.block(f"if {when}:"):
        _tma(w, cfg, None, None, packed="held", at=("hm0", "hn0"))
        w.code("holding = int32(0)")
