"""PTX the GEMM ladder needs beside :mod:`labkit.cuda.ptx`: 16-byte copies and zero fill.

Same conventions as :mod:`labkit.cuda.ptx`: on a GPU each name is a numba ``@intrinsic``
emitting inline PTX; under ``NUMBA_ENABLE_CUDASIM=1`` it is a pure-Python twin working
on the simulator's arrays and :mod:`labkit.cuda.ptx`'s simulated shared window.

=====================================================  ============================================  ======
name                                                   PTX                                           min SM
=====================================================  ============================================  ======
``ld_global_v4(src, index, pred)``                     ``ld.global.v4.u32`` of ``&src[index]``;      any
                                                       four zeros when ``pred`` is 0
``st_shared_v4(addr, r0, r1, r2, r3)``                 ``st.shared.v4.b32``                          any
``cp_async_cg_16_zfill(dst, src, index, src_bytes)``   ``cp.async.cg.shared.global [dst], [src],     80
                                                       16, src_bytes``: copies ``src_bytes`` (0..16)
                                                       bytes and zero-fills the rest
``st_global_u32(dst, index, value)``                   ``st.global.b32``: 4 bytes at ``&dst[index]``  any
``st_global_v2_f32(dst, index, v0, v1)``               ``st.global.v2.f32``: 8 bytes at              any
                                                       ``&dst[index]``
``st_shared_u32(addr, value, off)``                    ``st.shared.b32 [addr+off]``: ``off`` a        any
                                                       literal (the instruction's immediate)
``bar_sync_named(id, threads)``                        ``bar.sync id, threads``: a named barrier of   any
                                                       ``threads`` threads (a warpgroup: 128)
``tma_store_2d(maps, index, c0, c1, src)``             ``cp.async.bulk.tensor.2d.global.shared::cta  90
                                                       .bulk_group``: shared ``src`` to the box at
                                                       (c0, c1) of the tensor map at ``&maps[index]``
``cp_async_bulk_commit_group()``,                      ``cp.async.bulk.commit_group``,               90
``cp_async_bulk_wait_group_read(n)``,                  ``cp.async.bulk.wait_group.read n`` (all but
``cp_async_bulk_wait_group()``                         the ``n`` newest groups have read shared
                                                       memory; ``n`` a literal),
                                                       ``cp.async.bulk.wait_group 0`` (done)
``cvt_rn_f16x2_f32(a, b)``                              ``cvt.rn.f16x2.f32``: ``a`` and ``b`` rounded     80
                                                       to f16, ``a`` in the upper half of the u32
``cvt_rn_bf16x2_f32(a, b)``                            ``cvt.rn.bf16x2.f32``: the same, to bf16       80
``mbarrier_init(bar, count)``                          ``mbarrier.init.shared::cta.b64``             80
``fence_mbarrier_init()``                              ``fence.mbarrier_init.release.cluster`` +      90
                                                       ``fence.proxy.async.shared::cta``
``mbarrier_arrive_expect_tx(bar, nbytes)``             ``mbarrier.arrive.expect_tx.shared::cta.b64``  90
``mbarrier_arrive(bar)``                               ``mbarrier.arrive.shared::cta.b64``: one        80
                                                       arrival, no transaction bytes
``mbarrier_try_wait(bar, parity)``                     ``mbarrier.try_wait.parity.shared::cta.b64``:  90
                                                       1 once the phase of that parity completed
``tma_load_2d(dst, maps, index, c0, c1, bar)``         ``cp.async.bulk.tensor.2d.shared::cluster.     90
                                                       global.tile.mbarrier::complete_tx::bytes``:
                                                       the box at (c0, c1) of the tensor map at
                                                       ``&maps[index]`` into shared ``dst``
=====================================================  ============================================  ======

The mbarrier and TMA names are Hopper's asynchronous copy: one thread arms a barrier with the
bytes it expects (``mbarrier_arrive_expect_tx``) and asks the Tensor Memory Accelerator for a
2-D box of a tensor (``tma_load_2d``); the copy engine writes the box into shared memory,
swizzled as the tensor map says, and completes the barrier's transaction count; every thread
then waits on the barrier's phase (``mbarrier_try_wait``). Tensor maps are made on the host by
:func:`labkit.cuda.kernels.ladder.gemm_tensorcore.tensor_maps`.

``index`` is a tuple of integers (one per dimension of ``src``) or an int for a 1-D array.
``src`` must be 16-byte aligned at ``index`` (``dst`` of the stores: 4 and 8 bytes). When ``pred`` is 0 or ``src_bytes`` is 0 no
byte is read, but ``index`` must still lie inside ``src``.

>>> from labkit.cuda.kernels.ladder import gemm_ptx
>>> gemm_ptx.MIN_SM["cp_async_cg_16_zfill"], gemm_ptx.MIN_SM["ld_global_v4"]
(80, 0)
>>> print(gemm_ptx.PTX["st_shared_v4"])
st.shared.v4.b32 [$0], {$1, $2, $3, $4};
"""

from __future__ import annotations

import numpy as np
from labkit.cuda._numba import SIMULATED as _SIMULATED

__all__ = ["MIN_SM", "PTX", "ld_global_v4", "st_shared_v4", "cp_async_cg_16_zfill", "st_global_u32",
           "st_global_v2_f32", "cvt_rn_f16x2_f32", "cvt_rn_bf16x2_f32", "st_shared_u32", "bar_sync_named",
           "tma_store_2d", "cp_async_bulk_commit_group", "cp_async_bulk_wait_group_read",
           "cp_async_bulk_wait_group", "mbarrier_init", "fence_mbarrier_init",
           "mbarrier_arrive_expect_tx", "mbarrier_arrive", "mbarrier_try_wait", "tma_load_2d",
           "sim_tensor_map", "setmaxnreg_calls"]

from labkit.atoms.instructions import GEMM_PTX as _REGISTRY  # noqa: E402

#: minimum SM of each instruction (0: any GPU numba supports), from the instruction registry
MIN_SM = {name: ins.min_sm for name, ins in _REGISTRY.items()}

#: inline-assembly text of each instruction (``$n`` are operands), from the instruction registry
PTX = {name: ins.asm for name, ins in _REGISTRY.items()}


def _gpu_bindings():
    from labkit.cuda._numba import TypingError, element_pointer_as_int, fixed_arity, intrinsic, ir, types

    i32, i64 = ir.IntType(32), ir.IntType(64)

    def check_index(fname, arr, idx):
        if not isinstance(arr, types.Array):
            raise TypingError(f"{fname}: src must be an array; got {arr}")
        if isinstance(idx, types.Integer) and arr.ndim == 1:
            return
        if isinstance(idx, types.BaseTuple) and len(idx) == arr.ndim and all(
            isinstance(t, types.Integer) for t in idx
        ):
            return
        raise TypingError(f"{fname}: index must be {arr.ndim} integer(s) for a {arr.ndim}-D array; got {idx}")

    element_address = element_pointer_as_int

    @intrinsic
    def ld_global_v4(typingctx, src, index, pred):
        """16 bytes at ``&src[index]`` as four uint32 (zeros when ``pred`` is 0)."""
        check_index("ld_global_v4", src, index)
        if not isinstance(pred, (types.Integer, types.Boolean)):
            raise TypingError(f"ld_global_v4: pred must be an integer or bool; got {pred}")
        sig = types.UniTuple(types.uint32, 4)(src, index, pred)

        def codegen(context, builder, sig, args):
            addr = element_address(context, builder, sig.args[0], args[0], sig.args[1], args[1])
            p = context.cast(builder, args[2], sig.args[2], types.uint32)
            fnty = ir.FunctionType(ir.LiteralStructType([i32] * 4), [i64, i32])
            asm = ir.InlineAsm(fnty, PTX["ld_global_v4"], "=r,=r,=r,=r,l,r", side_effect=True)
            res = builder.call(asm, [addr, p])
            vals = [builder.extract_value(res, i) for i in range(4)]
            return context.make_tuple(builder, sig.return_type, vals)

        return sig, codegen

    @intrinsic
    def st_shared_v4(typingctx, addr, r0, r1, r2, r3):
        """Store four uint32 at the 16-byte-aligned shared address ``addr``."""
        for i, t in enumerate((addr, r0, r1, r2, r3)):
            if not isinstance(t, types.Integer):
                raise TypingError(f"st_shared_v4: argument {i} must be an integer register; got {t}")
        sig = types.void(*([types.uint32] * 5))

        def codegen(context, builder, sig, args):
            fnty = ir.FunctionType(ir.VoidType(), [i32] * 5)
            asm = ir.InlineAsm(fnty, PTX["st_shared_v4"], "r,r,r,r,r,~{memory}", side_effect=True)
            builder.call(asm, list(args))
            return context.get_dummy_value()

        return sig, codegen

    @intrinsic
    def cp_async_cg_16_zfill(typingctx, dst, src, index, src_bytes):
        """cp.async 16 bytes to shared ``dst``: ``src_bytes`` from ``&src[index]``, zeros after."""
        if not isinstance(dst, types.Integer) or not isinstance(src_bytes, types.Integer):
            raise TypingError("cp_async_cg_16_zfill: dst and src_bytes must be integers")
        check_index("cp_async_cg_16_zfill", src, index)
        sig = types.void(types.uint32, src, index, types.uint32)

        def codegen(context, builder, sig, args):
            addr = element_address(context, builder, sig.args[1], args[1], sig.args[2], args[2])
            fnty = ir.FunctionType(ir.VoidType(), [i32, i64, i32])
            asm = ir.InlineAsm(fnty, PTX["cp_async_cg_16_zfill"], "r,l,r,~{memory}", side_effect=True)
            builder.call(asm, [args[0], addr, args[3]])
            return context.get_dummy_value()

        return sig, codegen

    def make_store(name, value_types, constraint):
        def typer(typingctx, dst, index, *values):
            check_index(name, dst, index)
            if len(values) != len(value_types):
                raise TypingError(f"{name}: takes {len(value_types)} value(s); got {len(values)}")
            sig = types.void(dst, index, *value_types)

            def codegen(context, builder, sig, args):
                addr = element_address(context, builder, sig.args[0], args[0], sig.args[1], args[1])
                vals = list(args[2:])
                irtys = [context.get_value_type(t) for t in value_types]
                fnty = ir.FunctionType(ir.VoidType(), [i64] + irtys)
                cons = ",".join(["l"] + [constraint] * len(vals) + ["~{memory}"])
                asm = ir.InlineAsm(fnty, PTX[name], cons, side_effect=True)
                builder.call(asm, [addr] + vals)
                return context.get_dummy_value()

            return sig, codegen

        return intrinsic(fixed_arity(name, ["dst", "index"] + [f"v{i}" for i in range(len(value_types))], typer))

    st_global_u32 = make_store("st_global_u32", (types.uint32,), "r")
    st_global_v2_f32 = make_store("st_global_v2_f32", (types.float32, types.float32), "f")

    def cvt_pack(name):
        def typer(typingctx, a, b):
            for i, t in enumerate((a, b)):
                if not isinstance(t, types.Float):
                    raise TypingError(f"{name}: argument {i} must be a float; got {t}")
            sig = types.uint32(types.float32, types.float32)

            def codegen(context, builder, sig, args):
                fnty = ir.FunctionType(i32, [ir.FloatType(), ir.FloatType()])
                return builder.call(ir.InlineAsm(fnty, PTX[name], "=r,f,f"), list(args))

            return sig, codegen

        return intrinsic(fixed_arity(name, ["a", "b"], typer))

    cvt_rn_f16x2_f32 = cvt_pack("cvt_rn_f16x2_f32")
    cvt_rn_bf16x2_f32 = cvt_pack("cvt_rn_bf16x2_f32")

    def _u32_args(name, *args):
        for i, t in enumerate(args):
            if not isinstance(t, (types.Integer, types.Boolean)):
                raise TypingError(f"{name}: argument {i} must be an integer; got {t}")

    def void_asm(name, n):
        def typer(typingctx, *args):
            _u32_args(name, *args)
            sig = types.void(*([types.uint32] * n))

            def codegen(context, builder, sig, args):
                fnty = ir.FunctionType(ir.VoidType(), [i32] * n)
                cons = ",".join(["r"] * n + ["~{memory}"])
                builder.call(ir.InlineAsm(fnty, PTX[name], cons, side_effect=True), list(args))
                return context.get_dummy_value()

            return sig, codegen

        return intrinsic(fixed_arity(name, [f"a{i}" for i in range(n)], typer))

    mbarrier_init = void_asm("mbarrier_init", 2)
    fence_mbarrier_init = void_asm("fence_mbarrier_init", 0)
    mbarrier_arrive_expect_tx = void_asm("mbarrier_arrive_expect_tx", 2)
    mbarrier_arrive = void_asm("mbarrier_arrive", 1)

    @intrinsic
    def mbarrier_try_wait(typingctx, bar, parity):
        """1 when the barrier's phase of this parity has completed, else 0 (after a short wait)."""
        _u32_args("mbarrier_try_wait", bar, parity)
        sig = types.uint32(types.uint32, types.uint32)

        def codegen(context, builder, sig, args):
            fnty = ir.FunctionType(i32, [i32, i32])
            asm = ir.InlineAsm(fnty, PTX["mbarrier_try_wait"], "=r,r,r,~{memory}", side_effect=True)
            return builder.call(asm, list(args))

        return sig, codegen

    @intrinsic
    def tma_load_2d(typingctx, dst, maps, index, c0, c1, bar):
        """TMA: the box at (c0, c1) of the tensor map at ``&maps[index]`` into shared ``dst``."""
        check_index("tma_load_2d", maps, index)
        _u32_args("tma_load_2d", dst, c0, c1, bar)
        sig = types.void(types.uint32, maps, index, types.int32, types.int32, types.uint32)

        def codegen(context, builder, sig, args):
            addr = element_address(context, builder, sig.args[1], args[1], sig.args[2], args[2])
            fnty = ir.FunctionType(ir.VoidType(), [i32, i64, i32, i32, i32])
            asm = ir.InlineAsm(fnty, PTX["tma_load_2d"], "r,l,r,r,r,~{memory}", side_effect=True)
            builder.call(asm, [args[0], addr, args[3], args[4], args[5]])
            return context.get_dummy_value()

        return sig, codegen

    @intrinsic
    def tma_store_2d(typingctx, maps, index, c0, c1, src):
        """TMA: shared ``src`` to the box at (c0, c1) of the tensor map at ``&maps[index]``."""
        check_index("tma_store_2d", maps, index)
        _u32_args("tma_store_2d", c0, c1, src)
        sig = types.void(maps, index, types.int32, types.int32, types.uint32)

        def codegen(context, builder, sig, args):
            addr = element_address(context, builder, sig.args[0], args[0], sig.args[1], args[1])
            fnty = ir.FunctionType(ir.VoidType(), [i64, i32, i32, i32])
            asm = ir.InlineAsm(fnty, PTX["tma_store_2d"], "l,r,r,r,~{memory}", side_effect=True)
            builder.call(asm, [addr, args[2], args[3], args[4]])
            return context.get_dummy_value()

        return sig, codegen

    @intrinsic
    def st_shared_u32(typingctx, addr, value, off):
        """4 bytes to shared ``addr + off``; ``off`` is a literal, the store's immediate offset (an
        address computed apart for each offset would be a register each, hoisted out of loops)."""
        _u32_args("st_shared_u32", addr, value)
        if not isinstance(off, types.IntegerLiteral) or not 0 <= int(off.literal_value) < 2**24:
            raise TypingError(f"st_shared_u32: off must be a literal integer in [0, 2**24); got {off}")
        text = PTX["st_shared_u32"].replace("$off", str(int(off.literal_value)))
        sig = types.void(types.uint32, types.uint32, off)

        def codegen(context, builder, sig, args):
            fnty = ir.FunctionType(ir.VoidType(), [i32, i32])
            builder.call(ir.InlineAsm(fnty, text, "r,r,~{memory}", side_effect=True), list(args[:2]))
            return context.get_dummy_value()

        return sig, codegen

    bar_sync_named = void_asm("bar_sync_named", 2)
    cp_async_bulk_commit_group = void_asm("cp_async_bulk_commit_group", 0)
    @intrinsic
    def cp_async_bulk_wait_group_read(typingctx, n):
        """Wait until all but the ``n`` (a literal: the immediate) newest bulk groups have read shared memory."""
        if not isinstance(n, types.IntegerLiteral) or not 0 <= int(n.literal_value) < 64:
            raise TypingError(f"cp_async_bulk_wait_group_read: n must be a literal integer in [0, 64); got {n}")
        asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), []),
                           PTX["cp_async_bulk_wait_group_read"].replace("$n", str(int(n.literal_value))),
                           "~{memory}", side_effect=True)
        return types.void(n), lambda context, builder, sig, args: (builder.call(asm, []), context.get_dummy_value())[1]

    cp_async_bulk_wait_group = void_asm("cp_async_bulk_wait_group", 0)
    return (ld_global_v4, st_shared_v4, cp_async_cg_16_zfill, st_global_u32, st_global_v2_f32,
            cvt_rn_f16x2_f32, cvt_rn_bf16x2_f32, mbarrier_init, fence_mbarrier_init, mbarrier_arrive_expect_tx, mbarrier_arrive, mbarrier_try_wait,
            tma_load_2d,
            None, (st_shared_u32, bar_sync_named, tma_store_2d, cp_async_bulk_commit_group,
                   cp_async_bulk_wait_group_read, cp_async_bulk_wait_group))


def _sim_bindings():
    from labkit.cuda import _twins
    from labkit.errors import DeviceError

    def source_bytes(src, index, what):
        arr = _twins.array_of(src)
        off = _twins.element_offset(arr, index)
        ptr = arr.__array_interface__["data"][0] + off
        if ptr % 16:
            raise DeviceError(f"{what}: the source address of index {index!r} is not 16-byte aligned")
        root = _twins.root_of(arr)
        start = ptr - root.__array_interface__["data"][0]
        if start + 16 > root.nbytes:
            raise DeviceError(f"{what}: 16 bytes at index {index!r} run past the end of the source array")
        return _twins.bytes_of(root)[start:start + 16]

    def ld_global_v4(src, index, pred):
        raw = source_bytes(src, index, "ld_global_v4")
        if not pred:
            return (np.uint32(0),) * 4
        return tuple(np.uint32(v) for v in raw.copy().view(np.uint32))

    def st_shared_v4(addr, r0, r1, r2, r3):
        addr = int(addr)
        if addr % 16:
            raise DeviceError(f"st_shared_v4: shared address {addr:#x} is not 16-byte aligned")
        root, off = _twins.resolve_shared(addr, 16, "st_shared_v4")
        words = np.array([int(r) & 0xFFFFFFFF for r in (r0, r1, r2, r3)], np.uint32)
        _twins.bytes_of(root)[off:off + 16] = words.view(np.uint8)

    def cp_async_cg_16_zfill(dst, src, index, src_bytes):
        n = int(src_bytes)
        if not 0 <= n <= 16:
            raise DeviceError(f"cp_async_cg_16_zfill: src_bytes must be 0..16; got {n}")
        if n == 16:
            _twins.cp_async_cg_16(dst, src, index)
            return
        dst = int(dst)
        if dst % 16:
            raise DeviceError(f"cp_async_cg_16_zfill: destination {dst:#x} is not 16-byte aligned")
        staged = np.zeros(16, np.uint8)  # the source is read at issue, which PTX allows
        staged[:n] = source_bytes(src, index, "cp_async_cg_16_zfill")[:n]
        droot, doff = _twins.resolve_shared(dst, 16, "cp_async_cg_16_zfill")
        _twins.cp_async_queue()["open"].append((staged, 0, droot, doff))

    def store(what, dst, index, raw):
        arr = _twins.array_of(dst)
        off = _twins.element_offset(arr, index)
        ptr = arr.__array_interface__["data"][0] + off
        if ptr % raw.nbytes:
            raise DeviceError(f"{what}: the address of index {index!r} is not {raw.nbytes}-byte aligned")
        root = _twins.root_of(arr)
        start = ptr - root.__array_interface__["data"][0]
        if start + raw.nbytes > root.nbytes:
            raise DeviceError(f"{what}: {raw.nbytes} bytes at index {index!r} run past the end of the array")
        _twins.bytes_of(root)[start:start + raw.nbytes] = raw.view(np.uint8)

    def st_global_u32(dst, index, value):
        store("st_global_u32", dst, index, np.array([int(value) & 0xFFFFFFFF], np.uint32))

    def st_global_v2_f32(dst, index, v0, v1):
        store("st_global_v2_f32", dst, index, np.array([v0, v1], np.float32))

    def _pack(kind, a, b):
        from labkit.elements import to_bits

        hi, lo = (int(x) for x in to_bits(np.array([a, b], np.float32), kind))
        return np.uint32((hi << 16) | lo)

    def cvt_rn_f16x2_f32(a, b):
        return _pack("f16", a, b)

    def cvt_rn_bf16x2_f32(a, b):
        return _pack("bf16", a, b)

    import itertools
    import threading

    lock = threading.Lock()
    barriers = {}  # shared address -> [expected arrivals, pending arrivals, tx bytes, phase]
    maps = {}  # id -> (array, rows, cols, box_rows, box_cols)
    ids = itertools.count(1)

    def _complete(b):
        if b[1] == 0 and b[2] == 0:
            b[3] ^= 1
            b[1] = b[0]

    def mbarrier_init(bar, count):
        bar = int(bar)
        if bar % 8:
            raise DeviceError(f"mbarrier_init: barrier address {bar:#x} is not 8-byte aligned")
        _twins.resolve_shared(bar, 8, "mbarrier_init")
        with lock:
            barriers[bar] = [int(count), int(count), 0, 0]

    def fence_mbarrier_init():
        pass

    def _barrier(bar, what):
        b = barriers.get(int(bar))
        if b is None:
            raise DeviceError(f"{what}: no mbarrier was initialised at shared address {int(bar):#x}")
        return b

    def mbarrier_arrive_expect_tx(bar, nbytes):
        with lock:
            b = _barrier(bar, "mbarrier_arrive_expect_tx")
            b[2] += int(nbytes)
            b[1] -= 1
            _complete(b)

    def mbarrier_arrive(bar):
        with lock:
            b = _barrier(bar, "mbarrier_arrive")
            b[1] -= 1
            _complete(b)

    def mbarrier_try_wait(bar, parity):
        with lock:
            b = _barrier(bar, "mbarrier_try_wait")
            return np.uint32(1 if b[3] != (int(parity) & 1) else 0)

    def sim_tensor_map(array, rows, cols, box_rows, box_cols):
        """Register a (rows, cols) row-major fp16 array for :func:`tma_load_2d` (simulator)."""
        key = next(ids)
        maps[key] = (array, int(rows), int(cols), int(box_rows), int(box_cols))
        out = np.zeros(16, np.uint64)
        out[0], out[1] = 0x746D61, key  # "tma", then the key
        return out

    def tma_load_2d(dst, maps_arr, index, c0, c1, bar):
        words = _twins.array_of(maps_arr)
        i = int(index)
        if int(words[i]) != 0x746D61 or int(words[i + 1]) not in maps:
            raise DeviceError("tma_load_2d: no tensor map at that index")
        array, rows, cols, box_rows, box_cols = maps[int(words[i + 1])]
        src = _twins.array_of(array).reshape(rows, cols)
        dst, c0, c1 = int(dst), int(c0), int(c1)
        if dst % 1024:
            raise DeviceError(f"tma_load_2d: a 128-byte-swizzled box needs a 1024-byte-aligned "
                              f"destination, got {dst:#x}")
        if box_cols * 2 != 128:
            raise DeviceError("tma_load_2d: the simulator models 128-byte rows (box_cols = 64 halves)")
        box = np.zeros((box_rows, box_cols), np.float16)  # out-of-bounds elements read as zeros
        r0, r1 = max(c1, 0), min(c1 + box_rows, rows)
        k0, k1 = max(c0, 0), min(c0 + box_cols, cols)
        if r0 < r1 and k0 < k1:
            box[r0 - c1:r1 - c1, k0 - c0:k1 - c0] = src[r0:r1, k0:k1]
        raw = box.view(np.uint8).reshape(box_rows, 8, 16)
        root, off = _twins.resolve_shared(dst, box_rows * 128, "tma_load_2d")
        window = _twins.bytes_of(root)
        for r in range(box_rows):
            line = off + 128 * r
            for c in range(8):  # 16-byte chunk c of row r goes to slot c ^ (r % 8): Swizzle<3,4,3>
                slot = c ^ (((dst + 128 * r) >> 7) & 7)
                window[line + 16 * slot:line + 16 * slot + 16] = raw[r, c]
        with lock:
            b = _barrier(bar, "tma_load_2d")
            b[2] -= box_rows * 128
            _complete(b)

    def st_shared_u32(addr, value, off):
        addr = int(addr) + int(off)
        if addr % 4:
            raise DeviceError(f"st_shared_u32: shared address {addr:#x} is not 4-byte aligned")
        root, off = _twins.resolve_shared(addr, 4, "st_shared_u32")
        _twins.bytes_of(root)[off:off + 4] = np.array([int(value) & 0xFFFFFFFF], np.uint32).view(np.uint8)

    why = "the TMA store and its bulk groups have no CUDA-simulator twin (the simulator runs no kernel that " \
          "stores through TMA)"
    bulk = tuple(_twins.no_twin(n, why) for n in ("bar_sync_named", "tma_store_2d", "cp_async_bulk_commit_group",
                                                  "cp_async_bulk_wait_group_read", "cp_async_bulk_wait_group"))
    return (ld_global_v4, st_shared_v4, cp_async_cg_16_zfill, st_global_u32, st_global_v2_f32,
            cvt_rn_f16x2_f32, cvt_rn_bf16x2_f32, mbarrier_init, fence_mbarrier_init, mbarrier_arrive_expect_tx,
            mbarrier_arrive, mbarrier_try_wait, tma_load_2d, sim_tensor_map, (st_shared_u32, *bulk))


_impl = _sim_bindings() if _SIMULATED else _gpu_bindings()
(ld_global_v4, st_shared_v4, cp_async_cg_16_zfill, st_global_u32, st_global_v2_f32,
 cvt_rn_f16x2_f32, cvt_rn_bf16x2_f32, mbarrier_init, fence_mbarrier_init, mbarrier_arrive_expect_tx, mbarrier_arrive, mbarrier_try_wait,
            tma_load_2d,
 sim_tensor_map, (st_shared_u32, bar_sync_named, tma_store_2d,
                 cp_async_bulk_commit_group, cp_async_bulk_wait_group_read, cp_async_bulk_wait_group)) = _impl


from labkit.cuda.kernels.ladder.gemm_setmaxnreg import setmaxnreg_calls  # noqa: E402
