"""The GPU binding of :mod:`labkit.cuda.ptx`: numba ``@intrinsic`` functions emitting inline PTX.

Each intrinsic types its arguments (registers are ``uint32``, f32 accumulators
``float32``; other integer and float arguments are converted) and lowers to one
``llvmlite.ir.InlineAsm`` call. Memory-touching instructions (ldmatrix, stmatrix, cp.async)
clobber ``memory`` so the compiler keeps them in program order with ordinary
shared-memory loads and stores. One intrinsic is made per entry of the instruction registry
(:mod:`labkit.atoms.instructions`), from its PTX text and register counts.

>>> from labkit.cuda import _intrinsics
>>> _intrinsics.ASM["ldmatrix_x4_trans"]
'ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [$4];'
>>> _intrinsics.ASM["stmatrix_x2"]
'stmatrix.sync.aligned.m8n8.x2.shared.b16 [$0], {$1, $2};'
"""

from __future__ import annotations

from labkit.atoms.instructions import ADDRESS, CP_ASYNC, INSTRUCTIONS
from labkit.cuda._numba import (TypingError, element_pointer_as_int, fixed_arity, intrinsic, intrinsic_prefer_literal,
                                ir, types)

_i32 = ir.IntType(32)
_i64 = ir.IntType(64)
_f32 = ir.FloatType()

ASM: dict = {}
"""The inline-assembly text of each instruction (``$n`` are operands)."""


def _regs(n):
    return ", ".join(f"${i}" for i in range(n))


def _pack(context, builder, retty, values):
    return context.make_tuple(builder, retty, values)


def _struct_values(builder, res, n):
    return [builder.extract_value(res, i) for i in range(n)]


def _check_index(fname, arr, idx):
    if not isinstance(arr, types.Array):
        raise TypingError(f"{fname}: the array argument must be an array; got {arr}")
    if isinstance(idx, types.Integer):
        if arr.ndim != 1:
            raise TypingError(f"{fname}: an integer index needs a 1-D array; got a {arr.ndim}-D array")
    elif isinstance(idx, types.BaseTuple):
        if len(idx) != arr.ndim or not all(isinstance(t, types.Integer) for t in idx):
            raise TypingError(f"{fname}: the index must be {arr.ndim} integers for a {arr.ndim}-D array; got {idx}")
    else:
        raise TypingError(f"{fname}: the index must be an integer or a tuple of integers; got {idx}")


def _named_intrinsic(typer, name, doc):
    """``numba``'s ``@intrinsic`` of ``typer``, called ``name``, documented ``doc``."""
    typer.__name__ = name
    fn = intrinsic(typer)
    fn.__doc__ = doc
    return fn


_element_pointer_as_int = element_pointer_as_int


# ---------------------------------------------------------------------------------------------
# addresses

ASM["smem_addr"] = "{ .reg .u64 t; " + ADDRESS["smem_addr"].ptx + " t, $1; cvt.u32.u64 $0, t; }"


@intrinsic
def smem_addr(typingctx, array, index):
    """32-bit shared-memory address of ``array[index]`` (``array`` a ``cuda.shared.array``)."""
    _check_index("smem_addr", array, index)
    sig = types.uint32(array, index)

    def codegen(context, builder, sig, args):
        as_int = _element_pointer_as_int(context, builder, sig.args[0], args[0], sig.args[1], args[1])
        asm = ir.InlineAsm(ir.FunctionType(_i32, [_i64]), ASM["smem_addr"], "=r,l")
        return builder.call(asm, [as_int])

    return sig, codegen


# ---------------------------------------------------------------------------------------------
# ldmatrix


def _make_ldmatrix(ins):
    name, text, num = ins.name, ins.ptx, ins.num
    ASM[name] = f"{text} {{{_regs(num)}}}, [${num}];"
    constraints = ",".join(["=r"] * num + ["r", "~{memory}"])

    def typer(typingctx, addr):
        if not isinstance(addr, types.Integer):
            raise TypingError(f"{name}: the address must be an integer (from smem_addr); got {addr}")
        ret = types.uint32 if num == 1 else types.UniTuple(types.uint32, num)
        sig = ret(types.uint32)

        def codegen(context, builder, sig, args):
            if num == 1:
                asm = ir.InlineAsm(ir.FunctionType(_i32, [_i32]), ASM[name], constraints, side_effect=True)
                return builder.call(asm, list(args))
            fnty = ir.FunctionType(ir.LiteralStructType([_i32] * num), [_i32])
            asm = ir.InlineAsm(fnty, ASM[name], constraints, side_effect=True)
            res = builder.call(asm, list(args))
            return _pack(context, builder, sig.return_type, _struct_values(builder, res, num))

        return sig, codegen

    return _named_intrinsic(typer, name, f"``{text}``: one 32-bit register per matrix ({num} matrices).")




# ---------------------------------------------------------------------------------------------
# stmatrix: ldmatrix's reverse, (addr, r0, ..., r{num-1}) -> nothing


def _make_stmatrix(ins):
    name, text, num = ins.name, ins.ptx, ins.num
    ASM[name] = f"{text} [$0], {{{', '.join(f'${i + 1}' for i in range(num))}}};"
    constraints = ",".join(["r"] * (num + 1) + ["~{memory}"])

    def typer(typingctx, addr, *regs):
        if not isinstance(addr, types.Integer):
            raise TypingError(f"{name}: the address must be an integer (from smem_addr); got {addr}")
        if len(regs) != num:
            raise TypingError(f"{name} takes the address and {num} register(s); got {len(regs)} register(s)")
        for i, t in enumerate(regs):
            if not isinstance(t, types.Integer):
                raise TypingError(f"{name}: register {i} must be an integer (a uint32 of two 16-bit halves); got {t}")
        sig = types.void(*([types.uint32] * (num + 1)))

        def codegen(context, builder, sig, args):
            return _void_asm(context, builder, ASM[name], constraints, args, [_i32] * (num + 1))

        return sig, codegen

    # numba's @intrinsic needs a fixed argument list: one with the right arity.
    fixed = fixed_arity(name, ["addr"] + [f"r{i}" for i in range(num)], typer)
    return _named_intrinsic(fixed, name,
                            f"``{text} [addr], {{r...}}``: store {num} matrices, one 32-bit register each.")




# ---------------------------------------------------------------------------------------------
# mma.sync


_REGISTER = {  # register_kind -> (constraint letter, numba type, llvm type)
    "u32": ("r", types.uint32, _i32), "s32": ("r", types.int32, _i32), "f32": ("f", types.float32, _f32)}


def _make_mma(ins):
    name, text = ins.name, ins.ptx
    na, nb, nc = ins.registers("A"), ins.registers("B"), ins.registers("C")
    n_out = nc

    ASM[name] = ins.asm
    ckind = ins.register_type("C")                   # the entry's accumulator: f32, s32 or packed u32
    creg, cty, cir = _REGISTER[ckind]
    constraints = ",".join([f"={creg}"] * n_out + ["r"] * (na + nb) + [creg] * nc)
    n_args = na + nb + nc
    c_ok = (types.Float, types.Integer) if ckind == "f32" else types.Integer
    c_what = {"f32": "float32", "s32": "int32", "u32": "uint32 register"}[ckind]

    def typer(typingctx, *args):
        if len(args) != n_args:
            raise TypingError(f"{name} takes {na} A, {nb} B and {nc} C registers ({n_args} arguments); got {len(args)}")
        for i, t in enumerate(args):
            want, what = (types.Integer, "uint32 register") if i < na + nb else (c_ok, c_what)
            if not isinstance(t, want):
                raise TypingError(f"{name}: argument {i} must be a {what}; got {t}")
        sig = types.UniTuple(cty, n_out)(*([types.uint32] * (na + nb) + [cty] * nc))

        def codegen(context, builder, sig, args):
            fnty = ir.FunctionType(ir.LiteralStructType([cir] * n_out), [_i32] * (na + nb) + [cir] * nc)
            asm = ir.InlineAsm(fnty, ASM[name], constraints, side_effect=True)
            res = builder.call(asm, list(args))
            return _pack(context, builder, sig.return_type, _struct_values(builder, res, n_out))

        return sig, codegen

    # numba's @intrinsic needs a fixed argument list: one with the right arity.
    fixed = fixed_arity(name, [f"x{i}" for i in range(n_args)], typer)
    return _named_intrinsic(fixed, name, f"``{text}``: ({na} A, {nb} B, {nc} C registers) -> {n_out} D {ckind} registers.")




# ---------------------------------------------------------------------------------------------
# cp.async


def _make_cp_async(ins):
    name, level, nbytes = ins.name, ins.level, ins.bytes
    ASM[name] = (
        f"{{ .reg .u64 g; cvta.to.global.u64 g, $1; cp.async.{level}.shared.global [$0], [g], {nbytes}; }}"
    )

    def typer(typingctx, dst, src, index):
        if not isinstance(dst, types.Integer):
            raise TypingError(f"{name}: dst must be a shared address (from smem_addr); got {dst}")
        _check_index(name, src, index)
        sig = types.void(types.uint32, src, index)

        def codegen(context, builder, sig, args):
            src_int = _element_pointer_as_int(context, builder, sig.args[1], args[1], sig.args[2], args[2])
            asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), [_i32, _i64]), ASM[name], "r,l,~{memory}",
                               side_effect=True)
            builder.call(asm, [args[0], src_int])
            return context.get_dummy_value()

        return sig, codegen

    return _named_intrinsic(typer, name, f"``{ins.ptx}``: copy {nbytes} bytes from ``&src[index]`` to shared ``dst``.")



ASM["cp_async_commit_group"] = CP_ASYNC["cp_async_commit_group"].ptx + ";"
ASM["cp_async_wait_all"] = CP_ASYNC["cp_async_wait_all"].ptx + ";"
ASM["cp_async_wait_group"] = CP_ASYNC["cp_async_wait_group"].ptx.replace(" n", " $0") + ";"   # n: an immediate


def _void_asm(context, builder, text, constraints="~{memory}", args=(), argtys=()):
    asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), list(argtys)), text, constraints, side_effect=True)
    builder.call(asm, list(args))
    return context.get_dummy_value()


def _make_fence(ins):
    """A fence without operands (``cp.async.commit_group``, ``cp.async.wait_all``)."""
    def typer(typingctx):
        def codegen(context, builder, sig, args):
            return _void_asm(context, builder, ASM[ins.name])

        return types.void(), codegen

    return _named_intrinsic(typer, ins.name, f"``{ins.ptx}``.")




@intrinsic_prefer_literal
def cp_async_wait_group(typingctx, n):
    """``cp.async.wait_group n``: wait until at most ``n`` (a literal integer) groups are pending."""
    if not isinstance(n, types.IntegerLiteral):
        raise TypingError(f"cp_async_wait_group: n must be a literal integer (an immediate in PTX); got {n}")
    value = int(n.literal_value)
    if value < 0:
        raise TypingError(f"cp_async_wait_group: n must be >= 0; got {value}")
    sig = types.void(n)

    def codegen(context, builder, sig, args):
        return _void_asm(context, builder, ASM["cp_async_wait_group"].replace("$0", str(value)))

    return sig, codegen


# ---------------------------------------------------------------------------------------------
# wgmma (Hopper, sm_90a): every GMMA entry (SS and RS, every type) and the warpgroup fences,
# made by labkit.cuda._wgmma_intrinsics from the entry; plus the helpers (no instruction).

from labkit.cuda import _wgmma_intrinsics as _wgmma  # noqa: E402

wgmma_zeros = _wgmma.wgmma_zeros
wgmma_zeros_s32 = _wgmma.wgmma_zeros_s32
wgmma_zeros_u32 = _wgmma.wgmma_zeros_u32
wgmma_fence_operand = _wgmma.wgmma_fence_operand
HELPERS = ("wgmma_zeros", "wgmma_zeros_s32", "wgmma_zeros_u32", "wgmma_fence_operand")
"""Names bound beside the instructions that emit none."""


# ---------------------------------------------------------------------------------------------
# The one binding loop: an intrinsic per registry entry, made by the maker of its family.

def _maker(ins):
    if ins.kind in ("wgmma",) or ins.name == "fence_proxy_async_shared_cta":
        return _wgmma.make
    if ins.kind == "ldmatrix":
        return _make_ldmatrix
    if ins.kind == "stmatrix":
        return _make_stmatrix
    if ins.kind == "mma":
        return _make_mma
    if ins.kind == "cp.async":
        return _make_cp_async if ins.level else (_make_fence if ins.name != "cp_async_wait_group" else None)
    return None                                  # smem_addr and cp_async_wait_group: written above


_MADE = {}


def intrinsic_of(ins):
    """The intrinsic of registry entry ``ins``, made on first use (a wgmma entry's typing is built
    only when a kernel asks for it)."""
    fn = _MADE.get(ins.name) or globals().get(ins.name)
    if fn is None:
        make = _maker(ins)
        fn = make(ins)
        _MADE[ins.name] = fn
        if ins.kind in ("wgmma",):
            ASM[ins.name] = ins.asm
    return fn


for _ins in INSTRUCTIONS.values():
    if _ins.kind not in ("wgmma",) and _ins.name not in globals():
        globals()[_ins.name] = intrinsic_of(_ins)


def __getattr__(name):
    ins = INSTRUCTIONS.get(name)
    if ins is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return intrinsic_of(ins)
