"""``setmaxnreg``: a warpgroup gives registers back to the CTA's pool or takes them, bound with its
register count as an immediate (the PTX ISA: ``setmaxnreg.{inc,dec}.sync.aligned.u32 N``, N a
multiple of 8 in 24..256, sm_90a; all four warps of the warpgroup execute it).

>>> sorted(setmaxnreg_calls(40, 232))
['setmaxnreg_dec_40', 'setmaxnreg_inc_232']
"""

from __future__ import annotations

from labkit.atoms.instructions import GEMM_PTX as _REGISTRY
from labkit.cuda._numba import SIMULATED as _SIMULATED

__all__ = ["setmaxnreg_calls"]



def _setmaxnreg_intrinsic(name, text):
    from labkit.cuda._numba import intrinsic, ir, types

    def typer(typingctx):
        def codegen(context, builder, sig, args):
            asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), []), text, "~{memory}", side_effect=True)
            builder.call(asm, [])
            return context.get_dummy_value()

        return types.void(), codegen

    typer.__name__ = name
    return intrinsic(typer)


def setmaxnreg_calls(dec, inc):
    """``{"setmaxnreg_dec_<dec>": f, "setmaxnreg_inc_<inc>": g}``: intrinsics of no arguments issuing
    ``setmaxnreg.{dec,inc}.sync.aligned.u32`` with the register counts as immediates (multiples of
    8 in 24..256; the PTX ISA: sm_90a). A warpgroup's threads give registers back (``dec``) or
    take them (``inc``); ptxas honours it only in a kernel compiled with a register cap."""
    from labkit.errors import DeviceError

    out = {}
    for what, n in (("dec", dec), ("inc", inc)):
        if isinstance(n, bool) or not isinstance(n, int) or not 24 <= n <= 256 or n % 8:
            raise DeviceError(f"setmaxnreg: {what} must be a multiple of 8 in 24..256; got {n!r}")
        name = f"setmaxnreg_{what}_{n}"
        if _SIMULATED:
            def twin():
                raise DeviceError("setmaxnreg has no CUDA-simulator twin (sm_90a only)")
            out[name] = twin
            continue
        out[name] = _setmaxnreg_intrinsic(name, _REGISTRY[f"setmaxnreg_{what}"].asm.replace("$n", str(n)))
    return out
