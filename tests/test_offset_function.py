"""lk.offset_function / lk.offset_source: any layout as a device function, checked against CuTe C++.

The offsets C++ prints (``layout(make_coord(c0, ..., c{r-1}))`` of CuTe's headers through
``tests/cute_oracle.py``, recorded in ``tests/cute_cpp_results/programs.json``) are the expected
values, for seeded random layouts of rank 1-4 with nested modes, swizzled ones (``Sw<B,M,S> o L``)
and layouts composed with a layout (``A o off o B``).
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

import cute_oracle
import labkit as lk
from labkit.errors import LayoutError

S = lk.S
SEED = 29
N_PLAIN, N_SWIZZLED, N_COMPOSED = 40, 20, 10


def _nest(r, leaves):
    """Group (shape, stride) leaves into 1-4 top-level modes, some of them nested."""
    modes, k = [], 0
    while k < len(leaves):
        n = r.randint(1, min(3, len(leaves) - k))
        grp = leaves[k:k + n]
        k += n
        modes.append(grp[0] if n == 1 and r.random() < 0.6 else (tuple(g[0] for g in grp), tuple(g[1] for g in grp)))
    if len(modes) == 1 and not isinstance(modes[0][0], tuple):
        return lk.make_layout(S(modes[0][0]), S(modes[0][1]))

    def st(x):
        return tuple(st(e) for e in x) if isinstance(x, tuple) else S(x)

    return lk.make_layout(st(tuple(m[0] for m in modes)), st(tuple(m[1] for m in modes)))


def _layout(r, max_size=256):
    leaves, size = [], 1
    for _ in range(r.randint(1, 6)):
        e = r.choice((1, 2, 3, 4, 8))
        if size * e > max_size:
            e = 1
        size *= e
        leaves.append((e, r.choice((0, 1, 2, 3, 5, 8, 16, 64))))
    return _nest(r, leaves)


def _cases():
    r = random.Random(SEED)
    cases = [_layout(r) for _ in range(N_PLAIN)]
    for _ in range(N_SWIZZLED):
        b = r.randint(1, 3)
        cases.append(lk.composition(lk.Swizzle(b, r.randint(0, 4), r.choice((b, b + 1, 3, -b, -3)) if b <= 3 else b),
                                    _layout(r)))
    for _ in range(N_COMPOSED):
        inner = _layout(r, max_size=64)
        outer = _layout(r, max_size=4096)
        while int(lk.size(outer)) < int(lk.cosize(inner)) + 8:     # A is evaluated inside its domain
            outer = lk.make_layout((outer.shape, S(2)), (outer.stride, S(r.choice((1, 7, 64)))))
        cases.append(lk.make_composed_layout(outer, S(r.randint(0, 8)), inner))
    return cases


CASES = _cases()


def _coords(layout):
    sizes = [int(lk.size(m)) for m in (layout.shape if isinstance(layout.shape, tuple) else (layout.shape,))]
    return list(itertools.product(*[range(n) for n in sizes]))


# ------------------------------------------------------------------------------ C++ text


def _cpp_tuple(x, maker):
    if isinstance(x, tuple):
        return f"{maker}(" + ", ".join(_cpp_tuple(e, maker) for e in x) + ")"
    return f"Int<{int(x)}>{{}}"


def _cpp(layout):
    if isinstance(layout, lk.Swizzle):
        return f"Swizzle<{layout.bits},{layout.base},{layout.shift}>{{}}"
    if isinstance(layout, lk.ComposedLayout):
        return (f"make_composed_layout({_cpp(layout.layout_a)}, Int<{int(layout.offset)}>{{}}, "
                f"{_cpp(layout.layout_b)})")
    return f"make_layout({_cpp_tuple(layout.shape, 'make_shape')}, {_cpp_tuple(layout.stride, 'make_stride')})"


def _program():
    lines = ["#include <cute/tensor.hpp>", "#include <cstdio>", "using namespace cute;", "int main() {"]
    for i, L in enumerate(CASES):
        rank = len(L.shape) if isinstance(L.shape, tuple) else 1
        lines.append(f"  {{ auto L = {_cpp(L)}; printf(\"@{i}\");")
        loops = "".join(f" for (int c{j} = 0; c{j} < int(size<{j}>(L)); ++c{j})" for j in reversed(range(rank)))
        coord = ", ".join(f"c{j}" for j in range(rank))
        if rank == 1 and not isinstance(L.shape, tuple):
            loops, coord = " for (int c0 = 0; c0 < int(size(L)); ++c0)", "c0"
        call = f"L({coord})" if not isinstance(L.shape, tuple) else f"L(make_coord({coord}))"
        lines.append(f"   {loops} printf(\" %d\", int({call}));")
        lines.append("    printf(\"\\n\"); }")
    lines.append("}")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def cpp_offsets():
    if not cute_oracle.available():
        pytest.skip(cute_oracle.SKIP_REASON)
    out = cute_oracle.program_output(_program())
    rows = {}
    for line in out.splitlines():
        head, *vals = line.split()
        rows[int(head[1:])] = [int(v) for v in vals]
    return rows


def test_the_cases_cover_every_kind():
    kinds = [type(L).__name__ + (type(L.layout_a).__name__ if isinstance(L, lk.ComposedLayout) else "") for L in CASES]
    assert kinds.count("Layout") == N_PLAIN and kinds.count("ComposedLayoutSwizzle") == N_SWIZZLED
    assert kinds.count("ComposedLayoutLayout") == N_COMPOSED
    ranks = {len(L.shape) if isinstance(L.shape, tuple) else 1 for L in CASES}
    assert {1, 2, 3} <= ranks
    assert any(isinstance(m, tuple) for L in CASES if isinstance(L.shape, tuple) for m in L.shape)   # nested


@pytest.mark.parametrize("i", range(len(CASES)))
def test_offsets_agree_with_cute_cpp(cpp_offsets, i):
    L = CASES[i]
    f = lk.offset_function(L).py_func
    coords = _coords(L)
    # C++ loops c0 fastest (colexicographic), as the program's nested loops run
    colex = sorted(coords, key=lambda c: tuple(reversed(c)))
    assert [f(*c) for c in colex] == cpp_offsets[i], (str(L), lk.offset_source(L))


def test_source_is_plain_integer_arithmetic():
    sw = lk.composition(lk.Swizzle(3, 3, 3), lk.parse_layout("(_8,_64):(_64,_1)"))
    src = lk.offset_source(sw)
    assert src.splitlines()[0] == "def offset(c0, c1):"
    assert "(y0 >> 3) & 56" in src               # Sw<3,3,3>: bits 6-8 shifted down 3 onto bits 3-5 (0b111000)


@pytest.mark.slow
def test_the_device_function_compiles_to_ptx_inline():
    from numba import cuda

    from labkit.cuda import SIMULATED

    if SIMULATED:
        pytest.skip("compile_ptx is the GPU path; the simulator calls the Python function")
    sw = lk.composition(lk.Swizzle(3, 4, 3), lk.parse_layout("((_8,_2),_64):((_64,_4096),_1)"))
    off = lk.offset_function(sw)

    def kernel(out):
        i = cuda.threadIdx.x
        out[i] = off(i % 16, i // 16)

    ptx, _ = cuda.compile_ptx(kernel, "void(int32[:])", cc=(8, 0))
    assert "xor.b" in ptx and ", 112;" in ptx          # Sw<3,4,3>: bits 7-9 shifted onto bits 4-6 (0b1110000)
    assert "call.uni" not in ptx                         # inlined: no device-function call


def test_one_compiled_function_per_layout():
    L = lk.parse_layout("(_4,_8):(_8,_1)")
    assert lk.offset_function(L) is lk.offset_function(lk.parse_layout("(_4,_8):(_8,_1)"))
    assert lk.offset_function(L).layout == L


@pytest.mark.parametrize("bad", ["(_4,_8):(_8,_1)", 3, None, np.arange(4)])
def test_a_non_layout_is_refused_naming_the_argument(bad):
    with pytest.raises(LayoutError, match="layout: must be a labkit Layout"):
        lk.offset_function(bad)


def test_a_coordinate_layout_has_no_offset_function():
    with pytest.raises(LayoutError, match="integer shapes and strides"):
        lk.offset_function(lk.make_identity_layout((4, 8)))
