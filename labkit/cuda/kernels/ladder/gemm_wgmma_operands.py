"""Step 7's operands as CuTe's ``wgmma_tma_sm90`` makes them: a TiledMMA, each stage's shared-memory
tensors, and the descriptor fragments ``make_fragment_A/B`` of their partitions.

CuTe's Hopper GEMM (``examples/cute/tutorial/hopper/wgmma_tma_sm90.cu``) writes::

    TiledMMA mma = make_tiled_mma(SM90_64x256x16_F32F16F16_SS<GMMA::Major::K, GMMA::Major::K>{},
                                  Layout<Shape<_2,_1,_1>>{});          // two consumer warpgroups
    Tensor sA = make_tensor(make_smem_ptr(smem.A), SmemLayoutA{});    // (BLK_M, BLK_K, PIPE)
    ThrMMA thr_mma = mma.get_thread_slice(threadIdx.x);
    Tensor tCsA = thr_mma.partition_A(sA);                            // (MMA, MMA_M, MMA_K, PIPE)
    Tensor tCrA = thr_mma.make_fragment_A(tCsA);                      // descriptors
    ... gemm(mma, tCrA(_,_,_,read_pipe), tCrB(_,_,_,read_pipe), accum);

Step 7 does the same on the host, stage by stage (:func:`fragments`): ``sA`` and ``sB`` of stage
``s`` start at ``s * stage_bytes`` and ``s * stage_bytes + a_bytes`` of the 1024-aligned shared
window, laid out by ``GMMA::Layout_K_SW128_Atom<half_t>`` tiled to ``bm x 64`` and ``bn x 64``
(exactly where the TMA's 128-byte swizzle puts the boxes). :func:`kernel_descriptors` reads the
k-blocks' descriptors off the fragments and checks, for every stage, consumer and k-block, that the
kernel's one line per operand (``(stage address + consumer offset) >> 4``, OR-ed into the
descriptor's fixed bits, plus the k-block's step) gives the fragment's descriptor; the kernel then
issues ``wgmma(da + step_k, db + step_k, ...)`` with those constants.

>>> from labkit.cuda.kernels.ladder import gemm_wgmma as g
>>> cfg = g.CONFIGS[g.DEFAULT]
>>> tCrA, tCrB = fragments(cfg, stage=1, consumer=1)
>>> str(tCrA.layout), hex(fragment_descriptors(tCrA)[3])
('(_1,_1,_4):(_0,_0,_2)', '0x4000004000010e06')
>>> base, steps = kernel_descriptors(cfg)
>>> hex(base), steps
('0x4000004000010000', (0, 2, 4, 6))
"""

from __future__ import annotations

from labkit import layout as lk
from labkit.atoms import mma_atom
from labkit.atoms.gmma_layouts import gmma_layout_atom
from labkit.atoms.instructions import WARPGROUP
from labkit.elements import element
from labkit.errors import ConfigError, DeviceError
from labkit.tiled import make_tiled_mma

__all__ = ["ATOM", "atom_name", "tiled_mma", "smem_layout", "smem_tensors", "fragments", "fragment_descriptors",
           "kernel_descriptors"]

#: the CuTe atom of step 7's MMA for f16 operands (``n``: the CTA tile's columns); :func:`atom_name`
#: gives any configuration's
ATOM = "SM90_64x{n}x16_F32F16F16_SS"


def atom_name(cfg):
    """The CuTe GMMA atom of ``cfg``'s operand types: f32 accumulators, A and B K-major from shared
    memory (8-bit operands exist only so: ``_TN``).

    >>> from labkit.cuda.kernels.ladder import gemm_wgmma as g
    >>> atom_name(g.CONFIGS[g.DEFAULT]), atom_name(g.CONFIGS["128x256x128s4-e4m3"])
    ('SM90_64x256x16_F32F16F16_SS', 'SM90_64x256x32_F32E4M3E4M3_SS_TN')
    """
    a, b = element(cfg.a), element(cfg.b)
    k = 256 // a.bits
    tn = "_TN" if a.bits == 8 else ""
    return f"SM90_64x{cfg.bn}x{k}_F32{a.name.upper()}{b.name.upper()}_SS{tn}"


def tiled_mma(cfg):
    """``make_tiled_mma(SM90_64x{bn}x{k}_F32{A}{B}_SS, Layout<Shape<consumers,1,1>>)``: one 64-row
    atom per consumer warpgroup; in ping-pong ``Layout<Shape<_1,_1,_1>>``, one warpgroup that
    covers the tile's 128 rows with two atoms (``MMA_M`` = 2)."""
    S = lk.S
    along_m = 1 if cfg.pingpong else cfg.consumers
    return make_tiled_mma(mma_atom(atom_name(cfg)), lk.make_layout((S(along_m), S(1), S(1))))


def smem_layout(rows, cfg=None):
    """``tile_to_shape(GMMA::Layout_K_SW128_Atom<T>, (rows, bk))``: one operand of a stage (``T``
    the configuration's element type, half_t by default; ``bk`` its 128 bytes of K)."""
    t = element(cfg.a if cfg is not None else "f16")
    return lk.tile_to_shape(gmma_layout_atom("K", "SW128", t.cute), (lk.S(rows), lk.S(1024 // t.bits)))


def smem_tensors(cfg, stage, base=0):
    """``(sA, sB)`` of ``stage``: shared-memory tensors at ``base + stage * stage_bytes`` (A) and
    ``+ a_bytes`` after it (B), ``base`` the 1024-aligned start of the stages."""
    if not 0 <= stage < cfg.stages:
        raise DeviceError(f"stage: must be in 0..{cfg.stages - 1}; got {stage!r}")
    at = base + stage * cfg.stage_bytes
    ta, tb = element(cfg.a).cute, element(cfg.b).cute
    return (lk.make_tensor(lk.make_smem_ptr(at, ta), smem_layout(cfg.bm, cfg)),
            lk.make_tensor(lk.make_smem_ptr(at + cfg.a_bytes, tb), smem_layout(cfg.bn, cfg)))


def fragments(cfg, stage, consumer, base=0):
    """``(tCrA, tCrB)``: ``make_fragment_A/B`` of consumer warpgroup ``consumer``'s partitions of
    ``stage``'s tensors (its first thread's slice; a warpgroup's threads share the descriptors)."""
    if not 0 <= consumer < cfg.consumers:
        raise DeviceError(f"consumer: must be in 0..{cfg.consumers - 1}; got {consumer!r}")
    thr = tiled_mma(cfg).get_slice(0 if cfg.pingpong else WARPGROUP * consumer)
    sA, sB = smem_tensors(cfg, stage, base)
    return thr.make_fragment_A(thr.partition_A(sA)), thr.make_fragment_B(thr.partition_B(sB))


def fragment_descriptors(fragment, m=0):
    """The 64-bit descriptors of a fragment's k-blocks in its ``m``-th MMA along M (or N), in order."""
    k_blocks = int(lk.size(fragment.layout[2]))
    return tuple(int(fragment.storage.deref(int(fragment.layout(0, m, k))).encode()) for k in range(k_blocks))


def kernel_descriptors(cfg):
    """``(base, steps)``: the descriptor bits the kernel ORs its operand's address (>> 4) into, and
    each k-block's addition, read from stage 0's fragments and checked against every stage's and
    consumer's (:class:`DeviceError` if the kernel's form would miss one)."""
    a0, b0 = (fragment_descriptors(f) for f in fragments(cfg, 0, 0))
    base = a0[0]
    steps = tuple(d - base for d in a0)
    a_off = 64 * 128                           # bytes from one 64-row block of A to the next
    blocks = cfg.bm // 64 if cfg.pingpong else 1
    for stage in range(cfg.stages):
        sa = stage * cfg.stage_bytes
        for consumer in range(cfg.consumers):
            tCrA, tCrB = fragments(cfg, stage, consumer)
            fb = fragment_descriptors(tCrB)
            db = ((sa + cfg.a_bytes) >> 4) | base
            for m in range(blocks):
                fa = fragment_descriptors(tCrA, m)
                da = ((sa + (m if cfg.pingpong else consumer) * a_off) >> 4) | base
                want = (tuple(da + s for s in steps), tuple(db + s for s in steps))
                if (fa, fb) != want:
                    raise ConfigError(f"config: stage {stage}, consumer {consumer}, m-block {m}: the kernel's "
                                      f"descriptors {[hex(d) for d in want[0] + want[1]]} differ from "
                                      f"make_fragment_A/B's {[hex(d) for d in fa + fb]}")
    return base, steps
