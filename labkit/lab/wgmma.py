"""Chapter 6g and lab 8: Hopper's ``wgmma`` reads shared memory through descriptors.

What the page and the lab print, computed from the library's Hopper pieces: the GMMA layout
atoms (:mod:`labkit.atoms.gmma_layouts`), the descriptor CuTe builds from a layout
(:mod:`labkit.atoms.gmma_desc`), the accumulator layout of the GMMA registry
(:mod:`labkit.atoms.gmma_instructions`) and the CPU twin that reads shared memory through the
descriptors alone (:mod:`labkit.sim.wgmma`).

>>> D = twin_matmul(np.eye(64, 16), np.eye(8, 16))       # D = A @ B.T through the twin
>>> D.shape, float(D[3, 3]), float(D[3, 4])
((64, 8), 1.0, 0.0)
>>> owner(25, 10, 16)                                    # thread 37 (warp 1), value 6
(37, 6)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from labkit.atoms.gmma_desc import GmmaDescriptor, LayoutType, make_gmma_desc, smem_tile
from labkit.atoms.gmma_instructions import GMMA_BY_ATOM
from labkit.atoms.gmma_layouts import GMMA_SWIZZLES, gmma_element_bits, gmma_layout_atom
from labkit.atoms.wgmma_ptx import WARPGROUP
from labkit.errors import LayoutError
from labkit.layout import S, ComposedLayout, Swizzle, make_layout, parse_layout, size, tile_to_shape
from labkit.atoms.gmma_fragment import a_registers
from labkit.sim.wgmma import operand_addresses, swizzled, wgmma_rs, wgmma_ss

__all__ = ["WARPGROUP", "LAYOUTS", "atom_table", "element_atom", "operand_layout", "descriptor",
           "descriptor_table", "core_matrix_starts", "stage", "twin_matmul", "device_matmul", "wrong_descriptors",
           "wrong_descriptor_table", "c_layout", "owner", "owner_grid", "warp_layout",
           "warp_layout_matches", "a_layout", "a_owner", "a_warp_layout", "a_warp_layout_matches", "base_offset_reads",
           "base_offset_wrong", "right_base_offset", "stored_chunk", "fixed_cost_split", "registers_text", "sm90_present", "Event", "Schedule",
           "pipeline_schedule", "ceiling_ratio"]

LAYOUTS = {"INTERLEAVE": ("INTER", 16), "B128": ("SW128", 64)}
"""The two K-major layouts lab 8 runs: CuTe's atom and the K of the tile (one k16 step, or one
128-byte row of halves)."""


def _w(swizzle: str) -> int:
    return {"INTER": 1, "SW32": 2, "SW64": 4, "SW128": 8}[swizzle]


def atom_table(element="f16") -> str:
    """The eight GMMA layout atoms for ``element``: CuTe's layout, rows x row bytes, and the
    descriptor's layout type.

    >>> print(atom_table().splitlines()[4])
    Layout_K_SW128_Atom   Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)  8 rows x 128 B  B128
    """
    bits = gmma_element_bits(element)
    rows = []
    for major in ("K", "MN"):
        for sw in GMMA_SWIZZLES:
            atom = gmma_layout_atom(major, sw, bits)
            row_bytes = 16 * _w(sw)
            lt = {"INTER": "INTERLEAVE", "SW32": "B32", "SW64": "B64", "SW128": "B128"}[sw]
            rows.append((f"Layout_{major}_{sw}_Atom", str(atom), f"8 rows x {row_bytes} B", lt))
    rows.insert(0, ("atom", "CuTe layout", "swizzle unit", "layout type"))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    return "\n".join("".join(c.ljust(w + 2) for c, w in zip(r[:3], widths)) + r[3] for r in rows)


def element_atom(major, swizzle, element="f16") -> ComposedLayout:
    """The GMMA atom with its byte swizzle written on element offsets (``Sw<B, M, 3>`` with
    ``2^M`` elements in 16 bytes), so that evaluating it gives where each element lies: the
    form the drawings take.

    >>> print(element_atom("K", "SW128"))
    Sw<3,3,3> o 0 o (_8,_64):(_64,_1)
    """
    bits = gmma_element_bits(element)
    atom = gmma_layout_atom(major, swizzle, bits)
    m = (128 // bits).bit_length() - 1
    return ComposedLayout(Swizzle(atom.layout_a.bits, m, 3), 0, atom.layout_b)


def operand_layout(major, swizzle, mn: int, k: int, element="f16") -> ComposedLayout:
    """CuTe's ``tile_to_shape(GMMA::Layout_{major}_{swizzle}_Atom<T>{}, (mn, k))``: an operand's
    tile in shared memory.

    >>> print(operand_layout("K", "SW128", 64, 64))
    Sw<3,4,3> o smem_ptr[16b](unset) o ((_8,_8),(_64,_1)):((_64,_512),(_1,_0))
    """
    return tile_to_shape(gmma_layout_atom(major, swizzle, gmma_element_bits(element)), (S(mn), S(k)))


def descriptor(major, swizzle, mn: int, k: int, kblock: int = 0, start: int = 0,
               element="f16") -> GmmaDescriptor:
    """``make_gmma_desc`` of k-block ``kblock`` (16 elements of K for 16-bit types) of the
    ``mn`` x ``k`` operand tile whose shared memory starts at byte ``start``.

    >>> d = descriptor("K", "SW128", 64, 64, kblock=1, start=0x400)
    >>> d.start_address_bytes, d.leading_bytes, d.stride_bytes, d.layout_type.name
    (1056, 16, 1024, 'B128')
    """
    bits = gmma_element_bits(element)
    kk = 256 // bits
    tile, addr = smem_tile(operand_layout(major, swizzle, mn, k, bits), (S(mn), S(kk)), (0, kblock),
                           start_address=start, element_bits=bits)
    return make_gmma_desc(major, tile, start_address=addr, element_bits=bits)


def descriptor_table(mn: int = 64, element="f16") -> str:
    """The descriptor of the first k-block of an ``mn``-row operand in every canonical layout:
    LBO and SBO in bytes, the layout type and the 64 bits.

    >>> print(descriptor_table().splitlines()[1])
    K   INTER  (64,16)    1024   128  INTERLEAVE  0x0000000800400000
    """
    bits = gmma_element_bits(element)
    lines = ["maj swz    tile        LBO   SBO  type        descriptor"]
    for major in ("K", "MN"):
        for sw in GMMA_SWIZZLES:
            atom = gmma_layout_atom(major, sw, bits)
            k = max(256 // bits, int(size(atom.layout_b.shape[1]))) if major == "K" else 256 // bits
            rows = max(mn, int(size(atom.layout_b.shape[0]))) if major == "MN" else mn
            d = descriptor(major, sw, rows, k, element=bits)
            lines.append(f"{major:<3} {sw:<6} ({rows},{k})".ljust(19)
                         + f"{d.leading_bytes:>6}{d.stride_bytes:>6}  {d.layout_type.name:<10}  0x{d.encode():016x}")
    return "\n".join(lines)


def core_matrix_starts(desc: int, rows: int, major: str = "K", element="f16") -> np.ndarray:
    """The shared-memory byte address where each 8 x 16-byte core matrix of a ``rows`` x K
    operand starts (its first row), as the descriptor ``desc`` places it: for K-major an array
    ``[rows // 8, 2]`` (8-row group, 16-byte chunk of K); for MN-major ``[rows // T, 2]`` (T
    elements of MN in 16 bytes, K rows 0-7 and 8-15).

    >>> d = descriptor("K", "INTER", 64, 16)
    >>> core_matrix_starts(d.encode(), 64)[:3].tolist()     # SBO = 128 down, LBO = 1024 across
    [[0, 1024], [128, 1152], [256, 1280]]
    """
    eb = gmma_element_bits(element) // 8
    t = 16 // eb
    addr = operand_addresses(int(desc), rows, major, eb)
    if major == "K":
        return addr[0::8, 0::t]
    return np.stack([addr[0::t, 0], addr[0::t, 8]], axis=1)


def stage(smem: np.ndarray, matrix, layout, start: int = 0) -> None:
    """Write ``matrix`` (mn x k, as float16) into the byte array ``smem`` at ``start`` through a
    GMMA ``layout`` (the swizzle acts on the absolute byte address, as the hardware's does)."""
    mat = np.asarray(matrix, dtype=np.float16)
    sw, inner = (layout.layout_a, layout.layout_b) if isinstance(layout, ComposedLayout) \
        else (Swizzle(0, 4, 3), layout)
    rows, cols = mat.shape
    if (rows, cols) != tuple(int(size(m)) for m in inner.shape):
        raise LayoutError(f"matrix: shape {mat.shape} is not the layout's {inner.shape}")
    offs = np.array([[int(inner(r, c)) for c in range(cols)] for r in range(rows)], dtype=np.int64)
    addr = np.asarray(sw(start + 2 * offs), dtype=np.int64)
    bits = mat.view(np.uint16)
    smem[addr] = (bits & 0xFF).astype(np.uint8)
    smem[addr + 1] = (bits >> 8).astype(np.uint8)


def _operands(A, B, layout):
    if layout not in LAYOUTS:
        raise LayoutError(f"layout must be one of {sorted(LAYOUTS)}; got {layout!r}")
    sw, kk = LAYOUTS[layout]
    A, B = np.asarray(A, dtype=np.float16), np.asarray(B, dtype=np.float16)
    if A.shape != (64, kk) or B.ndim != 2 or B.shape[1] != kk or B.shape[0] % 8 or not 8 <= B.shape[0] <= 256:
        raise LayoutError(f"A must be 64 x {kk} and B N x {kk} (N a multiple of 8 up to 256) for layout "
                          f"{layout!r}; got {A.shape} and {B.shape}")
    return A, B, sw, kk


def _a_from(a_from):
    if a_from not in ("smem", "registers"):
        raise LayoutError(f"a_from must be 'smem' (the SS form) or 'registers' (the RS form); got {a_from!r}")
    return a_from == "registers"


def twin_matmul(A, B, layout: str = "INTERLEAVE", tamper=None, a_from: str = "smem") -> np.ndarray:
    """``D = A @ B.T`` (64 x N, float32) as one warpgroup's ``wgmma`` chain computes it, on the CPU:
    A and B are staged K-major in CuTe's ``layout`` atom (``"INTERLEAVE"``: K = 16, or ``"B128"``:
    K = 64) in a byte array, each k16 step's descriptors are made by ``make_gmma_desc`` and the
    twin :func:`labkit.sim.wgmma.wgmma_ss` reads the operands through them alone. ``tamper``
    (a dict of descriptor fields, in 16-byte units like CuTe's) overrides fields of the
    descriptors, so a wrong LBO or SBO reads the wrong bytes. ``a_from="registers"`` is the RS
    form: each k16 slice of A goes into the warpgroup's registers by CuTe's ``ALayout_64x16``
    and :func:`labkit.sim.wgmma.wgmma_rs` reads only B through a descriptor.

    >>> rng = np.random.default_rng(0)
    >>> A, B = rng.integers(-3, 4, (64, 64)), rng.integers(-3, 4, (32, 64))
    >>> bool((twin_matmul(A, B, "B128", a_from="registers") == twin_matmul(A, B, "B128")).all())
    True
    """
    rs = _a_from(a_from)
    A, B, sw, kk = _operands(A, B, layout)
    n = B.shape[0]
    smem = np.zeros(2048 * 8 + 1024 * 64, np.uint8)
    a0, b0 = 0, 64 * kk * 2 + 1024 * 4
    sA, sB = operand_layout("K", sw, 64, kk), operand_layout("K", sw, n, kk)
    stage(smem, A, sA, a0)
    stage(smem, B, sB, b0)
    d = np.zeros((64, n), np.float32)
    for s in range(kk // 16):
        da = descriptor("K", sw, 64, kk, s, a0)
        db = descriptor("K", sw, n, kk, s, b0)
        if tamper:
            da = GmmaDescriptor(**{**da.__dict__, **tamper})
            db = GmmaDescriptor(**{**db.__dict__, **tamper})
        if rs:
            d = wgmma_rs(a_registers(A[:, 16 * s:16 * s + 16]), smem, db.encode(), n=n, d=d)
        else:
            d = wgmma_ss(smem, da.encode(), db.encode(), n=n, d=d)
    return d


def device_matmul(A, B, layout: str = "INTERLEAVE", a_from: str = "smem") -> np.ndarray:
    """:func:`twin_matmul` on the GPU: one warpgroup's ``wgmma.mma_async`` (f32 accumulators, A
    and B K-major in ``layout``, or A in registers with ``a_from="registers"``) through
    :mod:`labkit.cuda.kernels.probes.wgmma_probe`, which refuses anything but an sm_90 GPU."""
    from labkit.cuda.kernels.probes import wgmma_probe

    form = "rs" if _a_from(a_from) else "ss"
    A, B, sw, _ = _operands(A, B, layout)
    entry = f"wgmma_m64n{B.shape[0]}k16_f32f16f16_{form}"
    return np.asarray(wgmma_probe.wgmma_matmul(A, B, entry, a_swizzle=sw, b_swizzle=sw), np.float32)


def base_offset_reads(start: int = 17024, rows: int = 8) -> str:
    """Chunk 0 of the first ``rows`` rows of a K-major 128-byte-swizzled tile at byte ``start``:
    in which 16-byte chunk of its row CuTe's swizzle of the absolute address stores it, in which a
    pattern restarted at ``start`` stores it, and which chunk the tensor core reads with base
    offset 0 and with ``(start >> 7) % 8``.

    >>> print(base_offset_reads(17024, rows=2))
    tile at byte 17024 = 16 x 1024 + 5 x 128: (start >> 7) % 8 = 5
    row  stored: absolute  stored: restarted  read, base 0  read, base 5
    0                   5                  0             5             0
    1                   6                  1             6             1
    """
    if start < 0 or start % 128:
        raise LayoutError(f"start={start!r} must be a non-negative multiple of 128 (a row of the 128-byte swizzle)")
    b = (start >> 7) % 8
    lines = [f"tile at byte {start} = {start // 1024} x 1024 + {(start % 1024) // 128} x 128: (start >> 7) % 8 = {b}",
             f"row  stored: absolute  stored: restarted  read, base 0  read, base {b}"]
    for r in range(rows):
        row = start + 128 * r
        absolute, restarted = stored_chunk(start, r), stored_chunk(0, r)      # restarted: as if at byte 0
        read0 = (swizzled(row, LayoutType.B128, 0) - row) // 16
        read_b = (swizzled(row, LayoutType.B128, b) - row) // 16
        lines.append(f"{r:<3}{absolute:>18}{restarted:>19}{read0:>14}{read_b:>14}")
    return "\n".join(lines)


def stored_chunk(start: int, row: int = 0) -> int:
    """The 16-byte chunk of row ``row`` (128 bytes each) of a K-major 128-byte-swizzled tile at
    byte ``start`` that holds the row's K-chunk 0, as CuTe's swizzle of the absolute address
    stores it.

    >>> stored_chunk(17024, 3)
    0
    """
    if start < 0 or start % 128 or not 0 <= row < 8:
        raise LayoutError(f"(start, row)=({start!r}, {row!r}): start a non-negative multiple of 128, row 0..7")
    address = start + 128 * row
    return (Swizzle(3, 4, 3)(address) - address) // 16


def right_base_offset(start: int, restarted: bool) -> int:
    """The base offset with which the tensor core reads a K-major 128-byte-swizzled tile at byte
    ``start`` right: stored by the swizzle of the absolute address (``restarted`` False, CuTe's
    way) or with the pattern restarted at ``start``. Found by trying 0..7 on the tile's 8 rows of
    8 chunks through :func:`labkit.sim.wgmma.swizzled`.

    >>> right_base_offset(17024, restarted=False), right_base_offset(17024, restarted=True)
    (0, 5)
    """
    if start < 0 or start % 128:
        raise LayoutError(f"start={start!r} must be a non-negative multiple of 128 (a row of the 128-byte swizzle)")
    plain = np.array([start + 128 * r + 16 * c for r in range(8) for c in range(8)])
    if restarted:
        stored = start + np.array([Swizzle(3, 4, 3)(int(a - start)) for a in plain])
    else:
        stored = np.array([Swizzle(3, 4, 3)(int(a)) for a in plain])
    for b in range(8):
        if np.array_equal(swizzled(plain, LayoutType.B128, b), stored):
            return b
    raise LayoutError(f"no base offset reads the tile at {start} right")     # unreachable


def base_offset_wrong(start: int = 17024, seed: int = 0) -> str:
    """Wrong elements of D (64 x 64, K = 64) through the twin when A (K-major, 128-byte swizzle)
    starts at byte ``start``: laid out on the absolute address or restarted at ``start``, read
    with base offset 0 and ``(start >> 7) % 8``.

    >>> print(base_offset_wrong(16384).splitlines()[1])
    A on the absolute address, base offset 0: 0 of 4096 elements of D wrong
    """
    if start < 0 or start % 128:
        raise LayoutError(f"start={start!r} must be a non-negative multiple of 128 (a row of the 128-byte swizzle)")
    rng = np.random.default_rng(seed)
    A, B = rng.integers(-3, 4, (64, 64)).astype(np.float16), rng.integers(-3, 4, (64, 64)).astype(np.float16)
    b0 = (start + 8192 + 1023) // 1024 * 1024                  # B after A, on a 1024-byte boundary
    phase = (start >> 7) % 8
    lines = [f"A at byte {start}, B at byte {b0}: (start >> 7) % 8 = {phase}"]
    sA, sB = operand_layout("K", "SW128", 64, 64), operand_layout("K", "SW128", 64, 64)
    for restarted in (False, True):
        smem = np.zeros(b0 + 8192, np.uint8)
        if restarted:
            tmp = np.zeros(8192, np.uint8)
            stage(tmp, A, sA, 0)
            smem[start:start + 8192] = tmp
        else:
            stage(smem, A, sA, start)
        stage(smem, B, sB, b0)
        for base in sorted({0, phase}):
            d = np.zeros((64, 64), np.float32)
            for s in range(4):
                da = GmmaDescriptor(**{**descriptor("K", "SW128", 64, 64, s, start).__dict__, "base_offset": base})
                d = wgmma_ss(smem, da.encode(), descriptor("K", "SW128", 64, 64, s, b0).encode(), n=64, d=d)
            wrong = int(np.count_nonzero(d != A.astype(np.float64) @ B.astype(np.float64).T))
            where = "restarted at the start" if restarted else "on the absolute address"
            lines.append(f"A {where}, base offset {base}: {wrong} of 4096 elements of D wrong")
    return "\n".join(lines)


TAMPERS = {
    "INTERLEAVE": [("as make_gmma_desc builds it", None),
                   ("LBO and SBO swapped", "swap"),
                   ("SBO halved", {"stride_byte_offset": 4}),
                   ("layout type B128 instead of INTERLEAVE", {"layout_type": LayoutType.B128})],
    "B128": [("as make_gmma_desc builds it", None),
             ("LBO = 4 (unused by swizzled K-major)", {"leading_byte_offset": 4}),
             ("SBO = 512 bytes instead of 1024", {"stride_byte_offset": 32}),
             ("layout type INTERLEAVE instead of B128", {"layout_type": LayoutType.INTERLEAVE})],
}


def wrong_descriptors(layout: str = "INTERLEAVE", n: int = 64, seed: int = 0) -> list[dict]:
    """The twin's D for each descriptor of :data:`TAMPERS` against ``A @ B.T`` in float64: how
    many of the 64 x ``n`` elements are wrong and the largest error. Small integers in A and B
    make every right element exact."""
    _, kk = LAYOUTS[layout]
    rng = np.random.default_rng(seed)
    A = rng.integers(-2, 3, (64, kk)).astype(np.float16)
    B = rng.integers(-2, 3, (n, kk)).astype(np.float16)
    want = A.astype(np.float64) @ B.astype(np.float64).T
    out = []
    for what, tamper in TAMPERS[layout]:
        if tamper == "swap":
            d0 = descriptor("K", LAYOUTS[layout][0], 64, kk)
            tamper = {"leading_byte_offset": d0.stride_byte_offset, "stride_byte_offset": d0.leading_byte_offset}
        try:
            got = twin_matmul(A, B, layout, tamper)
            err = np.abs(got - want)
            out.append({"descriptor": what, "wrong": int((err > 0).sum()), "of": err.size,
                        "max error": float(err.max()), "rows right": int((err.max(axis=1) == 0).sum())})
        except LayoutError as e:
            out.append({"descriptor": what, "refused": str(e)})
    return out


def wrong_descriptor_table(layout: str = "INTERLEAVE", n: int = 64) -> str:
    """:func:`wrong_descriptors` as lines of text.

    >>> print(wrong_descriptor_table().splitlines()[0])
    INTERLEAVE, m64n64k16: as make_gmma_desc builds it: 0 of 4096 elements wrong, 64 of 64 rows of D right
    """
    lines = []
    for r in wrong_descriptors(layout, n):
        head = f"{layout}, m64n{n}k16: {r['descriptor']}: "
        if "refused" in r:
            lines.append(head + "refused: " + r["refused"])
        else:
            lines.append(head + f"{r['wrong']} of {r['of']} elements wrong, {r['rows right']} of 64 rows of D right"
                         + (f", largest error {r['max error']:g}" if r["wrong"] else ""))
    return "\n".join(lines)


# ------------------------------------------------------------------- the accumulators

def c_layout(n: int = 64):
    """CuTe's ``CLayout_64xN`` of ``SM90_64x{n}x16_F32F16F16_SS`` (the registry's text, parsed):
    ``(thread, value) -> m + 64 n``."""
    name = f"SM90_64x{n}x16_F32F16F16_SS"
    if name not in GMMA_BY_ATOM:
        raise LayoutError(f"n={n!r}: the GMMA registry has N in (8, 16, 32, 64, 128, 256)")
    return parse_layout(GMMA_BY_ATOM[name].layout_C)


@functools.lru_cache(maxsize=8)
def _owners(n: int):
    L = c_layout(n)
    thr = np.full((64, n), -1, np.int64)
    val = np.full((64, n), -1, np.int64)
    for t in range(WARPGROUP):
        for v in range(n // 2):
            idx = int(L(t, v))
            thr[idx % 64, idx // 64], val[idx % 64, idx // 64] = t, v
    return thr, val


def owner(m: int, n: int, N: int = 64) -> tuple[int, int]:
    """``(thread, value)`` of the warpgroup that holds D(m, n) of an m64nNk16 accumulator."""
    thr, val = _owners(N)
    if not (0 <= m < 64 and 0 <= n < N):
        raise LayoutError(f"(m, n)=({m}, {n}) is outside the 64 x {N} accumulator")
    return int(thr[m, n]), int(val[m, n])


def owner_grid(N: int = 8, rows=range(0, 64, 4)) -> str:
    """Which thread holds each element of D (``t.v``: thread t, value v), for some rows.

    >>> print(owner_grid(8, rows=[0]))
    m\\n      0      1      2      3      4      5      6      7
    0      0.0    0.1    1.0    1.1    2.0    2.1    3.0    3.1
    """
    thr, val = _owners(N)
    lines = ["m\\n " + "".join(f"{j:>7}" for j in range(N))]
    for i in rows:
        lines.append(f"{i:<4}" + "".join(f"{f'{thr[i, j]}.{val[i, j]}':>7}" for j in range(N)))
    return "\n".join(lines)


def warp_layout(n: int = 16, warp: int = 0):
    """Warp ``warp``'s share of the accumulators as a TV layout of its own 16 x ``n`` rows: 32
    lanes, ``n / 2`` values, ``(lane, value) -> m' + 16 n`` with ``m = 16 warp + m'``. Built
    from the registry's C layout and checked against it on every (lane, value)."""
    if warp not in range(4):
        raise LayoutError(f"warp must be 0..3 (a warpgroup has four warps), got {warp!r}")
    L = c_layout(n)
    mine = make_layout(((S(4), S(8)), (S(2), S(2), S(n // 8))),
                       ((S(32), S(1)), (S(16), S(8), S(128))))
    for lane in range(32):
        for v in range(n // 2):
            idx = int(L(32 * warp + lane, v))
            if (idx % 64 - 16 * warp) + 16 * (idx // 64) != int(mine(lane, v)):
                raise LayoutError(f"warp {warp}: lane {lane}, value {v} of {L} is not {mine}")
    return mine


def warp_layout_matches(n: int = 16) -> bool:
    """Each warp's share, cut into 16 x 8 column blocks, is ``mma.sync``'s m16n8 C layout
    (``SM80_16x8x16_F32F16F16F32_TN``): values ``4j .. 4j + 3`` are that layout's four values
    in column block ``j``."""
    from labkit.atoms.mma_atoms import mma_atom
    c16 = mma_atom("SM80_16x8x16_F32F16F16F32_TN").layout_C
    for warp in range(4):
        mine = warp_layout(n, warp)
        for lane in range(32):
            for v in range(n // 2):
                if int(mine(lane, v)) != int(c16(lane, v % 4)) + 128 * (v // 4):
                    return False
    return True


def a_layout():
    """CuTe's ``ALayout_64x16`` of the RS entries (A in registers, the registry's text, parsed):
    ``(thread, value) -> m + 64 k`` over the 64 x 16 A of one k16 step."""
    return parse_layout(GMMA_BY_ATOM["SM90_64x64x16_F32F16F16_RS"].layout_A)


def a_owner(m: int, k: int) -> tuple[int, int, int]:
    """``(thread, register, half)`` of the warpgroup holding A(m, k) in the RS form: register
    ``i`` of the four holds values ``2i`` (half 0, the low 16 bits) and ``2i + 1`` (half 1).

    >>> a_owner(25, 10)          # warp 1, lane 4 * 1 + 1 = 5; row 9 of the warp and k >= 8: a3
    (37, 3, 0)
    """
    if not (0 <= m < 64 and 0 <= k < 16):
        raise LayoutError(f"(m, k)=({m}, {k}) is outside the 64 x 16 A of one k16 step")
    t, v = _a_owners()[m + 64 * k]
    return t, v // 2, v % 2


@functools.lru_cache(maxsize=1)
def _a_owners() -> dict:
    L = a_layout()
    return {int(L(t, v)): (t, v) for t in range(WARPGROUP) for v in range(8)}


def a_warp_layout(warp: int = 0):
    """Warp ``warp``'s share of the RS form's A as a TV layout of its own 16 x 16: 32 lanes, 8
    values, ``(lane, value) -> m' + 16 k`` with ``m = 16 warp + m'``. Built from the registry's A
    layout and checked against it on every (lane, value).

    >>> print(a_warp_layout(1))
    ((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))
    """
    if warp not in range(4):
        raise LayoutError(f"warp must be 0..3 (a warpgroup has four warps), got {warp!r}")
    L = a_layout()
    mine = make_layout(((S(4), S(8)), (S(2), S(2), S(2))), ((S(32), S(1)), (S(16), S(8), S(128))))
    for lane in range(32):
        for v in range(8):
            idx = int(L(32 * warp + lane, v))
            if (idx % 64 - 16 * warp) + 16 * (idx // 64) != int(mine(lane, v)):
                raise LayoutError(f"warp {warp}: lane {lane}, value {v} of {L} is not {mine}")
    return mine


def a_warp_layout_matches() -> bool:
    """Warp ``w``'s share of the RS form's A is ``mma.sync``'s m16n8k16 A layout
    (``SM80_16x8x16_F32F16F16F32_TN``) on rows ``16w .. 16w + 15``: the same registers, the same
    halves, the same elements of its 16 rows."""
    from labkit.atoms.mma_atoms import mma_atom

    a16 = mma_atom("SM80_16x8x16_F32F16F16F32_TN").layout_A          # (lane, v) -> m + 16 k
    shares = [a_warp_layout(warp) for warp in range(4)]
    return all(int(mine(lane, v)) == int(a16(lane, v)) for mine in shares for lane in range(32) for v in range(8))


def registers_text(ns=(8, 64, 128, 256)) -> str:
    """Accumulator registers a thread holds, per N, from the GMMA registry.

    >>> print(registers_text((64,)))
    m64n64k16: 32 f32 registers a thread (f16 accumulators: 16 u32); 64 x 64 = 4096 elements over 128 threads
    """
    out = []
    for n in ns:
        f32 = GMMA_BY_ATOM[f"SM90_64x{n}x16_F32F16F16_SS"].registers["C"]
        f16 = GMMA_BY_ATOM[f"SM90_64x{n}x16_F16F16F16_SS"].registers["C"]
        out.append(f"m64n{n}k16: {f32[0]} {f32[1]} registers a thread (f16 accumulators: {f16[0]} {f16[1]}); "
                   f"64 x {n} = {64 * n} elements over {WARPGROUP} threads")
    return "\n".join(out)


def sm90_present() -> bool:
    """Whether numba sees a GPU of compute capability 9.0 (an H100 or H200), the only one that
    runs ``wgmma`` (target ``sm_90a``); False without a driver, without a GPU or under numba's
    CUDA simulator."""
    from labkit.driver import cuda_device_count
    try:
        if cuda_device_count() < 1:
            return False
        from labkit.cuda import SIMULATED, device_sm
        return not SIMULATED and device_sm() == 90
    except Exception:  # noqa: BLE001 - no usable driver is "no"
        return False


# ------------------------------------------------------------------- the pipeline, as a schedule

@dataclass(frozen=True)
class Event:
    """One bar (``start < end``) or mark (``start == end``) of a timeline row."""

    row: str
    start: float
    end: float
    label: str
    kind: str


@dataclass(frozen=True)
class Schedule:
    """Rows, events and a title: what :func:`labkit.viz.draw_timeline` draws."""

    title: str
    rows: tuple
    events: tuple

    def text(self) -> str:
        """The events in time order, one line each."""
        return "\n".join(f"t={e.start:>4g}  {e.row:<22} {e.label}" for e in sorted(
            self.events, key=lambda e: (e.start, self.rows.index(e.row))))


ROWS = ("producer thread", "copy engine (TMA)", "consumer warpgroup", "tensor cores")


def _rows(stages):
    return (ROWS[0],) + tuple(f"TMA into stage {s}" for s in range(stages)) + ROWS[2:]


def pipeline_schedule(stages: int = 2, ktiles: int = 4, load: float = 4.0, mma: float = 3.0) -> Schedule:
    """A schematic of the mainloop of a Hopper GEMM (unit times, not a measurement): one producer
    thread arms ``full[s]`` with ``mbarrier.arrive.expect_tx`` and issues the copy of k-tile
    ``k`` into stage ``s = k % stages`` once ``empty[s]`` says the consumers are done with it;
    the copy engine takes ``load`` and completes the bytes on ``full[s]``; the consumer
    warpgroup waits on ``full[s]``, issues ``wgmma.fence``, the k-tile's wgmma, ``commit_group``
    and ``wait_group 1``, after which the previous k-tile's group is done and its stage is
    released with an arrive on ``empty``. The tensor cores run a group for ``mma``.

    >>> s = pipeline_schedule(2, 3)
    >>> [e.label for e in s.events if e.row == "consumer warpgroup"][:4]
    ['wait full[0]', 'fence', 'wgmma k0', 'commit']
    """
    if ktiles < 1:
        raise LayoutError(f"ktiles={ktiles!r} must be at least 1")
    if stages < 2:
        raise LayoutError(f"stages={stages!r}: with one stage, wait_group 1 keeps the group that reads it "
                          "running, its stage is never released and the producer waits forever (a "
                          "deadlock); one stage needs wait_group 0. Use stages >= 2")
    released: dict = {}
    for _ in range(2 * ktiles + 2):       # the producer waits on releases the consumer makes: iterate
        events, now = _plan(stages, ktiles, load, mma, released)
        if now == released:
            break
        released = now
    return Schedule(f"{stages} stages, {ktiles} k-tiles (schematic units)", _rows(stages), tuple(events))


def _plan(stages, ktiles, load, mma, released):
    ev, landed, producer_t = [], {}, 0.0
    for k in range(ktiles):
        s = k % stages
        if k >= stages:
            producer_t = max(producer_t, released.get(k - stages, 0.0))
            ev.append(Event(ROWS[0], producer_t, producer_t, f"wait empty[{s}]", "wait"))
        ev.append(Event(ROWS[0], producer_t, producer_t + 0.5, f"expect_tx full[{s}]", "sync"))
        ev.append(Event(f"TMA into stage {s}", producer_t + 0.5, producer_t + 0.5 + load, f"k{k}", "copy"))
        landed[k] = producer_t + 0.5 + load
        producer_t += 1.0
    now, consumer_t, tc_free, done = {}, 0.0, 0.0, {}
    for k in range(ktiles):
        s = k % stages
        consumer_t = max(consumer_t, landed[k])
        ev.append(Event(ROWS[2], consumer_t, consumer_t, f"wait full[{s}]", "wait"))
        ev.append(Event(ROWS[2], consumer_t, consumer_t + 0.3, "fence", "sync"))
        ev.append(Event(ROWS[2], consumer_t + 0.3, consumer_t + 0.8, f"wgmma k{k}", "mma"))
        ev.append(Event(ROWS[2], consumer_t + 0.8, consumer_t + 1.0, "commit", "sync"))
        start = max(consumer_t + 0.3, tc_free)
        tc_free = start + mma
        done[k] = tc_free
        ev.append(Event(ROWS[3], start, tc_free, f"group k{k}", "mma"))
        consumer_t += 1.0
        if k >= 1:                        # wait_group 1: group k-1 is done, its stage is free
            consumer_t = max(consumer_t, done[k - 1])
            ev.append(Event(ROWS[2], consumer_t, consumer_t, "wait_group 1", "wait"))
            ev.append(Event(ROWS[2], consumer_t, consumer_t + 0.2, f"arrive empty[{(k - 1) % stages}]", "sync"))
            now[k - 1] = consumer_t + 0.2
            consumer_t += 0.2
    return ev, now


def fixed_cost_split(k: int = 4096) -> str:
    """Step 7's gap to cuBLAS at M = N = 4096 and ``k``, split by the recorded run
    ``wgmma-fixed-cost`` into the part that does not grow with K (the fits' fixed times) and the
    part that does (``k / 64`` k-tiles at each fit's time per 64 of K), and what writing C in f32
    rather than f16 cost cuBLAS at the same ``k``.

    >>> print(fixed_cost_split(4096).splitlines()[0])
    K = 4096, measured: step 7 192.8 us (f32 C); cuBLAS 178.9 us (f16 C), 185.3 us (f32 C)
    """
    from labkit.lab import measurements

    def fig(path):
        return measurements.figure("wgmma-fixed-cost", path).value

    names = {"wgmma": "wgmma", "cuBLAS": "cuBLAS", "f32": "cuBLAS f32 out"}
    try:
        us = {s: fig(f"runs.{v}, K {k}.ms") * 1e3 for s, v in names.items()}
    except measurements.MeasurementError:
        raise LayoutError(f"k={k!r}: the run timed K = 512, 1024, 2048, 4096 and 8192") from None
    fixed = {s: fig(f"fit.{s}.fixed_us") for s in ("wgmma", "cuBLAS")}
    per = {s: fig(f"fit.{s}.per_k64_us") * k / 64 for s in ("wgmma", "cuBLAS")}
    return "\n".join([
        f"K = {k}, measured: step 7 {us['wgmma']:.1f} us (f32 C); cuBLAS {us['cuBLAS']:.1f} us (f16 C), "
        f"{us['f32']:.1f} us (f32 C)",
        f"gap to cuBLAS (f16 C): {us['wgmma'] - us['cuBLAS']:.1f} us; in the fits:",
        f"  fixed part: {fixed['wgmma']:.1f} vs {fixed['cuBLAS']:.1f} us, difference "
        f"{fixed['wgmma'] - fixed['cuBLAS']:.1f}",
        f"  {k // 64} k-tiles: {per['wgmma']:.1f} vs {per['cuBLAS']:.1f} us, difference "
        f"{per['wgmma'] - per['cuBLAS']:.1f}",
        f"f32 C instead of f16 cost cuBLAS {us['f32'] - us['cuBLAS']:.1f} us; step 7 is "
        f"{us['wgmma'] - us['f32']:.1f} us behind cuBLAS writing f32"])


def ceiling_ratio() -> str:
    """The measured wgmma ceiling over the best ``mma.sync`` issue rate of the same GPU, both
    read from the recorded runs (:mod:`labkit.lab.measurements`).

    >>> ceiling_ratio().startswith("wgmma / mma.sync: ")
    True
    """
    from labkit.lab import measurements
    wg = measurements.figure("wgmma-peak", "best_tflops").value
    rates = {p: v for p, v in measurements.figures("gemm").items() if p.startswith("mma_rate.tflops.")}
    best = max(rates.values())
    return f"wgmma / mma.sync: {wg / best:.2f}x, against the best of the recorded mma.sync chains"
