"""What a tensor-core step needs of a shared-memory layout, checked before anything is launched.

A :class:`~labkit.cuda.kernels.ladder.gemm_config.TileConfig` may bring its own layout of the A and B
tiles in shared memory (``smem_layout=``: any labkit layout, (row, column) -> fp16 element, plain,
padded, swizzled or composed). :func:`check_smem_layout` refuses, with a
:class:`~labkit.errors.ConfigError` that names ``config.smem_layout`` and the rule, a
layout the kernel cannot use:

- **shape**: rank 2, ``bk`` columns, at least ``max(bm, bn)`` rows;
- **one element, one place**: no two elements of a tile at the same offset;
- **ldmatrix and cp.async**: both move 16 bytes (8 halves) of a row at once, so every run of 8
  columns ``8c .. 8c+7`` of a row must be 8 consecutive elements starting at a multiple of 8 (a
  16-byte-aligned address);
- **the loops' constant steps**: the kernel walks its copies and ldmatrix rows by adding constants,
  so moving down 16 rows (the copy passes: their row count) must shift every element by the same
  amount;
- **TMA** (``loader="tma"``): the Tensor Memory Accelerator writes each box 128-byte swizzled, so the
  layout must be CuTe's ``Sw<3,4,3> o (8,64):(64,1)`` tiled down the rows (it has no other choice).

:func:`smem_conflicts` counts the shared-memory wavefronts of warp 0's ``ldmatrix.x4`` reads and
16-byte copy stores for one k-tile (the bank model of ``labkit.banks``); a config with
``conflict_free=True`` is refused when either costs more than its minimum.

>>> import labkit as lk
>>> from labkit.cuda.kernels.ladder.gemm_config import TileConfig
>>> padded = lk.make_layout((lk.S(128), lk.S(64)), (lk.S(72), lk.S(1)))   # rows of 64 + 8 halves
>>> cfg = TileConfig(smem_layout=padded, conflict_free=True)
>>> smem_conflicts(cfg)["ldmatrix"]                 # 32 ldmatrix.x4, 4 wavefronts each
(128, 128)
>>> try:
...     TileConfig(smem_layout=lk.make_layout((lk.S(128), lk.S(64)), (lk.S(68), lk.S(1))))
... except lk.ConfigError as e:
...     print(str(e)[:120])
config.smem_layout: ldmatrix and cp.async move 16 bytes (8 halves) of a row: columns 0..7 of row 1 must be 8 consecutive
"""

from __future__ import annotations

import numpy as np

from labkit.errors import ConfigError

__all__ = ["check_smem_layout", "smem_conflicts", "tile_elements"]

_WHAT = "config.smem_layout"


def _bad(rule):
    raise ConfigError(f"{_WHAT}: {rule}")


def _offsets(layout, rows, bk):
    from labkit.cuda.kernels.ladder.gemm_layout import layout_offset

    f = layout_offset(layout)
    return np.array([[f(r, k) for k in range(bk)] for r in range(rows)], np.int64)


def _row_steps(cfg):
    """``(rows, span)``: the kernel adds one constant for ``rows`` rows down to every row below
    ``span``: the copy passes (``p * rows_per_pass``) and the ldmatrix atoms (``16 * i``)."""
    steps = set()
    if cfg.loader != "tma":
        rpp = cfg.threads // (cfg.bk // 8)
        steps |= {(p * rpp, rpp) for p in range(1, max(cfg.bm, cfg.bn) // rpp)}
    mi, ni = cfg.atoms
    steps |= {(16 * i, 16) for i in range(1, max(mi, ni // 2))}
    return sorted(steps)


def tile_elements(layout, rows, bk):
    """Elements a ``rows x bk`` tile of ``layout`` spans (its largest offset + 1), rounded up to
    64 (128 bytes, so the B tile after it starts on a bank-row boundary)."""
    span = int(_offsets(layout, rows, bk).max()) + 1
    return -(-span // 64) * 64


def check_smem_layout(cfg):
    """Refuse ``cfg.smem_layout`` unless the kernel can use it (see the module text)."""
    from labkit import layout as lk
    from labkit.cuda.kernels.ladder.gemm_layout import smem_layout

    L = cfg.smem_layout
    if L is None:                               # a built-in layout: only the bank check is asked for
        return _check_conflicts(cfg)
    if not isinstance(L, (lk.Layout, lk.ComposedLayout)):
        _bad(f"must be a labkit Layout or ComposedLayout ((row, column) -> fp16 element); got {L!r}")
    shape = L.shape
    if not isinstance(shape, tuple) or len(shape) != 2:
        _bad(f"must have rank 2 (row, column); got {L}")
    rows, cols = (int(lk.size(m)) for m in shape)
    need = max(cfg.bm, cfg.bn)
    if cols != cfg.bk or rows < need:
        _bad(f"must have bk = {cfg.bk} columns and at least max(bm, bn) = {need} rows; got {rows} x {cols} ({L})")
    off = _offsets(L, need, cfg.bk)
    if off.min() < 0:
        _bad(f"offsets must be >= 0; (row, column) {tuple(int(v) for v in np.argwhere(off < 0)[0])} is at {off.min()}")
    for n, what in ((cfg.bm, "A"), (cfg.bn, "B")):
        tile = off[:n].ravel()
        if len(np.unique(tile)) != tile.size:
            flat = np.argsort(tile, kind="stable")
            dup = next(i for i in range(1, tile.size) if tile[flat[i]] == tile[flat[i - 1]])
            (r0, k0), (r1, k1) = divmod(int(flat[dup - 1]), cfg.bk), divmod(int(flat[dup]), cfg.bk)
            _bad(f"two elements of the {what} tile share offset {int(tile[flat[dup]])}: ({r0}, {k0}) and ({r1}, {k1})")
    chunks = off.reshape(need, cfg.bk // 8, 8)
    ok = (chunks - chunks[:, :, :1] == np.arange(8)).all(axis=2) & (chunks[:, :, 0] % 8 == 0)
    if not ok.all():
        r, c = (int(v) for v in np.argwhere(~ok)[0])
        _bad(f"ldmatrix and cp.async move 16 bytes (8 halves) of a row: columns {8 * c}..{8 * c + 7} of row {r} "
             f"must be 8 consecutive elements from a multiple of 8; they are at {chunks[r, c].tolist()}")
    for rows, span in _row_steps(cfg):
        d = off[rows:rows + span] - off[:span]
        if not (d == d[0, 0]).all():
            r, k = (int(v) for v in np.argwhere(d != d[0, 0])[0])
            _bad(f"the kernel steps through rows by constants, so {rows} rows down must move every element by "
                 f"the same offset: row 0 moves by {int(d[0, 0])}, ({r}, {k}) by {int(d[r, k])}")
    if cfg.loader == "tma":
        want = _offsets(smem_layout("tma", cfg.bk, rows=need), need, cfg.bk)
        if not (off == want).all():
            _bad("loader='tma' writes each box 128-byte swizzled: the layout must be "
                 "Sw<3,4,3> o (8,64):(64,1) tiled down the rows (gemm_layout.smem_layout('tma', 64))")
    _check_conflicts(cfg)


def _check_conflicts(cfg):
    if cfg.conflict_free:
        costs = smem_conflicts(cfg)
        for what, (waves, least) in costs.items():
            if waves > least:
                _bad(f"conflict_free: warp 0's {what} of one k-tile take {waves} shared-memory wavefronts, "
                     f"{least} without bank conflicts")


def smem_conflicts(cfg):
    """``{"ldmatrix": (wavefronts, least), "store": (wavefronts, least)}``: warp 0's ``ldmatrix.x4``
    reads and 16-byte copy stores of one k-tile under ``cfg``'s layout (``labkit.banks``)."""
    from labkit.banks import bank_conflicts
    from labkit.cuda.kernels.ladder.gemm_layout import ldmatrix_lanes, tile_layout

    f = _offsets(tile_layout(cfg), max(cfg.bm, cfg.bn), cfg.bk)
    b_off = cfg.tile_elements(cfg.bm)
    mi_n, ni_n = cfg.atoms
    t = np.arange(32)
    lane = np.stack([t % 8, (t // 8) % 2, t // 16], axis=1)
    costs = {"ldmatrix": [0, 0], "store": [0, 0]}

    def add(what, elems):
        bc = bank_conflicts([2 * int(e) for e in elems], 16)
        costs[what][0] += bc.wavefronts
        costs[what][1] += bc.min_wavefronts

    for kk in range(cfg.bk // 16):
        for operand, n, base in (("A", mi_n, 0), ("B", ni_n // 2, b_off)):
            rows, cols = ldmatrix_lanes(operand)
            r = lane @ np.array(rows)
            c = 16 * kk + lane @ np.array(cols)
            for atom in range(n):
                add("ldmatrix", base + f[16 * atom + r, c])
    if cfg.loader != "tma":
        chunks = cfg.bk // 8
        per_pass = cfg.threads // chunks
        for rows, base in ((cfg.bm, 0), (cfg.bn, b_off)):
            for p in range(rows // per_pass):
                add("store", base + f[per_pass * p + t // chunks, 8 * (t % chunks)])
    return {k: tuple(v) for k, v in costs.items() if v[1] or k == "ldmatrix"}
