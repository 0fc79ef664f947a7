"""PTX instructions callable from ``numba.cuda`` kernels, with their minimum SM.

Each name below is one PTX instruction (or a fixed group of them), an entry of the instruction
registry (:mod:`labkit.atoms.instructions`), which holds its PTX text, shapes and minimum SM. On a GPU it is a
numba ``@intrinsic`` that emits the instruction as inline PTX; under the numba CUDA
simulator (``NUMBA_ENABLE_CUDASIM=1``) the same name is a pure-Python twin, so one
kernel source runs on both. The binding is chosen once, at import, from
:data:`labkit.cuda._numba.SIMULATED` (``NUMBA_ENABLE_CUDASIM``).

Registers travel as ``uint32`` (two packed 16-bit values: element ``2i`` in the low
half, ``2i+1`` in the high half) and f32 accumulators as ``float32``.

The names, one per registry entry (minimum SM in brackets):

- ``smem_addr(array, index)``: ``cvta.to.shared.u64`` of ``&array[index]`` (any);
- ``ldmatrix_x{1,2,4}[_trans](addr)``: ``ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16`` (75);
- ``stmatrix_x{1,2,4}[_trans](addr, r...)``: ``stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16`` (90);
- ``mma_m16n8k{K}_{d}{a}{b}{c}(a..., b..., c...)``: ``mma.sync.aligned.m16n8k{K}.row.col.{d}.{a}.{b}.{c}``
  (75 for m16n8k8 with f16 inputs, else 80);
- ``cp_async_16`` / ``cp_async_cg_16(dst, src, index)``: ``cp.async.{ca,cg}.shared.global [dst], [src], 16``;
  ``cp_async_commit_group()``, ``cp_async_wait_group(n)`` (``n`` a literal integer), ``cp_async_wait_all()`` (80).

- ``wgmma_m64n{N}k{K}_{d}{a}{b}_{ss|rs}(...)``: every ``wgmma.mma_async`` form of the registry's
  ``GMMA`` table (f16, bf16, tf32, e4m3, e5m2, s8, u8; ``sm_90a``), made when a kernel first names
  it, and the fences ``wgmma_fence()``, ``wgmma_commit_group()``, ``wgmma_wait_group(n)``,
  ``fence_proxy_async_shared_cta()``, with the helpers ``wgmma_zeros(n)``, ``wgmma_zeros_s32(n)``,
  ``wgmma_zeros_u32(n)`` and ``wgmma_fence_operand(acc)`` (see ``labkit.cuda._wgmma_intrinsics``);
  under the CUDA simulator each of them raises ``DeviceError`` when called (wgmma has no twin).

The mma forms are the registry's ``MMA`` table (``labkit.atoms.instructions.MMA``): f16/bf16
m16n8k8 and m16n8k16, tf32 m16n8k8, s8 m16n8k32. ``sorted(ptx.INSTRUCTIONS)`` lists every name.

Operand order follows PTX: ``mma_m16n8k16_f16f16f16f16(a0, a1, a2, a3, b0, b1, c0, c1)``
returns ``(d0, d1)``; the f32-accumulating forms take ``c0..c3`` and return four
``float32``, the s32 form four ``int32``; the m16n8k8 f16 forms take ``a0, a1, b0``. Register
counts are the entry's ``registers("A"/"B"/"C")``. ``ldmatrix_x1`` returns one
``uint32``, ``x2``/``x4`` return tuples; ``stmatrix_x4(addr, r0, r1, r2, r3)`` stores four
registers (one per matrix) and returns nothing. Minimum SMs are the PTX ISA's "Target ISA
notes" (ldmatrix: sm_75; mma m16n8k8 f16: sm_75; m16n8k16 and every bf16 form: sm_80;
cp.async: sm_80; stmatrix: sm_90).

>>> from labkit.cuda import ptx
>>> ptx.INSTRUCTIONS["mma_m16n8k16_f16f16f16f16"].min_sm
80
>>> ptx.min_sm("ldmatrix_x4_trans"), ptx.min_sm(ptx.mma_m16n8k8_f32f16f16f32), ptx.min_sm(ptx.stmatrix_x4)
(75, 75, 90)
>>> print(ptx.INSTRUCTIONS["ldmatrix_x2"].ptx)
ldmatrix.sync.aligned.m8n8.x2.shared.b16

Alignment: ldmatrix and stmatrix rows and cp.async addresses must be 16-byte aligned. numba aligns a
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

from labkit.atoms import instructions as _registry
from labkit.atoms.instructions import Instruction
from labkit.errors import InstructionError

__all__ = ["Instruction", "INSTRUCTIONS", "SIMULATED", "min_sm", "instruction_of"]


INSTRUCTIONS: dict = _registry.INSTRUCTIONS
"""Every instruction by Python name: the instruction registry (:mod:`labkit.atoms.instructions`)."""

from labkit.cuda._numba import SIMULATED  # noqa: E402  (the one constant; see labkit.cuda._numba)

if SIMULATED:
    import sys as _sys

    from labkit.cuda import _cudasim, _twins as _impl

    _cudasim.install()
    # The simulator runs every CUDA thread as a Python thread and the twins meet at warp
    # barriers; at Python's default 5 ms switch interval a warp-collective instruction waits
    # for each of 32 threads in turn. A shorter interval makes simulated kernels 10-50x faster.
    if _sys.getswitchinterval() > 1e-4:
        _sys.setswitchinterval(1e-4)
else:
    from labkit.cuda import _intrinsics as _impl

# One callable per registry entry, bound from the registry: a new entry needs no edit here. The
# wgmma entries (about 900: every CuTe GMMA atom) are bound on first use, by name.
from labkit.errors import DeviceError  # noqa: E402

WGMMA: dict = {**_registry.WGMMA_PTX, **_registry.GMMA}
"""Every wgmma name bound here: the warpgroup fences and the SS and RS ``mma_async`` forms."""

WGMMA_HELPERS = ("wgmma_zeros", "wgmma_zeros_s32", "wgmma_zeros_u32", "wgmma_fence_operand")


def _no_twin(name):
    def simulated(*args):
        raise DeviceError(f"{name} has no CUDA-simulator twin: wgmma runs only on an sm_90a GPU "
                          f"(Hopper: H100, H200)")

    simulated.__name__ = name
    return simulated


_BY_ID: dict = {}


def _bind(name):
    ins = INSTRUCTIONS.get(name)
    if SIMULATED and (name in WGMMA_HELPERS or (ins is not None and ins.name in WGMMA)):
        fn = _no_twin(name)
    else:
        fn = getattr(_impl, name)
    globals()[name] = fn
    if ins is not None:
        _BY_ID[id(fn)] = ins
    return fn


for _name in INSTRUCTIONS:
    if not _name.startswith("wgmma_m"):
        _bind(_name)
for _name in WGMMA_HELPERS:
    _bind(_name)
__all__ += [*INSTRUCTIONS, *WGMMA_HELPERS, "WGMMA"]


def __getattr__(name):
    if name in INSTRUCTIONS:
        return _bind(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def instruction_of(obj) -> Instruction | None:
    """The registry entry that ``obj`` (one of this module's callables) issues, else None.

    >>> from labkit.cuda import ptx
    >>> ptx.instruction_of(ptx.cp_async_16).ptx
    'cp.async.ca.shared.global [dst], [src], 16'
    >>> ptx.instruction_of(len) is None
    True
    >>> ptx.instruction_of(ptx.wgmma_m64n64k16_f32f16f16_ss).atoms
    ('SM90_64x64x16_F32F16F16_SS',)
    """
    return _BY_ID.get(id(obj))


def min_sm(instruction) -> int:
    """Minimum SM (e.g. ``80`` for sm_80) of an instruction, given by name or callable.

    >>> from labkit.cuda import ptx
    >>> ptx.min_sm("cp_async_wait_group"), ptx.min_sm("wgmma_m64n128k16_f32bf16bf16_ss")
    (80, 90)
    """
    if isinstance(instruction, str):
        return _registry.instruction(instruction).min_sm
    ins = instruction_of(instruction)
    if ins is None:
        raise InstructionError(f"instruction must be a labkit.cuda.ptx instruction or its name; got {instruction!r}")
    return ins.min_sm
