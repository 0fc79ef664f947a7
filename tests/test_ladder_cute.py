"""labkit.lab.ladder_cute and ladder_trace: a ladder step's CuTe objects against CuTe C++, and against the step itself.

Two arbiters. CuTe C++ (its headers, compiled by g++ on the CPU with the machinery of
tests/test_cute_cpp.py, cached the same way) prints the layouts and element offsets of
``local_tile``, ``local_partition``, a 128-bit ``make_tiled_copy``'s ``partition_S``/``partition_D``,
the ladder's TiledMMA (a layout permutation) and its ``ldmatrix.x4`` copies: labkit's must be the
same. The step's own kernel, run for one thread (``ladder_trace.trace``), gives the addresses its
loop computes: every offset of the thread's CuTe partitions must be one of them, and back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import labkit as lk
from labkit.lab.ladder_trace import TRACED_STEPS as STEPS
from labkit.lab import ladder_cute as lc
from labkit.lab import ladder_trace as lt
from labkit.errors import LabkitError

import cute_oracle

S, X = lk.S, lk.X


# ------------------------------------------------------------------ the step's own addresses

def _pairs(args):
    return {(int(a[0]), int(a[2])) for a in args}


@pytest.mark.parametrize("step", ["mma", "swizzle", "pipeline"])
@pytest.mark.parametrize("block,thread", [(0, 0), (1, 9), (3, 77), (2, 127)])
def test_copy_partitions_are_the_addresses_of_the_steps_copies(step, block, thread):
    M = N = 256
    K = 4 * lt.step_config(step).bk
    c = lc.cute_objects(step, M=M, N=N, K=K, block=block, thread=thread)
    o, cfg = c.objects, c.config
    t = lt.trace(step, M=M, N=N, K=K, block=block, thread=thread)
    # the block's tile: local_tile's offset is where the step's raster puts the block
    assert int(o["gA"].offset) == t.variables["m0"] * K and int(o["gB"].offset) == t.variables["n0"] * K
    assert int(o["gC"].offset) == t.variables["m0"] * N + t.variables["n0"]
    if cfg.stages > 1:
        copies = [a for name in ("cp_async_16", "cp_async_cg_16", "cp_async_cg_16_zfill") for a in t.args(name)]
    else:   # ld.global.v4 then st.shared.v4, in the same order
        loads, stores = t.args("ld_global_v4"), t.args("st_shared_v4")
        assert len(loads) == len(stores)
        copies = [(st[0], ld[0], ld[1]) for ld, st in zip(loads, stores)]
    ktiles = K // cfg.bk
    for operand, g, s in (("A", "tAgA", "tAsA"), ("B", "tBgB", "tBsB")):
        tg, ts = o[g], o[s]
        # one 16-byte copy per value group: 8 consecutive halves in global and in shared memory
        for v in range(8):
            assert tg(v, 0, 0, 0) == tg(0, 0, 0, 0) + v and ts(v, 0, 0, 0) == ts(0, 0, 0, 0) + v
        want = {(2 * int(ts(0, p, 0, kt % cfg.stages)), int(tg(0, p, 0, kt)))
                for p in range(int(lk.size(tg.layout[1]))) for kt in range(ktiles)}
        got = _pairs(a for a in copies if a[1] == operand)
        assert got == want and len(want) == ktiles * cfg.bm * cfg.bk // 8 // cfg.threads


@pytest.mark.parametrize("step", ["mma", "swizzle", "pipeline", "tma"])
@pytest.mark.parametrize("thread", [0, 9, 77])
def test_mma_partitions_are_the_addresses_of_the_steps_ldmatrix_and_stores(step, thread):
    M, N, K = 512, 256, 256          # 4 k-tiles: every stage of every step is read
    c = lc.cute_objects(step, M=M, N=N, K=K, block=1, thread=thread)
    o, cfg = c.objects, c.config
    t = lt.trace(step, M=M, N=N, K=K, block=1, thread=thread)
    # ldmatrix.x4: lane t gives the address of the 16-byte row that tXsA (tXsB) says it reads
    stages = cfg.stages
    assert K // cfg.bk >= stages
    want = set()
    for name in ("tXsA", "tXsB"):
        x = o[name]
        vals, rest_m, rest_k = (int(lk.size(x.layout[i])) for i in (0, 1, 2))
        # the value mode is (8 halves of one ldmatrix row, the atoms a thread's share spans)
        for j in range(0, vals, 8):
            assert [int(x(j + v, 0, 0, 0)) for v in range(8)] == [int(x(j, 0, 0, 0)) + v for v in range(8)]
        want |= {2 * int(x(j, m, k, s % stages)) for j in range(0, vals, 8) for m in range(rest_m)
                 for k in range(rest_k) for s in range(stages)}
    assert {int(a[0]) for a in t.args("ldmatrix_x4")} == want
    # the epilogue: st.global.v2 of two neighbouring columns, at the offsets of partition_C
    stored = {i for a in t.args("st_global_v2_f32") for i in (int(a[1]), int(a[1]) + 1)}
    assert stored == {int(v) for v in o["tCgC"].offsets()} and len(stored) == cfg.bm * cfg.bn // cfg.threads


@pytest.mark.parametrize("block,thread", [((0, 0), 0), ((1, 2), 17), ((3, 1), 255)])
def test_local_partitions_are_the_addresses_of_step_2(block, thread):
    M, N, K = 256, 256, 64
    o = lc.cute_objects("smem", M=M, N=N, K=K, block=block, thread=thread).objects
    t = lt.trace("smem", M=M, N=N, K=K, block=block, thread=thread)

    bm, bn, bk = lt.step_config("smem")
    a_reads = {r * K + c for a, (r, c) in t.loads if a == "A"}
    assert a_reads == {int(v) for v in o["tAgA"].offsets()}
    # sA[k, m] is element m + BM k of the (BM, BK):(1, BM) tile
    sa_writes = {m + bm * k for a, (k, m) in t.stores if a == "sA"}
    assert sa_writes == {int(v) for v in o["tAsA"].offsets()}
    sa_reads = {m + bm * k for a, (k, m) in t.loads if a == "sA"}
    assert sa_reads == {int(v) for v in o["tCsA"].offsets()}
    sb_reads = {n + bn * k for a, (k, n) in t.loads if a == "sB"}
    assert sb_reads == {int(v) for v in o["tCsB"].offsets()}
    c_writes = {m * N + n for a, (m, n) in t.stores if a == "C"}
    assert c_writes == {int(v) for v in o["tCgC"].offsets()} and len(c_writes) == bm * bn // 256


def test_step_1_is_one_element_per_thread():
    o = lc.cute_objects("naive", M=64, N=64, K=8, block=(2, 1), thread=37).objects
    t = lt.trace("naive", M=64, N=64, K=8, block=(2, 1), thread=37)
    assert [m * 64 + n for a, (m, n) in t.stores] == [int(v) for v in o["tCgC"].offsets()]
    assert [m * 8 + k for a, (m, k) in t.loads if a == "A"] == [int(o["mA"](16 + 2, k)) for k in range(8)]


# ------------------------------------------------------------------ the listing

@pytest.mark.parametrize("step", STEPS)
def test_every_cute_call_is_paired_with_the_steps_lines(step):
    block = (1, 0) if step in ("naive", "smem") else 1
    rows = lc.side_by_side(step, M=512, N=512, K=512, block=block, thread=9)
    source = "\n".join(lt.kernel_lines(step))
    assert len(rows) >= 4
    for r in rows:
        assert r.numba, r.cute
        for n, line in r.numba:
            assert n >= 1 and " ".join(line.split()[:3]) in " ".join(source.split())
    text = lc.listing(rows)
    assert text.count("\n    | ") == sum(len(r.numba) for r in rows)
    assert text.count("\n    = ") == sum(1 for r in rows if r.value) and max(map(len, text.splitlines())) <= 120
    if step == "pipeline":
        calls = [r.cute.split(" = ")[-1].split("(")[0] for r in rows]
        assert {"local_tile", "cp_async_fence", "gemm", "axpby"} <= set(calls)
        copy = next(r for r in rows if r.cute.startswith("copy(copy_a"))
        assert copy.numba == ((8, copy.numba[0][1]), (8, copy.numba[1][1]))   # 8 16-byte copies of A, 8 of B
        wait = next(r for r in rows if r.cute.startswith("cp_async_wait"))
        assert wait.cute.startswith(f"cp_async_wait<{lt.step_config('pipeline').stages - 2}>")


def test_bad_arguments_are_named():
    with pytest.raises(LabkitError, match="step: must be one of"):
        lt.step_config("cublas")
    with pytest.raises(LabkitError, match="M must be a positive int"):
        lc.cute_objects("pipeline", M=0, N=128, K=128)
    with pytest.raises(LabkitError, match="tile_mn"):
        lc.warp_coverage(lc.step_tiled_mma(lt.step_config("mma")), (64,))
    with pytest.raises(LabkitError, match="TileConfig"):
        lc.step_tiled_mma((64, 64, 32))
    with pytest.raises(LabkitError, match="block"):
        lt.trace("smem", block=3)
    assert lc.ranges([3, 1, 2, 9]) == "1-3, 9"


# ------------------------------------------------------------------ CuTe C++


def _cpp():
    if not cute_oracle.available():
        pytest.skip(cute_oracle.SKIP_REASON)


PROGRAM = r"""#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/copy_atom.hpp>
#include <cute/arch/copy_sm80.hpp>
#include <cute/arch/copy_sm75.hpp>
#include <cute/arch/mma_sm80.hpp>
#include <cstdio>
#include <vector>
using namespace cute;
template <class T, class P> void all(const char* name, T const& t, P base) {
  printf("%s ", name); print(t.layout()); printf(" |");
  for (int i = 0; i < size(t); ++i) printf(" %d", int(&t(i) - base));
  printf("\n");
}
template <class T, class P> void first(const char* name, T const& t, P base) {
  printf("%s ", name); print(t.layout()); printf(" | %d\n", int(&t(0) - base));
}
int main() {
  std::vector<half_t> a(1 << 20), b(1 << 20), c(1 << 20), s(1 << 16);
  // step 5: 128x128x64, 3 stages of Swizzle<3,3,3> tiles, cp.async of 128 bits, 2x2 warps of 64x64
  {
    int M = 256, N = 256, K = 256;
    auto mA = make_tensor(make_gmem_ptr(a.data()), make_shape(M, K), make_stride(K, Int<1>{}));
    auto mB = make_tensor(make_gmem_ptr(b.data()), make_shape(N, K), make_stride(K, Int<1>{}));
    auto mC = make_tensor(make_gmem_ptr(c.data()), make_shape(M, N), make_stride(N, Int<1>{}));
    auto tiler = make_shape(Int<128>{}, Int<128>{}, Int<64>{});
    auto coord = make_coord(1, 0, _);
    auto gA = local_tile(mA, tiler, coord, Step<_1, X,_1>{});
    auto gB = local_tile(mB, tiler, coord, Step< X,_1,_1>{});
    auto gC = local_tile(mC, tiler, coord, Step<_1,_1, X>{});
    first("p.gA", gA, a.data()); first("p.gB", gB, b.data()); first("p.gC", gC, c.data());
    auto atom = composition(Swizzle<3,3,3>{}, Layout<Shape<_8,Shape<_8,_8>>, Stride<_8,Stride<_1,_64>>>{});
    auto ta = tile_to_shape(atom, make_shape(Int<128>{}, Int<64>{})).layout_b();
    auto sA = make_tensor(make_smem_ptr(s.data()), composition(Swizzle<3,3,3>{},
        make_layout(layout<0>(ta), layout<1>(ta), Layout<_3, Int<16384>>{})));
    auto sB = make_tensor(make_smem_ptr(s.data() + 8192), composition(Swizzle<3,3,3>{},
        make_layout(layout<0>(ta), layout<1>(ta), Layout<_3, Int<16384>>{})));
    TiledCopy copy_a = make_tiled_copy(Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, half_t>{},
                                       Layout<Shape<_16,_8>, Stride<_8,_1>>{}, Layout<Shape<_1,_8>>{});
    auto permM = Layout<Shape<_16,_2,_4>, Stride<_1,_64,_16>>{};
    auto permN = Layout<Shape<_8,_2,_8>, Stride<_1,_64,_8>>{};
    TiledMMA mma = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2>>{},
                                  Tile<decltype(permM), decltype(permN), _16>{});
    auto s2r_a = make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, mma);
    auto s2r_b = make_tiled_copy_B(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, mma);
    for (int t : {9, 77}) {
      printf("@thread %d\n", t);
      first("p.tAgA", copy_a.get_slice(t).partition_S(gA), a.data());
      all("p.tAsA", copy_a.get_slice(t).partition_D(sA), s.data());
      all("p.tBsB", copy_a.get_slice(t).partition_D(sB), s.data());
      first("p.tCgC", mma.get_slice(t).partition_C(gC), c.data());
      all("p.tXsA", s2r_a.get_slice(t).partition_S(sA), s.data());
      all("p.tXsB", s2r_b.get_slice(t).partition_S(sB), s.data());
    }
  }
  // step 3: 64x64x64, one row-major stage, 128-bit ld/st, 2x2 warps of 32x32
  {
    int M = 128, N = 192, K = 128;
    auto mA = make_tensor(make_gmem_ptr(a.data()), make_shape(M, K), make_stride(K, Int<1>{}));
    auto mC = make_tensor(make_gmem_ptr(c.data()), make_shape(M, N), make_stride(N, Int<1>{}));
    auto tiler = make_shape(Int<64>{}, Int<64>{}, Int<64>{});
    auto coord = make_coord(1, 2, _);
    auto gA = local_tile(mA, tiler, coord, Step<_1, X,_1>{});
    auto gC = local_tile(mC, tiler, coord, Step<_1,_1, X>{});
    auto sA = make_tensor(make_smem_ptr(s.data()), make_layout(make_layout(Int<64>{}, Int<64>{}),
        make_layout(Int<64>{}, Int<1>{}), Layout<_1, Int<8192>>{}));
    TiledCopy copy_a = make_tiled_copy(Copy_Atom<UniversalCopy<uint128_t>, half_t>{},
                                       Layout<Shape<_16,_8>, Stride<_8,_1>>{}, Layout<Shape<_1,_8>>{});
    auto permM = Layout<Shape<_16,_2,_2>, Stride<_1,_32,_16>>{};
    auto permN = Layout<Shape<_8,_2,_4>, Stride<_1,_32,_8>>{};
    TiledMMA mma = make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2>>{},
                                  Tile<decltype(permM), decltype(permN), _16>{});
    auto s2r_a = make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N, half_t>{}, mma);
    printf("@thread 37\n");
    first("m.gA", gA, a.data()); first("m.gC", gC, c.data());
    first("m.tAgA", copy_a.get_slice(37).partition_S(gA), a.data());
    all("m.tAsA", copy_a.get_slice(37).partition_D(sA), s.data());
    first("m.tCgC", mma.get_slice(37).partition_C(gC), c.data());
    all("m.tXsA", s2r_a.get_slice(37).partition_S(sA), s.data());
  }
  // step 2: local_partition by thread layouts, 64x64x32 tiles, 16x16 threads
  {
    int M = 256, N = 256, K = 64;
    auto mA = make_tensor(make_gmem_ptr(a.data()), make_shape(M, K), make_stride(K, Int<1>{}));
    auto mC = make_tensor(make_gmem_ptr(c.data()), make_shape(M, N), make_stride(N, Int<1>{}));
    auto tiler = make_shape(Int<64>{}, Int<64>{}, Int<32>{});
    auto coord = make_coord(2, 1, _);
    auto gA = local_tile(mA, tiler, coord, Step<_1, X,_1>{});
    auto gC = local_tile(mC, tiler, coord, Step<_1,_1, X>{});
    auto sA = make_tensor(make_smem_ptr(s.data()), make_layout(make_shape(Int<64>{}, Int<32>{}),
                                                               make_stride(Int<1>{}, Int<64>{})));
    auto tA = Layout<Shape<_8,_32>, Stride<_32,_1>>{};
    auto tC = Layout<Shape<_16,_16>, Stride<_16,_1>>{};
    printf("@thread 17\n");
    first("s.tAgA", local_partition(gA, tA, 17), a.data());
    all("s.tAsA", local_partition(sA, tA, 17), s.data());
    all("s.tCsA", local_partition(sA, tC, 17, Step<_1, X>{}), s.data());
    first("s.tCgC", local_partition(gC, tC, 17, Step<_1,_1>{}), c.data());
  }
  // Tile<_32,_32,_16> in sgemm_sm80: the extent of one step, and B's values per thread
  printf("@all\n");
  {
    TiledMMA plain = make_tiled_mma(SM80_16x8x16_F16F16F16F16_TN{}, Layout<Shape<_2,_2>>{});
    TiledMMA tiled = make_tiled_mma(SM80_16x8x16_F16F16F16F16_TN{}, Layout<Shape<_2,_2>>{}, Tile<_32,_32,_16>{});
    printf("t.plain %d %d %d ", int(tile_size<0>(plain)), int(tile_size<1>(plain)), int(tile_size<2>(plain)));
    print(plain.get_layoutB_TV()); printf("\n");
    printf("t.tiled %d %d %d ", int(tile_size<0>(tiled)), int(tile_size<1>(tiled)), int(tile_size<2>(tiled)));
    print(tiled.get_layoutB_TV()); printf("\n");
    // which elements of a 128x128 tile (column-major: m + 128 n) each thread holds
    auto permM = Layout<Shape<_16,_2,_4>, Stride<_1,_64,_16>>{};
    auto permN = Layout<Shape<_8,_2,_8>, Stride<_1,_64,_8>>{};
    TiledMMA ladder = make_tiled_mma(SM80_16x8x16_F16F16F16F16_TN{}, Layout<Shape<_2,_2>>{},
                                     Tile<decltype(permM), decltype(permN), _16>{});
    auto blk = make_tensor(c.data(), make_layout(make_shape(Int<128>{}, Int<128>{})));
    for (int t = 0; t < 128; ++t) {
      printf("@thread %d\n", t);
      all("c.plain", plain.get_slice(t).partition_C(blk), c.data());
      all("c.tiled", tiled.get_slice(t).partition_C(blk), c.data());
      all("c.ladder", ladder.get_slice(t).partition_C(blk), c.data());
    }
  }
  return 0;
}
"""


@pytest.fixture(scope="module")
def cpp_out():
    """{(thread, name): (layout text, [offsets])} printed by PROGRAM (compiled once, then cached)."""
    _cpp()
    text = cute_oracle.program_output(PROGRAM)
    out, thread = {}, None
    for line in text.splitlines():
        if line.startswith("@"):
            thread = int(line.split()[1]) if line.startswith("@thread ") else None
            continue
        name, rest = line.split(" ", 1)
        lay, _, offs = rest.partition(" |")
        out[thread, name] = (lay, [int(v) for v in offs.split()])
    return out


def _same(cpp_out, thread, name, tensor, every=True):
    lay, offs = cpp_out[thread, name]
    assert str(tensor.layout) == lay, (name, str(tensor.layout), lay)
    mine = [int(v) for v in tensor.offsets()] if every else [int(tensor.offsets()[0])]
    assert mine == offs, name


@pytest.mark.parametrize("thread", [9, 77])
def test_step_5_objects_are_cute_cpps(cpp_out, thread):
    o = lc.cute_objects("pipeline", M=256, N=256, K=256, block=1, thread=thread).objects
    for name in ("gA", "gB", "gC"):
        _same(cpp_out, None, f"p.{name}", o[name], every=False)
    for name in ("tAgA", "tCgC"):
        _same(cpp_out, thread, f"p.{name}", o[name], every=False)
    for name in ("tAsA", "tBsB", "tXsA", "tXsB"):
        _same(cpp_out, thread, f"p.{name}", o[name])


def test_step_3_objects_are_cute_cpps(cpp_out):
    # block 5 of the 64x64 step on a 128x192 C: tile row 1, column 2 (its raster: groups of one row)
    c = lc.cute_objects("mma", M=128, N=192, K=128, block=5, thread=37)
    assert c.coord[:2] == (1, 2)
    o = c.objects
    for name in ("gA", "gC"):
        _same(cpp_out, 37, f"m.{name}", o[name], every=False)
    for name in ("tAgA", "tCgC"):
        _same(cpp_out, 37, f"m.{name}", o[name], every=False)
    for name in ("tAsA", "tXsA"):
        _same(cpp_out, 37, f"m.{name}", o[name])


def test_step_2_local_partitions_are_cute_cpps(cpp_out):
    o = lc.cute_objects("smem", M=256, N=256, K=64, block=(1, 2), thread=17).objects
    for name, every in (("tAgA", False), ("tAsA", True), ("tCsA", True), ("tCgC", False)):
        _same(cpp_out, 17, f"s.{name}", o[name], every)


def test_tile_32_32_16_is_cute_cpps(cpp_out):
    warps = lk.make_layout((S(2), S(2)))
    for name, perm in (("t.plain", None), ("t.tiled", (S(32), S(32), S(16)))):
        mma = lk.make_tiled_mma("SM80_16x8x16_F16F16F16F16_TN", warps, perm)
        assert [int(x) for x in mma.tile_shape_mnk] == [int(x) for x in cpp_out[None, name][0].split()[:3]]
        assert str(mma.get_layoutB_TV()) == cpp_out[None, name][0].split(" ", 3)[3]


@pytest.mark.parametrize("step,block,thread", [("mma", 2, 33), ("swizzle", 0, 127), ("pipeline", 5, 64)])
def test_agreement_reports_what_the_address_tests_check(step, block, thread):
    cfg = lt.step_config(step)
    got = lc.agreement(step, M=512, N=256, K=4 * cfg.bk, block=block, thread=thread)
    per_tile = (cfg.bm + cfg.bn) * cfg.bk // 8 // cfg.threads       # 16-byte copies per thread and k-tile
    assert got["copy"] == (4 * per_tile, True)
    assert got["store C"] == (cfg.bm * cfg.bn // cfg.threads, True)
    # per stage and k-block, one ldmatrix.x4 per 16 rows of the warp's A tile and per 16 of its B tile
    (wtm, wtn) = cfg.warp_tile
    assert got["ldmatrix"] == (cfg.stages * cfg.bk // 16 * (wtm + wtn) // 16, True)
    with pytest.raises(LabkitError, match="K must be"):
        lc.agreement(step, M=512, N=256, K=cfg.bk * cfg.stages - 8, block=block, thread=thread)
    with pytest.raises(LabkitError, match="agreement covers"):
        lc.agreement("tma", M=512, N=256, K=256)


# ------------------------------------------------------------------ the book's section

@pytest.mark.slow
def test_the_page_shows_the_side_by_side_computed(executed_page):
    """book/06e, run: its listings are labkit's, and every address the steps compute for the
    thread it shows is one of its CuTe partitions' offsets."""
    import jupytext

    page = Path(__file__).resolve().parents[1] / "book" / "06e_ladder_in_cute.md"
    nb = jupytext.read(page)
    code = [c for c in nb.cells if c.cell_type == "code"]
    source = "\n".join(c.source for c in code)
    assert source.count("ladder_cute.listing(") == 6 and "def " not in source
    code = [c for c in executed_page(page).cells if c.cell_type == "code"]
    out = {c.source.splitlines()[0]: "".join(o.get("text", "") for o in c.outputs) for c in code}
    consts = out["k_blocks = cfg5.bk // int(mma5.tile_size(2))"]
    # sgemm_sm80: 3 stages, 64-deep k-tiles of 16-deep MMAs
    assert "K_PIPE_MAX = 3: cp_async_wait<1>, 2 k-tiles in flight before the loop; 64 k-tiles at K = 4096" in consts
    assert "K_BLOCK_MAX = 64 / 16 = 4 k-blocks per k-tile" in consts
    assert "  warp 1: rows 64-127, columns 0-63" in consts
    kw = dict(M=4096, N=4096, K=4096, block=1, thread=9)
    listing = out['rows5 = ladder_cute.side_by_side("pipeline", M=M, N=N, K=K, block=1, thread=9)']
    assert listing.strip() == lc.listing(lc.side_by_side("pipeline", **kw))
    # block 1 of the raster is tile row 1: A's rows 128.. start at 128 * 4096
    assert "    = (_128,_64,64):(4096,_1,_64) @ 524288" in listing
    checks = out['steps = ("mma", "swizzle", "pipeline")'].splitlines()
    # per thread: (64 + 64) x 64 / 8 / 128 = 8 copies a k-tile of step 3, 16 of step 5, over 64 k-tiles
    assert checks == ["mma: copy 512, ldmatrix 16, store C 32 addresses; all CuTe's offsets: True",
                      "swizzle: copy 512, ldmatrix 16, store C 32 addresses; all CuTe's offsets: True",
                      "pipeline: copy 1024, ldmatrix 96, store C 128 addresses; all CuTe's offsets: True"]
    swizzle = out['print(ladder_cute.listing(ladder_cute.differences("swizzle", "mma", M=M, N=N, K=K, block=1, thread=9)))']
    assert [line.split(" = ")[0] for line in swizzle.splitlines() if not line.startswith(" ")] == ["tAsA", "tXsA"]


def test_warp_coverage_is_cute_cpps(cpp_out):
    """06b's table: the rows and columns of a 128x128 tile each warp holds, from C++'s partition_C
    of every thread, for sgemm_sm80's TiledMMA with and without Tile<_32,_32,_16> and the ladder's."""
    warps = lk.make_layout((S(2), S(2)))
    atom = "SM80_16x8x16_F16F16F16F16_TN"
    ladder = lc.step_tiled_mma(lt.step_config("pipeline"), atom)
    for name, mma in (("c.plain", lk.make_tiled_mma(atom, warps)),
                      ("c.tiled", lk.make_tiled_mma(atom, warps, (S(32), S(32), S(16)))), ("c.ladder", ladder)):
        want = {}
        for w in range(4):
            offs = [o for t in range(32 * w, 32 * w + 32) for o in cpp_out[t, name][1]]
            want[w] = (lc.ranges(o % 128 for o in offs), lc.ranges(o // 128 for o in offs))
        assert lc.warp_coverage(mma, (128, 128)) == want, name
    assert want[1] == ("64-127", "0-63")      # the ladder: one contiguous 64x64 tile per warp
