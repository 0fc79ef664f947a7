"""CuTe C++ is the arbiter of the step-by-step traces (``labkit.layout.steps``,
``labkit.tiled.tv_steps``): their intermediate layouts against the values CuTe's own
functions compute on the way.

The machinery is ``test_cute_cpp.py``'s (g++ on the CPU with CUTLASS's headers from the
``nvidia-cutlass`` wheel, one forked child per case, results cached). Each case is a C++
statement that prints one intermediate value, built from CuTe's own functions and types:
``detail::coalesce_x`` and ``composition`` of each mode of ``B`` for composition; ``filter``,
``detail::SortByKey`` (the sort the inverses use), the end stride and
``coalesce(ceil_div(cotarget, end))`` for complement; ``coalesce`` and the sorted order for
the inverses and ``right_inverse(make_layout(L, complement(L)))``; ``raked_product``,
``right_inverse``, ``TiledLayout_TV``, the atom-sized ``zipped_divide``, ``ref2src``/``ref2dst``
and ``get_layoutS_TV``/``get_layoutD_TV`` for ``make_tiled_copy``; ``thrfrg_A/B/C``,
``get_thr_layout_vmnk`` and ``get_layoutA/B/C_TV`` for TiledMMA; ``get_flat_coord`` and
``local_partition`` for thread layouts of any order; the f16 and f32 atoms' TV layouts.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_cute_cpp as base  # noqa: E402  (the shared g++ oracle machinery)

import labkit as lk  # noqa: E402
from labkit.layout import steps  # noqa: E402
from labkit.layout.int_tuple import S, fmt  # noqa: E402
from labkit.layout.layout import coalesce_x  # noqa: E402
from labkit.tiled import tv_steps  # noqa: E402

pytestmark = pytest.mark.skipif(
    base.GXX is None or base.INCLUDES is None,
    reason="needs g++ and CuTe's headers (nvidia-cutlass, nvidia-cuda-runtime-cu12, "
           "nvidia-cuda-nvcc-cu12, nvidia-cuda-cccl-cu12)")

CACHE_VERSION = b"1"
HEADERS = """#include <cute/tensor.hpp>
#include <cute/atom/copy_atom.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/copy_traits_sm75.hpp>
#include <cute/atom/copy_traits_sm80.hpp>
#include <cute/atom/mma_traits_sm80.hpp>
#include <cute/atom/mma_traits_sm75.hpp>
#include <cstdio>
#include <unistd.h>
#include <sys/wait.h>
"""
PRELUDE = r"""#include "cute_steps_pch.hpp"
using namespace cute;
template <class F> void run(int k, F&& f) {
  fflush(stdout);
  pid_t p = fork();
  if (p == 0) { printf("@%d ", k); f(); printf("\n"); fflush(stdout); _exit(0); }
  int st = 0; waitpid(p, &st, 0);
  if (!WIFEXITED(st)) printf("@%d !abort\n", k);
}
// the order SortByKey (the sort of CuTe's inverses) puts the modes of a static stride in
template <class Stride> void sorted_order(Stride const&) {
  using W = decltype(wrap(Stride{}));
  print(typename detail::SortByKey<W, tuple_seq<W>>::val_type{});
}
"""

P = lk.parse_layout
cpp_layout, cpp_int, cpp_tuple = base.cpp_layout, base.cpp_int, base.cpp_tuple


def _seq(idx):
    return "(" + ",".join(f"_{i}" for i in idx) + ")"


def _path_cpp(path):
    if not path:
        return "", ""
    return f"layout<{','.join(str(i) for i in path)}>(", ")"


# The examples: the book's, and the cases that pass CuTe's static checks but are not A o B.
COMPOSITIONS = [
    ("(_4,_8):(_8,_1)", "_4:_2"), ("(_4,_8):(_8,_1)", "_4:_3"), ("(4,8):(8,1)", "4:6"),
    ("(4,8):(8,1)", "6:1"), ("(_6,_2):(_8,_2)", "(_4,_3):(_3,_1)"), ("(6,2):(8,2)", "(4,3):(3,1)"),
    ("(_4,_4,_3):(_16,_1,_8)", "_12:_1"), ("(_8,_8):(_8,_1)", "(_2,_4):(_1,_8)"),
    ("(_2,(_4,_2)):(_8,(_2,_1))", "_1:_8"), ("(_2,_2):(_2,_1)", "_1:_1"), ("(_4,_8):(_1,_4)", "_4:_6"),
    ("(_4,_8):(_8,_1)", "_4:_8"), ("(_12,_4):(_4,_1)", "(_3,_4):(_4,_1)"), ("(_10,_3):(_3,_1)", "_6:_4"),
    ("(10,3):(3,1)", "6:4"), ("(_4,_6):(_6,_1)", "(_2,_3):(_3,_2)"), ("(_8,_4):(_1,_8)", "((_2,_2),_4):((_1,_4),_8)"),
    ("_16:_2", "(_4,_2):(_2,_1)"), ("(_12,_2):(_2,_1)", "(_3,_4):(_4,_6)"), ("(_4,_8):(_8,_1)", "_8:_0"), ("(_3,_5):(_5,_1)", "_5:_3"),
]
COMPLEMENTS = [
    ("(_2,_2):(_1,_6)", 24), ("_4:_2", S(16)), ("_4:_2", 16), ("_3:_2", S(16)), ("_3:_2", S(7)),
    ("(_4,_8):(_0,_1)", S(64)), ("_4:_0", S(8)), ("(_2,4):(_4,_1)", S(32)), ("(_2,_3):(_3,_1)", S(12)),
    ("((_2,_2),_4):((_1,_8),_2)", S(64)), ("(_4,_1,_2):(_16,_7,_1)", S(256)), ("_5:_3", S(20)),
    ("(_2,_2):(_12,_1)", (S(4), S(8))), ("(_8,_4):(_4,_64)", S(512)), ("_8:_1", None),
    ("(_2,_4):(_4,_1)", None), ("_4:_2", (S(2), 8)), ("(_2,_2):(_1,_3)", S(12)),
]
INVERSES = [
    "(_4,_8):(_8,_1)", "(_4,_8):(_16,_1)", "(_4,_8):(_0,_1)", "(_4,_8):(_1,_4)", "(4,8):(8,1)",
    "((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))", "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))",
    "(_2,_2):(_1,_6)", "((_2,_4),(_2,_2)):((_2,_16),(_1,_8))", "(_8,_4):(_4,_1)", "_8:_2",
    "(_2,_3,_4):(_12,_1,_3)", "(_4,4):(_1,_4)",
]
COPIES = [   # (C++ atom, labkit atom, element, thr, val)
    ("Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, half_t>", "SM80_CP_ASYNC_CACHEALWAYS", "f16",
     "(_16,_8):(_8,_1)", "(_1,_8):(_8,_1)"),
    ("Copy_Atom<UniversalCopy<uint32_t>, half_t>", "UniversalCopy<u32>", "f16",
     "(_4,_2):(_2,_1)", "(_1,_2):(_2,_1)"),
    ("Copy_Atom<UniversalCopy<uint32_t>, half_t>", "UniversalCopy<u32>", "f16",
     "(_4,_2):(_1,_4)", "(_2,_1):(_1,_2)"),
    ("Copy_Atom<UniversalCopy<uint64_t>, half_t>", "UniversalCopy<u64>", "f16",
     "(_8,_4):(_4,_1)", "(_1,_4):(_4,_1)"),
    ("Copy_Atom<UniversalCopy<half_t>, half_t>", "UniversalCopy", "f16",
     "(_32,_8):(_1,_32)", "(_4,_1):(_1,_4)"),
    ("Copy_Atom<UniversalCopy<uint128_t>, float>", "UniversalCopy<u128>", "f32",
     "(_8,_8):(_8,_1)", "(_1,_4):(_4,_1)"),
]
MMAS = [   # (C++ make_tiled_mma, labkit atom, atom layout, permutation)
    ("make_tiled_mma(SM80_16x8x16_F16F16F16F16_TN{})", "SM80_16x8x16_F16F16F16F16_TN", None, None),
    ("make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2>>{})",
     "SM80_16x8x16_F32F16F16F32_TN", (S(2), S(2)), None),
    ("make_tiled_mma(SM80_16x8x16_F16F16F16F16_TN{}, Layout<Shape<_2,_2>>{}, Tile<_32,_32,_16>{})",
     "SM80_16x8x16_F16F16F16F16_TN", (S(2), S(2)), (S(32), S(32), S(16))),
    ("make_tiled_mma(SM80_16x8x8_F32F16F16F32_TN{}, Layout<Shape<_1,_2>>{})",
     "SM80_16x8x8_F32F16F16F32_TN", (S(1), S(2)), None),
]
MMA_ATOMS = ["SM80_16x8x16_F16F16F16F16_TN", "SM80_16x8x16_F32F16F16F32_TN",
             "SM80_16x8x8_F16F16F16F16_TN", "SM80_16x8x8_F32F16F16F32_TN",
             "SM75_16x8x8_F32F16F16F32_TN", "SM80_16x8x16_F32BF16BF16F32_TN"]
PARTITIONS = [  # (tensor shape, thread layout, threads)
    ((S(8), S(8)), "(_4,_2):(_1,_4)", (0, 3, 5)), ((S(8), S(8)), "(_4,_2):(_2,_1)", (1, 3, 6)),
    ((S(8), S(8)), "(_4,_4):(_1,_8)", (0, 4, 9)), ((S(16), S(16)), "((_2,_2),_4):((_1,_8),_2)", (3, 6, 13)),
    ((S(32), S(64)), "(_32,_8):(_8,_1)", (37, 200)), ((S(8), S(8)), "(_2,_4):(_0,_1)", (2, 5)),
]


def make_cases():
    cases = []

    def add(op, cpp, py, text):
        cases.append(base.Case(op, cpp, py, text))

    for a_t, b_t in COMPOSITIONS:
        A, B = P(a_t), P(b_t)
        ca, cb = cpp_layout(A), cpp_layout(B)
        add("coalesce_x", f"print(detail::coalesce_x({ca}));",
            lambda A=A: coalesce_x(A), f"coalesce_x({A})")
        for k, leaf in enumerate(steps.composition_steps(A, B).modes) if _composes(A, B) else []:
            pre, post = _path_cpp(leaf.path)
            add("composition_mode", f"print(composition({ca}, {pre}{cb}{post}));",
                lambda A=A, B=B, k=k: steps.composition_steps(A, B).modes[k].result,
                f"composition({A}, mode {leaf.path} of {B})")
        # the walk: the state (rest_shape:rest_stride) a mode of B carries into A's mode i is
        # what CuTe composes the rest of A with, so composing A's modes i.. with it must give
        # the modes the walk makes from step i on (both coalesced)
        for k, leaf in enumerate(steps.composition_steps(A, B).modes) if _composes(A, B) else []:
            flat = coalesce_x(A)
            R = len(flat.shape) if isinstance(flat.shape, tuple) else 1
            if R < 2 or leaf.steps[0].action == "stride 0":
                continue
            for j, stp in enumerate(leaf.steps):
                rest = lk.make_layout(stp.rest_shape, stp.rest_stride)
                add("composition_walk",
                    f"print(coalesce(composition(take<{stp.a_mode},{R}>(detail::coalesce_x({ca})), "
                    f"{cpp_layout(rest)})));",
                    lambda A=A, B=B, k=k, j=j: _walk_tail(steps.composition_steps(A, B).modes[k], j),
                    f"walk of mode {leaf.path} of {B} through {A} from step {j}")
        add("composition", f"print(composition({ca}, {cb}));",
            lambda A=A, B=B: steps.composition_steps(A, B).result, f"composition({A}, {B})")
        # R(i) for every i of B, and A(B(i)): the verdict "is it A o B?" from C++'s values
        add("composition_values",
            f"auto A = {ca}; auto B = {cb}; auto R = composition(A, B); "
            "printf(\"%d:\", int(size(R))); for (int i = 0; i < int(size(B)); ++i) "
            "printf(\"%d\", int(R(i)) == int(A(B(i))));",
            lambda A=A, B=B: _verdict(A, B), f"R(i) == A(B(i)) for {A} o {B}")
    for l_t, cot in COMPLEMENTS:
        L = P(l_t)
        cl = cpp_layout(L)
        cc = "" if cot is None else ", " + (cpp_tuple(cot, "make_shape") if isinstance(cot, tuple)
                                            else cpp_int(cot))
        add("filter", f"print(filter({cl}));", lambda L=L, c=cot: steps.complement_steps(L, c).filtered,
            f"filter({L})")
        t = steps.complement_steps(L, cot)
        if t.sorted is not None and isinstance(t.filtered.stride, tuple):
            add("complement_sorted", f"sorted_order(filter({cl}).stride());",
                lambda L=L, c=cot: _seq(_complement_order(L, c)), f"sorted modes of {L}")
        if t.sorted is not None:
            srt = t.sorted
            cs = cpp_layout(srt)
            ct = "cosize(filter(" + cl + "))" if cot is None else cc[2:]
            add("complement_end", f"auto f = {cs}; auto e = back(wrap(f.stride())) * back(wrap(f.shape())); "
                f"print(e); printf(\" \"); print(coalesce(ceil_div(shape({ct}), e)));",
                lambda L=L, c=cot: f"{steps.complement_steps(L, c).end_stride} "
                f"{fmt(steps.complement_steps(L, c).rest.shape)}",
                f"end stride and rest of complement({L}, {cot})")
            add("complement_sorted_layout", f"print(complement({cs}{cc}));",
                lambda L=L, c=cot: steps.complement_steps(L, c).result,
                f"complement of the sorted {L}")
        add("complement", f"print(complement({cl}{cc}));",
            lambda L=L, c=cot: steps.complement_steps(L, c).result, f"complement({L}, {cot})")
    for l_t in INVERSES:
        L = P(l_t)
        cl = cpp_layout(L)
        add("coalesce", f"print(coalesce({cl}));", lambda L=L: steps.right_inverse_steps(L).coalesced,
            f"coalesce({L})")
        if lk.is_static(lk.coalesce(L).stride) and isinstance(lk.coalesce(L).stride, tuple):
            add("inverse_sorted", f"sorted_order(coalesce({cl}).stride());",
                lambda L=L: _seq(steps.right_inverse_steps(L).order), f"sorted modes of {L}")
        add("right_inverse", f"print(right_inverse({cl}));",
            lambda L=L: steps.right_inverse_steps(L).result, f"right_inverse({L})")
        if lk.is_static(lk.coalesce(L).stride):
            add("left_inverse", f"print(left_inverse({cl}));",
                lambda L=L: steps.left_inverse_steps(L).result, f"left_inverse({L})")
            add("left_from_complement", f"print(right_inverse(make_layout({cl}, complement({cl}))));",
                lambda L=L: steps.left_inverse_from_complement(L), f"right_inverse((L, complement(L))) {L}")
    for c_atom, atom, ety, thr_t, val_t in COPIES:
        thr, val = P(thr_t), P(val_t)
        tc = f"auto tc = make_tiled_copy({c_atom}{{}}, {cpp_layout(thr)}, {cpp_layout(val)}); using TC = decltype(tc);"

        def st(atom=atom, ety=ety, thr=thr, val=val):
            return tv_steps.make_tiled_copy_steps(lk.copy_atom(atom, ety), thr, val)
        txt = f"{atom} {thr} x {val}"
        add("copy_layout_mn", f"print(raked_product({cpp_layout(thr)}, {cpp_layout(val)}));",
            lambda st=st: st().layout_mn, f"raked_product {txt}")
        add("copy_inverse", f"print(right_inverse(raked_product({cpp_layout(thr)}, {cpp_layout(val)})));",
            lambda st=st: st().inverse, f"right_inverse {txt}")
        add("copy_layout_tv", tc + " print(typename TC::TiledLayout_TV{}); printf(\" \"); "
            "print(typename TC::Tiler_MN{});",
            lambda st=st: f"{st().layout_tv} ({','.join(str(t) for t in st().tiler_mn)})",
            f"TiledLayout_TV {txt}")
        _tile2thrfrg_cases(add, tc, lambda st=st: st().tiled_copy, txt)
    for c_mma, atom, alay, perm in MMAS:
        def mk(atom=atom, alay=alay, perm=perm):
            return lk.make_tiled_mma(atom, lk.make_layout(alay) if alay else None, perm)
        txt = f"{atom} {alay} {perm}"
        add("mma_vmnk", f"auto m = {c_mma}; print(m.get_thr_layout_vmnk());",
            lambda mk=mk: tv_steps.tiled_mma_steps(mk(), "A").thr_layout_vmnk, f"VMNK {txt}")
        for op, (i, j) in (("A", (0, 2)), ("B", (1, 2)), ("C", (0, 1))):
            add("mma_thrfrg", f"auto m = {c_mma}; print(m.thrfrg_{op}(make_layout(make_shape("
                f"tile_size<{i}>(m), tile_size<{j}>(m)))));",
                lambda mk=mk, op=op: tv_steps.tiled_mma_steps(mk(), op).thrfrg, f"thrfrg_{op} {txt}")
            add("mma_layout_tv", f"auto m = {c_mma}; print(m.get_layout{op}_TV());",
                lambda mk=mk, op=op: tv_steps.tiled_mma_steps(mk(), op).layout_tv,
                f"layout{op}_TV {txt}")
        # copies built from the MMA: make_tiled_copy_A with ldmatrix
        if atom.startswith("SM80_16x8x16"):
            tc = (f"auto tc = make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{{}}, {c_mma}); "
                  "using TC = decltype(tc);")
            _tile2thrfrg_cases(add, tc, lambda mk=mk: lk.make_tiled_copy_A(
                lk.copy_atom("SM75_U32x4_LDSM_N", "f16"), mk()), f"ldmatrix.x4 A of {txt}")
    for name in MMA_ATOMS:
        for op in "ABC":
            add("atom_layout", f"print(typename MMA_Traits<{name}>::{op}Layout{{}});",
                lambda name=name, op=op: getattr(lk.mma_atom(name), f"layout_{op}"), f"{name} {op}")
    for shp, thr_t, threads in PARTITIONS:
        thr = P(thr_t)
        for t in threads:
            add("flat_coord", f"print({cpp_layout(thr)}.get_flat_coord(int({t})));",
                lambda thr=thr, t=t, shp=shp: "(" + ",".join(
                    str(int(c)) for c in tv_steps.local_partition_steps(shp, thr, t).coord) + ")",
                f"get_flat_coord {thr} {t}")
            add("local_partition", f"auto p = local_partition(make_identity_tensor("
                f"{cpp_tuple(shp, 'make_shape')}), {cpp_layout(thr)}, int({t})); "
                "print(p(0)); printf(\" \"); print(p.layout());",
                lambda thr=thr, t=t, shp=shp: _part_text(tv_steps.local_partition_steps(shp, thr, t)),
                f"local_partition {shp} {thr} {t}")
    seen, out = set(), []
    for c in cases:
        if c.cpp not in seen:
            seen.add(c.cpp)
            out.append(c)
    return out


def _tile2thrfrg_cases(add, tc, mk, txt):
    for side, trg in (("S", "Src"), ("D", "Dst")):
        add("copy_atom_tv", tc + " print(zipped_divide(typename TC::TiledLayout_TV{}, make_shape("
            "typename TC::AtomNumThr{}, typename TC::AtomNumVal{})));",
            lambda mk=mk, side=side: tv_steps.tile2thrfrg_steps(mk(), side).atom_tv, f"atom_tv {txt}")
        add("copy_ref2trg", tc + f" print(right_inverse(typename TC::AtomLayoutRef{{}}).compose("
            f"typename TC::AtomLayout{trg}{{}}));",
            lambda mk=mk, side=side: tv_steps.tile2thrfrg_steps(mk(), side).ref2trg,
            f"ref2{trg} {txt}")
        add("copy_trg_tv", tc + f" auto atv = zipped_divide(typename TC::TiledLayout_TV{{}}, "
            "make_shape(typename TC::AtomNumThr{}, typename TC::AtomNumVal{})); "
            f"print(atv.compose(right_inverse(typename TC::AtomLayoutRef{{}}).compose("
            f"typename TC::AtomLayout{trg}{{}}), _));",
            lambda mk=mk, side=side: tv_steps.tile2thrfrg_steps(mk(), side).trg_tv, f"trg_tv {txt}")
        add("copy_layout_side", tc + f" print(tc.get_layout{side}_TV());",
            lambda mk=mk, side=side: tv_steps.tile2thrfrg_steps(mk(), side).result,
            f"layout{side}_TV {txt}")


def _walk_tail(walk, j):
    new = [s.new for s in walk.steps[j:] if s.new is not None]
    if not new:
        return lk.Layout(S(1), S(0))
    if len(new) == 1:
        return lk.coalesce(lk.make_layout(*new[0]))
    return lk.coalesce(lk.make_layout(tuple(n[0] for n in new), tuple(n[1] for n in new)))


def _composes(A, B):
    try:
        steps.composition_steps(A, B)
    except lk.LayoutError:
        return False
    return True


def _verdict(A, B):
    R = lk.composition(A, B)
    return f"{int(lk.size(R))}:" + "".join(
        str(int(int(R(i)) == int(A(B(i))))) for i in range(int(lk.size(B))))


def _complement_order(L, c):
    f = steps.complement_steps(L, c).filtered
    from labkit.layout.algebra import _exchange_sort
    return _exchange_sort([int(d) for d in f.stride])


def _part_text(ps):
    p = ps.partition
    return f"{p(0)} {p.layout}"


def _program(bodies):
    return base._program(bodies, PRELUDE, "{}")


def compute_oracle(work):
    cases = make_cases()
    key = base._toolchain_key(HEADERS.encode() + PRELUDE.encode() + CACHE_VERSION)
    return cases, base.run_cases(cases, base.labkit_result, work, "steps-results", key, HEADERS,
                                 "cute_steps_pch.hpp", _program, 60, 8)


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    return compute_oracle(tmp_path_factory.mktemp("cute_steps_cpp"))


def same_value(case, mine, text):
    if case.op in ("flat_coord", "local_partition"):   # static or not: the same numbers
        return mine.replace("_", "") == text.replace("_", "")
    return mine == text


def agrees(case, cpp, mine):
    return base.agrees(case, cpp, mine, same_value)


OPS = ["coalesce_x", "composition_mode", "composition_walk", "composition", "composition_values", "filter",
       "complement_sorted", "complement_end", "complement_sorted_layout", "complement", "coalesce",
       "inverse_sorted", "right_inverse", "left_inverse", "left_from_complement", "copy_layout_mn",
       "copy_inverse", "copy_layout_tv", "copy_atom_tv", "copy_ref2trg", "copy_trg_tv",
       "copy_layout_side", "mma_vmnk", "mma_thrfrg", "mma_layout_tv", "atom_layout", "flat_coord",
       "local_partition"]


@pytest.mark.parametrize("op", OPS)
def test_steps_agree_with_cute_cpp(oracle, op):
    base.check_op(*oracle, op, agrees)


def test_only_the_refused_cases_fail_in_cpp(oracle):
    """Every intermediate here is a value C++ computes. The only cases C++ refuses are the ones
    kept on purpose: a composition that breaks the shape divisibility condition (a
    static_assert) and a thread layout with a stride-0 mode, whose get_flat_coord divides by
    zero (SIGFPE); labkit raises for each."""
    cases, cpp = oracle
    refused = [c for c in cases if cpp[c.cpp][0] != "ok"]
    assert len(cases) - len(refused) >= 300
    assert {c.op for c in refused} <= {"composition", "composition_values", "flat_coord",
                                       "local_partition"}, [c.text for c in refused]
    assert {cpp[c.cpp][0] for c in refused} == {"compile", "abort"}
    assert all(base.labkit_result(c)[0] == "raise" for c in refused)
