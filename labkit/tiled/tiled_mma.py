"""``TiledMMA`` and ``ThrMMA``: an MMA atom repeated over warps and values (CuTe ``mma_atom.hpp``).

>>> import labkit as lk
>>> mma = lk.make_tiled_mma("SM80_16x8x16_F16F16F16F16_TN")
>>> sA = lk.make_tensor(None, lk.parse_layout("(_16,_16):(_16,_1)"))
>>> thr = mma.get_slice(0)
>>> print(thr.partition_A(sA).layout)
((_2,_2,_2),_1,_1):((_1,_128,_8),_0,_0)
>>> print(thr.partition_fragment_A(sA).layout)
((_2,_2,_2),_1,_1):((_1,_2,_4),_0,_0)

A Hopper GMMA atom tiles the same way; its shared-memory operands partition into descriptor
fragments, one 64-bit ``GmmaDescriptor`` per k-block (CuTe's ``GMMA::DescriptorIterator``):

>>> sA = lk.make_tensor(lk.make_smem_ptr(0x3000, "half_t"),
...                     lk.tile_to_shape(lk.gmma_layout_atom("K", "SW128", "half_t"), (lk.S(128), lk.S(64))))
>>> mma = lk.make_tiled_mma(lk.mma_atom("SM90_64x128x16_F32F16F16_SS<K,MN>"),
...                         lk.make_layout((lk.S(2), lk.S(1), lk.S(1))))
>>> thr = mma.get_slice(200)
>>> print(thr.partition_A(sA))
Sw<3,4,3>_smem_ptr[16b](0x5000) o ((_64,_16),_1,_4):((_64,_1),_0,_16)
>>> tCrA = thr.make_fragment_A(thr.partition_A(sA))
>>> print(tCrA); hex(int(tCrA(0, 0, 3)))
GMMA::DescriptorIterator o (_1,_1,_4):(_0,_0,_2)
'0x4000004000010506'
>>> int(mma.num_threads), [int(x) for x in mma.tile_shape_mnk]
(256, [128, 128, 16])
"""

from __future__ import annotations

import numpy as np

from ..errors import LayoutError
from ..layout import (
    Layout, ComposedLayout, Tensor, S, _, make_layout, make_fragment, size,
    composition, logical_divide, zipped_divide, tiled_product, right_inverse, append,
    make_fragment_like, parse_layout,
)
from ..layout.int_tuple import flatten_tuple, is_int
from ..atoms import MMAAtom, mma_atom
from ..atoms.gmma_desc import make_gmma_desc_tensor
from ..elements import element

__all__ = ["TiledMMA", "ThrMMA", "make_tiled_mma"]


def _dtype(type_name):
    """The numpy type of a register fragment of ``type_name``: float16/float32 for f16/f32, int32
    and int8/uint8 for integers, the raw bits (uintN) for bf16, tf32 and fp8."""
    e = element(type_name)
    native = {"f16": np.float16, "f32": np.float32, "s32": np.int32, "s8": np.int8, "u8": np.uint8}
    return native.get(e.name, e.dtype)


def _as_layout(x, what):
    if isinstance(x, Layout):
        return x
    if isinstance(x, str):
        return parse_layout(x)
    if is_int(x) or isinstance(x, tuple):
        return make_layout(x)
    raise LayoutError(f"{what}: expected a Layout, a shape or CuTe text, got {x!r}")


def _layout_of(t):
    if isinstance(t, Tensor):
        return t.layout
    if isinstance(t, (Layout, ComposedLayout)):
        return t
    raise LayoutError(f"expected a Tensor or a Layout, got {t!r}")


def _wrap(t, layout):
    """A tensor over the same storage as ``t`` with a new layout (or just the layout)."""
    if isinstance(t, Tensor):
        return Tensor(t.storage, layout, t.offset)
    return layout


class TiledMMA:
    """An MMA atom tiled by ``atom_layout`` (threads) and ``permutation`` (the MNK tile)."""

    def __init__(self, atom: MMAAtom, atom_layout=None, permutation=None):
        self.atom = mma_atom(atom)
        thr = _as_layout(atom_layout if atom_layout is not None else Layout(S(1), S(0)),
                         "make_tiled_mma: atom_layout")
        if len(thr) > 3:
            raise LayoutError(f"make_tiled_mma: atom_layout {thr} has more than 3 modes (M,N,K)")
        self.atom_layout_mnk = append(thr, n=3)
        perm = tuple(permutation) if permutation is not None else ()
        if len(perm) > 3:
            raise LayoutError("make_tiled_mma: permutation has more than 3 modes (M,N,K)")
        perm = perm + (_,) * (3 - len(perm))
        self.permutation_mnk = tuple(p if p is _ else (Layout(p, S(1)) if is_int(p) else
                                                       _as_layout(p, "permutation"))
                                     for p in perm)
        # (ThrV, ThrM, ThrN, ThrK) -> thread index
        self.thr_layout_vmnk = tiled_product(self.atom.thr_id, self.atom_layout_mnk)
        for i, nm in ((0, "M"), (1, "N"), (2, "K")):
            p = self.permutation_mnk[i]
            if p is not _:
                need = int(self.atom.shape_mnk[i]) * int(size(self.thr_layout_vmnk[i + 1]))
                if int(size(p)) % need:
                    raise LayoutError(f"make_tiled_mma: the {nm} tile {int(size(p))} is not a "
                                      f"multiple of atom {nm} x threads in {nm} = {need}")

    # -- sizes ---------------------------------------------------------------------------
    def tile_size(self, i: int):
        """``tile_size<I>(tiled_mma)``: the M, N or K extent one TiledMMA step covers."""
        if i not in (0, 1, 2):
            raise LayoutError(f"tile_size: mode must be 0 (M), 1 (N) or 2 (K), got {i!r}")
        p = self.permutation_mnk[i]
        if p is _:
            return self.atom.shape_mnk[i] * size(self.thr_layout_vmnk[i + 1])
        return size(p)

    @property
    def tile_shape_mnk(self):
        return tuple(self.tile_size(i) for i in range(3))

    @property
    def num_threads(self):
        return size(self.thr_layout_vmnk)

    # -- thread/value partitioning ---------------------------------------------------------
    def _thrfrg(self, layout, mi, ki, atom_tv, thr_i, thr_j):
        if len(layout) < 2:
            raise LayoutError(f"partition: tensor layout {layout} needs at least 2 modes")
        t_tile = (self.permutation_mnk[mi], self.permutation_mnk[ki])
        t_layout = logical_divide(layout, t_tile)
        a_tile = (Layout(self.atom.shape_mnk[mi]), Layout(self.atom.shape_mnk[ki]))
        _check_div(layout, a_tile, self.atom.name)
        a_layout = zipped_divide(t_layout, a_tile)
        tv = composition(a_layout, (atom_tv, _))
        thr_tile = (_, (Layout(size(self.thr_layout_vmnk[thr_i])),
                        Layout(size(self.thr_layout_vmnk[thr_j]))))
        return zipped_divide(tv, thr_tile)

    def thrfrg_A(self, layout):
        """``((ThrV,(ThrM,ThrK)),(FrgV,(RestM,RestK)))`` view of an (M,K) layout."""
        return self._thrfrg(layout, 0, 2, self.atom.layout_A, 1, 3)

    def thrfrg_B(self, layout):
        return self._thrfrg(layout, 1, 2, self.atom.layout_B, 2, 3)

    def thrfrg_C(self, layout):
        return self._thrfrg(layout, 0, 1, self.atom.layout_C, 1, 2)

    def _layout_TV(self, which):
        mi, ki = {"A": (0, 2), "B": (1, 2), "C": (0, 1)}[which]
        ref = Layout((self.tile_size(mi), self.tile_size(ki)))
        frg = {"A": self.thrfrg_A, "B": self.thrfrg_B, "C": self.thrfrg_C}[which](ref)
        v = self.thr_layout_vmnk
        sM, sN = size(v[1]), size(v[2])
        if which == "A":   # (ThrV,(ThrM,ThrK)) -> (ThrV,(ThrM,ThrN,ThrK)), ThrN broadcast
            tile = (_, (Layout((sM, sN), (S(1), S(0))), _))
        elif which == "B":   # (ThrV,(ThrN,ThrK)) -> (ThrV,(ThrM,ThrN,ThrK)), ThrM broadcast
            tile = (_, (Layout((sM, sN), (S(0), S(1))), _))
        else:
            tile = (_, (_, _))
        frg = composition(frg, (tile, _)) if which != "C" else frg
        thridx_2_thrid = right_inverse(v)
        return composition(frg, (thridx_2_thrid, _))

    def get_layoutA_TV(self):
        """``(thread, value) -> m + M*k`` over the whole TiledMMA tile."""
        return self._layout_TV("A")

    def get_layoutB_TV(self):
        return self._layout_TV("B")

    def get_layoutC_TV(self):
        return self._layout_TV("C")

    def get_slice(self, thr_idx):
        """``ThrMMA`` of thread ``thr_idx`` (an int is a run-time index, ``lk.S(i)`` static)."""
        return ThrMMA(self, _check_thread(thr_idx, self.num_threads))

    get_thread_slice = get_slice

    def __str__(self):
        return (f"TiledMMA\n  ThrLayoutVMNK: {self.thr_layout_vmnk}\n  PermutationMNK: "
                f"({','.join(str(p) for p in self.permutation_mnk)})\n{self.atom}")


def _check_div(layout, tile, name):
    for i, t in enumerate(tile):
        n = size(layout[i])
        if int(n) % int(size(t)):
            raise LayoutError(f"partition: mode {i} of extent {int(n)} is not a multiple of the "
                              f"{name} atom's {int(size(t))}")


def _check_thread(thr_idx, num_threads):
    """``thr_idx`` if it is an int (or static int) in ``[0, num_threads)``; else a LayoutError."""
    n = int(num_threads)
    if not is_int(thr_idx) or not 0 <= thr_idx < n:
        raise LayoutError(f"get_slice: thread index must be an int in [0, {n}), got {thr_idx!r}")
    return thr_idx


def _thread_coord(thr_layout_vmnk, thr_idx):
    """CuTe's ``get_flat_coord``: (v, m, n, k) of ``thr_idx``, static if ``thr_idx`` is static."""
    crd = []
    for m in thr_layout_vmnk:
        d = flatten_tuple(m.stride)[0]
        s = size(m)
        crd.append(S(0) if int(d) == 0 else (thr_idx // d) % s)
    return tuple(crd)


class ThrMMA:
    """One thread's view of a ``TiledMMA`` (CuTe ``ThrMMA``)."""

    def __init__(self, tiled: TiledMMA, thr_idx):
        self.tiled = tiled
        self.thr_idx = thr_idx
        self.thr_vmnk = _thread_coord(tiled.thr_layout_vmnk, thr_idx)

    def _partition(self, tensor, which):
        lay = _layout_of(tensor)
        frg = {"A": self.tiled.thrfrg_A, "B": self.tiled.thrfrg_B,
               "C": self.tiled.thrfrg_C}[which](lay)
        v, m, n, k = self.thr_vmnk
        thr = {"A": (v, (m, k)), "B": (v, (n, k)), "C": (v, (m, n))}[which]
        base = frg.layout_b if isinstance(frg, ComposedLayout) else frg
        rest_rank = len(base[1][1]) if isinstance(base[1][1].shape, tuple) else 1
        crd = (thr, (_, (_,) * rest_rank if rest_rank > 1 else _))
        t = _wrap(tensor, frg)
        if not isinstance(t, Tensor):
            t = Tensor(None, frg)
        return t(crd)

    def partition_A(self, tensor):
        """This thread's ``(MMA, MMA_M, MMA_K)`` view of an (M, K) tensor."""
        return self._partition(tensor, "A")

    def partition_B(self, tensor):
        return self._partition(tensor, "B")

    def partition_C(self, tensor):
        return self._partition(tensor, "C")

    def _fragment(self, part, type_name):
        lay = make_fragment_like(part.layout if isinstance(part, Tensor) else part)
        return make_fragment(lay, _dtype(type_name))

    def _operand_fragment(self, partition, op):
        """CuTe's ``MMA_Atom::make_fragment_A/B``: registers (``make_fragment_like``), or for an
        operand read through a descriptor (a GMMA atom's B, and A in the SS form) a tensor of
        GMMA descriptors over the shared-memory partition (``GMMA::smem_desc<Major>``)."""
        atom = self.tiled.atom
        if atom.operand_kind(op) == "descriptor":
            return make_gmma_desc_tensor(atom.major_A if op == "A" else atom.major_B, partition)
        return self._fragment(partition, atom.a_type if op == "A" else atom.b_type)

    def partition_fragment_A(self, tensor):
        """This thread's A fragment (``make_fragment_A`` of ``partition_A``)."""
        return self.make_fragment_A(self.partition_A(tensor))

    def partition_fragment_B(self, tensor):
        return self.make_fragment_B(self.partition_B(tensor))

    def partition_fragment_C(self, tensor):
        return self._fragment(self.partition_C(tensor), self.tiled.atom.c_type)

    def make_fragment_C(self, partition):
        """Accumulator fragment shaped like a C partition: compact, CuTe's ``make_fragment_C``."""
        lay = partition.layout if isinstance(partition, Tensor) else partition
        return make_fragment(Layout(lay.shape), _dtype(self.tiled.atom.c_type))

    def make_fragment_A(self, partition):
        """CuTe's ``make_fragment_A``: registers like the partition, or (a GMMA atom reading A
        from shared memory) one descriptor per ``(M,K)`` block of it."""
        return self._operand_fragment(partition, "A")

    def make_fragment_B(self, partition):
        return self._operand_fragment(partition, "B")


def make_tiled_mma(atom, atom_layout=None, permutation=None) -> TiledMMA:
    """``make_tiled_mma(MMA_Atom, AtomLayoutMNK, PermutationMNK)``.

    >>> import labkit as lk
    >>> mma = make_tiled_mma("SM80_16x8x16_F16F16F16F16_TN", lk.make_layout((lk.S(2), lk.S(2))),
    ...                      (lk.S(32), lk.S(32), lk.S(16)))
    >>> [int(x) for x in mma.tile_shape_mnk], int(mma.num_threads)
    ([32, 32, 16], 128)
    """
    return TiledMMA(atom, atom_layout, permutation)
