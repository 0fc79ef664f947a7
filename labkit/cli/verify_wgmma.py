"""The wgmma checks of ``python -m labkit verify``: one warpgroup's ``wgmma.mma_async`` on the
device against ``labkit.sim.wgmma``, the twin written from the PTX ISA's descriptor addressing.

Each case is an entry of the ``GMMA`` table, SS or RS (f32.f16.f16 with N 8, 64, 128 and 256 in
both majors and every swizzle mode, mixed majors, bf16 and f16-accumulate at N 64 in both majors;
every other type, tf32, e4m3/e5m2 in all four pairs with f32 and f16 accumulators, s8/u8 in all
four pairs, at N 64 K-major SW128 and N 256 K-major SW64/SW32) with A (64 x 128 bytes) and
B (N x 128 bytes) laid out in shared memory by CuTe's GMMA layout atoms
(``labkit.atoms.gmma_smem``: K- or MN-major, INTER, SW32, SW64 or SW128) and four wgmma steps of
32 bytes of K through descriptors from ``make_gmma_desc``
(:mod:`labkit.cuda.kernels.probes.wgmma_probe`); in the RS form A is in the warpgroup's registers
instead (A's major and swizzle read ``K`` and ``REG``), packed by CuTe's ``ALayout_64x{K}``. The
device and the twin read the same shared-memory image through the same descriptors, and the same
A registers:

- small-integer inputs (every sum exact): the device's D equals the twin's bit for bit, and the
  twin's equals ``A @ B.T``;
- random inputs of the element type: device and twin each within a floating-point bound of the
  float64 product (how often their bits agree is reported, not required);
- a deliberately mis-encoded descriptor (SBO halved, or the wrong swizzle mode): the device reads
  the wrong bytes, the twin predicts its D element for element, and D is not ``A @ B.T``;
- the base offset (:data:`BASE_OFFSET`): a swizzled A placed at a start address that is not on
  the pattern's 1024-byte boundary, once with CuTe's swizzle of the absolute address and once
  with the pattern restarted at the start, each read with base offset 0 and with
  ``(start >> 7) % 8``: the device's D equals the twin's in all four, and it is ``A @ B.T``
  exactly for the absolute layout with 0 and the restarted one with ``(start >> 7) % 8``.

wgmma is sm_90a only: on any other GPU, and under the CUDA simulator (which has no wgmma), the
checks are skipped with that reason.

>>> len(CASES), len(MISENCODED), len(BASE_OFFSET)
(129, 6, 6)
>>> CASES[0], CASES[60]
(('SM90_64x8x16_F32F16F16_SS', 'K', 'INTER', 'K', 'INTER'), ('SM90_64x256x32_S32S8S8_SS_TN', 'K', 'SW64', 'K', 'SW32'))
"""

from __future__ import annotations

import dataclasses

import numpy as np

from labkit.atoms.gmma_desc import GmmaDescriptor, LayoutType, decode
from labkit.atoms.gmma_layouts import GMMA_SWIZZLES
from labkit.atoms.instructions import GMMA, instruction
from labkit.atoms.mma_table import GMMA_TYPES
from labkit.elements import element, to_bits
from labkit.atoms.gmma_smem import fits
from labkit.sim.wgmma import wgmma_rs_steps, wgmma_ss_steps

__all__ = ["CASES", "MISENCODED", "BASE_OFFSET", "case_name", "misencoded_name", "base_offset_name",
           "check_wgmma", "check_misencoded", "check_base_offset", "inputs", "mis_encode", "offset_image"]

VERIFY_N = (8, 64, 128, 256)
"""The N of the f32.f16.f16 cases run in every major and swizzle mode."""


def _b_swizzle(major, swizzle, n):
    """B's swizzle: the case's, unless an MN-major atom of it is wider than N (N = 8: INTER)."""
    return swizzle if fits(major, swizzle, n, 64) else "INTER"


def _cases(form):
    out = []
    for n in VERIFY_N:
        atom = f"SM90_64x{n}x16_F32F16F16_{form}"
        for major in ("K", "MN"):
            for sw in GMMA_SWIZZLES:
                a = (major, sw) if form == "SS" else ("K", "REG")
                case = (atom, *a, major, _b_swizzle(major, sw, n))
                if case not in out:                 # RS, N = 8: MN-major B is INTER only
                    out.append(case)
    if form == "SS":
        out += [("SM90_64x128x16_F32F16F16_SS", "K", "SW128", "MN", "SW128"),      # mixed majors
                ("SM90_64x128x16_F32F16F16_SS", "MN", "SW32", "K", "SW64")]
    a = ("K", "REG") if form == "RS" else None
    for atom in (f"SM90_64x64x16_F32BF16BF16_{form}", f"SM90_64x64x16_F16F16F16_{form}"):  # other types
        out += [(atom, *(a or ("K", "SW128")), "K", "SW128"), (atom, *(a or ("MN", "SW64")), "MN", "SW64")]
    for d, ta, tb in GMMA_TYPES:                    # every type at N 64 and N 256
        sixteen = (d, ta, tb) in (("f32", "f16", "f16"), ("f32", "bf16", "bf16"), ("f16", "f16", "f16"))
        for n, asw, bsw in ((64, "SW128", "SW128"), (256, "SW64", "SW32"))[1 if sixteen else 0:]:
            g = GMMA[f"wgmma_m64n{n}k{256 // element(ta).bits}_{d}{ta}{tb}_{form.lower()}"]
            out.append((g.atoms[0], *(a or ("K", asw)), "K", bsw))
    return out


CASES = tuple(_cases("SS") + _cases("RS"))
"""Every wgmma case: (CuTe atom, A major, A swizzle (``REG``: in registers, RS), B major, B swizzle)."""

MISENCODED = (
    ("SM90_64x64x16_F32F16F16_SS", "K", "SW128", "K", "SW128", "A", "SBO halved"),
    ("SM90_64x64x16_F32F16F16_SS", "K", "SW128", "K", "SW128", "B", "layout type B64 for B128"),
    ("SM90_64x64x16_F32F16F16_RS", "K", "REG", "K", "SW128", "B", "SBO halved"),
    ("SM90_64x64x32_F32E4M3E4M3_SS_TN", "K", "SW128", "K", "SW128", "B", "SBO halved"),
    ("SM90_64x64x8_F32TF32TF32_SS_TN", "K", "SW128", "K", "SW128", "A", "layout type B64 for B128"),
    ("SM90_64x64x32_S32S8S8_SS_TN", "K", "SW128", "K", "SW128", "A", "SBO halved"),
)
"""Cases whose descriptor is deliberately wrong: (case..., operand, what is wrong)."""


BASE_OFFSET = tuple(("SM90_64x64x16_F32F16F16_SS", major, sw, "K", "SW128", 16384 + 5 * 128)
                    for major in ("K", "MN") for sw in ("SW32", "SW64", "SW128"))
"""Base-offset cases: (case..., A's start byte in the image): 5 rows of 128 bytes past a 1024-byte
boundary, so ``(start >> 7) % 8`` is 5 (1 modulo the 64-byte pattern's 4 rows, 1 modulo 2)."""


def case_name(case) -> str:
    atom, am, asw, bm, bsw = case
    a = "registers" if asw == "REG" else f"{am}-{asw}"
    return f"wgmma {atom} A {a} B {bm}-{bsw}"


def misencoded_name(case) -> str:
    return f"wgmma {case[0]} mis-encoded {case[5]} desc: {case[6]}"


def base_offset_name(case) -> str:
    return f"wgmma {case[0]} base offset: A {case[1]}-{case[2]} at byte {case[5]}"


def offset_image(plan, a_bits, b_bits, start: int, restarted: bool):
    """The probe's image with B where the plan puts it and A (``64 x K`` 16-bit codes) at byte
    ``start`` instead: swizzled on the absolute address (CuTe's ``Sw<B,4,3>`` pointer), or with
    the swizzle pattern restarted at ``start`` (``restarted``). Also A's descriptors moved to
    ``start`` with base offset 0 (``(steps, 2)`` uint64, B's unchanged)."""
    from labkit.sim.wgmma import operand_addresses

    from labkit.cuda.kernels.probes.wgmma_probe import SMEM_BYTES

    img = np.zeros(SMEM_BYTES, np.uint8)
    plan.b.store(img, b_bits)
    descs = np.array(plan.descs, np.uint64, copy=True)
    major = plan.a.major
    if decode(int(plan.descs[0, 0])).start_address_bytes != 0:
        raise ValueError("the plan's A must start at image byte 0")
    for s in range(plan.steps):
        d = decode(int(plan.descs[s, 0]))
        moved = dataclasses.replace(d, start_address=d.start_address + start // 16)
        addr = operand_addresses(GmmaDescriptor.encode(d), 64, major) + start if restarted else \
            operand_addresses(GmmaDescriptor.encode(moved), 64, major)
        bits = np.asarray(a_bits)[:, plan.entry.k * s:plan.entry.k * (s + 1)]
        img[addr] = (bits & 0xFF).astype(np.uint8)
        img[addr + 1] = (bits >> 8).astype(np.uint8)
        descs[s, 0] = GmmaDescriptor.encode(moved)
    return img, descs


def with_base_offset(descs, base_offset: int) -> np.ndarray:
    """``descs`` with A's base offset set to ``base_offset``."""
    out = np.array(descs, np.uint64, copy=True)
    for s in range(out.shape[0]):
        out[s, 0] = GmmaDescriptor.encode(dataclasses.replace(decode(int(out[s, 0])), base_offset=base_offset))
    return out


def mis_encode(descs, operand: str, what: str) -> np.ndarray:
    """``descs`` (steps x 2, uint64) with ``operand``'s descriptors mis-encoded as ``what``:
    ``"SBO halved"`` or ``"layout type B64 for B128"``."""
    out = np.array(descs, np.uint64, copy=True)
    col = "AB".index(operand)
    for s in range(out.shape[0]):
        d = decode(int(out[s, col]))
        if what == "SBO halved":
            d = dataclasses.replace(d, stride_byte_offset=d.stride_byte_offset // 2)
        elif what == "layout type B64 for B128":
            if d.layout_type is not LayoutType.B128:
                raise ValueError(f"{what}: the descriptor is {d.layout_type.name}, not B128")
            d = dataclasses.replace(d, layout_type=LayoutType.B64)
        else:
            raise ValueError(f"unknown mis-encoding {what!r}")
        out[s, col] = GmmaDescriptor.encode(d)
    return out


def inputs(entry, rng, exact: bool):
    """A (64 x K) and B (N x K) for K = 128 bytes of the entry's types, float64 values exact in
    them: small integers (``exact``: every sum of products exact in f16, f32 and s32; 0..6 for
    an unsigned operand) or uniform in [-1, 1) rounded to the type (integers: their whole range)."""
    from labkit.elements import from_bits, to_bits

    n, k = entry.shape_mnk[1], 128 * 8 // element(entry.a_type).bits
    out = []
    for t, rows in ((entry.a_type, 64), (entry.b_type, n)):
        e = element(t)
        if exact:
            lo = 0 if not e.signed else -3
            v = rng.integers(lo, lo + 7, (rows, k))
        elif e.kind == "int":
            v = rng.integers(-128 if e.signed else 0, 128 if e.signed else 256, (rows, k))
        else:
            v = rng.uniform(-1, 1, (rows, k))
        out.append(from_bits(to_bits(v, t), t))
    return tuple(out)


def _bound(entry, A, B):
    """The error bound of a wgmma's D against float64: the entry's ``tolerance()`` (s32: exact,
    and no wrap on these inputs: half a unit)."""
    rtol, atol = entry.tolerance()
    return rtol * (np.abs(A) @ np.abs(B).T) + max(atol, 0.5 if entry.acc_type == "s32" else 0.0)


def _twin(plan, image, descs, a_regs):
    g = plan.entry
    if g.form == "RS":
        steps = [(a, int(step[1])) for a, step in zip(a_regs, descs)]
        d = wgmma_rs_steps(g, image, steps, plan.b.major)
    else:
        d = wgmma_ss_steps(g, image, [tuple(int(x) for x in step) for step in descs], plan.a_major,
                           plan.b.major)
    return d.astype(np.float64)


def _plan(case):
    from labkit.cuda.kernels.probes import wgmma_probe as wp

    atom, am, asw, bm, bsw = case
    return wp, wp.make_plan(instruction(atom, "wgmma"), am, asw, bm, bsw)


def _operands(wp, plan, A, B):
    """The image and (RS) A's registers of inputs A, B."""
    g = plan.entry
    img = plan.image(to_bits(A, g.a_type), to_bits(B, g.b_type))
    return img, (plan.a_registers(A) if g.form == "RS" else None)


def check_wgmma(case, rng, run_device, result_cls, sets: int = 2):
    """One case: ``sets`` exact and ``sets`` random input sets through the device and the twin."""
    wp, plan = _plan(case)
    g = plan.entry
    res = result_cls(case_name(case), g.ptx, 2 * sets)
    exact_bad, exact_ref_bad, total = 0, 0, 0
    same_bits, worst = 0, {"device": 0.0, "twin": 0.0}
    for exact in [True] * sets + [False] * sets:
        A, B = inputs(g, rng, exact)
        img, a_regs = _operands(wp, plan, A, B)
        dev = run_device(wp.wgmma_run, plan, img, None, a_regs)
        twin = _twin(plan, img, plan.descs, a_regs)
        ref = A @ B.T
        if exact:
            total += dev.size
            exact_bad += int(np.count_nonzero(~(dev == twin)))
            exact_ref_bad += int(np.count_nonzero(twin != ref))
        else:
            bound = _bound(g, A, B)
            for who, d in (("device", dev), ("twin", twin)):
                r = np.abs(d - ref) / bound
                worst[who] = max(worst[who], float(np.nanmax(r)) if not np.isnan(r).any() else np.inf)
            same_bits += int(np.count_nonzero(dev == twin))
    res.add("D exact inputs: device == twin", exact_bad == 0, f"{exact_bad} of {total} elements differ")
    res.add("D exact inputs: twin == A @ B.T", exact_ref_bad == 0, f"{exact_ref_bad} of {total} elements differ")
    for who in ("device", "twin"):
        res.add(f"D random {who} vs float64", worst[who] <= 1.0, f"max |err|/bound = {worst[who]:.3g}")
    res.add("(info) exact: device == twin; random: equal bits", True,
            f"{total - exact_bad}/{total} exact; {same_bits}/{sets * g.shape_mnk[1] * 64} random")
    return res


def check_misencoded(mis, rng, run_device, result_cls, sets: int = 2):
    """A case with one operand's descriptors mis-encoded: the device's D is the twin's, element
    for element, on small-integer inputs, and differs from ``A @ B.T``."""
    wp, plan = _plan(mis[:5])
    g = plan.entry
    res = result_cls(misencoded_name(mis), g.ptx, sets)
    bad_descs = mis_encode(plan.descs, mis[5], mis[6])
    differ, wrong, total = 0, 0, 0
    for _ in range(sets):
        A, B = inputs(g, rng, True)
        img, a_regs = _operands(wp, plan, A, B)
        dev = run_device(wp.wgmma_run, plan, img, bad_descs, a_regs)
        twin = _twin(plan, img, bad_descs, a_regs)
        total += dev.size
        differ += int(np.count_nonzero(~(dev == twin)))
        wrong += int(np.count_nonzero(twin != A @ B.T))
    res.add("D device == twin (the garbage predicted)", differ == 0, f"{differ} of {total} elements differ")
    res.add("D twin != A @ B.T (the encoding matters)", wrong > 0, f"{wrong} of {total} elements wrong")
    res.add("(info) predicted wrong elements", True, f"{total - differ}/{total} predicted; {wrong} wrong")
    return res


def check_base_offset(case, rng, run_device, result_cls):
    """A base-offset case: A at a start off the 1024-byte boundary, laid out on the absolute
    address and restarted at the start, each read with base offset 0 and ``(start >> 7) % 8``;
    small-integer inputs."""
    from labkit.cuda.kernels.probes import wgmma_probe as wp

    atom, am, asw, bm, bsw, start = case
    plan = wp.make_plan(instruction(atom, "wgmma"), am, asw, bm, bsw)
    g = plan.entry
    phase = (start >> 7) % 8
    res = result_cls(base_offset_name(case), g.ptx, 4)
    A, B = inputs(g, rng, True)
    differ, total = 0, 0
    for restarted in (False, True):
        img, descs = offset_image(plan, to_bits(A, g.a_type), to_bits(B, g.b_type), start, restarted)
        for b in (0, phase):
            d = with_base_offset(descs, b)
            dev = run_device(wp.wgmma_run, plan, img, d, None)
            twin = _twin(plan, img, d, None)
            total += dev.size
            differ += int(np.count_nonzero(~(dev == twin)))
            right = bool(np.array_equal(twin, A @ B.T))
            want = (b == 0) != restarted
            layout = "restarted at the start" if restarted else "on the absolute address"
            res.add(f"twin: A {layout}, base offset {b}: D {'==' if want else '!='} A @ B.T", right == want,
                    f"{int(np.count_nonzero(twin != A @ B.T))} of {twin.size} elements wrong")
    res.add("D device == twin (all four)", differ == 0, f"{differ} of {total} elements differ")
    return res
