"""Cross-checks against CuTe DSL: atom TV layouts, partitions, fragments and layout algebra.

CuTe DSL (the ``nvidia-cutlass-dsl`` distribution, module ``cutlass.cute``) evaluates layouts
without a GPU: a ``@cute.jit`` function that builds atoms, tiled MMAs and copies, and tensors
over a counting iterator runs on the CPU. Every result it gives here is static, prints with
plain integers (``(32,8):(8,1)``) and evaluates to Python ints. The expected values are the
DSL's, computed at run time; labkit's objects are compared with them shape and stride as
integers, the function value by value, and, where the DSL's result is fully static, labkit's
printed form must be fully static too (``(_32,_8):(_8,_1)``).

Run with ``python -m pytest -m cute_dsl``; the module is skipped where the DSL is missing.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache

import pytest

cute = pytest.importorskip("cutlass.cute")
import cutlass  # noqa: E402
from cutlass.cute.nvgpu import cpasync, warp  # noqa: E402

import labkit as lk  # noqa: E402

pytestmark = pytest.mark.cute_dsl

S = lk.S

# labkit atom name -> (A/B type, accumulator type, shape MNK) of the DSL's MmaF16BF16Op.
# The DSL has one op per instruction shape; SM75_16x8x8_F32F16F16F32_TN issues the same
# mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 as the sm_80 16x8x8 F32 form.
MMA_OPS = {
    "SM80_16x8x16_F16F16F16F16_TN": ("Float16", "Float16", (16, 8, 16)),
    "SM80_16x8x16_F32F16F16F32_TN": ("Float16", "Float32", (16, 8, 16)),
    "SM80_16x8x16_F32BF16BF16F32_TN": ("BFloat16", "Float32", (16, 8, 16)),
    "SM80_16x8x8_F16F16F16F16_TN": ("Float16", "Float16", (16, 8, 8)),
    "SM80_16x8x8_F32F16F16F32_TN": ("Float16", "Float32", (16, 8, 8)),
    "SM80_16x8x8_F32BF16BF16F32_TN": ("BFloat16", "Float32", (16, 8, 8)),
    "SM75_16x8x8_F32F16F16F32_TN": ("Float16", "Float32", (16, 8, 8)),
}

# labkit ldmatrix atom -> (transpose, number of 8x8 matrices) of the DSL's LdMatrix8x8x16bOp.
LDSM_OPS = {
    "SM75_U32x1_LDSM_N": (False, 1),
    "SM75_U32x2_LDSM_N": (False, 2),
    "SM75_U32x4_LDSM_N": (False, 4),
    "SM75_U16x2_LDSM_T": (True, 1),
    "SM75_U16x4_LDSM_T": (True, 2),
    "SM75_U16x8_LDSM_T": (True, 4),
}
ELEMENT_TYPES = {"f16": "Float16", "bf16": "BFloat16"}

ATOM = "SM80_16x8x16_F16F16F16F16_TN"
X4 = "SM75_U32x4_LDSM_N"
CTA_THREADS = (0, 5, 37, 64, 101, 127)        # one or more threads of each of the four warps

# Layout algebra inputs, written as the DSL prints them (all static).
A_TV = "((4,8),(2,2,2)):((32,1),(16,8,128))"
B_TV = "((4,8),(2,2)):((16,1),(8,64))"
C_TV = "((4,8),(2,2)):((32,1),(16,8))"
COMPOSITION = {
    "doc": ("(6,2):(8,2)", "(4,3):(3,1)"),
    "strided": ("20:2", "(5,4):(4,1)"),
    "split": ("(10,2):(16,4)", "(5,4):(1,5)"),
    "row_major_of_A_TV": ("(16,16):(16,1)", A_TV),
    "A_TV_of_row_major": (A_TV, "(32,8):(8,1)"),
    "by_mode": ("(12,(4,8)):(59,(13,1))", ("3:4", "8:2")),
}
LOGICAL_DIVIDE = {
    "doc": ("(4,2,3):(2,1,8)", "4:2"),
    "tile_16x16": ("(16,16):(16,1)", ("8:1", "4:1")),
    "strided_tiler": ("(128,64):(64,1)", ("16:1", "(2,4):(1,8)")),
    "flat": ("24:1", "(2,3):(1,4)"),
}
COMPLEMENT = {
    "doc": ("4:2", 24),
    "two_modes": ("(2,2):(1,6)", 24),
    "row_major": ("(4,8):(8,1)", 64),
    "gap": ("2:4", 64),
    "x4_dst_f16": ("(32,(2,4)):(2,(1,64))", 512),
    "columns": ("(8,4):(1,32)", 256),
}
RIGHT_INVERSE = {
    "A_TV": A_TV,
    "B_TV": B_TV,
    "C_TV": C_TV,
    "row_major": "(4,8):(8,1)",
    "x4_dst_bits": "(32,(32,4)):(32,(1,1024))",
    "x4_trans_dst_bits": "((4,8),(16,2,4)):((256,16),(1,128,1024))",
    "swizzle_atom": "(8,(8,8)):(8,(1,64))",
    "x4_dst_f16": "(32,(2,4)):(2,(1,64))",
}


# --- reading the DSL's results ---------------------------------------------------------------
@dataclass(frozen=True)
class Rec:
    """A DSL layout as printed, read back as integers, and its values over its whole domain."""

    text: str
    shape: object
    stride: object
    values: tuple
    static: bool
    base: int = 0          # the iterator of a tensor over a counting iterator

    def offsets(self):
        return [self.base + v for v in self.values]


def _read(text: str):
    """``(32,(2,4)):(2,(1,64))`` -> ``((32, (2, 4)), (2, (1, 64)))``."""
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if ch == ":" and depth == 0:
            return ast.literal_eval(text[:i]), ast.literal_eval(text[i + 1:])
    raise AssertionError(f"not a layout: {text!r}")


def _rec(layout, base=0) -> Rec:
    text = str(layout)
    shape, stride = _read(text)
    values = tuple(int(layout(i)) for i in range(cute.size(layout)))
    return Rec(text, shape, stride, values, bool(cute.is_static(layout)), int(base))


def _trec(tensor) -> Rec:
    """A tensor over a counting iterator: its layout and its (static) base offset."""
    base = tensor.iterator
    assert isinstance(base, int), f"iterator {base!r} is not a static int"
    return _rec(tensor.layout, base)


def _dsl_layout(spec):
    shape, stride = _read(spec)
    return cute.make_layout(shape, stride=stride)


def _dsl_tiler(spec):
    return tuple(_dsl_layout(s) for s in spec) if isinstance(spec, tuple) else _dsl_layout(spec)


def _dsl_mma_op(name):
    ab, acc, mnk = MMA_OPS[name]
    return warp.MmaF16BF16Op(getattr(cutlass, ab), getattr(cutlass, acc), mnk)


def _swizzled_smem():
    """sgemm_sm80's A/B shared memory: Sw<3,3,3> o (8,(8,8)):(8,(1,64)) tiled to (128,64,3)."""
    atom = cute.make_layout((8, (8, 8)), stride=(8, (1, 64)))
    tiled = cute.tile_to_shape(atom, (128, 64, 3), (0, 1, 2))
    return tiled, cute.make_composed_layout(cute.make_swizzle(3, 3, 3), 0, tiled)


def _probe_atoms(out):
    for name in MMA_OPS:
        atom = cute.make_mma_atom(_dsl_mma_op(name))
        out["mma", name] = {"A": _rec(atom.tv_layout_A), "B": _rec(atom.tv_layout_B),
                            "C": _rec(atom.tv_layout_C), "thr_id": _rec(atom.thr_id),
                            "shape_mnk": tuple(atom.shape_mnk)}
    copies = {(name, ety): (warp.LdMatrix8x8x16bOp(*op), getattr(cutlass, dty), {})
              for name, op in LDSM_OPS.items() for ety, dty in ELEMENT_TYPES.items()}
    copies["SM80_CP_ASYNC_CACHEALWAYS", "f16"] = (cpasync.CopyG2SOp(), cutlass.Float16,
                                                  {"num_bits_per_copy": 128})
    copies["UniversalCopy<u128>", "f16"] = (cute.nvgpu.CopyUniversalOp(), cutlass.Float16,
                                            {"num_bits_per_copy": 128})
    for (name, ety), (op, dtype, kw) in copies.items():
        atom = cute.make_copy_atom(op, dtype, **kw)
        out["copy", name, ety] = {"src": _rec(atom.layout_src_tv),
                                  "dst": _rec(atom.layout_dst_tv), "thr_id": _rec(atom.thr_id)}


def _ldsm(name):
    return cute.make_copy_atom(warp.LdMatrix8x8x16bOp(*LDSM_OPS[name]), cutlass.Float16)


def _probe_small(out):
    """One MMA; sA (16,16):(16,1), sB (8,16):(16,1), gC (16,8):(8,1)."""
    mma = cute.make_tiled_mma(_dsl_mma_op(ATOM))
    sA = cute.make_tensor(0, cute.make_layout((16, 16), stride=(16, 1)))
    sB = cute.make_tensor(0, cute.make_layout((8, 16), stride=(16, 1)))
    gC = cute.make_tensor(0, cute.make_layout((16, 8), stride=(8, 1)))
    for t in range(32):
        thr = mma.get_slice(t)
        out["small", "A", t] = _trec(thr.partition_A(sA))
        out["small", "B", t] = _trec(thr.partition_B(sB))
        out["small", "C", t] = _trec(thr.partition_C(gC))
    thr = mma.get_slice(0)
    tCrA = mma.make_fragment_A(thr.partition_A(sA).layout)
    out["small", "fragA"] = _rec(tCrA.layout)
    out["small", "fragB"] = _rec(mma.make_fragment_B(thr.partition_B(sB).layout).layout)
    out["small", "fragC"] = _rec(mma.make_fragment_C(thr.partition_C(gC).layout).layout)
    for name in ("SM75_U32x1_LDSM_N", "SM75_U32x2_LDSM_N", X4):
        cp = cute.make_tiled_copy_A(_ldsm(name), mma)
        out["small", "copyA", name, "tv"] = _rec(cp.layout_tv_tiled)
        out["small", "copyA", name, "tiler"] = tuple(cute.size(m) for m in cp.tiler_mn)
        out["small", "copyA", name, "retile"] = _rec(cp.get_slice(0).retile(tCrA).layout)
        for t in range(32):
            out["small", "copyA", name, t] = _trec(cp.get_slice(t).partition_S(sA))


def _probe_cta(out):
    """The sgemm_sm80 CTA: 2x2 warps, Tile 32x32x16, swizzled sA/sB, thread indices static."""
    mma = cute.make_tiled_mma(_dsl_mma_op(ATOM), (2, 2, 1), (32, 32, 16))
    tiled, swizzled = _swizzled_smem()
    out["cta", "tile_to_shape"] = _rec(tiled)
    out["cta", "swizzled"] = (str(swizzled),
                              tuple(int(swizzled(i)) for i in range(0, 24576, 7)))
    s0 = cute.make_tensor(0, swizzled)[None, None, 0]
    g0 = cute.make_tensor(0, cute.make_layout((128, 128)))
    out["cta", "tv", "A"] = _rec(mma.tv_layout_A_tiled)
    out["cta", "tv", "B"] = _rec(mma.tv_layout_B_tiled)
    out["cta", "tv", "C"] = _rec(mma.tv_layout_C_tiled)
    out["cta", "thr_layout_vmnk"] = _rec(mma.thr_layout_vmnk)
    out["cta", "tile_mnk"] = tuple(mma.get_tile_size(i) for i in range(3))
    copies = {"A": cute.make_tiled_copy_A(_ldsm(X4), mma),
              "B": cute.make_tiled_copy_B(_ldsm(X4), mma)}
    for which, cp in copies.items():
        out["cta", "copy", which, "tv"] = _rec(cp.layout_tv_tiled)
        out["cta", "copy", which, "tiler"] = tuple(cute.size(m) for m in cp.tiler_mn)
    for t in CTA_THREADS:
        thr = mma.get_slice(t)
        pA, pB, pC = thr.partition_A(s0), thr.partition_B(s0), thr.partition_C(g0)
        out["cta", "A", t] = _trec(pA)
        out["cta", "B", t] = _trec(pB)
        out["cta", "C", t] = _trec(pC)
        frags = {"A": mma.make_fragment_A(pA.layout), "B": mma.make_fragment_B(pB.layout)}
        out["cta", "fragA", t] = _rec(frags["A"].layout)
        out["cta", "fragB", t] = _rec(frags["B"].layout)
        out["cta", "fragC", t] = _rec(mma.make_fragment_C(pC.layout).layout)
        for which, cp in copies.items():
            cthr = cp.get_slice(t)
            out["cta", "copy", which, t] = _trec(cthr.partition_S(s0))
            out["cta", "copy", which, "retile", t] = _rec(cthr.retile(frags[which]).layout)


def _probe_algebra(out):
    for key, (a, b) in COMPOSITION.items():
        out["composition", key] = _rec(cute.composition(_dsl_layout(a), _dsl_tiler(b)))
    for key, (a, b) in LOGICAL_DIVIDE.items():
        out["logical_divide", key] = _rec(cute.logical_divide(_dsl_layout(a), _dsl_tiler(b)))
    for key, (a, n) in COMPLEMENT.items():
        out["complement", key] = _rec(cute.complement(_dsl_layout(a), n))
    for key, a in RIGHT_INVERSE.items():
        out["right_inverse", key] = _rec(cute.right_inverse(_dsl_layout(a)))


@cache
def dsl_results() -> dict:
    """Everything the tests compare against, computed once by CuTe DSL on the CPU.

    The work happens in plain functions called from the ``@cute.jit`` body: the DSL rewrites
    loops written in a jit body into run-time loops, which would make thread indices dynamic.
    """
    out = {}

    @cute.jit
    def probe():
        _probe_atoms(out)
        _probe_small(out)
        _probe_cta(out)
        _probe_algebra(out)

    probe()
    return out


@pytest.fixture(scope="module")
def dsl():
    return dsl_results()


# --- comparing -------------------------------------------------------------------------------
def _ints(x):
    return tuple(_ints(e) for e in x) if isinstance(x, tuple) else int(x)


def _static_text(text: str) -> str:
    """The DSL's print of a fully static layout in CuTe C++'s spelling: ``_8`` for 8."""
    return re.sub(r"\d+", lambda m: "_" + m.group(), text)


def _lk(spec) -> "lk.Layout":
    return lk.parse_layout(_static_text(spec))


def _lk_tiler(spec):
    return tuple(_lk(s) for s in spec) if isinstance(spec, tuple) else _lk(spec)


def check_layout(got, want: Rec, what: str):
    """labkit layout ``got`` equals the DSL's ``want``: integers, every value, static-ness."""
    msg = f"{what}: labkit {got}, CuTe DSL {want.text}"
    assert (_ints(got.shape), _ints(got.stride)) == (want.shape, want.stride), msg
    assert tuple(int(got(i)) for i in range(len(want.values))) == want.values, msg
    if want.static:
        assert str(got) == _static_text(want.text), msg


def check_function(got, want: Rec, what: str):
    """Same function (size and every value) where the two spell the layout differently."""
    msg = f"{what}: labkit {got}, CuTe DSL {want.text}"
    assert int(lk.size(got)) == len(want.values), msg
    assert tuple(int(got(i)) for i in range(len(want.values))) == want.values, msg


def check_tensor(got, want: Rec, what: str):
    """labkit tensor over offsets: same layout as the DSL's and the same absolute offsets."""
    check_layout(got.layout, want, what)
    assert [int(o) for o in got.offsets()] == want.offsets(), what


# --- atoms -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(MMA_OPS))
def test_mma_atom_tv_layouts(dsl, name):
    atom = lk.mma_atom(name)
    want = dsl["mma", name]
    check_layout(atom.layout_A, want["A"], f"{name} A")
    check_layout(atom.layout_B, want["B"], f"{name} B")
    check_layout(atom.layout_C, want["C"], f"{name} C")
    check_layout(atom.thr_id, want["thr_id"], f"{name} ThrID")
    assert _ints(atom.shape_mnk) == want["shape_mnk"]


@pytest.mark.parametrize("ety", list(ELEMENT_TYPES))
@pytest.mark.parametrize("name", list(LDSM_OPS))
def test_ldmatrix_atom_layouts(dsl, name, ety):
    atom = lk.copy_atom(name, ety)
    want = dsl["copy", name, ety]
    check_layout(atom.layout_src, want["src"], f"{name}<{ety}> src")
    check_layout(atom.layout_dst, want["dst"], f"{name}<{ety}> dst")
    # ldmatrix's RefLayout is its DstLayout (the DSL exposes Src and Dst only)
    check_layout(atom.layout_ref, want["dst"], f"{name}<{ety}> ref")
    check_layout(atom.traits.thr_id, want["thr_id"], f"{name} ThrID")


@pytest.mark.parametrize("name", ["SM80_CP_ASYNC_CACHEALWAYS", "UniversalCopy<u128>"])
def test_128_bit_copy_atom_layouts(dsl, name):
    atom = lk.copy_atom(name, "f16")
    want = dsl["copy", name, "f16"]
    check_layout(atom.layout_src, want["src"], f"{name}<f16> src")
    check_layout(atom.layout_dst, want["dst"], f"{name}<f16> dst")
    check_layout(atom.traits.thr_id, want["thr_id"], f"{name} ThrID")


# --- one MMA ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small():
    mma = lk.make_tiled_mma(ATOM)
    sA = lk.make_tensor(None, lk.parse_layout("(_16,_16):(_16,_1)"))
    sB = lk.make_tensor(None, lk.parse_layout("(_8,_16):(_16,_1)"))
    gC = lk.make_tensor(None, lk.parse_layout("(_16,_8):(_8,_1)"))
    return mma, sA, sB, gC


@pytest.mark.parametrize("static", [False, True], ids=["dynamic_thread", "static_thread"])
def test_small_partitions_every_lane(dsl, small, static):
    mma, sA, sB, gC = small
    for t in range(32):
        thr = mma.get_slice(S(t) if static else t)
        check_tensor(thr.partition_A(sA), dsl["small", "A", t], f"partition_A lane {t}")
        check_tensor(thr.partition_B(sB), dsl["small", "B", t], f"partition_B lane {t}")
        check_tensor(thr.partition_C(gC), dsl["small", "C", t], f"partition_C lane {t}")


def test_small_fragments(dsl, small):
    mma, sA, sB, gC = small
    # FACTS: partition ((2,2,2),1,1):((1,128,8),0,0), fragment ((2,2,2),1,1):((1,2,4),0,0)
    assert dsl["small", "A", 0].text == "((2,2,2),1,1):((1,128,8),0,0)"
    assert dsl["small", "fragA"].text == "((2,2,2),1,1):((1,2,4),0,0)"
    thr = mma.get_slice(0)
    check_layout(thr.partition_fragment_A(sA).layout, dsl["small", "fragA"], "tCrA")
    check_layout(thr.partition_fragment_B(sB).layout, dsl["small", "fragB"], "tCrB")
    check_layout(thr.make_fragment_C(thr.partition_C(gC)).layout, dsl["small", "fragC"], "tCrC")


@pytest.mark.parametrize("name", ["SM75_U32x1_LDSM_N", "SM75_U32x2_LDSM_N", X4])
def test_small_tiled_copy_A(dsl, small, name):
    mma, sA, _, _ = small
    cp = lk.make_tiled_copy_A(lk.copy_atom(name, "f16"), mma)
    check_layout(cp.layout_tv, dsl["small", "copyA", name, "tv"], f"{name} TiledCopy TV")
    assert tuple(int(lk.size(m)) for m in cp.tiler_mn) == dsl["small", "copyA", name, "tiler"]
    tCrA = mma.get_slice(0).partition_fragment_A(sA)
    check_layout(cp.get_slice(0).retile_D(tCrA).layout, dsl["small", "copyA", name, "retile"],
                 f"{name} retile_D(tCrA)")
    for t in range(32):
        check_tensor(cp.get_slice(t).partition_S(sA), dsl["small", "copyA", name, t],
                     f"{name} partition_S lane {t}")


# --- the sgemm_sm80 CTA ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def cta():
    mma = lk.make_tiled_mma(ATOM, lk.make_layout((S(2), S(2))), (S(32), S(32), S(16)))
    tiled = lk.tile_to_shape(lk.parse_layout("(_8,(_8,_8)):(_8,(_1,_64))"),
                             (S(128), S(64), S(3)))
    sA = lk.make_tensor(None, lk.composition(lk.Swizzle(3, 3, 3), tiled))
    gC = lk.make_tensor(None, lk.make_layout((S(128), S(128))))
    return mma, tiled, sA, gC


def test_cta_smem_layout(dsl, cta):
    # C++'s tile_to_shape coalesces each mode to the target profile: ((_8,_16),(_8,_8),_3);
    # the DSL keeps ((8,16),((8,8),1),(1,3)). Same function, mode by mode.
    _, tiled, sA, _ = cta
    want = dsl["cta", "tile_to_shape"]
    check_function(tiled, want, "tile_to_shape")
    assert tuple(int(lk.size(tiled[i])) for i in range(3)) == (128, 64, 3)
    text, values = dsl["cta", "swizzled"]
    assert text.startswith("S<3,3,3> o 0 o ")
    assert tuple(int(sA.layout(i)) for i in range(0, 24576, 7)) == values


def test_cta_tiled_mma_tv_layouts(dsl, cta):
    mma, _, _, _ = cta
    check_layout(mma.thr_layout_vmnk, dsl["cta", "thr_layout_vmnk"], "thr_layout_vmnk")
    assert _ints(mma.tile_shape_mnk) == dsl["cta", "tile_mnk"]
    check_layout(mma.get_layoutA_TV(), dsl["cta", "tv", "A"], "get_layoutA_TV")
    check_layout(mma.get_layoutC_TV(), dsl["cta", "tv", "C"], "get_layoutC_TV")


def test_cta_tiled_mma_tv_layout_B(dsl, cta):
    mma, _, _, _ = cta
    check_layout(mma.get_layoutB_TV(), dsl["cta", "tv", "B"], "get_layoutB_TV")


def test_cta_thread0_static_partition_and_fragments(dsl, cta):
    # FACTS: partition ((2,2,2),4,4):((1,512,72),2048,144), fragment ((2,2,2),4,4):((1,2,4),32,8)
    mma, _, sA, _ = cta
    s0 = sA(lk._, lk._, S(0))
    thr = mma.get_slice(S(0))
    assert dsl["cta", "A", 0].text == "((2,2,2),4,4):((1,512,72),2048,144)"
    assert dsl["cta", "fragA", 0].text == "((2,2,2),4,4):((1,2,4),32,8)"
    assert dsl["cta", "fragB", 0].text == "((2,2),8,4):((1,2),16,4)"
    check_tensor(thr.partition_A(s0), dsl["cta", "A", 0], "partition_A thread _0")
    check_layout(thr.partition_fragment_A(s0).layout, dsl["cta", "fragA", 0], "tCrA thread _0")
    check_layout(thr.partition_fragment_B(s0).layout, dsl["cta", "fragB", 0], "tCrB thread _0")


@pytest.mark.parametrize("t", CTA_THREADS)
def test_cta_partitions_static_threads(dsl, cta, t):
    mma, _, sA, gC = cta
    s0 = sA(lk._, lk._, S(0))
    thr = mma.get_slice(S(t))
    check_tensor(thr.partition_A(s0), dsl["cta", "A", t], f"partition_A thread _{t}")
    check_tensor(thr.partition_B(s0), dsl["cta", "B", t], f"partition_B thread _{t}")
    check_tensor(thr.partition_C(gC), dsl["cta", "C", t], f"partition_C thread _{t}")
    check_layout(thr.partition_fragment_A(s0).layout, dsl["cta", "fragA", t], f"tCrA _{t}")
    check_layout(thr.partition_fragment_B(s0).layout, dsl["cta", "fragB", t], f"tCrB _{t}")
    tCrC = thr.make_fragment_C(thr.partition_C(gC))
    check_layout(tCrC.layout, dsl["cta", "fragC", t], f"tCrC _{t}")


@pytest.mark.parametrize("t", CTA_THREADS)
def test_cta_partitions_dynamic_threads_same_offsets(dsl, cta, t):
    # With a run-time thread index the strides print differently (C++'s form, seed 000), but
    # every coordinate still lands on the DSL's shared-memory offset.
    mma, _, sA, _ = cta
    s0 = sA(lk._, lk._, 0)
    thr = mma.get_slice(t)
    for which, part in (("A", thr.partition_A(s0)), ("B", thr.partition_B(s0))):
        want = dsl["cta", which, t]
        assert [int(o) for o in part.offsets()] == want.offsets(), (which, t)


def _cta_copy(mma, which):
    make = lk.make_tiled_copy_A if which == "A" else lk.make_tiled_copy_B
    return make(lk.copy_atom(X4, "f16"), mma)


@pytest.mark.parametrize("which", ["A", "B"])
def test_cta_tiled_copy_x4_tv_layout(dsl, cta, which):
    mma, _, _, _ = cta
    cp = _cta_copy(mma, which)
    check_layout(cp.layout_tv, dsl["cta", "copy", which, "tv"], f"TiledCopy {which} TV")
    assert tuple(int(lk.size(m)) for m in cp.tiler_mn) == dsl["cta", "copy", which, "tiler"]


@pytest.mark.parametrize("which", ["A", "B"])
def test_cta_tiled_copy_x4_source_offsets(dsl, cta, which):
    # which shared-memory offsets each thread hands to ldmatrix.x4
    mma, _, sA, _ = cta
    cp = _cta_copy(mma, which)
    s0 = sA(lk._, lk._, S(0))
    for t in CTA_THREADS:
        got = [int(o) for o in cp.get_slice(S(t)).partition_S(s0).offsets()]
        assert got == dsl["cta", "copy", which, t].offsets(), f"copy {which} thread {t}"


@pytest.mark.parametrize("which", ["A", "B"])
def test_cta_tiled_copy_x4_source_layout(dsl, cta, which):
    # tXsA / tXsB: ((AtomVal, RestVal), RestM|N, RestK), swizzle folded into static strides
    mma, _, sA, _ = cta
    cp = _cta_copy(mma, which)
    s0 = sA(lk._, lk._, S(0))
    for t in CTA_THREADS:
        check_layout(cp.get_slice(S(t)).partition_S(s0).layout, dsl["cta", "copy", which, t],
                     f"copy {which} partition_S thread _{t}")


@pytest.mark.parametrize("which", ["A", "B"])
def test_cta_tiled_copy_x4_retile(dsl, cta, which):
    mma, _, sA, _ = cta
    cp = _cta_copy(mma, which)
    s0 = sA(lk._, lk._, S(0))
    for t in CTA_THREADS:
        thr = mma.get_slice(S(t))
        frag = thr.partition_fragment_A(s0) if which == "A" else thr.partition_fragment_B(s0)
        check_layout(cp.get_slice(S(t)).retile_D(frag).layout,
                     dsl["cta", "copy", which, "retile", t], f"copy {which} retile_D _{t}")


# --- layout algebra --------------------------------------------------------------------------
@pytest.mark.parametrize("key", list(COMPOSITION))
def test_composition(dsl, key):
    a, b = COMPOSITION[key]
    check_layout(lk.composition(_lk(a), _lk_tiler(b)), dsl["composition", key],
                 f"composition({a}, {b})")


@pytest.mark.parametrize("key", list(LOGICAL_DIVIDE))
def test_logical_divide(dsl, key):
    a, b = LOGICAL_DIVIDE[key]
    check_layout(lk.logical_divide(_lk(a), _lk_tiler(b)), dsl["logical_divide", key],
                 f"logical_divide({a}, {b})")


@pytest.mark.parametrize("key", list(COMPLEMENT))
def test_complement(dsl, key):
    a, n = COMPLEMENT[key]
    check_layout(lk.complement(_lk(a), S(n)), dsl["complement", key], f"complement({a}, {n})")


@pytest.mark.parametrize("key", list(RIGHT_INVERSE))
def test_right_inverse(dsl, key):
    a = RIGHT_INVERSE[key]
    check_layout(lk.right_inverse(_lk(a)), dsl["right_inverse", key], f"right_inverse({a})")
