"""The epilogue's kernels: accumulators to shared memory (timed with ``clock64``), and a whole C
written out directly or staged through shared memory (timed with CUDA events).

``smem_kernel_source(store, n)``: every warp of one block stores a warp tile of packed f16
accumulator pairs into a 32 KB shared buffer with ``n`` warp instructions, either
``st.volatile.shared.b32`` (one register per lane and instruction) or ``stmatrix.x4`` (four
registers). Lane ``l`` of warp ``w`` takes its byte offsets from ``addr[w % 4, i, l]`` and its
registers from ``regs[w % 4, i, l, :]``; the host computes both (``labkit.lab.epilogue``), so one
kernel source serves every shared-memory layout. The kernel fills the buffer with ``0xFFFF``,
stores once, copies the buffer to ``out`` (what the stores left), then issues the same stores
``reps`` more times between two ``clock64`` reads, each behind a barrier. Warps ``w`` and
``w + 4`` store the same values at the same addresses, so the image does not depend on their order.

``global_kernel_source(kind)``: one block of 128 threads (2x2 warps of 64x64) per 128x128 tile of
a row-major ``uint16`` C. Each thread makes its accumulator pairs from their coordinates
(``value(m, n) = (131 m + n) mod 2**16``), then ``"direct"`` stores them to C with one 4-byte
``st.global.b32`` per pair, as the ladder's f16 path does; ``"staged_b32"`` and
``"staged_stmatrix"`` store them into a ``Swizzle<3,3,4>`` tile of 256-byte rows (with
``st.shared.b32`` or ``stmatrix.x4``), wait at a barrier, and copy the tile out row by row with
16-byte ``ld.shared.v4`` and ``st.global.v4`` (16 threads per row).

On a GPU the three instructions beside :mod:`labkit.cuda.ptx` below are numba intrinsics emitting
inline PTX; under ``NUMBA_ENABLE_CUDASIM=1`` they are Python twins on the simulator's shared
window, so both kernels run on a CPU too.

=====================================  =============================================  ======
name                                   PTX                                            min SM
=====================================  =============================================  ======
``st_shared_b32(addr, value)``         ``st.volatile.shared.b32 [addr], value``       any
``ld_shared_v4(addr)``                 ``ld.volatile.shared.v4.b32`` (four uint32)    any
``st_global_v4(dst, index, r0..r3)``   ``st.global.v4.b32`` at ``&dst[index]``        any
=====================================  =============================================  ======

>>> from labkit.cuda.kernels.experiments import exp_epilogue
>>> exp_epilogue.ASM["st_shared_b32"]
'st.volatile.shared.b32 [$0], $1;'
>>> exp_epilogue.SMEM_BYTES, exp_epilogue.CTA_TILE
(32768, (128, 128))
"""

from __future__ import annotations

import warnings

import numpy as np

from labkit.cuda import ptx
from labkit.cuda._numba import SIMULATED
from labkit.errors import DeviceError

__all__ = ["ASM", "SMEM_BYTES", "CTA_TILE", "WARP_TILE", "GLOBAL_KINDS", "STORES", "value",
           "smem_kernel_source", "run_smem", "global_kernel_source", "launch_global",
           "st_shared_b32", "ld_shared_v4", "st_global_v4"]

SMEM_BYTES = 32768
"""The shared buffer of both kernels: one 128x128 tile of halves."""
CTA_TILE = (128, 128)
WARP_TILE = (64, 64)
STORES = ("st.shared.b32", "stmatrix.x4")
GLOBAL_KINDS = ("direct", "staged_b32", "staged_stmatrix")

ASM = {
    "st_shared_b32": "st.volatile.shared.b32 [$0], $1;",
    "ld_shared_v4": "ld.volatile.shared.v4.b32 {$0, $1, $2, $3}, [$4];",
    "st_global_v4": "st.global.v4.b32 [$0], {$1, $2, $3, $4};",
}


def value(m, n):
    """The 16-bit pattern the global kernel stores at ``C[m, n]``: ``(131 m + n) mod 2**16``
    (two elements of one 128x128 tile never share it).

    >>> int(value(1, 2))
    133
    """
    return (np.asarray(m, np.int64) * 131 + np.asarray(n, np.int64)) & 0xFFFF


# ---------------------------------------------------------------------------------------------
# the three instructions

if SIMULATED:
    from labkit.cuda import _twins

    def st_shared_b32(addr, val):
        """Twin of ``st.volatile.shared.b32``."""
        a = int(addr)
        if a % 4:
            raise DeviceError(f"st.shared.b32: address {a:#x} is not 4-byte aligned")
        root, off = _twins.resolve_shared(a, 4, "st.shared.b32")
        _twins.bytes_of(root)[off:off + 4] = np.array([int(val) & 0xFFFFFFFF], np.uint32).view(np.uint8)

    def ld_shared_v4(addr):
        """Twin of ``ld.volatile.shared.v4.b32``."""
        a = int(addr)
        if a % 16:
            raise DeviceError(f"ld.shared.v4.b32: address {a:#x} is not 16-byte aligned")
        root, off = _twins.resolve_shared(a, 16, "ld.shared.v4.b32")
        return tuple(np.uint32(v) for v in _twins.bytes_of(root)[off:off + 16].copy().view(np.uint32))

    def st_global_v4(dst, index, r0, r1, r2, r3):
        """Twin of ``st.global.v4.b32`` (``dst`` a 1-D array, ``index`` an element index)."""
        arr = _twins.array_of(dst)
        off = _twins.element_offset(arr, index)
        ptr = arr.__array_interface__["data"][0] + off
        if ptr % 16:
            raise DeviceError(f"st.global.v4.b32: index {index!r} is not 16-byte aligned")
        root = _twins.root_of(arr)
        start = ptr - root.__array_interface__["data"][0]
        if start + 16 > root.nbytes:
            raise DeviceError(f"st.global.v4.b32: 16 bytes at index {index!r} run past the end of the array")
        words = np.array([int(r) & 0xFFFFFFFF for r in (r0, r1, r2, r3)], np.uint32)
        _twins.bytes_of(root)[start:start + 16] = words.view(np.uint8)

else:
    from labkit.cuda._numba import TypingError, cgutils_get_item_pointer, intrinsic, ir, types

    _i32, _i64 = ir.IntType(32), ir.IntType(64)

    @intrinsic
    def st_shared_b32(typingctx, addr, val):
        """``st.volatile.shared.b32``: 4 bytes at the 32-bit shared address ``addr``."""
        if not isinstance(addr, types.Integer) or not isinstance(val, types.Integer):
            raise TypingError("st_shared_b32: addr and value must be integers")
        sig = types.void(types.uint32, types.uint32)

        def codegen(context, builder, sig, args):
            asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), [_i32, _i32]), ASM["st_shared_b32"],
                               "r,r,~{memory}", side_effect=True)
            builder.call(asm, list(args))
            return context.get_dummy_value()

        return sig, codegen

    @intrinsic
    def ld_shared_v4(typingctx, addr):
        """``ld.volatile.shared.v4.b32``: 16 bytes at ``addr`` as four uint32."""
        if not isinstance(addr, types.Integer):
            raise TypingError("ld_shared_v4: addr must be an integer")
        sig = types.UniTuple(types.uint32, 4)(types.uint32)

        def codegen(context, builder, sig, args):
            fnty = ir.FunctionType(ir.LiteralStructType([_i32] * 4), [_i32])
            asm = ir.InlineAsm(fnty, ASM["ld_shared_v4"], "=r,=r,=r,=r,r,~{memory}", side_effect=True)
            res = builder.call(asm, list(args))
            return context.make_tuple(builder, sig.return_type, [builder.extract_value(res, i) for i in range(4)])

        return sig, codegen

    @intrinsic
    def st_global_v4(typingctx, dst, index, r0, r1, r2, r3):
        """``st.global.v4.b32``: four uint32 at ``&dst[index]`` (``dst`` 1-D, 16-byte aligned there)."""
        if not isinstance(dst, types.Array) or dst.ndim != 1 or not isinstance(index, types.Integer):
            raise TypingError("st_global_v4: dst must be a 1-D array and index an integer")
        sig = types.void(dst, index, types.uint32, types.uint32, types.uint32, types.uint32)

        def codegen(context, builder, sig, args):
            ary = context.make_array(sig.args[0])(context, builder, args[0])
            idx = context.cast(builder, args[1], sig.args[1], types.intp)
            ptr = cgutils_get_item_pointer(context, builder, sig.args[0], ary, [idx], wraparound=False)
            fnty = ir.FunctionType(ir.VoidType(), [_i64] + [_i32] * 4)
            asm = ir.InlineAsm(fnty, ASM["st_global_v4"], "l,r,r,r,r,~{memory}", side_effect=True)
            builder.call(asm, [builder.ptrtoint(ptr, _i64)] + list(args[2:]))
            return context.get_dummy_value()

        return sig, codegen


# ---------------------------------------------------------------------------------------------
# building and launching


_KERNELS: dict = {}


def _shared_decl(name, words):
    align = "" if SIMULATED else ", alignment=128"
    return f"    {name} = cuda.shared.array({words}, numba.uint32{align})"


def _build(key, source, name):
    if key not in _KERNELS:
        import numba
        from numba import cuda

        from labkit.cuda import probe

        from labkit.cuda.program import KernelProgram

        scope = {"cuda": cuda, "numba": numba, "ptx": ptx, "probe": probe, "st_shared_b32": st_shared_b32,
                 "ld_shared_v4": ld_shared_v4, "st_global_v4": st_global_v4}
        kernel = KernelProgram(name, source, scope, label=f"epilogue {key}").kernel()
        kernel.source = source
        _KERNELS[key] = kernel
    return _KERNELS[key]


def _launch(kernel, grid, block, *args):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module=r"numba")
        kernel[grid, block](*args)


def _store_lines(store, n, indent="    "):
    if store == "st.shared.b32":
        return [f"{indent}st_shared_b32(a{i}, r{i}_0)" for i in range(n)]
    return [f"{indent}ptx.stmatrix_x4(a{i}, r{i}_0, r{i}_1, r{i}_2, r{i}_3)" for i in range(n)]


def _check_store(store):
    if store not in STORES:
        raise DeviceError(f"store must be one of {STORES}; got {store!r}")
    return 1 if store == "st.shared.b32" else 4


def smem_kernel_source(store: str, n: int) -> str:
    """Python source of the shared-memory store kernel: ``n`` unrolled warp instructions of
    ``store`` (``"st.shared.b32"`` or ``"stmatrix.x4"``) per warp, stored once and then ``reps``
    times between two ``clock64`` reads.

    >>> src = smem_kernel_source("stmatrix.x4", 2)
    >>> src.count("ptx.stmatrix_x4(a1, r1_0, r1_1, r1_2, r1_3)"), src.count("probe.clock64()")
    (2, 2)
    """
    regs = _check_store(store)
    words = SMEM_BYTES // 4
    lines = [
        "def epilogue_smem_kernel(addr, regs, reps, out, cycles, bad):",
        _shared_decl("smem", words),
        "    tid = cuda.threadIdx.x",
        "    lane = tid % 32",
        "    w4 = (tid // 32) % 4",
        "    base = ptx.smem_addr(smem, 0)",
        "    if base % 128 != 0:",
        "        bad[0] = 1",
    ]
    for i in range(n):
        lines.append(f"    a{i} = numba.uint32(base + addr[w4, {i}, lane])")
        lines += [f"    r{i}_{j} = numba.uint32(regs[w4, {i}, lane, {j}])" for j in range(regs)]
    lines += [f"    for k in range(tid, {words}, cuda.blockDim.x):",
              "        smem[k] = numba.uint32(0xFFFFFFFF)",
              "    cuda.syncthreads()"]
    lines += _store_lines(store, n)
    lines += ["    cuda.syncthreads()",
              f"    for k in range(tid, {words}, cuda.blockDim.x):",
              "        out[k] = smem[k]",
              "    cuda.syncthreads()",
              "    t0 = probe.clock64()",
              "    for _ in range(reps):"]
    lines += _store_lines(store, n, "        ")
    lines += ["    cuda.syncthreads()",
              "    t1 = probe.clock64()",
              "    if tid == 0:",
              "        cycles[0] = t1 - t0"]
    return "\n".join(lines) + "\n"


def run_smem(store: str, addr, regs, warps: int = 4, reps: int = 0, launches: int = 1) -> dict:
    """Launch the store kernel once per ``launches`` on one block of ``warps`` warps (a multiple
    of 4, at most 32): ``addr (4, n, 32)`` byte offsets into the 32 KB buffer, ``regs (4, n, 32, k)``
    uint32 registers (``k`` = 1 for ``st.shared.b32``, 4 for ``stmatrix.x4``). Returns
    ``{"smem": (16384,) uint16`` image after one round of stores, ``"cycles"``: one clock64 count
    per launch, ``"kernel_source"``}."""
    k = _check_store(store)
    a = np.asarray(addr)
    r = np.asarray(regs)
    if a.ndim != 3 or a.shape[0] != 4 or a.shape[2] != 32 or a.dtype.kind not in "iu":
        raise DeviceError(f"addr must be integer byte offsets of shape (4, n, 32); got {a.dtype} {a.shape}")
    n = a.shape[1]
    if r.shape != (4, n, 32, k) or r.dtype != np.uint32:
        raise DeviceError(f"regs must be uint32 of shape {(4, n, 32, k)}; got {r.dtype} {r.shape}")
    width = 4 if k == 1 else 16
    if (a % width).any() or (a < 0).any() or (a + width > SMEM_BYTES).any():
        raise DeviceError(f"addr: every offset must be a multiple of {width} bytes inside the {SMEM_BYTES}-byte buffer")
    for name, v, lo, hi in (("warps", warps, 4, 32), ("reps", reps, 0, 1 << 20), ("launches", launches, 1, 100)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
            raise DeviceError(f"{name} must be an integer in [{lo}, {hi}]; got {v!r}")
    if warps % 4:
        raise DeviceError(f"warps must be a multiple of 4 (each group of 4 stores one tile); got {warps}")
    source = smem_kernel_source(store, n)
    kernel = _build(("smem", store, n, SIMULATED), source, "epilogue_smem_kernel")
    kernel.check()
    from numba import cuda

    d_addr = cuda.to_device(np.ascontiguousarray(a, np.int32))
    d_regs = cuda.to_device(np.ascontiguousarray(r))
    out = cuda.to_device(np.zeros(SMEM_BYTES // 4, np.uint32))
    cycles = cuda.to_device(np.zeros(1, np.uint64))
    bad = cuda.to_device(np.zeros(1, np.int32))
    counts = []
    for _ in range(launches):
        _launch(kernel, 1, 32 * warps, d_addr, d_regs, np.int32(reps), out, cycles, bad)
        counts.append(int(cycles.copy_to_host()[0]))
    if bad.copy_to_host()[0]:
        raise DeviceError("run_smem: the shared buffer was not 128-byte aligned on this device")
    return {"smem": out.copy_to_host().view(np.uint16), "cycles": counts, "kernel_source": source}


# ---------------------------------------------------------------------------------------------
# the whole C, out to global memory


def _check_kind(kind):
    if kind not in GLOBAL_KINDS:
        raise DeviceError(f"kind must be one of {GLOBAL_KINDS}; got {kind!r}")
    return kind


def global_kernel_source(kind: str) -> str:
    """Python source of the kernel that writes a whole C, ``kind`` one of :data:`GLOBAL_KINDS`.

    >>> src = global_kernel_source("staged_stmatrix")
    >>> src.count("ptx.stmatrix_x4("), src.count("st_global_v4(")
    (16, 1)
    """
    _check_kind(kind)
    lines = [
        "def epilogue_global_kernel(C32, C16, n_cols):",
        _shared_decl("smem", SMEM_BYTES // 4),
        "    tid = cuda.threadIdx.x",
        "    lane = tid % 32",
        "    w = tid // 32",
        "    m0 = cuda.blockIdx.y * 128 + (w % 2) * 64 + lane // 4",     # warps (2,2):(1,2), as CuTe
        "    n0 = cuda.blockIdx.x * 128 + (w // 2) * 64 + 2 * (lane % 4)",
        "    base = ptx.smem_addr(smem, 0)",
        "    lm0 = (w % 2) * 64 + lane // 4",
        "    ln0 = (w // 2) * 64 + 2 * (lane % 4)",
    ]
    # each thread's accumulator pair (mi, ni, h): rows m0 + 16 mi + 8 h, columns n0 + 8 ni, +1
    def pair(mi, ni, h):
        m = f"(m0 + {16 * mi + 8 * h})"
        n = f"(n0 + {8 * ni})"
        return f"numba.uint32(((131 * {m} + {n}) & 0xFFFF) | (((131 * {m} + {n} + 1) & 0xFFFF) << 16))"

    def swz(m, n):    # Swizzle<3,3,4> of the row-major offset m * 128 + n, in bytes
        return f"2 * ((({m}) * 128 + ({n})) ^ (((({m}) % 8)) << 3))"

    if kind == "direct":
        for mi in range(4):
            for ni in range(8):
                for h in range(2):
                    at = f"((m0 + {16 * mi + 8 * h}) * n_cols + n0 + {8 * ni}) // 2"
                    lines.append(f"    C32[{at}] = {pair(mi, ni, h)}")
        return "\n".join(lines) + "\n"
    if kind == "staged_b32":
        for mi in range(4):
            for ni in range(8):
                for h in range(2):
                    addr = swz(f"lm0 + {16 * mi + 8 * h}", f"ln0 + {8 * ni}")
                    lines.append(f"    st_shared_b32(numba.uint32(base + {addr}), {pair(mi, ni, h)})")
    else:
        # lane l gives the row address of row l % 16, columns 8 * (l // 16) of each 16x16 block
        lines += ["    lr = (w % 2) * 64 + lane % 16",
                  "    lc = (w // 2) * 64 + 8 * (lane // 16)"]
        for mi in range(4):
            for nj in range(4):
                addr = swz(f"lr + {16 * mi}", f"lc + {16 * nj}")
                regs = ", ".join(pair(mi, 2 * nj + i // 2, i % 2) for i in range(4))
                lines.append(f"    ptx.stmatrix_x4(numba.uint32(base + {addr}), {regs})")
    lines += [
        "    cuda.syncthreads()",
        "    row = tid // 16",
        "    chunk = tid % 16",
        "    for p in range(16):",
        "        r = 8 * p + row",
        f"        v0, v1, v2, v3 = ld_shared_v4(numba.uint32(base + {swz('r', '8 * chunk')}))",
        "        at = (cuda.blockIdx.y * 128 + r) * n_cols + cuda.blockIdx.x * 128 + 8 * chunk",
        "        st_global_v4(C16, at, v0, v1, v2, v3)",
    ]
    return "\n".join(lines) + "\n"


def launch_global(kind: str, C32, C16, shape):
    """Check the arguments and return ``run()``, which launches the ``kind`` kernel once over C:
    ``C32`` and ``C16`` are one device buffer of ``shape = (M, N)`` halves seen as uint32 and as
    uint16 (``M``, ``N`` multiples of 128)."""
    _check_kind(kind)
    m, n = shape
    if m % 128 or n % 128 or m <= 0 or n <= 0:
        raise DeviceError(f"shape must be positive multiples of 128 (whole 128x128 tiles); got {shape!r}")
    if C16.shape != (m * n,) or C16.dtype != np.uint16 or C32.shape != (m * n // 2,) or C32.dtype != np.uint32:
        raise DeviceError("C32 and C16 must be the (M*N/2,) uint32 and (M*N,) uint16 views of one buffer")
    src = global_kernel_source(kind)
    kernel = _build(("global", kind, SIMULATED), src, "epilogue_global_kernel")
    kernel.check()
    grid = (n // 128, m // 128)

    def run():
        _launch(kernel, grid, 128, C32, C16, np.int32(n))

    return run
