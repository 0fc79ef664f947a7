"""PTX instructions callable from ``numba.cuda`` kernels, with their minimum SM.

Each name below is one PTX instruction (or a fixed group of them). On a GPU it is a
numba ``@intrinsic`` that emits the instruction as inline PTX; under the numba CUDA
simulator (``NUMBA_ENABLE_CUDASIM=1``) the same name is a pure-Python twin, so one
kernel source runs on both. The binding is chosen once, at import, from
``numba.core.config.ENABLE_CUDASIM``.

Registers travel as ``uint32`` (two packed 16-bit values: element ``2i`` in the low
half, ``2i+1`` in the high half) and f32 accumulators as ``float32``.

==============================  ==========================================================  ======
name                            PTX                                                         min SM
==============================  ==========================================================  ======
smem_addr(array, index)         ``cvta.to.shared.u64`` of ``&array[index]``                 any
ldmatrix_x1/x2/x4(addr)         ``ldmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16``          75
ldmatrix_x1/x2/x4_trans(addr)   ``ldmatrix.sync.aligned.m8n8.x{1,2,4}.trans.shared.b16``    75
mma_m16n8k8_f16f16f16f16        ``mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16``        75
mma_m16n8k8_f32f16f16f32        ``mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32``        75
mma_m16n8k8_f32bf16bf16f32      ``mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32``      80
mma_m16n8k16_f16f16f16f16       ``mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16``       80
mma_m16n8k16_f32f16f16f32       ``mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32``       80
mma_m16n8k16_f32bf16bf16f32     ``mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32``     80
cp_async_16(dst, src, index)    ``cp.async.ca.shared.global [dst], [&src[index]], 16``      80
cp_async_cg_16(dst, src, index) ``cp.async.cg.shared.global [dst], [&src[index]], 16``      80
cp_async_commit_group()         ``cp.async.commit_group``                                   80
cp_async_wait_group(n)          ``cp.async.wait_group n`` (``n`` a literal integer)         80
cp_async_wait_all()             ``cp.async.wait_all``                                       80
==============================  ==========================================================  ======

Operand order follows PTX: ``mma_m16n8k16_f16f16f16f16(a0, a1, a2, a3, b0, b1, c0, c1)``
returns ``(d0, d1)``; the f32-accumulating forms take ``c0..c3`` and return four
``float32``; the m16n8k8 forms take ``a0, a1, b0``. ``ldmatrix_x1`` returns one
``uint32``, ``x2``/``x4`` return tuples. Minimum SMs are the PTX ISA's "Target ISA
notes" (ldmatrix: sm_75; mma m16n8k8 f16: sm_75; m16n8k16 and every bf16 form: sm_80;
cp.async: sm_80).

>>> from labkit.cuda import ptx
>>> ptx.INSTRUCTIONS["mma_m16n8k16_f16f16f16f16"].min_sm
80
>>> ptx.min_sm("ldmatrix_x4_trans"), ptx.min_sm(ptx.mma_m16n8k8_f32f16f16f32)
(75, 75)
>>> print(ptx.INSTRUCTIONS["ldmatrix_x2"].ptx)
ldmatrix.sync.aligned.m8n8.x2.shared.b16

Alignment: ldmatrix rows and cp.async addresses must be 16-byte aligned. numba aligns a
``cuda.shared.array`` only to its element size (2 bytes for uint16), so on a GPU declare
shared arrays with ``alignment=16`` (or more); the simulator rejects that argument and needs
none. ``smem_addr`` and ``cp_async_16`` take an integer index into a 1-D array or a tuple of
integers into an n-D array.

Inside a kernel (runs on a GPU, or on the CPU under ``NUMBA_ENABLE_CUDASIM=1``)::

    @lk.cuda.jit
    def kernel(out):
        s = cuda.shared.array(256, numba.uint16)
        ...
        cuda.syncthreads()
        a0, a1, a2, a3 = ptx.ldmatrix_x4(ptx.smem_addr(s, lane % 16 * 16 + lane // 16 * 8))
"""

from __future__ import annotations

from dataclasses import dataclass

from numba.core import config as _numba_config

__all__ = [
    "Instruction",
    "INSTRUCTIONS",
    "SIMULATED",
    "min_sm",
    "instruction_of",
    "smem_addr",
    "ldmatrix_x1",
    "ldmatrix_x2",
    "ldmatrix_x4",
    "ldmatrix_x1_trans",
    "ldmatrix_x2_trans",
    "ldmatrix_x4_trans",
    "mma_m16n8k8_f16f16f16f16",
    "mma_m16n8k8_f32f16f16f32",
    "mma_m16n8k8_f32bf16bf16f32",
    "mma_m16n8k16_f16f16f16f16",
    "mma_m16n8k16_f32f16f16f32",
    "mma_m16n8k16_f32bf16bf16f32",
    "cp_async_16",
    "cp_async_cg_16",
    "cp_async_commit_group",
    "cp_async_wait_group",
    "cp_async_wait_all",
]


@dataclass(frozen=True)
class Instruction:
    """One PTX instruction as labkit exposes it.

    ``name`` is the Python name, ``ptx`` the instruction text, ``min_sm`` the oldest
    architecture that runs it (``0``: any GPU numba supports), ``kind`` one of
    ``"address"``, ``"ldmatrix"``, ``"mma"``, ``"cp.async"``; for ``mma`` also the
    shape ``(m, n, k)``, the A/B element type and the accumulator type, for ``ldmatrix``
    the matrix count and whether it transposes.
    """

    name: str
    ptx: str
    min_sm: int
    kind: str
    shape: tuple = ()
    ab_type: str = ""
    acc_type: str = ""
    num: int = 0
    trans: bool = False

    @property
    def a_regs(self) -> int:
        """32-bit A registers per lane (mma only): m*k/64."""
        return self.shape[0] * self.shape[2] // 64 if self.kind == "mma" else 0

    @property
    def b_regs(self) -> int:
        """32-bit B registers per lane (mma only): n*k/64."""
        return self.shape[1] * self.shape[2] // 64 if self.kind == "mma" else 0

    @property
    def c_regs(self) -> int:
        """Accumulator registers per lane (mma only): 2 packed f16x2, or 4 f32."""
        if self.kind != "mma":
            return 0
        per_lane = self.shape[0] * self.shape[1] // 32
        return per_lane // 2 if self.acc_type == "f16" else per_lane


def _table() -> dict:
    out = {}

    def add(ins):
        out[ins.name] = ins

    add(Instruction("smem_addr", "cvta.to.shared.u64", 0, "address"))
    for num in (1, 2, 4):
        for trans in (False, True):
            name = f"ldmatrix_x{num}" + ("_trans" if trans else "")
            text = f"ldmatrix.sync.aligned.m8n8.x{num}" + (".trans" if trans else "") + ".shared.b16"
            add(Instruction(name, text, 75, "ldmatrix", num=num, trans=trans))
    for k in (8, 16):
        for acc, ab in (("f16", "f16"), ("f32", "f16"), ("f32", "bf16")):
            name = f"mma_m16n8k{k}_{acc}{ab}{ab}{acc}"
            text = f"mma.sync.aligned.m16n8k{k}.row.col.{acc}.{ab}.{ab}.{acc}"
            sm = 75 if (k == 8 and ab == "f16") else 80
            add(Instruction(name, text, sm, "mma", shape=(16, 8, k), ab_type=ab, acc_type=acc))
    add(Instruction("cp_async_16", "cp.async.ca.shared.global [dst], [src], 16", 80, "cp.async"))
    add(Instruction("cp_async_cg_16", "cp.async.cg.shared.global [dst], [src], 16", 80, "cp.async"))
    add(Instruction("cp_async_commit_group", "cp.async.commit_group", 80, "cp.async"))
    add(Instruction("cp_async_wait_group", "cp.async.wait_group n", 80, "cp.async"))
    add(Instruction("cp_async_wait_all", "cp.async.wait_all", 80, "cp.async"))
    return out


INSTRUCTIONS: dict = _table()
"""Every instruction by Python name (see the module table)."""

SIMULATED: bool = bool(_numba_config.ENABLE_CUDASIM)
"""True when numba's CUDA simulator is on, so the names below are Python twins."""

if SIMULATED:
    import sys as _sys

    from labkit.cuda import _twins as _impl

    # The simulator runs every CUDA thread as a Python thread and the twins meet at warp
    # barriers; at Python's default 5 ms switch interval a warp-collective instruction waits
    # for each of 32 threads in turn. A shorter interval makes simulated kernels 10-50x faster.
    if _sys.getswitchinterval() > 1e-4:
        _sys.setswitchinterval(1e-4)
else:
    from labkit.cuda import _intrinsics as _impl

smem_addr = _impl.smem_addr
ldmatrix_x1 = _impl.ldmatrix_x1
ldmatrix_x2 = _impl.ldmatrix_x2
ldmatrix_x4 = _impl.ldmatrix_x4
ldmatrix_x1_trans = _impl.ldmatrix_x1_trans
ldmatrix_x2_trans = _impl.ldmatrix_x2_trans
ldmatrix_x4_trans = _impl.ldmatrix_x4_trans
mma_m16n8k8_f16f16f16f16 = _impl.mma_m16n8k8_f16f16f16f16
mma_m16n8k8_f32f16f16f32 = _impl.mma_m16n8k8_f32f16f16f32
mma_m16n8k8_f32bf16bf16f32 = _impl.mma_m16n8k8_f32bf16bf16f32
mma_m16n8k16_f16f16f16f16 = _impl.mma_m16n8k16_f16f16f16f16
mma_m16n8k16_f32f16f16f32 = _impl.mma_m16n8k16_f32f16f16f32
mma_m16n8k16_f32bf16bf16f32 = _impl.mma_m16n8k16_f32bf16bf16f32
cp_async_16 = _impl.cp_async_16
cp_async_cg_16 = _impl.cp_async_cg_16
cp_async_commit_group = _impl.cp_async_commit_group
cp_async_wait_group = _impl.cp_async_wait_group
cp_async_wait_all = _impl.cp_async_wait_all

_BY_ID = {id(globals()[name]): INSTRUCTIONS[name] for name in INSTRUCTIONS}


def instruction_of(obj) -> Instruction | None:
    """The :class:`Instruction` that ``obj`` (one of this module's callables) issues, else None.

    >>> from labkit.cuda import ptx
    >>> ptx.instruction_of(ptx.cp_async_16).ptx
    'cp.async.ca.shared.global [dst], [src], 16'
    >>> ptx.instruction_of(len) is None
    True
    """
    return _BY_ID.get(id(obj))


def min_sm(instruction) -> int:
    """Minimum SM (e.g. ``80`` for sm_80) of an instruction, given by name or callable.

    >>> from labkit.cuda import ptx
    >>> ptx.min_sm("cp_async_wait_group")
    80
    """
    from labkit.errors import DeviceError

    if isinstance(instruction, str):
        if instruction not in INSTRUCTIONS:
            raise DeviceError(
                f"instruction must be one of labkit.cuda.ptx's names {sorted(INSTRUCTIONS)}; got {instruction!r}"
            )
        return INSTRUCTIONS[instruction].min_sm
    ins = instruction_of(instruction)
    if ins is None:
        raise DeviceError(f"instruction must be a labkit.cuda.ptx instruction or its name; got {instruction!r}")
    return ins.min_sm
