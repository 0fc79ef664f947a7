"""numba ``@intrinsic`` functions for Hopper's warpgroup MMA, one per ``WGMMA_PTX`` entry and
one per entry of the ``GMMA`` table.

:mod:`labkit.cuda._intrinsics` binds them (``labkit.cuda.ptx`` exports them); each is made from
its registry entry (:mod:`labkit.atoms.wgmma_ptx` for the fences,
:mod:`labkit.atoms.gmma_instructions` for ``mma_async``: PTX text, inline assembly, register
count and kind). A kernel holds a warpgroup's accumulator fragment as one tuple: ``N/2``
``float32`` for an f32 accumulator, ``N/4`` ``uint32`` (two f16 each, element ``2i`` in the low
half) for an f16 one:

- ``wgmma_fence()``, ``wgmma_commit_group()``, ``wgmma_wait_group(n)`` (``n`` a literal integer),
  ``fence_proxy_async_shared_cta()``;
- ``wgmma_m64n{N}k16_{d}{ab}{ab}_ss(desc_a, desc_b, acc, scale_d, imm_scale_a, imm_scale_b,
  imm_trans_a, imm_trans_b)`` (``d.ab`` f32.f16, f16.f16 or f32.bf16; N 8 ... 256) returns the
  new ``acc``: descriptors are 64-bit integers, ``scale_d`` a run-time integer (0: D = A*B, else
  D = A*B + D), the four immediates literal integers (scales 1 or -1, transposes 0 for K-major or
  1 for M/N-major);
- ``wgmma_m64n{N}k16_{d}{ab}{ab}_rs(a, desc_b, acc, scale_d, imm_scale_a, imm_scale_b,
  imm_trans_b)``: the same with A from registers, ``a`` a tuple of four uint32 (A's fragment in
  CuTe's ``ALayout_64x16``, two 16-bit elements each, the lower-indexed one in the low half);
- three helpers that emit no instruction: ``wgmma_zeros(n)`` and ``wgmma_zeros_u32(n)`` (a tuple
  of ``n`` float32 or uint32 zeros, an accumulator to start from) and ``wgmma_fence_operand(acc)``
  (CuTe's ``warpgroup_fence_operand``: returns ``acc`` through an empty asm statement that ties
  every register, so the compiler reads the accumulators only after the ``wgmma_wait_group``
  before it).

The mma intrinsic ties each accumulator input to its output (the PTX ``d`` operand is read and
written) and clobbers memory, so shared-memory stores stay before it in program order.

>>> from labkit.cuda import _wgmma_intrinsics as w
>>> w.constraints(4)
'=f,=f,=f,=f,0,1,2,3,l,l,r,~{memory}'
>>> w.constraints(2, "r")
'=r,=r,0,1,l,l,r,~{memory}'
>>> w.constraints(2, "r", "RS")
'=r,=r,0,1,r,r,r,r,l,r,~{memory}'
"""

from __future__ import annotations

from labkit.atoms.gmma_instructions import GmmaInstruction
from labkit.atoms.wgmma_ptx import WgmmaInstruction
from labkit.cuda._numba import TypingError, intrinsic, intrinsic_prefer_literal, ir, types

__all__ = ["make", "constraints", "wgmma_zeros", "wgmma_zeros_u32", "wgmma_fence_operand"]

_i32 = ir.IntType(32)
_i64 = ir.IntType(64)
_f32 = ir.FloatType()

_ALLOWED = {"imm_scale_a": (1, -1), "imm_scale_b": (1, -1), "imm_trans_a": (0, 1), "imm_trans_b": (0, 1)}


def constraints(r: int, reg: str = "f", form: str = "SS") -> str:
    """LLVM constraints of an mma_async with ``r`` accumulator registers: ``r`` outputs (``reg``:
    ``"f"`` for f32, ``"r"`` for packed f16 in a u32), the same registers tied as inputs, A (a
    64-bit descriptor, or in the ``"RS"`` form four 32-bit registers), B's 64-bit descriptor, the
    scale-d integer, memory."""
    a = ["l"] if form == "SS" else ["r"] * 4
    return ",".join([f"={reg}"] * r + [str(i) for i in range(r)] + a + ["l", "r", "~{memory}"])


def _void(context, builder, text):
    asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), []), text, "~{memory}", side_effect=True)
    builder.call(asm, [])
    return context.get_dummy_value()


def _named(typer, name, doc, literal=False):
    typer.__name__ = name
    fn = (intrinsic_prefer_literal if literal else intrinsic)(typer)
    fn.__doc__ = doc
    return fn


def _accumulator(name, acc, r, kind):
    want, zeros = (types.Float, "wgmma_zeros") if kind == "f32" else (types.Integer, "wgmma_zeros_u32")
    if not (isinstance(acc, types.UniTuple) and acc.count == r and isinstance(acc.dtype, want)):
        what = "float32" if kind == "f32" else "uint32 (two f16 each)"
        raise TypingError(f"{name}: acc must be a tuple of {r} {what} accumulators (from {zeros}({r}) "
                          f"or an earlier wgmma); got {acc}")


def _tied_asm(builder, text, cons, values, r, extra_types=(), reg=_f32):
    fnty = ir.FunctionType(ir.LiteralStructType([reg] * r), [reg] * r + list(extra_types))
    res = builder.call(ir.InlineAsm(fnty, text, cons, side_effect=True), list(values))
    return [builder.extract_value(res, i) for i in range(r)]


def _make_mma_async(ins: GmmaInstruction):
    name = ins.name
    r, kind = ins.registers["C"]
    reg, ty, llty = ("f", types.float32, _f32) if kind == "f32" else ("r", types.uint32, _i32)
    ss = ins.form == "SS"
    cons = constraints(r, reg, ins.form)

    def typed(a, desc_b, acc, scale_d, imm_types):
        if ss and not isinstance(a, types.Integer):
            raise TypingError(f"{name}: desc_a must be a 64-bit matrix descriptor (an integer); got {a}")
        if not ss and not (isinstance(a, types.UniTuple) and a.count == 4 and isinstance(a.dtype, types.Integer)):
            raise TypingError(f"{name}: a must be a tuple of 4 uint32 registers (A's fragment, two 16-bit "
                              f"elements each, CuTe's ALayout_64x16); got {a}")
        if not isinstance(desc_b, types.Integer):
            raise TypingError(f"{name}: desc_b must be a 64-bit matrix descriptor (an integer); got {desc_b}")
        _accumulator(name, acc, r, kind)
        if not isinstance(scale_d, (types.Integer, types.Boolean)):
            raise TypingError(f"{name}: scale_d must be an integer (0: D = A*B, else D = A*B + D); got {scale_d}")
        imms = dict(zip(ins.immediates, imm_types))
        text = ins.asm
        for key, t in imms.items():
            if not isinstance(t, types.IntegerLiteral) or int(t.literal_value) not in _ALLOWED[key]:
                raise TypingError(f"{name}: {key} must be a literal integer in {_ALLOWED[key]} (an immediate "
                                  f"in PTX); got {t}")
            text = text.replace(f"${key}", str(int(t.literal_value)))
        accty = types.UniTuple(ty, r)
        a_ty = types.uint64 if ss else types.UniTuple(types.uint32, 4)
        sig = accty(a_ty, types.uint64, accty, types.uint32, *imms.values())

        def codegen(context, builder, sig, args):
            d = [builder.extract_value(args[2], i) for i in range(r)]
            a_vals = [args[0]] if ss else [builder.extract_value(args[0], i) for i in range(4)]
            a_lls = [_i64] if ss else [_i32] * 4
            out = _tied_asm(builder, text, cons, d + a_vals + [args[1], args[3]], r, (*a_lls, _i64, _i32), llty)
            return context.make_tuple(builder, sig.return_type, out)

        return sig, codegen

    # numba's intrinsics take no *args: one typer per form, with the PTX ISA's operands
    if ss:
        def typer(typingctx, desc_a, desc_b, acc, scale_d, imm_scale_a, imm_scale_b, imm_trans_a, imm_trans_b):
            return typed(desc_a, desc_b, acc, scale_d, (imm_scale_a, imm_scale_b, imm_trans_a, imm_trans_b))
    else:
        def typer(typingctx, a, desc_b, acc, scale_d, imm_scale_a, imm_scale_b, imm_trans_b):
            return typed(a, desc_b, acc, scale_d, (imm_scale_a, imm_scale_b, imm_trans_b))

    what = "float32" if kind == "f32" else "uint32 (two f16 each)"
    a_doc = "desc_a" if ss else "a (4 uint32: A's fragment)"
    form = "A and B by descriptor" if ss else "A from registers, B by descriptor"
    return _named(typer, name, f"``{ins.ptx}`` ({form}): ({a_doc}, desc_b, acc, scale_d, "
                               f"{', '.join(ins.immediates)}) -> acc, {r} {what} per thread.", literal=True)


def _make_wait_group(ins: WgmmaInstruction):
    def typer(typingctx, n):
        if not isinstance(n, types.IntegerLiteral) or int(n.literal_value) < 0:
            raise TypingError(f"{ins.name}: n must be a literal integer >= 0 (an immediate in PTX); got {n}")
        text = ins.asm.replace("$n", str(int(n.literal_value)))

        def codegen(context, builder, sig, args):
            return _void(context, builder, text)

        return types.void(n), codegen

    return _named(typer, ins.name, f"``{ins.ptx}``: wait until at most n (a literal) wgmma groups are pending.",
                  literal=True)


def _make_fence(ins: WgmmaInstruction):
    def typer(typingctx):
        def codegen(context, builder, sig, args):
            return _void(context, builder, ins.asm)

        return types.void(), codegen

    return _named(typer, ins.name, f"``{ins.ptx}``.")


def make(ins):
    """The intrinsic of one ``WGMMA_PTX`` entry or one ``GMMA`` entry."""
    if isinstance(ins, GmmaInstruction):
        return _make_mma_async(ins)
    if ins.name == "wgmma_wait_group":
        return _make_wait_group(ins)
    return _make_fence(ins)


def _zeros_of(name, ty, zero):
    def typer(typingctx, n):
        if not isinstance(n, types.IntegerLiteral) or int(n.literal_value) <= 0:
            raise TypingError(f"{name}: n must be a literal integer > 0 (the accumulator count); got {n}")
        count = int(n.literal_value)
        sig = types.UniTuple(ty, count)(n)

        def codegen(context, builder, sig, args):
            return context.make_tuple(builder, sig.return_type, [zero] * count)

        return sig, codegen

    return typer


wgmma_zeros = _named(_zeros_of("wgmma_zeros", types.float32, ir.Constant(_f32, 0.0)), "wgmma_zeros",
                     "A tuple of n (a literal) float32 zeros: a fresh f32 accumulator.", literal=True)
wgmma_zeros_u32 = _named(_zeros_of("wgmma_zeros_u32", types.uint32, ir.Constant(_i32, 0)), "wgmma_zeros_u32",
                         "A tuple of n (a literal) uint32 zeros: a fresh f16 accumulator (two per register).",
                         literal=True)


def _fence_operand(typingctx, acc):
    if not (isinstance(acc, types.UniTuple) and (acc.dtype == types.float32 or acc.dtype == types.uint32)):
        raise TypingError(f"wgmma_fence_operand: acc must be a tuple of float32 or uint32 accumulators; got {acc}")
    r = acc.count
    f32 = acc.dtype == types.float32
    accty = types.UniTuple(acc.dtype, r)
    cons = ",".join(["=f" if f32 else "=r"] * r + [str(i) for i in range(r)] + ["~{memory}"])

    def codegen(context, builder, sig, args):
        d = [builder.extract_value(args[0], i) for i in range(r)]
        out = _tied_asm(builder, "", cons, d, r, reg=_f32 if f32 else _i32)
        return context.make_tuple(builder, sig.return_type, out)

    return accty(accty), codegen


wgmma_fence_operand = _named(_fence_operand, "wgmma_fence_operand",
                             "``acc`` through an empty asm statement (no instruction): uses after it wait for "
                             "the wgmma_wait_group before it.")
