"""The epilogue's first half: a warp's accumulators to shared memory.

The ladder's block computes a 128x128 tile of C with 2x2 warps (CuTe's ``(2,2):(1,2)``), each a
64x64 warp tile of 4x8 ``mma.sync.m16n8k16`` atoms. Lane ``t`` holds, of each atom, the pairs
``C(t//4, 2(t%4)+{0,1})`` and ``C(t//4+8, ...)`` (the atom's ``LayoutC_TV``); converted to f16,
each pair is one 32-bit register. This module predicts what storing those registers costs:

- :func:`layouts`: the shared tiles: a warp's own 64x64 tile (rows of 128 bytes) or the block's
  128x128 tile (rows of 256 bytes), plain or swizzled; :func:`row_swizzle` is the swizzle that
  suits a row length (``Swizzle<3,3,3>`` for 128 bytes, ``Swizzle<3,3,4>`` for 256);
- :func:`instructions`: every warp instruction's per-lane byte offsets and registers, for
  ``st.shared.b32`` (one pair per lane) and ``stmatrix.x4`` (four 8x8 matrices, from CuTe's
  ``SM90_U32x4_STSM_N``), from the CuTe layouts;
- :func:`predict`: the wavefronts of a warp tile (:mod:`labkit.banks`);
- :func:`simulate`: the same stores in :mod:`labkit.sim` (its ``stmatrix`` model);
- :func:`run_smem`: the kernel of :mod:`labkit.cuda.kernels.experiments.exp_epilogue` on a GPU (with
  ``clock64``) or under numba's CUDA simulator, checked against both.

>>> p = predict()
>>> p["rows 128 B", "st.shared.b32"]["wavefronts"], p["rows 128 B + Sw<3,3,3>", "st.shared.b32"]["wavefronts"]
(512, 64)
>>> print(row_swizzle(256))
Sw<3,3,4>
"""

from __future__ import annotations

import functools

import numpy as np

from labkit.atoms import copy_atom, mma_atom
from labkit.banks import bank_conflicts, bank_conflicts_batch
from labkit.errors import DeviceError, LayoutError
from labkit.layout import Swizzle, composition, make_layout

__all__ = ["ATOM", "STSM", "STORES", "LAYOUTS", "row_swizzle", "layouts", "variants", "accumulator_pairs",
           "owner_grid", "prediction_table", "ordering_summary", "layouts_text", "row_banks",
           "stmatrix_blocks", "stmatrix_matches_accumulators", "instructions", "predict", "first_conflict",
           "expected_tile", "read_tile", "simulate", "run_smem", "ordering", "TOLERANCE"]


ATOM = "SM80_16x8x16_F32F16F16F32_TN"
"""The ladder's MMA (f32 accumulators; the epilogue stores them as f16 pairs)."""
STSM = "SM90_U32x4_STSM_N"
"""CuTe's ``stmatrix.sync.aligned.m8n8.x4.shared.b16`` atom."""
STORES = ("st.shared.b32", "stmatrix.x4")
WARP_TILE = (64, 64)
CTA_TILE = (128, 128)
ATOMS_MN = (4, 8)            # m16n8 atoms of a warp tile
BUFFER = 32768               # one 128x128 tile of halves
TOLERANCE = 0.15
"""Two variants of one instruction with equal predicted wavefronts must time within 15%."""
LAYOUTS = ("rows 128 B", "rows 128 B + Sw<3,3,3>", "rows 256 B", "rows 256 B + Sw<3,3,3>",
           "rows 256 B + Sw<3,3,4>")
"""The shared tiles: rows of 128 bytes (a warp's own 64x64 tile) or 256 bytes (the block's)."""
_ACCESS = {"st.shared.b32": 4, "stmatrix.x4": 16}


def row_swizzle(row_bytes: int, elem_bytes: int = 2) -> Swizzle:
    """The swizzle that makes 8 rows of ``row_bytes`` meet 8 different 16-byte bank groups:
    ``Swizzle<3, M, S>`` with ``2**M`` elements in 16 bytes (kept together) and ``2**(M+S)``
    elements in a row, so the row index's low 3 bits flip the 16-byte chunk's low 3 bits.

    >>> [str(row_swizzle(b)) for b in (128, 256, 512)]
    ['Sw<3,3,3>', 'Sw<3,3,4>', 'Sw<3,3,5>']
    >>> print(row_swizzle(128, elem_bytes=4))
    Sw<3,2,3>
    """
    for name, v in (("row_bytes", row_bytes), ("elem_bytes", elem_bytes)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1 or v & (v - 1):
            raise LayoutError(f"{name} must be a power of two; got {v!r}")
    if elem_bytes > 16 or row_bytes < 128:
        raise LayoutError(f"row_bytes must be at least 128 (one row of banks) and elem_bytes at most 16; "
                          f"got {row_bytes}, {elem_bytes}")
    m = (16 // elem_bytes).bit_length() - 1
    s = (row_bytes // elem_bytes).bit_length() - 1 - m
    return Swizzle(3, m, s)


def _layout_name(name):
    if name not in LAYOUTS:
        raise LayoutError(f"layout must be one of {LAYOUTS}; got {name!r}")
    return name


@functools.lru_cache(maxsize=None)
def layouts() -> dict:
    """``{name: CuTe layout of the tile}`` (offsets in halves): ``(64,64):(64,1)`` for a warp's
    own tile, ``(128,128):(128,1)`` for the block's, and their swizzled forms.

    >>> print(layouts()["rows 256 B + Sw<3,3,4>"])
    Sw<3,3,4> o _0 o (128,128):(128,1)
    """
    w = make_layout(WARP_TILE, (WARP_TILE[1], 1))
    c = make_layout(CTA_TILE, (CTA_TILE[1], 1))
    return {"rows 128 B": w, "rows 128 B + Sw<3,3,3>": composition(row_swizzle(128), w),
            "rows 256 B": c, "rows 256 B + Sw<3,3,3>": composition(Swizzle(3, 3, 3), c),
            "rows 256 B + Sw<3,3,4>": composition(row_swizzle(256), c)}


def layouts_text() -> str:
    """Each tile's name and CuTe layout, one a line."""
    return "\n".join(f"{name:<24}{lay}" for name, lay in layouts().items())


def variants() -> list:
    """Every ``(layout, store)`` pair, layouts first."""
    return [(lay, st) for lay in LAYOUTS for st in STORES]


def _warp_place(name, w):
    """(row, column) of warp ``w``'s 64x64 tile in the block's tile, and the byte base of the tile
    its stores address (a warp's own 8 KB buffer for rows of 128 bytes)."""
    origin = (64 * (w % 2), 64 * (w // 2))
    base = 8192 * w if name.startswith("rows 128") else 0
    local = (0, 0) if name.startswith("rows 128") else origin
    return origin, local, base


@functools.lru_cache(maxsize=None)
def accumulator_pairs() -> np.ndarray:
    """``pairs[t, h] = (m, n)``: lane ``t``'s register ``h`` (values ``2h``, ``2h+1``) of one m16n8
    atom holds ``C(m, n)`` and ``C(m, n+1)``, from the MMA atom's ``LayoutC_TV``.

    >>> accumulator_pairs()[5].tolist()
    [[1, 2], [9, 2]]
    """
    atom = mma_atom(ATOM)
    out = np.zeros((32, 2, 2), np.int64)
    for t in range(32):
        for h in range(2):
            m, n = (int(x) for x in atom.coord_C(t, 2 * h))
            if tuple(int(x) for x in atom.coord_C(t, 2 * h + 1)) != (m, n + 1):
                raise LayoutError(f"{ATOM}: lane {t}'s values {2 * h} and {2 * h + 1} are not neighbours in a row")
            out[t, h] = (m, n)
    return out


def owner_grid() -> str:
    """One m16n8 atom of C: which lane and register (``lane.h``) holds each element.

    >>> print(owner_grid().splitlines()[1])
    m= 0   0.0   0.0   1.0   1.0   2.0   2.0   3.0   3.0
    """
    pairs = accumulator_pairs()
    grid = np.empty((16, 8), object)
    for t in range(32):
        for h in range(2):
            m, n = pairs[t, h]
            grid[m, n] = grid[m, n + 1] = f"{t}.{h}"
    head = "    " + "".join(f"{f'n={n}':>6}" for n in range(8))
    return "\n".join([head] + [f"m={m:>2}" + "".join(f"{v:>6}" for v in grid[m]) for m in range(16)])


def stmatrix_blocks() -> list:
    """Which 8x8 block of a 16x16 piece (two neighbouring m16n8 atoms) each matrix of the x4
    stores: ``[(atom, h)]`` for matrices 0..3: register ``h`` of atom 0, then of atom 1, the order of
    the accumulator's registers."""
    return [(0, 0), (0, 1), (1, 0), (1, 1)]


def stmatrix_matches_accumulators() -> bool:
    """True when CuTe's ``SM90_U32x4_STSM_N`` source layout puts the halves of lane ``t``'s
    register ``i`` where the MMA's ``LayoutC_TV`` says they belong: matrix ``i`` is block
    :func:`stmatrix_blocks` ``[i]``, its element ``e`` at row ``e // 8``, column ``e % 8``.

    >>> stmatrix_matches_accumulators()
    True
    """
    src = copy_atom(STSM, "f16").layout_src              # (t, (j, i)) -> element of the 4 matrices
    pairs = accumulator_pairs()
    for t in range(32):
        for i, (atom, h) in enumerate(stmatrix_blocks()):
            for j in range(2):
                e = int(src(t, j + 2 * i))
                mat, row, col = e // 64, (e % 64) // 8, e % 8
                m, n = pairs[t, h]
                if (mat, 8 * h + row, 8 * atom + col) != (i, m, 8 * atom + n + j):
                    return False
    return True


@functools.lru_cache(maxsize=None)
def _instructions(name, store):
    lay = layouts()[_layout_name(name)]
    pairs = accumulator_pairs()
    t = np.arange(32)
    addr, regs = [], []
    for w in range(4):
        origin, local, base = _warp_place(name, w)
        a_w, r_w = [], []
        if store == "st.shared.b32":
            for mi in range(ATOMS_MN[0]):
                for ni in range(ATOMS_MN[1]):
                    for h in range(2):
                        m = 16 * mi + pairs[:, h, 0]
                        n = 8 * ni + pairs[:, h, 1]
                        a_w.append(base + 2 * np.array([lay(int(local[0] + a), int(local[1] + b))
                                                        for a, b in zip(m, n)]))
                        r_w.append(_packed(origin[0] + m, origin[1] + n)[:, None])
        elif store == "stmatrix.x4":
            for mi in range(ATOMS_MN[0]):
                for nj in range(ATOMS_MN[1] // 2):
                    # lane l addresses row l % 8 of matrix l // 8 (CuTe: DstLayout (_32,_128):(_128,_1))
                    blocks = stmatrix_blocks()
                    rows = [16 * mi + 8 * blocks[l // 8][1] + l % 8 for l in t]
                    cols = [8 * (2 * nj + blocks[l // 8][0]) for l in t]
                    a_w.append(base + 2 * np.array([lay(int(local[0] + r), int(local[1] + c))
                                                    for r, c in zip(rows, cols)]))
                    r_w.append(np.stack([_packed(origin[0] + 16 * mi + pairs[:, h, 0],
                                                 origin[1] + 8 * (2 * nj + atom) + pairs[:, h, 1])
                                         for atom, h in blocks], axis=1))
        else:
            raise LayoutError(f"store must be one of {STORES}; got {store!r}")
        addr.append(a_w)
        regs.append(r_w)
    return np.asarray(addr, np.int64), np.asarray(regs, np.uint32)


def instructions(name: str, store: str):
    """``(addr, regs)`` of the four warps' stores of their 64x64 tiles into layout ``name``:
    ``addr[w, i, lane]`` byte offsets in the 32 KB buffer, ``regs[w, i, lane, k]`` the registers
    (two f16 values ``expected_tile()`` at the element's coordinate, low half first).

    >>> a, r = instructions("rows 256 B", "stmatrix.x4")
    >>> a.shape, r.shape, a[0, 0, :3].tolist()                 # lanes 0-2: rows 0-2 of matrix 0
    ((4, 16, 32), (4, 16, 32, 4), [0, 256, 512])
    """
    a, r = _instructions(name, store)
    return a.copy(), r.copy()


def _packed(m, n):
    lo = expected_tile()[m, n].astype(np.uint32)
    hi = expected_tile()[m, n + 1].astype(np.uint32)
    return lo | (hi << 16)


@functools.lru_cache(maxsize=None)
def _expected():
    m, n = np.meshgrid(np.arange(CTA_TILE[0]), np.arange(CTA_TILE[1]), indexing="ij")
    return (m * CTA_TILE[1] + n).astype(np.uint16)


def expected_tile() -> np.ndarray:
    """The block's 128x128 tile of C the experiment stores: ``C(m, n) = 128 m + n`` as 16-bit
    patterns (each element is told apart)."""
    return _expected().copy()


def predict(name=None, store=None) -> dict:
    """``{(layout, store): {...}}`` per warp tile (64x64 halves, 8 KB): ``instructions``,
    ``wavefronts`` (the bank model's count, averaged over the four warps), ``min_wavefronts`` (with no
    conflict), ``degree`` (the worst phase) and ``access_bytes``; one entry when both are given.

    >>> predict("rows 256 B + Sw<3,3,3>", "stmatrix.x4")["degree"]
    2
    """
    keys = variants() if name is None else [(name, store)]
    out = {}
    for lay, st in keys:
        a, _ = _instructions(_layout_name(lay), st)
        b = bank_conflicts_batch(a.reshape(-1, 32), _ACCESS[st])
        out[lay, st] = {"instructions": a.shape[1], "wavefronts": b.wavefronts // 4,
                        "min_wavefronts": b.min_wavefronts // 4, "degree": b.degree, "access_bytes": _ACCESS[st]}
    return out if name is None else out[name, store]


def row_banks(name: str, store: str) -> list:
    """Warp 0's first instruction: the first bank of each of the 8 rows its first phase writes (a
    ``st.shared.b32`` writes 16 bytes of each of 8 rows, four lanes a row; a matrix of
    ``stmatrix`` 16 bytes of each of its 8 rows). Eight different multiples of 4: no conflict.

    >>> row_banks("rows 128 B", "st.shared.b32"), row_banks("rows 128 B + Sw<3,3,3>", "stmatrix.x4")
    ([0, 0, 0, 0, 0, 0, 0, 0], [0, 4, 8, 12, 16, 20, 24, 28])
    """
    a, _ = _instructions(_layout_name(name), store)
    first = a[0, 0, ::4] if store == "st.shared.b32" else a[0, 0, :8]
    return [int(x) // 4 % 32 for x in first]


def prediction_table() -> str:
    """:func:`predict` for every variant, one line each.

    >>> print(prediction_table().splitlines()[0])
    layout                  store          instructions  wavefronts  conflict
    """
    lines = [f"{'layout':<24}{'store':<15}{'instructions':>12}{'wavefronts':>12}  conflict"]
    for (lay, st), p in predict().items():
        what = "none" if p["degree"] == 1 else f"{p['degree']}-way"
        lines.append(f"{lay:<24}{st:<15}{p['instructions']:>12}{p['wavefronts']:>12}  {what}")
    return "\n".join(lines)


def ordering_summary(experiment) -> str:
    """The measured cycles beside the predicted wavefronts, per store instruction, and how many
    pairs of :func:`ordering` agree (a GPU run; else a sentence saying there are no cycles)."""
    pairs = ordering(experiment)
    if not pairs:
        return "no cycles measured here (they need a GPU): nothing to order"
    rows = experiment.rows if hasattr(experiment, "rows") else experiment["rows"]
    lines = []
    for st in STORES:
        mine = sorted((r for r in rows if r["variant"].endswith(st) and "cycles/tile" in r),
                      key=lambda r: (r["wavefronts"], r["variant"]))
        lines.append(f"{st:<24}{'wavefronts':>11}{'cycles':>8}{'per wavefront':>15}")
        lines += [f"  {r['variant'].split(', ')[0]:<22}{r['wavefronts']:>11}{r['cycles/tile']:>8.1f}"
                  f"{r['cycles/wavefront']:>15.3f}" for r in mine]
    agree = sum(ok for *_, ok in pairs)
    bad = [f"  disagrees: {a} {p} {b} (ratio {r:.2f})" for a, b, p, r, ok in pairs if not ok]
    lines += bad + [f"{agree} of {len(pairs)} pairs in the order the wavefronts predict (more wavefronts: "
                    f"more cycles; equal: within {TOLERANCE:.0%})"]
    return "\n".join(lines)


def first_conflict(name: str, store: str):
    """The bank table of warp 0's first instruction (a :class:`labkit.banks.BankConflicts`)."""
    a, _ = _instructions(_layout_name(name), store)
    return bank_conflicts(a[0, 0], _ACCESS[store])


def read_tile(image, name: str) -> np.ndarray:
    """The block's 128x128 tile read out of a 32 KB shared image (16384 halves) through layout
    ``name``: element ``(m, n)`` of warp ``w``'s tile is at the layout's offset."""
    img = np.asarray(image)
    if img.shape != (BUFFER // 2,) or img.dtype != np.uint16:
        raise DeviceError(f"image must be {BUFFER // 2} uint16 values; got {img.dtype} {img.shape}")
    lay = layouts()[_layout_name(name)]
    out = np.zeros(CTA_TILE, np.uint16)
    m, n = np.meshgrid(np.arange(64), np.arange(64), indexing="ij")
    offs = np.array([lay(int(a), int(b)) if name.startswith("rows 128") else 0 for a, b in zip(m.ravel(), n.ravel())])
    for w in range(4):
        origin, local, base = _warp_place(name, w)
        if not name.startswith("rows 128"):
            offs = np.array([lay(int(local[0] + a), int(local[1] + b)) for a, b in zip(m.ravel(), n.ravel())])
        out[origin[0]:origin[0] + 64, origin[1]:origin[1] + 64] = img[base // 2 + offs].reshape(64, 64)
    return out


def simulate(name: str, store: str) -> dict:
    """The four warps' stores in :mod:`labkit.sim` (``SharedMemory.store`` and its ``stmatrix``
    model): ``{"image": (16384,) uint16, "wavefronts": per warp tile, "degree"}``.

    >>> s = simulate("rows 128 B + Sw<3,3,3>", "stmatrix.x4")
    >>> bool((read_tile(s["image"], "rows 128 B + Sw<3,3,3>") == expected_tile()).all()), s["wavefronts"]
    (True, 64)
    """
    from labkit import sim

    a, r = _instructions(_layout_name(name), store)
    smem = sim.SharedMemory(BUFFER)
    smem.fill(0, np.full(BUFFER // 2, 0xFFFF, np.uint16))
    for w in range(4):
        for i in range(a.shape[1]):
            if store == "st.shared.b32":
                smem.store(a[w, i], r[w, i, :, 0], access_bytes=4, warp=w)
            else:
                sim.stmatrix(smem, a[w, i], r[w, i], num=4, warp=w)
    summary = smem.summary()
    (_, wf, _, deg), = summary.values()
    return {"image": smem.read(0, BUFFER // 2), "wavefronts": wf // 4, "degree": deg}


def _backend(backend):
    from labkit.lab.experiment import _backend as resolve

    return resolve(backend)


def run_smem(backend=None, warps: int | None = None, reps: int | None = None, launches: int = 5, layouts=None):
    """Every variant on the backend :func:`labkit.lab.backend` finds, with
    :func:`labkit.cuda.kernels.experiments.exp_epilogue.run_smem`: the image the stores leave must equal
    :func:`simulate`'s, and read through the CuTe layout it must be :func:`expected_tile`. On a GPU
    (8 warps, 256 rounds, median of ``launches``) ``cycles/tile`` is the clock64 count per warp
    tile and ``cycles/wavefront`` that over the predicted wavefronts. The plain-store kernel keeps
    an address and a register per store, about 160 registers a thread: 8 warps fit on any SM.
    ``stmatrix`` needs sm_90: on an older GPU its rows say so; under the simulator it runs as a
    simulated sm_90 (4 warps, one round).
    ``layouts`` (a list of :data:`LAYOUTS` names) runs only those. Returns a
    :class:`labkit.lab.experiments.Experiment`."""
    from labkit.cuda import SIMULATED, device_sm, simulate_sm
    from labkit.cuda.kernels.experiments import exp_epilogue as ke
    from labkit.lab.experiment import TWIN_NOTE, Experiment

    name, device = _backend(backend)
    gpu = name == "gpu"
    warps = (8 if gpu else 4) if warps is None else warps
    reps = (256 if gpu else 0) if reps is None else reps
    launches = launches if gpu else 1
    pred = predict()
    chosen = LAYOUTS if layouts is None else [_layout_name(x) for x in layouts]
    rows = []
    for lay, st in variants():
        if lay not in chosen:
            continue
        p = pred[lay, st]
        row = {"variant": f"{lay}, {st}", "instructions": p["instructions"], "wavefronts": p["wavefronts"],
               "degree": p["degree"]}
        a, r = _instructions(lay, st)
        if st == "stmatrix.x4" and device_sm() < 90 and not SIMULATED:
            row["ran"] = f"no: stmatrix needs sm_90, this GPU is sm_{device_sm()}"
            rows.append(row)
            continue
        if SIMULATED and st == "stmatrix.x4":
            with simulate_sm(max(90, device_sm())):
                got = ke.run_smem(st, a, r, warps, reps, launches)
        else:
            got = ke.run_smem(st, a, r, warps, reps, launches)
        row["== labkit.sim"] = bool(np.array_equal(got["smem"], simulate(lay, st)["image"]))
        row["== CuTe layout"] = bool(np.array_equal(read_tile(got["smem"], lay), expected_tile()))
        if gpu:
            cyc = float(np.median(got["cycles"])) / (warps * reps)
            row["cycles/tile"] = cyc
            row["cycles/wavefront"] = cyc / p["wavefronts"]
        rows.append(row)
    measured = ("== labkit.sim", "== CuTe layout") + (("cycles/tile", "cycles/wavefront") if gpu else ())
    if gpu:
        note = (f"one block of {warps} warps; each warp stores a 64x64 tile of f16 pairs (8 KB) {reps} times "
                f"between two clock64 reads (median of {launches} launches); cycles per warp tile")
    else:
        note = ("4 warps, one round of stores (stmatrix as a simulated sm_90). " + TWIN_NOTE.split(";")[0]
                + "; the cycles need a GPU")
    return Experiment("epilogue: accumulators to shared memory", name, device, rows,
                      ("instructions", "wavefronts", "degree"), measured, note,
                      {"warps": warps, "reps": reps, "launches": launches})


def ordering(experiment) -> list:
    """How the measured cycles order the variants against the predicted wavefronts, pair by pair
    within each store instruction: ``(a, b, predicted, measured, agrees)`` with ``predicted`` one of
    ``"<"``, ``"="`` and ``measured`` the ratio of ``b``'s cycles to ``a``'s. ``agrees``: more
    wavefronts take more cycles; equal wavefronts within :data:`TOLERANCE`."""
    rows = experiment.rows if hasattr(experiment, "rows") else experiment["rows"]
    timed = [r for r in rows if "cycles/tile" in r]
    out = []
    for st in STORES:
        mine = sorted((r for r in timed if r["variant"].endswith(st)), key=lambda r: r["wavefronts"])
        for i, a in enumerate(mine):
            for b in mine[i + 1:]:
                ratio = b["cycles/tile"] / a["cycles/tile"]
                if a["wavefronts"] == b["wavefronts"]:
                    out.append((a["variant"], b["variant"], "=", ratio, abs(ratio - 1) <= TOLERANCE))
                else:
                    out.append((a["variant"], b["variant"], "<", ratio, ratio > 1 + TOLERANCE))
    return out
