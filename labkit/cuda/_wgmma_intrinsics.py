"""The makers of the numba ``@intrinsic`` functions for Hopper's warpgroup MMA: one per ``wgmma``
entry of the registry (its ``GMMA`` table) and one per warpgroup fence (``WGMMA_PTX``).

:mod:`labkit.cuda._intrinsics` binds every registry entry in one loop and calls :func:`make` for
these (``labkit.cuda.ptx`` exports them); each is made from its registry entry (PTX text, inline
assembly, register count and type, immediates). A kernel holds a warpgroup's accumulator fragment
as one tuple: ``N/2`` ``float32`` (f32) or ``int32`` (s32) accumulators, or ``N/4`` ``uint32``
(two f16 each, element ``2i`` in the low half) for an f16 one:

- ``wgmma_fence()``, ``wgmma_commit_group()``, ``wgmma_wait_group(n)`` (``n`` a literal integer),
  ``fence_proxy_async_shared_cta()``;
- ``wgmma_m64n{N}k{K}_{d}{a}{b}_ss(desc_a, desc_b, acc, scale_d, *immediates)`` returns the new
  ``acc``: descriptors are 64-bit integers, ``scale_d`` a run-time integer (0: D = A*B, else
  D = A*B + D), the immediates (the entry's ``immediates``: f16/bf16 ``imm_scale_a, imm_scale_b,
  imm_trans_a, imm_trans_b``; tf32 and fp8 the two scales; integers none) literal integers
  (scales 1 or -1, transposes 0 for K-major or 1 for M/N-major);
- ``wgmma_m64n{N}k{K}_{d}{a}{b}_rs(a, desc_b, acc, scale_d, *immediates)``: the same with A from
  registers, ``a`` a tuple of four uint32 (A's fragment in CuTe's ``ALayout_64x{K}``, the
  lower-indexed element in the low bits; RS has no ``imm_trans_a``);
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

from labkit.atoms.records import InlineInstruction, MmaInstruction
from labkit.cuda._numba import TypingError, intrinsic, intrinsic_prefer_literal, ir, types

__all__ = ["make", "constraints", "wgmma_zeros", "wgmma_zeros_s32", "wgmma_zeros_u32", "wgmma_fence_operand"]

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
    want, zeros = {"f32": (types.Float, "wgmma_zeros"), "s32": (types.Integer, "wgmma_zeros_s32"),
                   "u32": (types.Integer, "wgmma_zeros_u32")}[kind]
    if not (isinstance(acc, types.UniTuple) and acc.count == r and isinstance(acc.dtype, want)):
        what = {"f32": "float32", "s32": "int32", "u32": "uint32 (two f16 each)"}[kind]
        raise TypingError(f"{name}: acc must be a tuple of {r} {what} accumulators (from {zeros}({r}) "
                          f"or an earlier wgmma); got {acc}")


def _tied_asm(builder, text, cons, values, r, extra_types=(), reg=_f32):
    fnty = ir.FunctionType(ir.LiteralStructType([reg] * r), [reg] * r + list(extra_types))
    res = builder.call(ir.InlineAsm(fnty, text, cons, side_effect=True), list(values))
    return [builder.extract_value(res, i) for i in range(r)]


_ACC = {"f32": ("f", types.float32, _f32), "s32": ("r", types.int32, _i32), "u32": ("r", types.uint32, _i32)}


def _make_mma_async(ins: MmaInstruction):
    name = ins.name
    r, kind = ins.registers("C"), ins.register_type("C")
    reg, ty, llty = _ACC[kind]
    ss = ins.form == "SS"
    cons = constraints(r, reg, ins.form)

    def typed(a, desc_b, acc, scale_d, imm_types):
        if ss and not isinstance(a, types.Integer):
            raise TypingError(f"{name}: desc_a must be a 64-bit matrix descriptor (an integer); got {a}")
        if not ss and not (isinstance(a, types.UniTuple) and a.count == 4 and isinstance(a.dtype, types.Integer)):
            raise TypingError(f"{name}: a must be a tuple of 4 uint32 registers (A's fragment in CuTe's "
                              f"ALayout_64x{ins.k}); got {a}")
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

    # numba's intrinsics take no *args: one typer per operand list, with the PTX ISA's operands
    n_imm = len(ins.immediates)
    if n_imm == 4:
        def typer(typingctx, a, desc_b, acc, scale_d, i0, i1, i2, i3):
            return typed(a, desc_b, acc, scale_d, (i0, i1, i2, i3))
    elif n_imm == 3:
        def typer(typingctx, a, desc_b, acc, scale_d, i0, i1, i2):
            return typed(a, desc_b, acc, scale_d, (i0, i1, i2))
    elif n_imm == 2:
        def typer(typingctx, a, desc_b, acc, scale_d, i0, i1):
            return typed(a, desc_b, acc, scale_d, (i0, i1))
    else:
        def typer(typingctx, a, desc_b, acc, scale_d):
            return typed(a, desc_b, acc, scale_d, ())

    what = {"f32": "float32", "s32": "int32", "u32": "uint32 (two f16 each)"}[kind]
    a_doc = "desc_a" if ss else "a (4 uint32: A's fragment)"
    form = "A and B by descriptor" if ss else "A from registers, B by descriptor"
    return _named(typer, name, f"``{ins.ptx}`` ({form}): ({a_doc}, desc_b, acc, scale_d, "
                               f"{', '.join(ins.immediates)}) -> acc, {r} {what} per thread.", literal=True)


def _make_wait_group(ins: InlineInstruction):
    def typer(typingctx, n):
        if not isinstance(n, types.IntegerLiteral) or int(n.literal_value) < 0:
            raise TypingError(f"{ins.name}: n must be a literal integer >= 0 (an immediate in PTX); got {n}")
        text = ins.asm.replace("$n", str(int(n.literal_value)))

        def codegen(context, builder, sig, args):
            return _void(context, builder, text)

        return types.void(n), codegen

    return _named(typer, ins.name, f"``{ins.ptx}``: wait until at most n (a literal) wgmma groups are pending.",
                  literal=True)


def _make_fence(ins: InlineInstruction):
    def typer(typingctx):
        def codegen(context, builder, sig, args):
            return _void(context, builder, ins.asm)

        return types.void(), codegen

    return _named(typer, ins.name, f"``{ins.ptx}``.")


def make(ins):
    """The intrinsic of one ``WGMMA_PTX`` entry or one ``GMMA`` entry."""
    if isinstance(ins, MmaInstruction):
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
wgmma_zeros_s32 = _named(_zeros_of("wgmma_zeros_s32", types.int32, ir.Constant(_i32, 0)), "wgmma_zeros_s32",
                         "A tuple of n (a literal) int32 zeros: a fresh s32 accumulator.", literal=True)
wgmma_zeros_u32 = _named(_zeros_of("wgmma_zeros_u32", types.uint32, ir.Constant(_i32, 0)), "wgmma_zeros_u32",
                         "A tuple of n (a literal) uint32 zeros: a fresh f16 accumulator (two per register).",
                         literal=True)


def _fence_operand(typingctx, acc):
    if not (isinstance(acc, types.UniTuple) and acc.dtype in (types.float32, types.uint32, types.int32)):
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
