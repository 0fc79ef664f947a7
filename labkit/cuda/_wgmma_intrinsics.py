"""numba ``@intrinsic`` functions for Hopper's warpgroup MMA, one per ``WGMMA_PTX`` entry.

:mod:`labkit.cuda._intrinsics` binds them (``labkit.cuda.ptx`` exports them); each is made from
its entry of :mod:`labkit.atoms.wgmma_ptx` (PTX text, register count). A kernel holds a
warpgroup's accumulator fragment as one tuple of ``float32`` (``N/2`` of them for m64nNk16):

- ``wgmma_fence()``, ``wgmma_commit_group()``, ``wgmma_wait_group(n)`` (``n`` a literal integer),
  ``fence_proxy_async_shared_cta()``;
- ``wgmma_m64n{N}k16_f32f16f16(desc_a, desc_b, acc, scale_d, imm_scale_a, imm_scale_b,
  imm_trans_a, imm_trans_b)`` returns the new ``acc``: descriptors are 64-bit integers,
  ``scale_d`` a run-time integer (0: D = A*B, else D = A*B + D), the four immediates literal
  integers (scales 1 or -1, transposes 0 for K-major or 1 for M/N-major);
- two helpers that emit no instruction: ``wgmma_zeros(n)`` (a tuple of ``n`` float32 zeros, an
  accumulator to start from) and ``wgmma_fence_operand(acc)`` (CuTe's
  ``warpgroup_fence_operand``: returns ``acc`` through an empty asm statement that ties every
  register, so the compiler reads the accumulators only after the ``wgmma_wait_group`` before it).

The mma intrinsic ties each accumulator input to its output (the PTX ``d`` operand is read and
written) and clobbers memory, so shared-memory stores stay before it in program order.

>>> from labkit.cuda import _wgmma_intrinsics as w
>>> w.constraints(4)
'=f,=f,=f,=f,0,1,2,3,l,l,r,~{memory}'
"""

from __future__ import annotations

from labkit.atoms.wgmma_ptx import IMMEDIATES, WgmmaInstruction
from labkit.cuda._numba import TypingError, intrinsic, intrinsic_prefer_literal, ir, types

__all__ = ["make", "constraints", "wgmma_zeros", "wgmma_fence_operand"]

_i32 = ir.IntType(32)
_i64 = ir.IntType(64)
_f32 = ir.FloatType()

_ALLOWED = {"imm_scale_a": (1, -1), "imm_scale_b": (1, -1), "imm_trans_a": (0, 1), "imm_trans_b": (0, 1)}


def constraints(r: int) -> str:
    """LLVM constraints of an mma_async with ``r`` accumulator registers: ``r`` f32 outputs, the
    same registers tied as inputs, two 64-bit descriptors, the scale-d integer, memory."""
    return ",".join(["=f"] * r + [str(i) for i in range(r)] + ["l", "l", "r", "~{memory}"])


def _void(context, builder, text):
    asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), []), text, "~{memory}", side_effect=True)
    builder.call(asm, [])
    return context.get_dummy_value()


def _named(typer, name, doc, literal=False):
    typer.__name__ = name
    fn = (intrinsic_prefer_literal if literal else intrinsic)(typer)
    fn.__doc__ = doc
    return fn


def _accumulator(name, acc, r):
    if not (isinstance(acc, types.UniTuple) and acc.count == r and isinstance(acc.dtype, (types.Float, types.Integer))):
        raise TypingError(f"{name}: acc must be a tuple of {r} float32 accumulators (from wgmma_zeros({r}) "
                          f"or an earlier wgmma); got {acc}")


def _tied_asm(builder, text, cons, values, r, extra_types=()):
    fnty = ir.FunctionType(ir.LiteralStructType([_f32] * r), [_f32] * r + list(extra_types))
    res = builder.call(ir.InlineAsm(fnty, text, cons, side_effect=True), list(values))
    return [builder.extract_value(res, i) for i in range(r)]


def _make_mma_async(ins: WgmmaInstruction):
    name, r = ins.name, ins.registers("D")
    cons = constraints(r)

    def typer(typingctx, desc_a, desc_b, acc, scale_d, imm_scale_a, imm_scale_b, imm_trans_a, imm_trans_b):
        for what, t in (("desc_a", desc_a), ("desc_b", desc_b)):
            if not isinstance(t, types.Integer):
                raise TypingError(f"{name}: {what} must be a 64-bit matrix descriptor (an integer); got {t}")
        _accumulator(name, acc, r)
        if not isinstance(scale_d, (types.Integer, types.Boolean)):
            raise TypingError(f"{name}: scale_d must be an integer (0: D = A*B, else D = A*B + D); got {scale_d}")
        imms = dict(zip(IMMEDIATES, (imm_scale_a, imm_scale_b, imm_trans_a, imm_trans_b)))
        values = {}
        for key, t in imms.items():
            if not isinstance(t, types.IntegerLiteral) or int(t.literal_value) not in _ALLOWED[key]:
                raise TypingError(f"{name}: {key} must be a literal integer in {_ALLOWED[key]} (an immediate "
                                  f"in PTX); got {t}")
            values[key] = int(t.literal_value)
        text = ins.asm
        for key, v in values.items():
            text = text.replace(f"${key}", str(v))
        accty = types.UniTuple(types.float32, r)
        sig = accty(types.uint64, types.uint64, accty, types.uint32, *imms.values())

        def codegen(context, builder, sig, args):
            d = [builder.extract_value(args[2], i) for i in range(r)]
            out = _tied_asm(builder, text, cons, d + [args[0], args[1], args[3]], r, (_i64, _i64, _i32))
            return context.make_tuple(builder, sig.return_type, out)

        return sig, codegen

    return _named(typer, name, f"``{ins.ptx}``: (desc_a, desc_b, acc, scale_d, imm_scale_a, imm_scale_b, "
                               f"imm_trans_a, imm_trans_b) -> acc, {r} float32 per thread.", literal=True)


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


def make(ins: WgmmaInstruction):
    """The intrinsic of one ``WGMMA_PTX`` entry."""
    if ins.shape:
        return _make_mma_async(ins)
    if ins.name == "wgmma_wait_group":
        return _make_wait_group(ins)
    return _make_fence(ins)


def _zeros(typingctx, n):
    if not isinstance(n, types.IntegerLiteral) or int(n.literal_value) <= 0:
        raise TypingError(f"wgmma_zeros: n must be a literal integer > 0 (the accumulator count); got {n}")
    count = int(n.literal_value)
    sig = types.UniTuple(types.float32, count)(n)

    def codegen(context, builder, sig, args):
        return context.make_tuple(builder, sig.return_type, [ir.Constant(_f32, 0.0)] * count)

    return sig, codegen


wgmma_zeros = _named(_zeros, "wgmma_zeros", "A tuple of n (a literal) float32 zeros: a fresh accumulator.",
                     literal=True)


def _fence_operand(typingctx, acc):
    if not (isinstance(acc, types.UniTuple) and isinstance(acc.dtype, types.Float)):
        raise TypingError(f"wgmma_fence_operand: acc must be a tuple of float32 accumulators; got {acc}")
    r = acc.count
    accty = types.UniTuple(types.float32, r)
    cons = ",".join(["=f"] * r + [str(i) for i in range(r)] + ["~{memory}"])

    def codegen(context, builder, sig, args):
        d = [builder.extract_value(args[0], i) for i in range(r)]
        return context.make_tuple(builder, sig.return_type, _tied_asm(builder, "", cons, d, r))

    return accty(accty), codegen


wgmma_fence_operand = _named(_fence_operand, "wgmma_fence_operand",
                             "``acc`` through an empty asm statement (no instruction): uses after it wait for "
                             "the wgmma_wait_group before it.")
