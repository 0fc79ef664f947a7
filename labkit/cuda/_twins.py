"""The simulator binding of :mod:`labkit.cuda.ptx`: pure-Python twins of each PTX instruction.

Under ``NUMBA_ENABLE_CUDASIM=1`` numba runs every CUDA thread of a block as a Python
thread. A warp-collective instruction (ldmatrix, mma.sync) is then a rendezvous of the
warp's lanes: each lane deposits its operands, the last lane to arrive computes every
lane's result from the PTX ISA's fragment rules, and all lanes continue with their own
part (the simulator has no shuffles, so the exchange goes through this shared slot and a
warp barrier; a collective store, stmatrix, has the last lane write every lane's registers to
shared memory). As in PTX (``.sync.aligned``), every lane of the warp must execute the
same instruction; a mismatch raises :class:`labkit.errors.DeviceError`. One twin is made per
entry of the instruction registry (:mod:`labkit.atoms.instructions`); the fragment rules are the
PTX ISA's, written here for the warp rendezvous.

Shared addresses are 32-bit numbers in a simulated shared window: :func:`smem_addr`
gives each shared array a base, and the instructions map addresses back to bytes.
cp.async copies are queued per thread and land when ``cp_async_wait_group`` /
``cp_async_wait_all`` retires their group, as the PTX memory model allows at the latest.

Arithmetic of ``mma``: products and sums in float64, then one round-to-nearest-even to
the accumulator type (f16 or f32; s32 sums are exact and wrap). Hardware tensor cores may differ
from this in the last bits when the terms span a wide range of exponents.

Other simulator bindings (``labkit.cuda.kernels.ladder.gemm_ptx``) reach the simulated shared window
through the public helpers below: :func:`array_of`, :func:`element_offset`, :func:`root_of`,
:func:`bytes_of`, :func:`resolve_shared` and :func:`cp_async_queue`; an instruction with no twin
binds :func:`no_twin`, which refuses by name.

The twins also run outside a simulated kernel on a single "warp" of one thread only for
``smem_addr``; collective ones need the simulator.

>>> import numpy as np
>>> from labkit.cuda import _twins
>>> s = np.zeros(64, np.uint16)
>>> a = _twins.smem_addr(s, 8)
>>> a % 16, _twins.read_shared(a, 4).tolist()
(0, [0, 0, 0, 0])
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from labkit.atoms import WARP
from labkit.elements import (element, from_bits, pack_registers, register_kind, to_bits,
                                   unpack_registers, wrap)
from labkit.atoms.instructions import (CP_ASYNC, LDMATRIX, MMA, STMATRIX, matrix_element,
                                       matrix_row_lane)
from labkit.cuda import _numba
from labkit.errors import DeviceError


# ---------------------------------------------------------------------------------------------
# the simulated shared window


class _Region:
    """A simulated shared array: its window base, size, and every live view of its memory.

    The simulator may hand each thread its own numpy view of one block's shared memory; the
    region remembers all of them (weakly), so it stays resolvable while any thread still runs.
    """

    __slots__ = ("base", "nbytes", "refs", "ptr")

    def __init__(self, base, nbytes, root, ptr):
        self.base = base
        self.nbytes = nbytes
        self.refs = [weakref.ref(root)]
        self.ptr = ptr

    def ref(self):
        for r in self.refs:
            root = r()
            if root is not None:
                return root
        return None

    def add(self, root):
        self.refs = [r for r in self.refs if r() is not None]
        if not any(r() is root for r in self.refs):
            self.refs.append(weakref.ref(root))


_regions: list = []
_regions_lock = threading.Lock()
_next_base = [0x400]
_ALIGN = 0x400


def _root_array(arr: np.ndarray) -> np.ndarray:
    root = arr
    while isinstance(root.base, np.ndarray):
        root = root.base
    return root


def _unwrap(arr):
    """The numpy array behind a simulator array wrapper (kernel arguments are wrapped)."""
    arr = _numba.simulator_array(arr)
    if not isinstance(arr, np.ndarray):
        raise DeviceError(f"expected an array (shared or global); got {type(arr).__name__}")
    return arr


def _region_of_array(arr: np.ndarray) -> _Region:
    root = _root_array(arr)
    ptr = root.__array_interface__["data"][0]
    with _regions_lock:
        for r in _regions:
            if r.ptr <= ptr < r.ptr + r.nbytes and r.ref() is not None:
                r.add(root)
                return r
        _regions[:] = [r for r in _regions if r.ref() is not None]
        if not _regions:
            _next_base[0] = _ALIGN
        base = _next_base[0]
        size = max(int(root.nbytes), 1)
        _next_base[0] = base + (size + _ALIGN - 1) // _ALIGN * _ALIGN + _ALIGN
        if _next_base[0] >= 1 << 31:
            _next_base[0] = _ALIGN
        region = _Region(base, size, root, ptr)
        _regions.append(region)
        return region


def _flat_index(arr: np.ndarray, index) -> int:
    if isinstance(index, tuple):
        if len(index) != arr.ndim:
            raise DeviceError(f"index must have {arr.ndim} integers for a {arr.ndim}-D array; got {index!r}")
        idx = [int(i) for i in index]
    else:
        if arr.ndim != 1:
            raise DeviceError(f"an integer index needs a 1-D array; got a {arr.ndim}-D array")
        idx = [int(index)]
    for i, (v, n) in enumerate(zip(idx, arr.shape)):
        if not 0 <= v < n:
            raise DeviceError(f"index {v} on axis {i} is out of bounds for an array of shape {arr.shape}")
    return int(sum(v * s for v, s in zip(idx, arr.strides)))


def smem_addr(array, index):
    """Shared address of ``array[index]`` in the simulated shared window."""
    arr = _unwrap(array)
    byte_off = _flat_index(arr, index)
    region = _region_of_array(arr)
    ptr = arr.__array_interface__["data"][0] + byte_off
    return region.base + (ptr - region.ptr)


def _resolve(addr, nbytes, what):
    addr = int(addr)
    for r in list(_regions):
        if r.base <= addr < r.base + r.nbytes:
            root = r.ref()
            if root is None:
                break
            off = addr - r.base
            if off + nbytes > r.nbytes:
                raise DeviceError(f"{what}: {nbytes} bytes at shared address {addr:#x} run past the end of its array")
            return root, off
    raise DeviceError(f"{what}: {addr:#x} is not a shared address from smem_addr")


def _bytes_of(root: np.ndarray) -> np.ndarray:
    if not root.flags.c_contiguous:
        raise DeviceError("shared arrays must be contiguous")
    return root.reshape(-1).view(np.uint8)


def read_shared(addr, count):
    """``count`` 16-bit values at a simulated shared address (a debugging aid)."""
    root, off = _resolve(addr, 2 * count, "read_shared")
    return _bytes_of(root)[off:off + 2 * count].view(np.uint16).copy()


# ---------------------------------------------------------------------------------------------
# warp rendezvous


class _Exchange:
    def __init__(self, size):
        self.size = size
        self.cv = threading.Condition()
        self.values = [None] * size
        self.count = 0
        self.gen = 0
        self.result = None
        self.error = None


_exchanges: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_exchanges_lock = threading.Lock()


def _thread_place():
    """(thread, block key, warp index, lane, lanes in this warp) of the calling simulated thread."""
    place = _numba.simulator_thread()
    if place is None:
        raise DeviceError("warp-collective PTX twins run only inside a kernel under the CUDA simulator")
    t, block, tid, nthreads = place
    warp, lane = divmod(tid, WARP)
    size = min(WARP, nthreads - warp * WARP)
    return t, block, warp, lane, size


def _collective(op, operands, compute):
    """Deposit ``operands`` for ``op``; return this lane's part of ``compute(all lanes' operands)``."""
    t, manager, warp, lane, size = _thread_place()
    if size != WARP:
        raise DeviceError(f"{op} needs a full warp of 32 threads; warp {warp} of this block has {size}")
    with _exchanges_lock:
        per_block = _exchanges.setdefault(manager, {})
        ex = per_block.get(warp)
        if ex is None:
            ex = per_block[warp] = _Exchange(size)
    with ex.cv:
        gen = ex.gen
        ex.values[lane] = (op, operands)
        ex.count += 1
        if ex.count == ex.size:
            ops = {v[0] for v in ex.values}
            try:
                if len(ops) != 1:
                    raise DeviceError(f"the lanes of warp {warp} executed different instructions together: {sorted(ops)}")
                ex.result = compute([v[1] for v in ex.values])
                ex.error = None
            except Exception as e:  # every lane re-raises it
                ex.result, ex.error = None, e
            ex.count = 0
            ex.gen += 1
            ex.cv.notify_all()
        else:
            while ex.gen == gen:
                ex.cv.wait(0.05)
                if _numba.simulator_aborted(t):
                    raise RuntimeError("simulated block aborted")
        if ex.error is not None:
            raise ex.error
        return ex.result[lane]


# ---------------------------------------------------------------------------------------------
# ldmatrix: PTX ISA, "Warp-level matrix load instruction: ldmatrix".
# Lanes 8i..8i+7 give the row addresses of matrix i (only the first 8*num lanes count).
# Without .trans, lane t receives row t//4, columns 2*(t%4) and 2*(t%4)+1 of each matrix;
# with .trans, column t//4 of rows 2*(t%4) and 2*(t%4)+1.


def _ldmatrix(ins, addr):
    num, trans = ins.num, ins.trans
    name = f"ldmatrix.x{num}" + (".trans" if trans else "")

    def compute(addrs):
        rows = []
        for lane in range(8 * num):
            a = int(addrs[lane])
            if a % 16:
                raise DeviceError(f"{name}: lane {lane} gave row address {a:#x}, which is not 16-byte aligned")
            root, off = _resolve(a, 16, name)
            rows.append(_bytes_of(root)[off:off + 16].view(np.uint16).copy())
        out = []
        for t in range(WARP):
            regs = []
            for i in range(num):
                halves = []
                for h in (0, 1):                      # the registry's lane rule (PTX ISA)
                    r, c = matrix_element(t, h, trans)
                    halves.append(int(rows[matrix_row_lane(i, r)][c]))
                regs.append(np.uint32(halves[0] | (halves[1] << 16)))
            out.append(regs[0] if num == 1 else tuple(regs))
        return out

    return _collective(name, int(addr), compute)


def _bind(table, run, where=lambda ins: True):
    """One module-level twin per entry of the registry ``table``: ``twin(*args) = run(entry, args)``."""
    for ins in table.values():
        if where(ins):
            def twin(*args, ins=ins):
                return run(ins, args)

            twin.__name__ = twin.__qualname__ = ins.name
            twin.__doc__ = f"Twin of ``{ins.ptx}``."
            globals()[ins.name] = twin


_bind(LDMATRIX, lambda ins, args: _ldmatrix(ins, *args))


# ---------------------------------------------------------------------------------------------
# stmatrix: PTX ISA, "Warp-level matrix store instruction: stmatrix" (ldmatrix's reverse).
# Lanes 8i..8i+7 give the row addresses of matrix i (only the first 8*num lanes count); source
# register i of every lane holds a piece of matrix i. Without .trans lane t stores row t//4,
# columns 2*(t%4) (low half) and 2*(t%4)+1 (high half); with .trans (column-major) its low and
# high halves go to column t//4 of rows 2*(t%4) and 2*(t%4)+1.


def _stmatrix(ins, args):
    num, trans = ins.num, ins.trans
    name = f"stmatrix.x{num}" + (".trans" if trans else "")
    if len(args) != num + 1:
        raise DeviceError(f"{name} takes the row address and {num} register(s); got {len(args)} argument(s)")
    addr = int(args[0])
    regs = tuple(int(r) & 0xFFFFFFFF for r in args[1:])

    def compute(lanes):
        rows = []
        for lane in range(8 * num):
            a = int(lanes[lane][0])
            if a % 16:
                raise DeviceError(f"{name}: lane {lane} gave row address {a:#x}, which is not 16-byte aligned")
            rows.append(_resolve(a, 16, name))
        data = np.zeros((num, 8, 8), np.uint16)             # (matrix, row, column) as stored
        for t in range(WARP):
            for i in range(num):
                r = lanes[t][1][i]
                for h, half in enumerate((r & 0xFFFF, r >> 16)):
                    data[(i, *matrix_element(t, h, trans))] = half
        for i in range(num):
            for r in range(8):
                root, off = rows[matrix_row_lane(i, r)]
                _bytes_of(root)[off:off + 16] = data[i, r].view(np.uint8)
        return [None] * WARP

    _collective(name, (addr, regs), compute)


_bind(STMATRIX, _stmatrix)


# ---------------------------------------------------------------------------------------------
# mma.sync: which lane holds which element is the registry entry's CuTe TV layout
# (MmaInstruction.coords); element coding and packing are labkit.elements'. The twin is thus
# the CuTe model run as an instruction; labkit.sim (the PTX ISA's fragment tables) is the other.


def _c_in(kind, x):
    """Bits of one C register as a kernel passes it (float32, int32 or packed uint32)."""
    if kind == "f32":
        return int(np.array(x, np.float32).view(np.uint32))
    return int(x) & 0xFFFFFFFF


def _c_out(kind, bits):
    b = np.uint32(bits)
    if kind == "f32":
        return b.view(np.float32)
    if kind == "s32":
        return b.view(np.int32)
    return b


def _place(ins, op, regs):
    """The matrix of operand ``op`` from every lane's registers ``regs (32, n)``."""
    ty = ins.element_type(op)
    vals = from_bits(unpack_registers(np.asarray(regs, np.uint32), ty), ty)
    xy = ins.coords(op)
    out = np.zeros(ins.matrix_shape(op))
    out[xy[..., 0], xy[..., 1]] = vals
    return out


def _mma(ins, args):
    na, nb, nc = ins.registers("A"), ins.registers("B"), ins.registers("C")
    acc = ins.acc_type
    kind = register_kind(acc)
    name = ins.ptx
    if len(args) != na + nb + nc:
        raise DeviceError(f"{name} takes {na + nb + nc} registers; got {len(args)}")
    a = [int(x) & 0xFFFFFFFF for x in args[:na]]
    b = [int(x) & 0xFFFFFFFF for x in args[na:na + nb]]
    c = [_c_in(kind, x) for x in args[na + nb:]]

    def compute(lanes):
        A = _place(ins, "A", [lane[0] for lane in lanes])
        B = _place(ins, "B", [lane[1] for lane in lanes])
        C = _place(ins, "C", [lane[2] for lane in lanes])
        D = A @ B.T + C                                   # B is (n, k), CuTe's order
        xy = ins.coords("C")
        d = D[xy[..., 0], xy[..., 1]]
        bits = to_bits(d, acc) if element(acc).kind == "float" else wrap(d, acc)
        regs = pack_registers(bits, acc)
        return [tuple(_c_out(kind, r) for r in regs[lane]) for lane in range(WARP)]

    return _collective(name, (a, b, c), compute)


_bind(MMA, _mma)


# ---------------------------------------------------------------------------------------------
# cp.async: copies queue per thread; commit_group closes a group; wait_group(n) lands all but
# the n most recent committed groups.


def _queue():
    t = threading.current_thread()
    q = t.__dict__.get("_labkit_cp_async")
    if q is None:
        q = t.__dict__["_labkit_cp_async"] = {"open": [], "groups": []}
    return q


def _cp_async(level, dst, src, index):
    name = f"cp.async.{level}"
    dst = int(dst)
    if dst % 16:
        raise DeviceError(f"{name}: destination shared address {dst:#x} is not 16-byte aligned")
    arr = _unwrap(src)
    off = _flat_index(arr, index)
    ptr = arr.__array_interface__["data"][0] + off
    if ptr % 16:
        raise DeviceError(f"{name}: source element address is not 16-byte aligned (index {index!r})")
    root = _root_array(arr)
    rptr = root.__array_interface__["data"][0]
    if not root.flags.c_contiguous or ptr - rptr + 16 > root.nbytes:
        raise DeviceError(f"{name}: 16 bytes at index {index!r} run past the end of the source array")
    droot, doff = _resolve(dst, 16, name)
    _queue()["open"].append((root, ptr - rptr, droot, doff))


def _land(copies):
    for root, soff, droot, doff in copies:
        _bytes_of(droot)[doff:doff + 16] = _bytes_of(root)[soff:soff + 16]


_bind(CP_ASYNC, lambda ins, args: _cp_async(ins.level, *args), where=lambda ins: ins.level)


def cp_async_commit_group():
    q = _queue()
    q["groups"].append(q["open"])
    q["open"] = []


def cp_async_wait_group(n):
    n = int(n)
    if n < 0:
        raise DeviceError(f"cp_async_wait_group: n must be >= 0; got {n}")
    q = _queue()
    keep = len(q["groups"]) - n
    for group in q["groups"][:max(keep, 0)]:
        _land(group)
    q["groups"] = q["groups"][max(keep, 0):]


def cp_async_wait_all():
    cp_async_commit_group()
    cp_async_wait_group(0)


# ---------------------------------------------------------------------------------------------
# the simulated shared window, for other simulator bindings (labkit.cuda.kernels.ladder.gemm_ptx)

array_of = _unwrap
"""The numpy array behind a simulator array (a kernel argument or a shared array)."""
element_offset = _flat_index
"""Byte offset of ``arr[index]`` (an int for 1-D arrays, else a tuple), bounds checked."""
root_of = _root_array
"""The array owning the memory of a view."""
bytes_of = _bytes_of
"""The bytes of a contiguous array, as a uint8 view."""
resolve_shared = _resolve
"""``(root array, byte offset)`` of a simulated shared address holding ``nbytes``."""
cp_async_queue = _queue
"""The calling thread's cp.async queue: ``{"open": [...], "groups": [[...], ...]}``."""


def no_twin(name, why):
    """The simulator binding of an instruction that has no twin: it raises a DeviceError naming
    ``name`` and ``why`` (what the simulator cannot run)."""
    def twin(*args):
        raise DeviceError(f"{name}: {why}")

    twin.__name__ = name
    return twin
