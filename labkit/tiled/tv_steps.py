"""How TiledCopy and TiledMMA build their thread-value layouts, step by step.

A TV layout sends ``(thread, value)`` to an element of a tile. ``make_tiled_copy`` builds it
from a thread layout and a value layout: it combines them into one layout from the tile's
elements to ``(thread, value)`` (``raked_product``), then inverts that (``right_inverse``).
``tile2thrfrg`` then cuts the TV layout into pieces of the copy atom's size and reads a
tensor through it. A TiledMMA starts from the other side: the atom already knows its TV
layout, and the tiled layout is the tensor divided by the atom's tile, composed with it, then
divided by the threads, whose index is finally inverted (``right_inverse`` of the thread
layout). The functions here return those intermediate layouts; each final answer is taken
from :mod:`labkit.tiled` itself.

>>> import labkit as lk
>>> from labkit.tiled import tv_steps
>>> st = tv_steps.make_tiled_copy_steps(lk.copy_atom("UniversalCopy<u32>", "f16"),
...                                     lk.parse_layout("(_4,_2):(_2,_1)"),
...                                     lk.parse_layout("(_1,_2):(_2,_1)"))
>>> print(st.layout_mn, st.layout_tv, sep="\\n")
((_1,_4),(_2,_2)):((_16,_2),(_8,_1))
((_2,_4),_2):((_8,_1),_4)
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import LayoutError
from ..layout import (
    Layout, S, _, make_layout, size, composition, coalesce, zipped_divide, logical_divide,
    raked_product, right_inverse, zip_layouts, tiled_product, get_flat_coord, local_partition,
    make_identity_tensor, compact_major, product,
)
from ..atoms import mma_atom
from .tiled_copy import make_tiled_copy, TiledCopy
from .tiled_mma import TiledMMA, make_tiled_mma

__all__ = ["CopyTVSteps", "make_tiled_copy_steps", "Tile2ThrFrgSteps", "tile2thrfrg_steps",
           "MMATVSteps", "tiled_mma_steps", "PartitionSteps", "local_partition_steps",
           "accumulator_registers"]


def _as_layout(x):
    return x if isinstance(x, Layout) else Layout(x)


# --------------------------------------------------------------------------- make_tiled_copy

@dataclass(frozen=True)
class CopyTVSteps:
    """``make_tiled_copy(atom, thr, val)``: the layouts it computes, in order."""

    thr_layout: Layout       # (m, n) position in the thread grid -> thread index
    val_layout: Layout       # (m, n) position in one thread's block -> value index
    layout_mn: Layout        # raked_product(thr, val): tile (m, n) -> thread + T*value
    tiler_mn: tuple          # the tile: product of each mode of layout_mn
    inverse: Layout          # right_inverse(layout_mn): thread + T*value -> tile index
    layout_tv: Layout        # inverse with the shape (T, V): (thread, value) -> tile index
    tiled_copy: TiledCopy    # make_tiled_copy(...) itself

    def __str__(self):
        return "\n".join([
            f"thr_layout {self.thr_layout}, val_layout {self.val_layout}",
            f"raked_product -> layout_mn {self.layout_mn} (tile "
            f"{'x'.join(str(int(t)) for t in self.tiler_mn)})",
            f"right_inverse -> {self.inverse}",
            f"shape (T,V)   -> layout_tv {self.layout_tv}"])


def make_tiled_copy_steps(atom, thr_layout, val_layout) -> CopyTVSteps:
    """The steps of ``make_tiled_copy``.

    ``raked_product(thr, val)`` gives each element of the tile the number
    ``thread + T*value`` of the thread and value that copy it (the value blocks of the
    threads interleave: thread ``t``'s block sits at ``t``'s position in every repeat).
    Its right inverse reads the other way, from ``thread + T*value`` to the element;
    composed with the shape ``(T, V)`` it takes ``(thread, value)``: the TV layout.
    """
    thr_layout, val_layout = _as_layout(thr_layout), _as_layout(val_layout)
    cp = make_tiled_copy(atom, thr_layout, val_layout)
    layout_mn = raked_product(thr_layout, val_layout)
    modes = list(layout_mn) if isinstance(layout_mn.shape, tuple) else [layout_mn]
    tiler = tuple(product(m.shape) for m in modes)
    inv = right_inverse(layout_mn)
    tv = composition(inv, Layout((size(thr_layout), size(val_layout))))
    if str(tv) != str(cp.layout_tv) or tuple(map(int, tiler)) != tuple(map(int, cp.tiler_mn)):
        raise LayoutError(f"make_tiled_copy_steps: the steps give {tv} over {tiler}, "
                          f"make_tiled_copy {cp.layout_tv} over {cp.tiler_mn}")
    return CopyTVSteps(thr_layout, val_layout, layout_mn, tiler, inv, tv, cp)


# --------------------------------------------------------------------------- tile2thrfrg

@dataclass(frozen=True)
class Tile2ThrFrgSteps:
    """``TiledCopy::tile2thrfrg`` on the tile itself (``get_layoutS_TV``/``get_layoutD_TV``)."""

    side: str                # "S" or "D"
    atom_tv: Layout          # zipped_divide(layout_tv, (AtomNumThr, AtomNumVal))
    ref2trg: Layout          # right_inverse(atom ref) o atom src (or dst)
    trg_tv: Layout           # atom_tv o (ref2trg, _)
    thrval2mn: Layout        # coalesce(zip(trg_tv)): ((atom thr, rest thr), (atom val, rest val))
    result: Layout           # (thread, value) -> tile index, on that side (from the TiledCopy)

    def __str__(self):
        return "\n".join([
            f"zipped_divide by the atom  {self.atom_tv}",
            f"ref2{'src' if self.side == 'S' else 'dst'}                    {self.ref2trg}",
            f"compose mode 0 with it     {self.trg_tv}",
            f"zip and coalesce           {self.thrval2mn}",
            f"layout{self.side}_TV                 {self.result}"])


def tile2thrfrg_steps(tiled_copy: TiledCopy, side: str = "S") -> Tile2ThrFrgSteps:
    """The steps of ``tile2thrfrg`` that give ``get_layoutS_TV`` (``side="S"``) or
    ``get_layoutD_TV`` (``"D"``).

    The TV layout is cut into pieces the size of one atom, ``(AtomNumThr, AtomNumVal)``,
    giving ``((atom thr, atom val), (rest thr, rest val))``. The atom's own numbering of its
    elements (its *reference* layout) is replaced by the source's or destination's by
    composing with ``ref2trg``; zipping pairs the thread parts and the value parts.
    """
    if not isinstance(tiled_copy, TiledCopy):
        raise LayoutError(f"tile2thrfrg_steps: expected a TiledCopy, got {tiled_copy!r}")
    if side not in ("S", "D"):
        raise LayoutError(f"tile2thrfrg_steps: side must be 'S' or 'D', got {side!r}")
    atom = tiled_copy.atom
    atom_tv = zipped_divide(tiled_copy.layout_tv, (atom.num_threads, atom.num_values))
    ref2trg = tiled_copy.ref2src() if side == "S" else tiled_copy.ref2dst()
    trg_tv = composition(atom_tv, (ref2trg, _))
    thrval2mn = coalesce(zip_layouts(trg_tv[0], trg_tv[1]), (S(1), (S(1), S(1))))
    result = tiled_copy.get_layoutS_TV() if side == "S" else tiled_copy.get_layoutD_TV()
    # on the tile itself, (thread, value) -> tile index is thrval2mn read by mode
    mine = make_layout(thrval2mn[0], thrval2mn[1])
    n_t, n_v = int(size(result[0])), int(size(result[1]))
    if any(int(mine(t, v)) != int(result(t, v)) for t in range(n_t) for v in range(n_v)):
        raise LayoutError(f"tile2thrfrg_steps: {mine} and layout{side}_TV {result} differ")
    return Tile2ThrFrgSteps(side, atom_tv, ref2trg, trg_tv, thrval2mn, result)


# --------------------------------------------------------------------------- TiledMMA

@dataclass(frozen=True)
class MMATVSteps:
    """How a TiledMMA builds the TV layout of operand A, B or C."""

    operand: str
    thr_layout_vmnk: Layout    # tiled_product(atom ThrID, atom layout): (v, m, n, k) -> thread
    reference: Layout          # the whole tile, column-major: (m, k) -> m + M*k
    permuted: Layout           # logical_divide by the permutation tile
    atom_tiles: Layout         # zipped_divide by the atom's (M, K): ((atom m, atom k), (rest))
    atom_tv: Layout            # composed with the atom's TV layout: ((t, v), (rest m, rest k))
    thrfrg: Layout             # divided by the threads: ((t, (thr m, thr k)), (v, (rest)))
    thread_index: Layout       # right_inverse(thr_layout_vmnk): thread -> (v, m, n, k) index
    layout_tv: Layout          # (thread, value) -> tile index, from the TiledMMA

    def __str__(self):
        return "\n".join([
            f"ThrLayoutVMNK          {self.thr_layout_vmnk}",
            f"tile                   {self.reference}",
            f"logical_divide (perm.) {self.permuted}",
            f"zipped_divide by atom  {self.atom_tiles}",
            f"compose atom TV        {self.atom_tv}",
            f"zipped_divide by thrs  {self.thrfrg}",
            f"right_inverse(VMNK)    {self.thread_index}",
            f"layout{self.operand}_TV            {self.layout_tv}"])


def tiled_mma_steps(mma, operand: str = "A") -> MMATVSteps:
    """The steps of ``TiledMMA::thrfrg_A`` (B, C) and ``get_layoutA_TV`` (B, C) on the tile.

    The (M, K) tile is first permuted (``logical_divide`` by the permutation, if any), then
    cut into atom-sized tiles (``zipped_divide`` by the atom's (M, K)); composing the tile
    mode with the atom's TV layout turns "element of the atom" into "(thread, value) of the
    atom". A second ``zipped_divide`` groups the atom tiles by the warps that own them. Last,
    the thread modes (atom thread, warp m, warp n, warp k) become one thread index through
    the right inverse of ``ThrLayoutVMNK``.
    """
    if isinstance(mma, str):
        mma = make_tiled_mma(mma)
    if not isinstance(mma, TiledMMA):
        raise LayoutError(f"tiled_mma_steps: expected a TiledMMA or an atom name, got {mma!r}")
    op = str(operand).upper()
    if op not in ("A", "B", "C"):
        raise LayoutError(f"tiled_mma_steps: operand must be 'A', 'B' or 'C', got {operand!r}")
    mi, ki = {"A": (0, 2), "B": (1, 2), "C": (0, 1)}[op]
    thr_i, thr_j = {"A": (1, 3), "B": (2, 3), "C": (1, 2)}[op]
    atom_tv_layout = {"A": mma.atom.layout_A, "B": mma.atom.layout_B, "C": mma.atom.layout_C}[op]
    ref = Layout((mma.tile_size(mi), mma.tile_size(ki)))
    permuted = logical_divide(ref, (mma.permutation_mnk[mi], mma.permutation_mnk[ki]))
    atom_tiles = zipped_divide(permuted, (Layout(mma.atom.shape_mnk[mi]),
                                          Layout(mma.atom.shape_mnk[ki])))
    atom_tv = composition(atom_tiles, (atom_tv_layout, _))
    v = mma.thr_layout_vmnk
    thrfrg = zipped_divide(atom_tv, (_, (Layout(size(v[thr_i])), Layout(size(v[thr_j])))))
    mine = {"A": mma.thrfrg_A, "B": mma.thrfrg_B, "C": mma.thrfrg_C}[op](ref)
    if str(mine) != str(thrfrg):
        raise LayoutError(f"tiled_mma_steps: the steps give {thrfrg}, thrfrg_{op} {mine}")
    result = {"A": mma.get_layoutA_TV, "B": mma.get_layoutB_TV, "C": mma.get_layoutC_TV}[op]()
    return MMATVSteps(op, v, ref, permuted, atom_tiles, atom_tv, thrfrg, right_inverse(v), result)


# --------------------------------------------------------------------------- local_partition

@dataclass(frozen=True)
class PartitionSteps:
    """Where ``local_partition(tensor, thr_layout, t)`` puts thread ``t``."""

    thr_layout: Layout
    thread: int
    coord: tuple             # get_flat_coord(thr_layout, t): ((t / d_i) % s_i for each mode)
    tiler: tuple             # the shape of each mode of thr_layout
    partition: object        # local_partition(tensor, thr_layout, t): a Tensor
    shared_with: tuple       # the other threads below size(thr_layout) at the same coordinate

    def __str__(self):
        c = ",".join(str(int(x)) for x in self.coord)
        s = (f"thread {self.thread} of {self.thr_layout}: coordinate ({c}) in each "
             f"{'x'.join(str(int(x)) for x in self.tiler)} piece -> {self.partition}")
        if self.shared_with:
            s += f"; threads {list(self.shared_with)} sit there too"
        return s


def local_partition_steps(tensor, thr_layout, thr_idx) -> PartitionSteps:
    """Where ``local_partition`` puts thread ``thr_idx``, for any thread layout.

    CuTe cuts the tensor into pieces of the thread layout's shape and finds the thread's
    coordinate with ``get_flat_coord``: in each mode of extent ``s`` and stride ``d``, the
    coordinate is ``(t / d) % s``. When the thread layout maps its coordinates one-to-one
    onto ``0 .. size-1``, this is its inverse, so the thread at coordinate ``c`` is
    ``thr_layout(c)``; otherwise two threads can share a coordinate (and some coordinates
    get none). ``tensor`` may be a shape: an identity tensor of it is partitioned.
    """
    if not isinstance(thr_layout, Layout):
        raise LayoutError(f"local_partition_steps: thr_layout must be a Layout, got {thr_layout!r}")
    if isinstance(tensor, tuple):
        tensor = make_identity_tensor(tensor)
    part = local_partition(tensor, thr_layout, thr_idx)
    coord = get_flat_coord(thr_layout, thr_idx)
    coord = coord if isinstance(coord, tuple) else (coord,)
    shp = thr_layout.shape
    tiler = tuple(product(s) for s in shp) if isinstance(shp, tuple) else (shp,)
    n = int(size(thr_layout))
    others = []
    for t in range(n):
        if t != thr_idx:
            c = get_flat_coord(thr_layout, t)
            if (c if isinstance(c, tuple) else (c,)) == coord:
                others.append(t)
    return PartitionSteps(thr_layout, thr_idx, coord, tiler, part, tuple(others))


def thread_map(thr_layout):
    """A layout ``(m, n) -> thread`` of who sits where under ``local_partition``, when the
    thread layout is a one-to-one map onto ``0 .. size-1`` (then it is the thread layout
    itself); ``None`` otherwise. Checked against ``get_flat_coord`` for every thread.

    >>> import labkit as lk
    >>> print(thread_map(lk.parse_layout("(_4,_2):(_2,_1)")))
    (_4,_2):(_2,_1)
    >>> thread_map(lk.parse_layout("(_4,_4):(_1,_8)")) is None
    True
    """
    n = int(size(thr_layout))
    shp = thr_layout.shape
    tiler = tuple(int(product(s)) for s in shp) if isinstance(shp, tuple) else (int(shp),)
    seen = {}
    for t in range(n):
        c = get_flat_coord(thr_layout, t)
        c = c if isinstance(c, tuple) else (c,)
        idx, mul = 0, 1
        for x, s in zip(c, tiler):
            idx += int(x) * mul
            mul *= s
        if idx in seen:
            return None
        seen[idx] = t
    if any(int(thr_layout(i)) != seen[i] for i in range(n)):
        return None
    return thr_layout


def partition_tv(tile_shape, thr_layout):
    """``(thread, value) -> m + M*n``: which thread ``local_partition`` gives each element of a
    tile, as a TV layout (for :func:`labkit.viz.draw_tv_layout`), for a thread layout that is
    a one-to-one map onto ``0 .. size-1``; ``None`` otherwise. Built with the algebra (the
    thread at coordinate ``c`` is ``thr_layout(c)``, so the thread mode is the tile's
    column-major layout over the thread grid composed with ``right_inverse(thr_layout)``)
    and checked against ``local_partition`` of every thread.

    >>> import labkit as lk
    >>> tv = partition_tv((lk.S(4), lk.S(4)), lk.parse_layout("(_2,_2):(_2,_1)"))
    >>> [int(tv(t, 0)) for t in range(4)]
    [0, 4, 1, 5]
    """
    if thread_map(thr_layout) is None:
        return None
    tile = Layout(tuple(tile_shape))
    shp = thr_layout.shape
    grid = tuple(product(s) for s in shp) if isinstance(shp, tuple) else (shp,)
    from ..layout import make_tensor
    if len(grid) != len(tile_shape):
        raise LayoutError(f"partition_tv: thread layout {thr_layout} and tile {tile_shape} differ "
                          "in rank")
    strides = compact_major(tuple(tile_shape), "left")
    thr_mode = composition(Layout(grid, strides if isinstance(strides, tuple) else (strides,)),
                           right_inverse(thr_layout))
    vals = local_partition(make_tensor(None, tile), thr_layout, 0).layout
    tv = make_layout(thr_mode, vals)
    for t in range(int(size(thr_layout))):
        part = local_partition(make_tensor(None, tile), thr_layout, t)
        if [int(part.offset) + int(x) for x in part.layout.offsets()] != [
                int(tv(t, v)) for v in range(int(size(vals)))]:
            raise LayoutError(f"partition_tv: thread {t} differs from local_partition")
    return tv


__all__ += ["thread_map", "partition_tv"]


def threads_sharing(layout_tv, thread):
    """The other threads of a TV layout that hold exactly the elements of ``thread``, value
    for value (in a TiledMMA's A layout: the warps along N).

    >>> import labkit as lk
    >>> mma = lk.make_tiled_mma("SM80_16x8x16_F16F16F16F16_TN", lk.make_layout((lk.S(2), lk.S(2))))
    >>> threads_sharing(mma.get_layoutA_TV(), 40)
    [104]
    """
    if not isinstance(layout_tv, Layout):
        raise LayoutError(f"threads_sharing: layout_tv must be a Layout, got {layout_tv!r}")
    n_t, n_v = int(size(layout_tv[0])), int(size(layout_tv[1]))
    if not (isinstance(thread, int) and 0 <= thread < n_t):
        raise LayoutError(f"threads_sharing: thread must be an int in [0, {n_t}), got {thread!r}")
    mine = [int(layout_tv(thread, v)) for v in range(n_v)]
    return [t for t in range(n_t) if t != thread
            and [int(layout_tv(t, v)) for v in range(n_v)] == mine]


__all__.append("threads_sharing")


# --------------------------------------------------------------------------- accumulators

def accumulator_registers(atom_name: str):
    """Thread 0's C/D values of an MMA atom: ``[(v, (m, n), register, half)]``.

    An f16 accumulator packs two values in one 32-bit register (``half`` 0 is the low
    16 bits); an f32 accumulator takes one register per value (``half`` is None). The TV
    layouts of the f16 and f32 atoms are the same: only the packing differs.

    >>> accumulator_registers("SM80_16x8x16_F32F16F16F32_TN")[2]
    (2, (8, 0), 2, None)
    >>> accumulator_registers("SM80_16x8x16_F16F16F16F16_TN")[2]
    (2, (8, 0), 1, 0)
    """
    atom = mma_atom(atom_name)
    nv = atom.values_per_thread("C")
    packed = atom.c_type in ("f16", "bf16")
    out = []
    for v in range(nv):
        m, n = atom.coord_C(0, v)
        out.append((v, (int(m), int(n)), v // 2 if packed else v, v % 2 if packed else None))
    return out
