"""CuTe C++ is the arbiter for the path from the global tensor to a thread's tile.

Basis strides (``E<i>``, ``ScaledBasis``, ``ArithmeticTuple``), ``make_identity_layout``,
``make_identity_tensor``, ``elem_less``, ``take``/``group``/``select``, ``local_tile`` and
``local_partition`` (with ``Step<..., X, ...>`` projections), ``make_tiled_copy`` with
``UniversalCopy`` atoms and ``TiledMMA`` partitions, on data tensors and on identity tensors,
ragged edges included.

The machinery is the one of ``test_cute_cpp.py`` (g++ on the CPU with CUTLASS's headers from
the ``nvidia-cutlass`` wheel, one forked child per case, static assertions read from g++'s
diagnostics, results cached by program text, compiler and headers); only the included headers
and the shape of a case differ: here a case is a C++ statement that prints. Random cases come
from a generator with a fixed seed.

``python tests/test_cute_tensor_cpp.py`` prints the agreement table.
"""

from __future__ import annotations

import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_cute_cpp as base  # noqa: E402  (the shared g++ oracle machinery)

import labkit as lk  # noqa: E402
from labkit.layout.int_tuple import S  # noqa: E402

pytestmark = pytest.mark.skipif(
    base.GXX is None or base.INCLUDES is None,
    reason="needs g++ and CuTe's headers (nvidia-cutlass, nvidia-cuda-runtime-cu12, "
           "nvidia-cuda-nvcc-cu12, nvidia-cuda-cccl-cu12)")

CHUNK = 60          # cases per program (see test_cute_cpp.CHUNK)
CHUNK_BAD = 100     # cases labkit expects C++ to reject: all 81 in one program took 14.9 s of g++
                    # CPU, against two compiles of ~7 s for each of 11 programs of 8
CACHE_VERSION = b"1"
HEADERS = """#include <cute/tensor.hpp>
#include <cute/atom/copy_atom.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cstdio>
#include <unistd.h>
#include <sys/wait.h>
"""
PRELUDE = r"""#include "cute_tensor_pch.hpp"
using namespace cute;
static float fbuf_[1];
static half_t hbuf_[1];
template <class F> void run(int k, F&& f) {
  fflush(stdout);
  pid_t p = fork();
  if (p == 0) { printf("@%d ", k); f(); printf("\n"); fflush(stdout); _exit(0); }
  int st = 0; waitpid(p, &st, 0);
  if (!WIFEXITED(st)) printf("@%d !abort\n", k);
}
"""

cpp_int, cpp_tuple, cpp_layout, cpp_tiler = base.cpp_int, base.cpp_tuple, base.cpp_layout, base.cpp_tiler


def cpp_coord(c):
    if c is lk._:
        return "_"
    if isinstance(c, tuple):
        return "make_coord(" + ", ".join(cpp_coord(e) for e in c) + ")"
    return cpp_int(c)


def py_text(x):
    if x is lk._:
        return "_"
    if isinstance(x, tuple):
        return "(" + ",".join(py_text(e) for e in x) + ")"
    return str(x)


def cpp_step(proj):
    return "Step<" + ",".join("X" if p is lk.X else "_1" for p in proj) + ">{}"

# --------------------------------------------------------------------------- tensors


class Data:
    """A tensor over memory: C++ ``make_tensor(buf, layout)``; printed as offset o layout."""

    def __init__(self, layout, buf="fbuf_"):
        self.layout, self.buf = layout, buf

    def cpp(self):
        return f"make_tensor({self.buf} + 0, {cpp_layout(self.layout)})"

    def py(self):
        return lk.make_tensor(None, self.layout)

    def show_cpp(self, expr):
        return (f"auto t_ = {expr}; printf(\"%d o \", int(t_.data() - {self.buf})); "
                "print(t_.layout());")

    @staticmethod
    def show_py(t):
        return f"{int(t.offset)} o {t.layout}"

    def __str__(self):
        return f"T[{self.layout}]"


class Ident:
    """An identity (counting) tensor: C++ ``make_identity_tensor(shape)``."""

    def __init__(self, shape):
        self.shape = shape

    def cpp(self):
        return f"make_identity_tensor({cpp_tuple(self.shape, 'make_shape')})"

    def py(self):
        return lk.make_identity_tensor(self.shape)

    def show_cpp(self, expr):
        return f"print({expr});"

    @staticmethod
    def show_py(t):
        return str(t)

    def __str__(self):
        return f"I{py_text(self.shape)}"

# --------------------------------------------------------------------------- cases


class Case:
    __slots__ = ("op", "cpp", "py", "text")

    def __init__(self, op, cpp, py, text):
        self.op, self.cpp, self.py, self.text = op, cpp, py, text


def _bool(b):
    return "1" if b else "0"


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def i(self, v, p=0.5):
        return S(v) if self.r.random() < p else int(v)

    def extent(self):
        return self.r.choice([1000, 776, 512, 256, 130, 96, 64, 33, 16, 8])

    def gtensor_layout(self, rank=2):
        """A global tensor: row- or column-major (or batched) over run-time or static extents."""
        r = self.r
        shp = tuple(self.i(self.extent(), 0.3) for _ in range(rank))
        order = r.choice(["right", "left", "padded"])
        if order == "padded":                      # a leading dimension larger than the extent
            ld = int(shp[-1]) + r.choice([8, 24])
            std = [S(1)] * rank
            std[-2] = ld
            acc = ld * int(shp[-2])
            for k in range(rank - 3, -1, -1):
                std[k] = acc
                acc *= int(shp[k])
            return lk.make_layout(shp, tuple(std))
        std = lk.compact_major(shp, order)
        return lk.make_layout(shp, std)

    def tiler(self, rank):
        r = self.r
        out = []
        for _ in range(rank):
            x = r.random()
            if x < 0.75:
                out.append(S(r.choice([8, 16, 32, 64, 128])))
            elif x < 0.9:
                out.append(int(r.choice([4, 8, 32])))
            else:
                out.append(lk.make_layout(S(r.choice([4, 8])), S(r.choice([1, 2]))))
        return tuple(out)

    def thr_layout(self, rank=2):
        r = self.r
        shp = r.choice([(32, 8), (8, 32), (16, 16), (4, 8), (2, 16), (16, 4), (64, 2)])
        if rank == 1:
            return lk.make_layout(S(r.choice([32, 64, 128])))
        shp = tuple(S(s) for s in shp)
        return lk.make_layout(shp, lk.compact_major(shp, r.choice(["left", "right"])))


def rest_extents(shape, tiler):
    return tuple(-(-int(lk.size(s) if isinstance(s, tuple) else s) //
                   int(lk.size(t) if isinstance(t, lk.Layout) else t))
                 for s, t in zip(shape, tiler))


def make_cases():
    cases = []

    def add(op, cpp, py, text):
        cases.append(Case(op, cpp, py, text))

    def expr(op, cpp_expr, fn, text):
        add(op, f"print({cpp_expr});", lambda: str(fn()), text)

    E = lk.E
    # -- basis elements and arithmetic tuples
    for cxx, fn, text in [
        ("E<0>{}", lambda: E(0), "E(0)"),
        ("E<3>{}", lambda: E(3), "E(3)"),
        ("E<1,0>{}", lambda: E(1, 0), "E(1,0)"),
        ("E<0,2>{}", lambda: E(0, 2), "E(0,2)"),
        ("E<1>{} * 2", lambda: E(1) * 2, "E(1)*2"),
        ("E<1>{} * Int<2>{}", lambda: E(1) * S(2), "E(1)*_2"),
        ("3 * E<0>{}", lambda: 3 * E(0), "3*E(0)"),
        ("Int<4>{} * E<2>{}", lambda: S(4) * E(2), "_4*E(2)"),
        ("E<0>{} * Int<0>{}", lambda: E(0) * S(0), "E(0)*_0"),
        ("(E<1>{} * 2) * Int<3>{}", lambda: (E(1) * 2) * S(3), "E(1)*2*_3"),
        ("E<1,0>{} * 3", lambda: E(1, 0) * 3, "E(1,0)*3"),
        ("E<0>{} + E<1>{}", lambda: E(0) + E(1), "E(0)+E(1)"),
        ("E<1>{} + E<0>{}", lambda: E(1) + E(0), "E(1)+E(0)"),
        ("E<0>{} * 3 + E<1>{} * Int<2>{}", lambda: E(0) * 3 + E(1) * S(2), "3E0+_2E1"),
        ("E<2>{} * 5 + E<0>{}", lambda: E(2) * 5 + E(0), "5E2+E0"),
        ("E<0>{} + E<0>{} * 4", lambda: E(0) + E(0) * 4, "E0+4E0"),
        ("E<1,0>{} + E<0>{}", lambda: E(1, 0) + E(0), "E(1,0)+E(0)"),
        ("E<0,1>{} * 2 + E<1>{}", lambda: E(0, 1) * 2 + E(1), "2E(0,1)+E(1)"),
        ("Int<0>{} + E<1>{}", lambda: S(0) + E(1), "_0+E(1)"),
        ("E<1>{} + Int<0>{}", lambda: E(1) + S(0), "E(1)+_0"),
        ("E<1>{} + Int<1>{}", lambda: E(1) + S(1), "E(1)+_1"),
        ("E<1>{} + 1", lambda: E(1) + 1, "E(1)+1"),
        ("make_arithmetic_tuple(1, Int<2>{})", lambda: lk.make_arithmetic_tuple(1, S(2)),
         "AT(1,_2)"),
        ("make_arithmetic_tuple(1, Int<2>{}) + make_arithmetic_tuple(Int<3>{})",
         lambda: lk.make_arithmetic_tuple(1, S(2)) + lk.make_arithmetic_tuple(S(3)),
         "AT(1,_2)+AT(_3)"),
        ("make_arithmetic_tuple(1, 2) + E<1>{} * 5",
         lambda: lk.make_arithmetic_tuple(1, 2) + E(1) * 5, "AT(1,2)+5E1"),
        ("E<2>{} * 5 + make_arithmetic_tuple(1, 2)",
         lambda: E(2) * 5 + lk.make_arithmetic_tuple(1, 2), "5E2+AT(1,2)"),
        ("make_arithmetic_tuple(1, 2) + Int<0>{}",
         lambda: lk.make_arithmetic_tuple(1, 2) + S(0), "AT(1,2)+_0"),
        ("make_arithmetic_tuple(1, 2) + Int<1>{}",
         lambda: lk.make_arithmetic_tuple(1, 2) + S(1), "AT(1,2)+_1"),
        ("make_arithmetic_tuple(1, 2) + make_arithmetic_tuple(3, 4)",
         lambda: lk.make_arithmetic_tuple(1, 2) + lk.make_arithmetic_tuple(3, 4),
         "AT(1,2)+AT(3,4)"),
        ("make_arithmetic_tuple(1, 2) * 3", lambda: lk.make_arithmetic_tuple(1, 2) * 3,
         "AT(1,2)*3"),
        ("make_layout(make_shape(Int<4>{}, Int<8>{}), make_stride(E<0>{}, E<1>{}))",
         lambda: lk.make_layout((S(4), S(8)), (E(0), E(1))), "(_4,_8):(E0,E1)"),
        ("make_layout(make_shape(4, Int<8>{}), make_stride(E<1>{} * 2, E<0>{}))",
         lambda: lk.make_layout((4, S(8)), (E(1) * 2, E(0))), "(4,_8):(2E1,E0)"),
    ]:
        expr("basis", cxx, fn, text)

    # the running example: a 1000x776 row-major C, 128x128 blocks, block (7,6) (ragged in both
    # modes), 256 threads as (32,8); thread 37's elements, on memory and on coordinates
    C = lk.make_layout((1000, 776), (776, S(1)))
    thr = lk.make_layout((S(32), S(8)), (S(8), S(1)))
    for T in (Data(C), Ident((1000, 776))):
        blk = f"local_tile({T.cpp()}, make_tile(Int<128>{{}}, Int<128>{{}}), make_coord(int(7), int(6)))"
        add("local_tile", T.show_cpp(blk),
            lambda T=T: T.show_py(lk.local_tile(T.py(), (S(128), S(128)), (7, 6))),
            f"example local_tile({T})")
        add("local_partition", T.show_cpp(f"local_partition({blk}, {cpp_layout(thr)}, int(37))"),
            lambda T=T, thr=thr: T.show_py(lk.local_partition(
                lk.local_tile(T.py(), (S(128), S(128)), (7, 6)), thr, 37)),
            f"example local_partition({T})")

    g = Gen(20261201)

    def rand_shape(nested=False):
        r = g.r
        n = r.randint(1, 3)
        out = []
        for _ in range(n):
            if nested and r.random() < 0.35:
                out.append(tuple(g.i(r.choice([2, 3, 4])) for _ in range(r.randint(2, 3))))
            else:
                out.append(g.i(r.choice([1, 2, 3, 4, 8, 12, 100])))
        return out[0] if n == 1 and not isinstance(out[0], tuple) and r.random() < 0.5 \
            else tuple(out)

    # -- make_identity_layout: the layout and its values
    for k in range(40):
        shp = rand_shape(nested=k % 2 == 1)
        L = lk.make_identity_layout(shp)
        cxx = f"make_identity_layout({cpp_tuple(shp, 'make_shape')})"
        expr("make_identity_layout", cxx, lambda s=shp: lk.make_identity_layout(s),
             f"make_identity_layout({py_text(shp)})")
        n = int(lk.size(L))
        for i in sorted({0, n - 1, g.r.randrange(n)}):
            expr("identity_eval", f"{cxx}(int({i}))", lambda s=shp, i=i:
                 lk.make_identity_layout(s)(i), f"make_identity_layout({py_text(shp)})({i})")
    # -- basis-strided layouts through the algebra (coalesce, composition, divides)
    for _ in range(30):
        shp = rand_shape(nested=True)
        L = lk.make_identity_layout(shp)
        cxx = f"make_identity_layout({cpp_tuple(shp, 'make_shape')})"
        op = g.r.choice(["coalesce", "zipped_divide", "logical_divide", "composition"])
        if op == "coalesce":
            expr("basis_algebra", f"coalesce({cxx})", lambda L=L: lk.coalesce(L), f"coalesce({L})")
            continue
        T = base.Gen(g.r.randrange(10**6)).tiler_for(L) if op != "composition" else \
            base.Gen(g.r.randrange(10**6)).sub_layout(L)
        expr("basis_algebra", f"{op}({cxx}, {cpp_tiler(T)})",
             lambda L=L, T=T, op=op: getattr(lk, op)(L, T), f"{op}({L}, {base.py_tiler(T)})")

    for _ in range(40):       # basis layouts of a GEMM's shapes: divide, then slice a tile
        shp = tuple(g.i(g.extent(), 0.3) for _ in range(g.r.randint(1, 3)))
        L = lk.make_identity_layout(shp)
        cxx = f"make_identity_layout({cpp_tuple(shp, 'make_shape')})"
        T = tuple(S(g.r.choice([4, 16, 32, 128])) if g.r.random() < 0.8 else
                  lk.make_layout(S(g.r.choice([4, 8])), S(g.r.choice([1, 2, 3])))
                  for _ in range(g.r.randint(1, len(shp))))
        op = g.r.choice(["zipped_divide", "tiled_divide", "flat_divide", "logical_divide"])
        expr("basis_algebra", f"{op}({cxx}, {cpp_tiler(T)})",
             lambda L=L, T=T, op=op: getattr(lk, op)(L, T), f"{op}({L}, {base.py_tiler(T)})")
    cg = Gen(20261203)        # strides on one axis that chain (they merge) or not
    for _ in range(24):
        leaves, run = [], {}
        for _ in range(cg.r.randint(2, 4)):
            ax = cg.r.randrange(2)
            e = cg.i(cg.r.choice([2, 3, 4]), 0.7)
            d = run.get(ax, 1) * (1 if cg.r.random() < 0.8 else 2)
            leaves.append((e, lk.E(ax) * (S(d) if cg.r.random() < 0.8 else d)))
            run[ax] = d * int(e)
        L = lk.make_layout(tuple(x for x, _d in leaves), tuple(d for _x, d in leaves))
        cstr = "make_stride(" + ", ".join(
            f"E<{d.index[0]}>{{}} * {cpp_int(d.value)}" for _x, d in leaves) + ")"
        cxx = f"make_layout({cpp_tuple(L.shape, 'make_shape')}, {cstr})"
        expr("basis_algebra", f"{cxx}", lambda L=L: L, f"make_layout({L})")
        expr("basis_algebra", f"coalesce({cxx})", lambda L=L: lk.coalesce(L), f"coalesce({L})")
        expr("basis_algebra", f"filter({cxx})", lambda L=L: lk.filter(L), f"filter({L})")
    for op in ("logical_product", "complement", "right_inverse", "left_inverse"):
        for shp in ((S(4), S(8)), (4, 8)):
            L = lk.make_identity_layout(shp)
            cxx = f"make_identity_layout({cpp_tuple(shp, 'make_shape')})"
            if op == "logical_product":
                expr("basis_algebra", f"{op}({cxx}, make_layout(Int<2>{{}}))",
                     lambda L=L: lk.logical_product(L, lk.make_layout(S(2))), f"{op}({L}, _2)")
            else:
                expr("basis_algebra", f"{op}({cxx})", lambda L=L, op=op: getattr(lk, op)(L),
                     f"{op}({L})")

    # -- make_identity_tensor: the tensor, its values, elem_less
    for k in range(20):
        shp = rand_shape(nested=k % 3 == 2)
        T = Ident(shp)
        expr("make_identity_tensor", T.cpp(), lambda T=T: T.py(), str(T))
        n = int(lk.size(shp))
        for i in sorted({0, n - 1, g.r.randrange(n)}):
            expr("identity_eval", f"{T.cpp()}(int({i}))", lambda T=T, i=i: T.py()(i),
                 f"{T}({i})")
    for k in range(30):       # slices of an identity tensor keep counting from the cut
        shp = (g.i(g.r.choice([4, 12, 100])), g.i(g.r.choice([8, 9, 64])))
        if k % 3 == 2:
            shp = ((g.i(2), g.i(g.r.choice([3, 4]))), shp[1])
        T = Ident(shp)
        a = g.r.randrange(int(lk.size(shp[0])))
        b = g.r.randrange(int(lk.size(shp[1])))
        crd = g.r.choice([(lk._, b), (a, lk._)]) if k % 3 != 2 else \
            g.r.choice([((lk._, g.r.randrange(int(shp[0][1]))), b), ((1, lk._), lk._)])
        add("identity_slice", T.show_cpp(f"{T.cpp()}({cpp_coord(crd)})"),
            lambda T=T, crd=crd: T.show_py(T.py()(crd)), f"{T}({py_text(crd)})")
    for _ in range(30):
        a = tuple(g.i(g.r.randrange(0, 10)) for _ in range(g.r.randint(1, 3)))
        b = tuple(g.i(g.r.randrange(1, 10)) for _ in range(g.r.randint(1, 3)))
        add("elem_less", f"print(elem_less({cpp_coord(a)}, {cpp_coord(b)}));",
            lambda a=a, b=b: _bool(lk.elem_less(a, b)), f"elem_less({py_text(a)}, {py_text(b)})")
    for _ in range(20):
        shp = (g.i(g.r.choice([5, 7, 12])), g.i(g.r.choice([3, 9, 16])))
        bound = (g.r.randint(1, int(shp[0])), g.r.randint(1, int(shp[1])))
        i = g.r.randrange(int(shp[0]) * int(shp[1]))
        T = Ident(shp)
        add("elem_less", f"print(elem_less({T.cpp()}(int({i})), {cpp_coord(bound)}));",
            lambda T=T, i=i, bound=bound: _bool(lk.elem_less(T.py()(i), bound)),
            f"elem_less({T}({i}), {py_text(bound)})")

    # -- take / group / group_modes / select (static_asserts included)
    for _ in range(25):
        L = base.Gen(g.r.randrange(10**6)).any_layout(n=g.r.randint(2, 4))
        R = len(L)
        b, e = sorted(g.r.sample(range(R + 1), 2))
        if g.r.random() < 0.15:
            b, e = e, b
        if g.r.random() < 0.1:
            e = R + 1
        expr("take", f"take<{b},{e}>({cpp_layout(L)})", lambda L=L, b=b, e=e: lk.take(L, b, e),
             f"take<{b},{e}>({L})")
        expr("group", f"group<{b},{e}>({cpp_layout(L)})",
             lambda L=L, b=b, e=e: lk.group_modes(L, b, e), f"group<{b},{e}>({L})")
        D = Data(L)
        add("group_modes", D.show_cpp(f"group_modes<{b},{e}>({D.cpp()})"),
            lambda D=D, b=b, e=e: D.show_py(lk.group_modes(D.py(), b, e)),
            f"group_modes<{b},{e}>({D})")
        sel = [g.r.randrange(R) for _ in range(g.r.randint(1, 3))]
        expr("select", f"select<{','.join(map(str, sel))}>({cpp_layout(L)})",
             lambda L=L, sel=sel: lk.select(L, *sel), f"select<{sel}>({L})")

    # -- zipped_product / tiled_product (and flat_product), by-mode tuple tilers included
    bg = base.Gen(20261202)
    for op in ("zipped_product", "tiled_product", "flat_product"):
        for k in range(30):
            B = bg.compact(max_size=32, holes=bg.r.random() < 0.3)
            if k % 2 and len(B) > 1:
                Tl = tuple(bg.compact(max_size=8) if bg.r.random() < 0.8 else lk._
                           for _ in range(bg.r.randint(1, len(B))))
            else:
                Tl = bg.compact(max_size=16) if bg.r.random() < 0.6 else bg.any_layout(max_size=16)
            expr("products", f"{op}({cpp_layout(B)}, {cpp_tiler(Tl)})",
                 lambda B=B, Tl=Tl, op=op: getattr(lk, op)(B, Tl),
                 f"{op}({B}, {base.py_tiler(Tl)})")

    # -- inner_partition / outer_partition with a tiler and a coordinate (or a flat index)
    for k in range(30):
        L = g.gtensor_layout(2)
        tiler = g.tiler(2)
        for T in (Data(L), Ident(L.shape)):
            if k % 2:
                rest = rest_extents(L.shape, tiler)
                coord = tuple(g.r.randrange(n) for n in rest) if k % 4 == 1 else \
                    g.r.randrange(int(lk.size(rest)))
                op = "inner_partition"
            else:
                sizes = [int(lk.size(t)) if isinstance(t, lk.Layout) else int(t) for t in tiler]
                coord = tuple(g.r.randrange(n) for n in sizes) if k % 4 == 0 else \
                    g.r.randrange(sizes[0] * sizes[1])
                op = "outer_partition"
            add("partitions", T.show_cpp(f"{op}({T.cpp()}, {cpp_tiler(tiler)}, {cpp_coord(coord)})"),
                lambda T=T, t=tiler, c=coord, op=op: T.show_py(getattr(lk, op)(T.py(), t, c)),
                f"{op}({T}, {base.py_tiler(tiler)}, {py_text(coord)})")

    # -- local_tile: data and identity tensors, ragged edges, coords with _ and flat indices
    def tensors(rank):
        L = g.gtensor_layout(rank)
        return [Data(L), Ident(L.shape)]

    for k in range(45):
        rank = 2 if k % 5 else 3
        for T in tensors(rank):
            tiler = g.tiler(rank if g.r.random() < 0.85 else rank - 1)
            rest = rest_extents(T.py().layout.shape, tiler)
            x = g.r.random()
            if x < 0.6:
                coord = tuple(g.r.randrange(n) for n in rest)
            elif x < 0.8:
                coord = tuple(lk._ if g.r.random() < 0.4 else g.r.randrange(n) for n in rest)
            elif x < 0.9:
                coord = tuple(g.r.randrange(n) for n in rest[:max(1, len(rest) - 1)])
            else:
                coord = g.r.randrange(int(lk.size(rest)))
            add("local_tile", T.show_cpp(f"local_tile({T.cpp()}, {cpp_tiler(tiler)}, "
                                         f"{cpp_coord(coord)})"),
                lambda T=T, t=tiler, c=coord: T.show_py(lk.local_tile(T.py(), t, c)),
                f"local_tile({T}, {base.py_tiler(tiler)}, {py_text(coord)})")
    # the block of a GEMM: one (M, N, K) tiler projected onto A (M,K), B (N,K), C (M,N)
    for k in range(16):
        M, N, K = (g.i(g.extent(), 0.3) for _ in range(3))
        tiler = (S(g.r.choice([64, 128])), S(g.r.choice([64, 128])), S(g.r.choice([8, 32])))
        bm, bn = g.r.randrange(-(-int(M) // tiler[0])), g.r.randrange(-(-int(N) // tiler[1]))
        coord = (bm, bn, lk._)
        for name, shp, proj in (("A", (M, K), (1, lk.X, 1)), ("B", (N, K), (lk.X, 1, 1)),
                                ("C", (M, N), (1, 1, lk.X))):
            L = lk.make_layout(shp, lk.compact_major(shp, "right" if k % 2 else "left"))
            for T in (Data(L), Ident(shp)):
                add("local_tile_proj", T.show_cpp(
                    f"local_tile({T.cpp()}, {cpp_tiler(tiler)}, {cpp_coord(coord)}, "
                    f"{cpp_step(proj)})"),
                    lambda T=T, t=tiler, c=coord, p=proj: T.show_py(lk.local_tile(T.py(), t, c, p)),
                    f"local_tile({T}, {base.py_tiler(tiler)}, {py_text(coord)}, {cpp_step(proj)})")

    # -- local_partition: threads over a block's tile (static or ragged), and projections
    for k in range(45):
        L = g.gtensor_layout(2)
        thr = g.thr_layout(1 if k % 9 == 8 else 2)
        tiler = (S(g.r.choice([64, 128])), S(g.r.choice([32, 128])))
        rest = rest_extents(L.shape, tiler)
        blk = tuple(g.r.randrange(n) for n in rest)
        tid = g.r.randrange(int(lk.size(thr)))
        for T in (Data(L), Ident(L.shape)):
            whole = g.r.random() < 0.3
            src = T.cpp() if whole else f"local_tile({T.cpp()}, {cpp_tiler(tiler)}, {cpp_coord(blk)})"

            def py(T=T, whole=whole, tiler=tiler, blk=blk, thr=thr, tid=tid):
                t = T.py() if whole else lk.local_tile(T.py(), tiler, blk)
                return T.show_py(lk.local_partition(t, thr, tid))
            add("local_partition", T.show_cpp(f"local_partition({src}, {cpp_layout(thr)}, "
                                              f"int({tid}))"), py,
                f"local_partition({T}{'' if whole else ' tile ' + py_text(blk)}, {thr}, {tid})")
    for k in range(10):
        thr = lk.make_layout((S(2), S(16), S(1)), (S(16), S(1), S(0))) if k % 2 else \
            lk.make_layout((S(4), S(8), S(1)), (S(1), S(4), S(0)))
        M, N, K = (g.i(g.extent(), 0.3) for _ in range(3))
        tid = g.r.randrange(int(lk.size(thr)))
        for shp, proj in (((M, K), (1, lk.X, 1)), ((N, K), (lk.X, 1, 1)), ((M, N), (1, 1, lk.X))):
            L = lk.make_layout(shp, lk.compact_major(shp, "right"))
            for T in (Data(L), Ident(shp)):
                add("local_partition_proj", T.show_cpp(
                    f"local_partition({T.cpp()}, {cpp_layout(thr)}, int({tid}), {cpp_step(proj)})"),
                    lambda T=T, thr=thr, tid=tid, p=proj: T.show_py(
                        lk.local_partition(T.py(), thr, tid, p)),
                    f"local_partition({T}, {thr}, {tid}, {cpp_step(proj)})")
    # bad input: a tiler with more modes than the tensor, a thread layout of the wrong rank
    for T in (Data(lk.make_layout((S(64), S(32)), (S(32), S(1)))), Ident((64, 32))):
        add("partition_errors", T.show_cpp(
            f"local_tile({T.cpp()}, make_tile(Int<8>{{}}, Int<8>{{}}, Int<8>{{}}), make_coord(0, 0, 0))"),
            lambda T=T: T.show_py(lk.local_tile(T.py(), (S(8), S(8), S(8)), (0, 0, 0))),
            f"local_tile({T}, rank-3 tiler)")
        add("partition_errors", T.show_cpp(
            f"local_tile({T.cpp()}, make_tile(Int<8>{{}}, Int<8>{{}}, Int<8>{{}}), make_coord(0, 0, 0), Step<_1,X>{{}})"),
            lambda T=T: T.show_py(lk.local_tile(T.py(), (S(8), S(8), S(8)), (0, 0, 0), (1, lk.X))),
            f"local_tile({T}, rank-2 projection of a rank-3 tiler)")
        thr3 = lk.make_layout((S(2), S(2), S(2)))
        add("partition_errors", T.show_cpp(
            f"local_partition({T.cpp()}, {cpp_layout(thr3)}, int(3))"),
            lambda T=T, thr3=thr3: T.show_py(lk.local_partition(T.py(), thr3, 3)),
            f"local_partition({T}, rank-3 threads)")

    # -- make_tiled_copy with UniversalCopy atoms: each thread's source and destination view
    atoms = [("uint128_t", "half_t", "UniversalCopy<u128>", "f16", 8),
             ("uint64_t", "half_t", "UniversalCopy<u64>", "f16", 4),
             ("uint32_t", "half_t", "UniversalCopy<u32>", "f16", 2),
             ("half_t", "half_t", "UniversalCopy", "f16", 1),
             ("float", "float", "UniversalCopy", "f32", 1),
             ("uint128_t", "float", "UniversalCopy<u128>", "f32", 4)]
    for k in range(40):
        cop, cty, name, ety, v = atoms[k % len(atoms)]
        thr = g.thr_layout(2)
        val_shape = g.r.choice([(1, v), (v, 1)] if v > 1 else [(1, 1), (1, 2), (2, 1), (4, 1)])
        val = lk.make_layout(tuple(S(x) for x in val_shape))
        L = g.gtensor_layout(2) if g.r.random() < 0.5 else lk.make_layout(
            (S(128), S(64)), (S(64), S(1)))
        buf = "hbuf_" if cty == "half_t" else "fbuf_"
        tid = g.r.randrange(int(lk.size(thr)))
        part = g.r.choice(["partition_S", "partition_D"])
        for T in (Data(L, buf), Ident(L.shape)):
            cxx = (f"make_tiled_copy(Copy_Atom<UniversalCopy<{cop}>, {cty}>{{}}, {cpp_layout(thr)}, "
                   f"{cpp_layout(val)}).get_slice(int({tid})).{part}({T.cpp()})")

            def py(T=T, name=name, ety=ety, thr=thr, val=val, tid=tid, part=part):
                cp = lk.make_tiled_copy(lk.copy_atom(name, ety), thr, val)
                return T.show_py(getattr(cp.get_slice(tid), part)(T.py()))
            add("tiled_copy", T.show_cpp(cxx), py,
                f"Copy_Atom<UniversalCopy<{cop}>,{cty}> {thr} x {val} thr {tid} {part}({T})")
    # bad input: fewer values per thread than the atom moves (C++'s static assertion)
    for cop, cty, name, ety, val in (("uint128_t", "half_t", "UniversalCopy<u128>", "f16", (1, 4)),
                                     ("uint64_t", "float", "UniversalCopy<u64>", "f32", (1, 1))):
        thr = lk.make_layout((S(16), S(8)), (S(8), S(1)))
        val = lk.make_layout(tuple(S(x) for x in val))
        T = Ident((S(128), S(64)))
        cxx = (f"make_tiled_copy(Copy_Atom<UniversalCopy<{cop}>, {cty}>{{}}, {cpp_layout(thr)}, "
               f"{cpp_layout(val)}).get_slice(int(0)).partition_S({T.cpp()})")
        add("tiled_copy", T.show_cpp(cxx),
            lambda T=T, name=name, ety=ety, thr=thr, val=val: T.show_py(lk.make_tiled_copy(
                lk.copy_atom(name, ety), thr, val).get_slice(0).partition_S(T.py())),
            f"Copy_Atom<UniversalCopy<{cop}>,{cty}> {thr} x {val}: too few values")

    # -- TiledMMA partitions of a block's tile (the C accumulator's coordinates predicate its store)
    mmas = ["SM80_16x8x16_F16F16F16F16_TN", "SM80_16x8x8_F16F16F16F16_TN",
            "SM80_16x8x16_F32F16F16F32_TN"]
    for k in range(24):
        atom = mmas[k % len(mmas)]
        alay = lk.make_layout(g.r.choice([(S(2), S(2)), (S(4), S(1)), (S(1), S(1)), (S(2), S(4))]))
        which = "ABC"[k % 3]
        M, N, K = (g.i(g.extent(), 0.3) for _ in range(3))
        shp = {"A": (M, K), "B": (N, K), "C": (M, N)}[which]
        proj = {"A": (1, lk.X, 1), "B": (lk.X, 1, 1), "C": (1, 1, lk.X)}[which]
        tiler = (S(128), S(128), S(32))
        blk = (g.r.randrange(-(-int(M) // 128)), g.r.randrange(-(-int(N) // 128)), 0)
        tid = g.r.randrange(32 * int(lk.size(alay)))
        L = lk.make_layout(shp, lk.compact_major(shp, "right"))
        for T in (Data(L, "hbuf_"), Ident(shp)):
            cxx = (f"make_tiled_mma({atom}{{}}, {cpp_layout(alay)}).get_slice(int({tid}))"
                   f".partition_{which}(local_tile({T.cpp()}, {cpp_tiler(tiler)}, "
                   f"{cpp_coord(blk)}, {cpp_step(proj)}))")

            def py(T=T, atom=atom, alay=alay, tid=tid, which=which, tiler=tiler, blk=blk, proj=proj):
                mma = lk.make_tiled_mma(atom, alay)
                tile = lk.local_tile(T.py(), tiler, blk, proj)
                return T.show_py(getattr(mma.get_slice(tid), f"partition_{which}")(tile))
            add("tiled_mma", T.show_cpp(cxx), py,
                f"{atom} {alay} thr {tid} partition_{which}({T} tile {py_text(blk)})")
    seen, out = set(), []
    for c in cases:
        if c.cpp not in seen:
            seen.add(c.cpp)
            out.append(c)
    return out

# --------------------------------------------------------------------------- compile and run


def _program(bodies):
    return base._program(bodies, PRELUDE, "{}")


def compute_oracle(work):
    cases = make_cases()
    key = base._toolchain_key(HEADERS.encode() + PRELUDE.encode() + CACHE_VERSION)
    return cases, base.run_cases(cases, labkit_result, work, "tensor-results", key, HEADERS,
                                 "cute_tensor_pch.hpp", _program, CHUNK, CHUNK_BAD)


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    return compute_oracle(tmp_path_factory.mktemp("cute_tensor_cpp"))

# --------------------------------------------------------------------------- comparison


labkit_result = base.labkit_result


def same_value(case, mine, text):
    if case.op == "elem_less":      # C++ may print the answer static (_1) or not (1)
        return mine.replace("_", "") == text.replace("_", "")
    return mine == text


def agrees(case, cpp, mine):
    return base.agrees(case, cpp, mine, same_value)


OPS = ["basis", "make_identity_layout", "identity_eval", "basis_algebra", "make_identity_tensor",
       "identity_slice", "elem_less", "take", "group", "group_modes", "select", "products",
       "partitions", "local_tile", "local_tile_proj",
       "local_partition", "local_partition_proj", "partition_errors", "tiled_copy", "tiled_mma"]


@pytest.mark.parametrize("op", OPS)
def test_labkit_agrees_with_cute_cpp(oracle, op):
    base.check_op(*oracle, op, agrees)


def test_the_oracle_sees_every_outcome(oracle):
    # a run where everything compiles (or nothing does) would be a broken oracle
    cases, cpp = oracle
    kinds = Counter(cpp[c.cpp][0] for c in cases)
    assert kinds["ok"] > 0.8 * len(cases) and kinds["compile"] >= 5, kinds


def test_parse_layout_reads_what_cpp_prints(oracle):
    # every basis-strided layout C++ printed reads back into the layout labkit builds
    cases, cpp = oracle
    n = 0
    for c in cases:
        kind, text = cpp[c.cpp]
        if c.op in ("make_identity_layout", "basis_algebra") and kind == "ok":
            assert str(lk.parse_layout(text)) == text
            assert lk.parse_layout(text) == lk.parse_layout(labkit_result(c)[1])
            n += 1
    assert n > 50


def test_known_cpp_prints(oracle):
    # what CUTLASS 4.2's CuTe prints for the examples the book uses; labkit prints the same
    expected = {
        "E(1,0)": "_1@0@1",
        "E(1)*2": "2@1",
        "E(0)+E(1)": "(_1,_1)",
        "AT(1,_2)": "(1,_2)",
        "(_4,_8):(E0,E1)": "(_4,_8):(_1@0,_1@1)",
        "example local_tile(T[(1000,776):(776,_1)])": "696064 o (_128,_128):(776,_1)",
        "example local_tile(I(1000,776))": "ArithTuple(896,768) o (_128,_128):(_1@0,_1@1)",
        "example local_partition(T[(1000,776):(776,_1)])": "699173 o (_4,_16):(24832,_8)",
        "example local_partition(I(1000,776))": "ArithTuple(900,773) o (_4,_16):(_32@0,_8@1)",
    }
    cases, cpp = oracle
    by_text = {c.text: c for c in cases}
    for text, want in expected.items():
        c = by_text[text]
        assert cpp[c.cpp] == ("ok", want), (text, cpp[c.cpp])
        assert labkit_result(c) == ("ok", want), text


def agreement_table(cases, cpp):
    return base.agreement_table(cases, cpp, OPS, agrees)


if __name__ == "__main__":
    cases, cpp = compute_oracle(Path(tempfile.mkdtemp(prefix="cute_tensor_cpp")))
    rows = agreement_table(cases, cpp)
    kinds = Counter(v[0] for v in cpp.values())
    total, ok = sum(r[1] for r in rows), sum(r[2] for r in rows)
    for op, n, a in rows:
        print(f"{op:22} {a:4}/{n:<4}")
    print(f"{'all':22} {ok:4}/{total:<4} ({100 * ok / total:.1f}%)  C++ outcomes: {dict(kinds)}")
    if "-v" in sys.argv:
        for c in cases:
            got = labkit_result(c)
            if not agrees(c, cpp[c.cpp], got):
                print(f"{c.text}\n   C++    {cpp[c.cpp]}\n   labkit {got}")
    sys.exit(0 if ok == total else 1)
