"""The step-by-step traces obey the laws of what they trace.

``test_steps_cpp.py`` checks the traces' intermediate layouts against CuTe C++. Here, on many
generated operands (fixed seeds), the traces must keep the laws that define the operations:
a composition is ``A o B`` (``R(i) == A(B(i))``, same size) whenever every step is exact,
and a step CuTe can check is never inexact in a composition that compiles; ``(L, complement)``
is one-to-one and covers the target; ``L(R(k)) == k`` for the right inverse, ``R(L(i)) == i``
for the left inverse and for the right inverse of ``(L, complement(L))``; a TiledCopy's and a
TiledMMA's traced layouts equal the ones the objects use; ``partition_tv`` equals
``local_partition`` thread by thread. Bad input raises ``LayoutError``.
"""

from __future__ import annotations

import itertools
import random

import pytest

import labkit as lk
from labkit.layout import steps
from labkit.tiled import tv_steps

S, P = lk.S, lk.parse_layout


def _static_layouts(seed, n, extents=(1, 2, 3, 4, 6, 8), strides=(0, 1, 2, 3, 4, 6, 8, 12, 16)):
    r = random.Random(seed)
    out = []
    for _ in range(n):
        rank = r.choice((1, 2, 2, 3))
        shp = tuple(S(r.choice(extents)) for _ in range(rank))
        std = tuple(S(r.choice(strides)) for _ in range(rank))
        out.append(lk.make_layout(shp if rank > 1 else shp[0], std if rank > 1 else std[0]))
    return out


def _compact(seed, n):
    """Compact layouts (each offset below the size once), modes in a random order."""
    r = random.Random(seed)
    out = []
    for _ in range(n):
        shp = [S(r.choice((2, 3, 4))) for _ in range(r.choice((1, 2, 3)))]
        order = list(range(len(shp)))
        r.shuffle(order)
        std, acc = [None] * len(shp), 1
        for i in order:
            std[i] = S(acc)
            acc *= int(shp[i])
        out.append(lk.make_layout(tuple(shp), tuple(std)))
    return out


def _injective(L):
    vals = [int(L(i)) for i in range(int(lk.size(L)))]
    return len(set(vals)) == len(vals)


# --------------------------------------------------------------------------- composition

def _compose_cases():
    As = _compact(1, 40) + _static_layouts(2, 40)
    Bs = _static_layouts(3, 60, extents=(1, 2, 3, 4, 6), strides=(0, 1, 2, 3, 4, 5, 6, 8))
    return list(itertools.product(As[:30], Bs[:30]))


def test_exact_compositions_are_A_o_B_and_inexact_ones_are_flagged():
    seen = {"exact": 0, "inexact": 0, "refused": 0, "carry": 0}
    for A, B in _compose_cases():
        try:
            t = steps.composition_steps(A, B)
        except lk.LayoutError as err:
            assert "Condition" in str(err) or "zero" in str(err)
            seen["refused"] += 1
            continue
        assert str(t.result) == str(lk.composition(A, B))
        assert t.passes_static_checks          # it compiled, so no checked step is inexact
        truth = lk.size(t.result) == lk.size(B) and all(
            int(t.result(i)) == int(A(B(i))) for i in range(int(lk.size(B))))
        assert t.agrees == truth
        if t.exact and t.modes_add_up:
            assert truth, f"{A} o {B}: every step exact but R != A o B"
            seen["exact"] += 1
        elif t.exact:
            seen["carry"] += 1
        else:
            seen["inexact"] += 1
    assert min(seen.values()) > 0, seen


def test_modes_that_carry_inside_A_are_not_A_o_B():
    t = steps.composition_steps(P("(_12,_2):(_2,_1)"), P("(_3,_4):(_4,_6)"))
    assert t.exact and not t.modes_add_up and not t.agrees and t.passes_static_checks


def test_the_walk_of_each_mode_rebuilds_composition_of_that_mode():
    t = steps.composition_steps(P("(_6,_2):(_8,_2)"), P("(_4,_3):(_3,_1)"))
    assert [m.path for m in t.modes] == [(0,), (1,)]
    assert [s.action for s in t.modes[0].steps] == ["take", "last"]
    assert [s.action for s in t.modes[1].steps] == ["take", "skip"]
    assert "inexact" not in str(t)


def test_dynamic_values_make_inexact_steps_unchecked():
    t = steps.composition_steps(P("(4,8):(8,1)"), P("4:6"))
    assert not t.exact and t.passes_static_checks and not t.agrees
    [bad] = [s for s in t.modes[0].steps if not s.exact]
    assert bad.rule == "Stride Divisibility Condition" and not bad.checked


def test_index_maps_need_a_compact_A():
    with pytest.raises(lk.LayoutError, match="once"):
        steps.composition_steps(P("(_4,_8):(_16,_1)"), P("_4:_1")).index_maps()


@pytest.mark.parametrize("bad", [None, "x", 3.5])
def test_composition_steps_rejects_what_is_not_a_layout(bad):
    with pytest.raises(lk.LayoutError):
        steps.composition_steps(bad, P("_4:_1"))


# --------------------------------------------------------------------------- complement

def test_complement_steps_fill_the_target_once():
    checked = inexact = 0
    for L in _static_layouts(4, 120):
        f = lk.filter(L)
        if not _injective(f) or int(lk.cosize(f)) > 64:
            continue
        for n in (S(64), 64, S(int(lk.cosize(f)) + 3)):
            try:
                t = steps.complement_steps(L, n)
            except lk.LayoutError as err:     # a gap of 0: modes interleave (CuTe refuses)
                assert "Non-injective" in str(err)
                continue
            assert str(t.result) == str(lk.complement(L, n))
            whole = lk.make_layout(f, t.result)
            vals = [int(whole(i)) for i in range(int(lk.size(whole)))]
            assert len(set(vals)) == len(vals)                   # one-to-one
            if t.exact:
                assert set(range(int(n))) <= set(vals)            # covers the target
            else:
                inexact += 1
            if t.sorted is not None:                              # sorted by stride
                ds = [int(d) for d in lk.flatten(t.sorted.stride)] if isinstance(
                    t.sorted.stride, tuple) else [int(t.sorted.stride)]
                assert ds == sorted(ds)
            checked += 1
    assert checked > 60 and inexact > 0


def test_a_truncated_gap_leaves_offsets_out():
    t = steps.complement_steps(P("(_2,_2):(_1,_3)"), S(12))
    whole = lk.make_layout(P("(_2,_2):(_1,_3)"), t.result)
    assert not t.exact
    assert set(range(12)) - {int(whole(i)) for i in range(int(lk.size(whole)))}


def test_a_broadcast_is_filtered_first():
    t = steps.complement_steps(P("(_4,_8):(_0,_1)"), S(64))
    assert str(t.filtered) == "_8:_1" and str(t.result) == "_8:_8"
    t0 = steps.complement_steps(P("_4:_0"), S(8))
    assert t0.sorted is None and str(t0.result) == "_8:_1"


def test_complement_steps_refuses_overlap_like_cute():
    with pytest.raises(lk.LayoutError, match="Non-injective"):
        steps.complement_steps(P("(_2,_2):(_1,_1)"), S(8))


# --------------------------------------------------------------------------- inverses

def test_inverse_laws_on_generated_layouts():
    n_left = 0
    for L in _static_layouts(5, 150) + _compact(6, 30):
        r = steps.right_inverse_steps(L)
        assert str(r.result) == str(lk.right_inverse(L)) and r.identity
        if not _injective(L):
            continue
        try:
            li = steps.left_inverse_steps(L)
        except lk.LayoutError as err:
            assert "divisibility" in str(err)
            continue
        assert li.identity
        if steps.complement_steps(L).exact:       # (L, complement(L)) has no gap
            lc = steps.left_inverse_from_complement(L)
            assert all(int(lc(int(L(i)))) == i for i in range(int(lk.size(L))))
            n_left += 1
    assert n_left > 30


def test_right_inverse_passes_over_a_gap():
    r = steps.right_inverse_steps(P("(_4,_8):(_16,_1)"))
    assert [s.used for s in r.steps] == [True, False]
    assert "16" in r.steps[1].why


def test_left_inverse_steps_refuse_dynamic_strides():
    with pytest.raises(lk.LayoutError, match="static strides"):
        steps.left_inverse_steps(P("(4,8):(8,1)"))


# --------------------------------------------------------------------------- TV layouts

COPIES = [("UniversalCopy<u32>", "f16", "(_4,_2):(_2,_1)", "(_1,_2):(_2,_1)"),
          ("UniversalCopy<u32>", "f16", "(_4,_2):(_1,_4)", "(_2,_1):(_1,_2)"),
          ("SM80_CP_ASYNC_CACHEALWAYS", "f16", "(_16,_8):(_8,_1)", "(_1,_8):(_8,_1)"),
          ("UniversalCopy", "f32", "(_32,_4):(_1,_32)", "(_4,_1):(_1,_4)")]


@pytest.mark.parametrize("atom,ety,thr,val", COPIES)
def test_make_tiled_copy_steps_give_the_copy(atom, ety, thr, val):
    st = tv_steps.make_tiled_copy_steps(lk.copy_atom(atom, ety), P(thr), P(val))
    T, V = int(lk.size(P(thr))), int(lk.size(P(val)))
    # layout_mn and layout_tv are inverse to each other over the whole tile
    for t in range(T):
        for v in range(V):
            e = int(st.layout_tv(t, v))
            assert int(st.layout_mn(e)) == t + T * v
    for side in "SD":
        tr = tv_steps.tile2thrfrg_steps(st.tiled_copy, side)
        assert str(tr.result) == str(st.tiled_copy.get_layoutS_TV() if side == "S"
                                     else st.tiled_copy.get_layoutD_TV())


@pytest.mark.parametrize("atom_layout,perm", [(None, None), ((S(2), S(2)), None),
                                              ((S(2), S(2)), (S(32), S(32), S(16))),
                                              ((S(1), S(2)), None)])
def test_tiled_mma_steps_end_at_the_tv_layouts(atom_layout, perm):
    mma = lk.make_tiled_mma("SM80_16x8x16_F32F16F16F32_TN",
                            lk.make_layout(atom_layout) if atom_layout else None, perm)
    for op in "ABC":
        st = tv_steps.tiled_mma_steps(mma, op)
        assert str(st.layout_tv) == str(getattr(mma, f"get_layout{op}_TV")())
        assert int(lk.size(st.thread_index)) == int(mma.num_threads)


@pytest.mark.parametrize("thr", ["(_4,_2):(_1,_4)", "(_4,_2):(_2,_1)", "((_2,_2),_4):((_1,_8),_2)",
                                 "(_2,(_2,_2)):(_4,(_1,_2))"])
def test_partition_tv_is_local_partition(thr):
    # partition_tv checks itself against local_partition of every thread; here: every element
    # of the tile is held by exactly one (thread, value)
    tv = tv_steps.partition_tv((S(16), S(16)), P(thr))
    vals = sorted(int(tv(t, v)) for t in range(int(lk.size(tv[0])))
                  for v in range(int(lk.size(tv[1]))))
    assert vals == list(range(256))


def test_a_thread_layout_that_is_not_one_to_one_shares_coordinates():
    thr = P("(_4,_4):(_1,_8)")
    assert tv_steps.thread_map(thr) is None and tv_steps.partition_tv((S(8), S(8)), thr) is None
    assert tv_steps.local_partition_steps((S(8), S(8)), thr, 4).shared_with == (0,)


def test_threads_sharing_are_the_warps_along_n():
    mma = lk.make_tiled_mma("SM80_16x8x16_F16F16F16F16_TN", lk.make_layout((S(2), S(2))))
    vmnk = mma.thr_layout_vmnk
    for t in (0, 40, 72, 127):
        v, m, n, k = lk.get_flat_coord(vmnk, t)
        other = int(vmnk(v, m, 1 - n, k))                  # the same lane and warp m, other n
        assert tv_steps.threads_sharing(mma.get_layoutA_TV(), t) == [other]
        assert tv_steps.threads_sharing(mma.get_layoutC_TV(), t) == []
    with pytest.raises(lk.LayoutError, match="thread"):
        tv_steps.threads_sharing(mma.get_layoutA_TV(), 128)


def test_accumulators_share_the_layout_and_differ_in_registers():
    f16 = tv_steps.accumulator_registers("SM80_16x8x16_F16F16F16F16_TN")
    f32 = tv_steps.accumulator_registers("SM80_16x8x16_F32F16F16F32_TN")
    assert [r[1] for r in f16] == [r[1] for r in f32]
    assert max(r[2] for r in f16) == 1 and max(r[2] for r in f32) == 3


def test_tv_steps_reject_bad_input():
    with pytest.raises(lk.LayoutError, match="TiledCopy"):
        tv_steps.tile2thrfrg_steps("not a copy")
    cp = lk.make_tiled_copy(lk.copy_atom("UniversalCopy", "f16"), P("(_4,_2):(_2,_1)"), P("_1:_0"))
    with pytest.raises(lk.LayoutError, match="side"):
        tv_steps.tile2thrfrg_steps(cp, "X")
    with pytest.raises(lk.LayoutError, match="operand"):
        tv_steps.tiled_mma_steps("SM80_16x8x16_F16F16F16F16_TN", "D")
    with pytest.raises(lk.LayoutError, match="thr_layout"):
        tv_steps.local_partition_steps((S(8), S(8)), (4, 2), 0)
