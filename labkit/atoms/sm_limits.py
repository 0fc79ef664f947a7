"""What one streaming multiprocessor holds, per SM version: the one table of per-SM limits.

The figures are the CUDA C++ Programming Guide's "Technical Specifications per Compute
Capability" and the allocation rules of CUDA's occupancy calculator (``cuda_occupancy.h``):
registers are handed out per warp in units of 256 from each of the multiprocessor's four
sub-partitions (a quarter of the register file each: a warp's registers never straddle two),
shared memory in units of 128 bytes (256 on sm_7x), and from sm_80 on every CTA also takes 1 KB
of shared memory that the system reserves. ``tests/test_sm_limits.py`` compiles
``cuda_occupancy.h`` with g++ and compares :func:`occupancy` with
``cudaOccMaxActiveBlocksPerMultiprocessor`` on thousands of cases.

>>> SM_LIMITS[80].smem_per_sm, SM_LIMITS[90].smem_per_sm          # an A100 and an H100/H200
(167936, 233472)
>>> occupancy(regs=254, threads=128, smem=98304, sm=90)            # two 96 KB CTAs on Hopper
2
>>> occupancy(regs=254, threads=128, smem=98304, sm=80)            # one on an A100
1
"""

from __future__ import annotations

from dataclasses import dataclass

from labkit.errors import DeviceError

__all__ = ["SmLimits", "SM_LIMITS", "sm_limits", "occupancy"]

KB = 1024


@dataclass(frozen=True)
class SmLimits:
    """The resources of one multiprocessor of SM version ``sm`` (75 for sm_75, ...)."""

    sm: int
    regs_per_sm: int               # 32-bit registers
    regs_per_thread: int           # the most one thread may use
    smem_per_sm: int               # bytes of shared memory a multiprocessor has
    smem_per_block: int            # the most one CTA may use (opt-in beyond 48 KB)
    smem_reserved_per_block: int   # bytes the system takes from every CTA
    smem_granularity: int          # shared memory is allocated in units of this many bytes
    reg_granularity: int           # registers per warp are allocated in units of this many
    threads_per_sm: int
    threads_per_block: int
    ctas_per_sm: int               # resident CTAs a multiprocessor holds at most
    sub_partitions: int = 4        # register-file quarters (one warp scheduler each)

    @property
    def warps_per_sm(self) -> int:
        return self.threads_per_sm // 32


def _limits(sm, smem_per_sm_kb, smem_per_block_kb, threads_per_sm, ctas_per_sm):
    reserved = KB if sm >= 80 else 0
    return SmLimits(sm=sm, regs_per_sm=64 * KB, regs_per_thread=255,
                    smem_per_sm=smem_per_sm_kb * KB, smem_per_block=smem_per_block_kb * KB,
                    smem_reserved_per_block=reserved, smem_granularity=128 if sm >= 80 else 256,
                    reg_granularity=256, threads_per_sm=threads_per_sm, threads_per_block=1024,
                    ctas_per_sm=ctas_per_sm)


SM_LIMITS: dict[int, SmLimits] = {s.sm: s for s in (
    _limits(75, 64, 64, 1024, 16),      # Turing (T4)
    _limits(80, 164, 163, 2048, 32),    # A100
    _limits(86, 100, 99, 1536, 16),     # GA10x (RTX 30xx, A10, A40)
    _limits(89, 100, 99, 1536, 24),     # Ada (L4, L40, RTX 40xx)
    _limits(90, 228, 227, 2048, 32),    # Hopper (H100, H200)
)}


def sm_limits(sm: int) -> SmLimits:
    """The limits of SM version ``sm``; a :class:`DeviceError` names the versions known."""
    try:
        return SM_LIMITS[int(sm)]
    except (KeyError, TypeError, ValueError):
        known = ", ".join(f"sm_{s}" for s in SM_LIMITS)
        raise DeviceError(f"sm: no per-SM limits for {sm!r}; labkit knows {known}") from None


def _round_up(x: int, unit: int) -> int:
    return -(-x // unit) * unit


def occupancy(regs: int, threads: int, smem: int, sm: int) -> int:
    """CTAs one multiprocessor of ``sm`` holds: the least that registers, shared memory,
    threads and the CTA limit allow (``cudaOccMaxActiveBlocksPerMultiprocessor``'s rule).

    ``regs`` is registers per thread, ``threads`` per CTA, ``smem`` bytes of shared memory
    per CTA (static + dynamic). A CTA that cannot fit at all raises a :class:`DeviceError`.
    """
    lim = sm_limits(sm)
    for name, value in (("regs", regs), ("threads", threads), ("smem", smem)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise DeviceError(f"{name}: expected a non-negative int, got {value!r}")
    if threads < 1 or threads > lim.threads_per_block:
        raise DeviceError(f"threads: a CTA has 1..{lim.threads_per_block} threads on sm_{sm}, got {threads}")
    if regs > lim.regs_per_thread:
        raise DeviceError(f"regs: sm_{sm} gives a thread at most {lim.regs_per_thread} registers, got {regs}")
    if smem > lim.smem_per_block:
        raise DeviceError(f"smem: sm_{sm} gives a CTA at most {lim.smem_per_block} bytes, got {smem}")
    warps = -(-threads // 32)
    regs_per_warp = _round_up(regs * 32, lim.reg_granularity)
    if regs_per_warp * _round_up(warps, lim.sub_partitions) > lim.regs_per_sm:
        raise DeviceError(f"regs: {threads} threads of {regs} registers need more than the "
                          f"{lim.regs_per_sm} registers a CTA may hold on sm_{sm}")
    if regs_per_warp:
        warps_per_quarter = (lim.regs_per_sm // lim.sub_partitions) // regs_per_warp
        by_regs = warps_per_quarter * lim.sub_partitions // warps
    else:
        by_regs = lim.ctas_per_sm
    smem_per_cta = _round_up(smem + lim.smem_reserved_per_block, lim.smem_granularity)
    by_smem = lim.smem_per_sm // smem_per_cta if smem_per_cta else lim.ctas_per_sm
    by_threads = lim.threads_per_sm // (warps * 32)
    return int(min(by_regs, by_smem, by_threads, lim.ctas_per_sm))
