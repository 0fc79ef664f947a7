"""Two instructions for timing experiments: ``clock64`` and a shared-memory load the compiler
cannot remove.

==================================  ================================================  ======
name                                PTX                                               min SM
==================================  ================================================  ======
clock64()                           ``mov.u64 %r, %clock64`` (this SM's cycle count)  any
ld_volatile_shared_u32(arr, index)  ``ld.volatile.shared.u32`` of ``arr[index]``      any
==================================  ================================================  ======

On a GPU both are numba intrinsics emitting inline PTX marked as having side effects, so
the compiler keeps every one of them, in program order. Under the CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``) ``clock64`` returns 0 (the simulator has no clock: a lab never
shows its value as a time) and the load is ``arr[index]``.

>>> from labkit.cuda import probe
>>> probe.ASM["clock64"]
'mov.u64 $0, %clock64;'
"""

from __future__ import annotations

from labkit.atoms.instructions import PROBE
from labkit.cuda._numba import SIMULATED

__all__ = ["clock64", "ld_volatile_shared_u32", "ASM", "SIMULATED"]

ASM = {name: ins.asm for name, ins in PROBE.items()}
"""The inline PTX of each name: the registry's ``PROBE`` entries."""

if SIMULATED:

    def clock64():
        """The simulator has no cycle counter: 0."""
        return 0

    def ld_volatile_shared_u32(arr, index):
        """``arr[index]`` (the simulator keeps every load anyway)."""
        import numpy as np

        return np.uint32(arr[index])

else:
    from labkit.cuda._numba import TypingError, intrinsic, ir, types
    from labkit.cuda._numba import element_pointer_as_int as _element_pointer_as_int

    _i32 = ir.IntType(32)
    _i64 = ir.IntType(64)

    @intrinsic
    def clock64(typingctx):
        """``%clock64``: cycles counted by this multiprocessor."""
        sig = types.uint64()

        def codegen(context, builder, sig, args):
            asm = ir.InlineAsm(ir.FunctionType(_i64, []), ASM["clock64"], "=l", side_effect=True)
            return builder.call(asm, [])

        return sig, codegen

    @intrinsic
    def ld_volatile_shared_u32(typingctx, arr, index):
        """``ld.volatile.shared.u32`` of ``arr[index]`` (``arr`` a 1-D 32-bit shared array)."""
        if not isinstance(arr, types.Array) or arr.ndim != 1 or arr.dtype.bitwidth != 32:
            raise TypingError(f"ld_volatile_shared_u32: arr must be a 1-D 32-bit shared array; got {arr}")
        if not isinstance(index, types.Integer):
            raise TypingError(f"ld_volatile_shared_u32: index must be an integer; got {index}")
        sig = types.uint32(arr, index)

        def codegen(context, builder, sig, args):
            ptr = _element_pointer_as_int(context, builder, sig.args[0], args[0], sig.args[1], args[1])
            asm = ir.InlineAsm(ir.FunctionType(_i32, [_i64]), ASM["ld_volatile_shared_u32"], "=r,l",
                               side_effect=True)
            return builder.call(asm, [ptr])

        return sig, codegen
