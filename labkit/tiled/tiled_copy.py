"""``TiledCopy`` and ``ThrCopy``: a copy atom tiled over threads (CuTe ``copy_atom.hpp``).

``make_tiled_copy_A(atom, tiled_mma)`` builds the copy from the MMA's A layout, so that what
the copy writes is what the MMA reads; ``retile_D`` views an MMA fragment in the copy's
value grouping, over the same storage.

>>> import labkit as lk
>>> mma = lk.make_tiled_mma("SM80_16x8x16_F16F16F16F16_TN")
>>> sA = lk.make_tensor(None, lk.parse_layout("(_16,_16):(_16,_1)"))
>>> tCrA = mma.get_slice(0).partition_fragment_A(sA)
>>> copy_a = lk.make_tiled_copy_A(lk.copy_atom("SM75_U32x4_LDSM_N", "f16"), mma)
>>> print(copy_a.get_slice(0).retile_D(tCrA).layout)
((_8,_1),_1,_1):((_1,_0),_0,_0)
"""

from __future__ import annotations

from ..errors import LayoutError
from ..layout import (
    Layout, ComposedLayout, Tensor, S, _, make_layout, size, composition, zipped_divide,
    right_inverse, logical_product, raked_product, coalesce, upcast, zip_layouts,
)
from ..layout.int_tuple import is_int, product
from ..layout.tensor import slice_layout
from ..atoms import CopyAtom, copy_atom
from .tiled_mma import TiledMMA, _check_thread, _layout_of

__all__ = ["TiledCopy", "ThrCopy", "make_tiled_copy", "make_tiled_copy_A", "make_tiled_copy_B",
           "make_tiled_copy_C", "make_tiled_copy_impl"]


def _with_shape(layout, shape):
    return composition(layout, Layout(shape))


class TiledCopy:
    """A copy atom repeated so that ``layout_tv`` (thread, value) -> tile coordinate is covered."""

    def __init__(self, atom: CopyAtom, layout_tv: Layout, tiler_mn):
        if not isinstance(atom, CopyAtom):
            raise LayoutError(f"TiledCopy: atom must be a CopyAtom (lk.copy_atom(...)), got "
                              f"{atom!r}")
        self.atom = atom
        self.layout_tv = layout_tv
        self.tiler_mn = tuple(tiler_mn)
        atom_thr, atom_val = atom.num_threads, atom.num_values
        tiled_thr, tiled_val = size(layout_tv[0]), size(layout_tv[1])
        if int(tiled_thr) % int(atom_thr):
            raise LayoutError(f"TiledCopy: {int(tiled_thr)} threads is not divisible by the atom "
                              f"{atom.name}'s {int(atom_thr)} (CuTe: TiledCopy uses too few thrs for "
                              "selected CopyAtom)")
        if int(tiled_val) % int(atom_val):
            raise LayoutError(f"TiledCopy: {int(tiled_val)} values per thread is not divisible by "
                              f"the atom {atom.name}'s {int(atom_val)} (CuTe: TiledCopy uses too few vals "
                              "for selected CopyAtom)")

    @property
    def num_threads(self):
        return size(self.layout_tv[0])

    @property
    def num_values(self):
        return size(self.layout_tv[1])

    def ref2src(self):
        """(src thread, src value) -> (ref thread, ref value) index of the atom."""
        return composition(right_inverse(self.atom.layout_ref), self.atom.layout_src)

    def ref2dst(self):
        return composition(right_inverse(self.atom.layout_ref), self.atom.layout_dst)

    def tile2thrfrg(self, layout, ref2trg):
        """((TileM,TileN..),(RestM,RestN..)) -> ((ThrV,ThrX),FrgV,(RestM,RestN..))."""
        atom_tv = zipped_divide(self.layout_tv, (self.atom.num_threads, self.atom.num_values))
        trg_tv = composition(atom_tv, (ref2trg, _))
        thrval2mn = coalesce(zip_layouts(trg_tv[0], trg_tv[1]), (S(1), (S(1), S(1))))
        tv = composition(layout, (thrval2mn, _))
        base = tv.layout_b if isinstance(tv, ComposedLayout) else tv
        modes = [base[0][0], base[0][1], base[1]]
        out = make_layout(*modes)
        if isinstance(tv, ComposedLayout):
            return ComposedLayout(tv.layout_a, tv.offset, out)
        return out

    def _tidfrg(self, layout, ref2trg):
        # As in CuTe, only the rank is checked: a tensor whose extents the tile does not divide
        # gets a ragged last tile (zipped_divide rounds the rest up); predicate it with an
        # identity tensor partitioned the same way.
        base = layout.layout_b if isinstance(layout, ComposedLayout) else layout
        if len(base) < len(self.tiler_mn):
            raise LayoutError(f"partition: tensor {base} of rank {len(base)} is smaller than the "
                              f"copy tile of rank {len(self.tiler_mn)} (CuTe: Rank of tensor to "
                              "be partitioned too small.)")
        return self.tile2thrfrg(zipped_divide(layout, self.tiler_mn), ref2trg)

    def tidfrg_S(self, layout):
        """``(thread, FrgV, (RestM, RestN, ...))`` view of a source layout."""
        return self._tidfrg(_layout_of(layout), self.ref2src())

    def tidfrg_D(self, layout):
        return self._tidfrg(_layout_of(layout), self.ref2dst())

    def retile(self, layout):
        """Regroup a fragment's values by the atom's value count (CuTe ``TiledCopy::retile``)."""
        layout = _layout_of(layout)
        R = len(layout)
        V = size(layout[0])
        tiled_thr = size(self.layout_tv[0])
        frg_layout_mn = upcast(_with_shape(right_inverse(self.layout_tv), self.tiler_mn),
                               int(tiled_thr) * int(V))
        frg_layout_v = zipped_divide(logical_product(Layout(V), right_inverse(frg_layout_mn)),
                                     Layout(self.atom.num_values))
        tile = (V,) + tuple(product(s) for s in _shape_each(frg_layout_mn))
        t_layout = zipped_divide(layout, tile)
        v_layout = composition(t_layout, (frg_layout_v, _))
        crd = (_, (S(0),) + (_,) * (R - 1)) if R > 1 else (_, S(0))
        sub, off = slice_layout(v_layout, crd)
        if int(off) != 0:
            raise LayoutError("retile: the fragment's first value block does not start at 0")
        return sub

    def get_slice(self, thr_idx):
        return ThrCopy(self, _check_thread(thr_idx, self.num_threads))

    get_thread_slice = get_slice

    def get_layoutS_TV(self):
        """(thread, value) -> tile coordinate index on the source side."""
        ref = Layout(tuple(self.tiler_mn))
        t = self.tidfrg_S(ref)
        return make_layout(t[0], t[1]) if not isinstance(t, ComposedLayout) else t

    def get_layoutD_TV(self):
        ref = Layout(tuple(self.tiler_mn))
        t = self.tidfrg_D(ref)
        return make_layout(t[0], t[1])

    def __str__(self):
        return (f"TiledCopy\n  Tiler_MN:       ({','.join(str(t) for t in self.tiler_mn)})\n"
                f"  TiledLayout_TV: {self.layout_tv}\n{self.atom}")


def _shape_each(layout):
    return [m.shape for m in layout] if isinstance(layout.shape, tuple) else [layout.shape]


class ThrCopy:
    """One thread's view of a ``TiledCopy``."""

    def __init__(self, tiled: TiledCopy, thr_idx):
        self.tiled, self.thr_idx = tiled, thr_idx

    def _part(self, tensor, frg):
        base = frg.layout_b if isinstance(frg, ComposedLayout) else frg
        rest = base[2]
        rr = len(rest) if isinstance(rest.shape, tuple) else 1
        crd = (self.thr_idx, _, (_,) * rr if rr > 1 else _)
        t = tensor if isinstance(tensor, Tensor) else Tensor(None, tensor)
        return Tensor(t.storage, frg, t.offset)(crd)

    def partition_S(self, tensor):
        """This thread's source view: ``(CPY, CPY_M, CPY_N, ...)``."""
        return self._part(tensor, self.tiled.tidfrg_S(_layout_of(tensor)))

    def partition_D(self, tensor):
        return self._part(tensor, self.tiled.tidfrg_D(_layout_of(tensor)))

    def _retile(self, tensor):
        lay = self.tiled.retile(_layout_of(tensor))
        if isinstance(tensor, Tensor):
            return Tensor(tensor.storage, lay, tensor.offset)
        return lay

    def retile_D(self, tensor):
        """The same storage viewed in the copy's value grouping (writes show through)."""
        return self._retile(tensor)

    def retile_S(self, tensor):
        return self._retile(tensor)


def make_tiled_copy_impl(atom, layout_tv, tiler_mn) -> TiledCopy:
    return TiledCopy(atom, layout_tv, tiler_mn)


def _atom(a):
    if isinstance(a, CopyAtom):
        return a
    if isinstance(a, tuple) and len(a) == 2:
        return copy_atom(*a)
    raise LayoutError(f"expected a CopyAtom (lk.copy_atom(name, element_type)), got {a!r}")


def make_tiled_copy_A(atom, tiled_mma: TiledMMA) -> TiledCopy:
    """A TiledCopy whose reference layout is the MMA's A layout (CuTe ``make_tiled_copy_A``)."""
    if not isinstance(tiled_mma, TiledMMA):
        raise LayoutError(f"make_tiled_copy_A: tiled_mma must be a TiledMMA, got {tiled_mma!r}")
    return TiledCopy(_atom(atom), tiled_mma.get_layoutA_TV(),
                     (tiled_mma.tile_size(0), tiled_mma.tile_size(2)))


def make_tiled_copy_B(atom, tiled_mma: TiledMMA) -> TiledCopy:
    if not isinstance(tiled_mma, TiledMMA):
        raise LayoutError(f"make_tiled_copy_B: tiled_mma must be a TiledMMA, got {tiled_mma!r}")
    return TiledCopy(_atom(atom), tiled_mma.get_layoutB_TV(),
                     (tiled_mma.tile_size(1), tiled_mma.tile_size(2)))


def make_tiled_copy_C(atom, tiled_mma: TiledMMA) -> TiledCopy:
    if not isinstance(tiled_mma, TiledMMA):
        raise LayoutError(f"make_tiled_copy_C: tiled_mma must be a TiledMMA, got {tiled_mma!r}")
    return TiledCopy(_atom(atom), tiled_mma.get_layoutC_TV(),
                     (tiled_mma.tile_size(0), tiled_mma.tile_size(1)))


def make_tiled_copy(atom, thr_layout, val_layout) -> TiledCopy:
    """Threads ``thr_layout`` each copying a ``val_layout`` block (CuTe ``make_tiled_copy``).

    >>> import labkit as lk
    >>> cp = make_tiled_copy(lk.copy_atom("SM80_CP_ASYNC_CACHEALWAYS", "f16"),
    ...                      lk.parse_layout("(_16,_8):(_8,_1)"), lk.parse_layout("(_1,_8):(_8,_1)"))
    >>> [int(t) for t in cp.tiler_mn], int(cp.num_threads), int(cp.num_values)
    ([16, 64], 128, 8)
    """
    thr_layout = thr_layout if isinstance(thr_layout, Layout) else Layout(thr_layout)
    val_layout = val_layout if isinstance(val_layout, Layout) else Layout(val_layout)
    layout_mn = raked_product(thr_layout, val_layout)
    layout_tv = _with_shape(right_inverse(layout_mn), (size(thr_layout), size(val_layout)))
    tiler = tuple(product(s) for s in _shape_each(layout_mn))
    return TiledCopy(_atom(atom), layout_tv, tiler)
