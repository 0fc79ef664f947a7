"""Chapter 6g and lab 8 (labkit.lab.wgmma), and the variants of exercise 8.

Expected values come from the PTX ISA (the wgmma D fragment: warp w holds rows 16w..16w+15, lane
l rows l/4 and l/4 + 8, columns 2 (l % 4) + 0, 1 of every 8-column block; the K-major canonical
layouts of "Shared Memory Matrix Layout"; the bit positions of "Matrix Descriptor Format"), from
CuTe's make_gmma_desc worked by hand for the tiles here (tile_to_shape stacks atoms down M or N
first), from numpy's A @ B.T on small integers, and from the recorded runs' files: never from the
code under test.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from labkit.errors import LabkitError, LayoutError
from labkit.grading import variants
from labkit.lab import wgmma

REPO = Path(__file__).resolve().parents[1]
EX = "08_wgmma"


def ptx_owner(m, n):
    """(thread, value) of D(m, n), m64nNk16 f32 (PTX ISA's wgmma D fragment)."""
    warp, r = divmod(m, 16)
    lane = 4 * (r % 8) + (n % 8) // 2
    return 32 * warp + lane, (n % 2) + 2 * (r // 8) + 4 * (n // 8)


def swizzle128(byte):
    return byte ^ ((byte >> 7) & 7) << 4


def k_major_sw128_byte(row, k):
    return 1024 * (row // 8) + swizzle128(128 * (row % 8) + 2 * k)


def encode(start, lbo, sbo, layout_type):
    """PTX ISA bits: start >> 4 at 0, LBO >> 4 at 16, SBO >> 4 at 32, the type at 62 (bytes in)."""
    return (start >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | layout_type << 62


TYPES = {"INTERLEAVE": 0, "B128": 1, "B64": 2, "B32": 3}
W = {"INTER": 1, "SW32": 2, "SW64": 4, "SW128": 8}


@pytest.mark.parametrize("layout,kk", [("INTERLEAVE", 16), ("B128", 64)])
@pytest.mark.parametrize("n", [8, 64, 256])
def test_the_twin_computes_a_times_b_transposed(layout, kk, n):
    rng = np.random.default_rng(n)
    A = rng.integers(-3, 4, (64, kk)).astype(np.float16)
    B = rng.integers(-3, 4, (n, kk)).astype(np.float16)
    D = wgmma.twin_matmul(A, B, layout)
    assert D.dtype == np.float32 and D.shape == (64, n)
    assert np.array_equal(D, A.astype(np.float64) @ B.astype(np.float64).T)


@pytest.mark.parametrize("layout,kk", [("INTERLEAVE", 16), ("B128", 64)])
@pytest.mark.parametrize("n", [8, 128])
def test_the_rs_twin_takes_a_from_registers_and_computes_the_same(layout, kk, n):
    rng = np.random.default_rng(100 + n)
    A = rng.integers(-3, 4, (64, kk)).astype(np.float16)
    B = rng.integers(-3, 4, (n, kk)).astype(np.float16)
    D = wgmma.twin_matmul(A, B, layout, a_from="registers")
    assert np.array_equal(D, A.astype(np.float64) @ B.astype(np.float64).T)
    # a tampered SBO reaches only B (the RS form has no A descriptor), and B of 8 rows is one
    # 8-row group: SBO, the distance to the next group, is never used
    bad = wgmma.twin_matmul(A, B, layout, {"stride_byte_offset": 4}, a_from="registers")
    assert np.array_equal(bad, D) == (n == 8)


def ptx_a_owner(m, k):
    """(thread, register, half) of A(m, k), m64nNk16 16-bit A in registers (PTX ISA's wgmma A
    fragment: warp m // 16; lane 4 * (row % 8) + (k % 8) // 2; register (row // 8) + 2 (k // 8);
    half k % 2)."""
    warp, r = divmod(m, 16)
    return 32 * warp + 4 * (r % 8) + (k % 8) // 2, (r // 8) + 2 * (k // 8), k % 2


def test_a_owner_is_the_ptx_fragment_and_each_warp_holds_mma_sync_a():
    for m in range(64):
        for k in range(16):
            assert wgmma.a_owner(m, k) == ptx_a_owner(m, k), (m, k)
    assert wgmma.a_warp_layout_matches()
    for warp in range(4):                               # the warp's share, by the same PTX ISA rule
        L = wgmma.a_warp_layout(warp)
        for lane in range(32):
            for v in range(8):
                i = int(L(lane, v))
                assert ptx_a_owner(16 * warp + i % 16, i // 16) == (32 * warp + lane, v // 2, v % 2)
    with pytest.raises(LayoutError, match="warp must be"):
        wgmma.a_warp_layout(4)
    with pytest.raises(LayoutError, match="outside the 64 x 16 A"):
        wgmma.a_owner(64, 0)
    with pytest.raises(LayoutError, match="a_from must be 'smem'"):
        wgmma.twin_matmul(np.zeros((64, 16)), np.zeros((8, 16)), a_from="regs")


@pytest.mark.parametrize("start", [16384, 17024, 16384 + 1024 + 256])
def test_base_offset_reads_follow_cutes_swizzle_and_the_isas_base_offset(start):
    # CuTe's Sw<3,4,3> on the absolute address puts chunk 0 of row r in chunk ((start >> 7) + r) % 8;
    # restarted at the start, in chunk r; the PTX ISA's base offset (start >> 7) & 7 reads chunk r
    phase = (start >> 7) & 7
    lines = wgmma.base_offset_reads(start).splitlines()
    assert lines[0].endswith(f"(start >> 7) % 8 = {phase}")
    for r, line in enumerate(lines[2:]):
        assert [int(x) for x in line.split()] == [r, (phase + r) % 8, r, (phase + r) % 8, r]
    wrong = {line.split(":")[0]: int(line.split(": ")[1].split()[0]) for line in
             wgmma.base_offset_wrong(start).splitlines()[1:]}
    assert wrong.pop("A on the absolute address, base offset 0") == 0
    assert wrong.pop(f"A restarted at the start, base offset {phase}") == 0
    assert all(v > 3000 for v in wrong.values()) and len(wrong) == (0 if phase == 0 else 2)
    with pytest.raises(LayoutError, match="multiple of 128"):
        wgmma.base_offset_reads(17000)


def test_twin_refuses_bad_shapes_and_layouts():
    with pytest.raises(LayoutError, match="64 x 16"):
        wgmma.twin_matmul(np.zeros((64, 32)), np.zeros((8, 32)), "INTERLEAVE")
    with pytest.raises(LayoutError, match="layout must be one of"):
        wgmma.twin_matmul(np.zeros((64, 16)), np.zeros((8, 16)), "B64")


def test_descriptors_of_the_canonical_k_major_tiles():
    # 64 x 16 halves, no swizzle: 8x8 atoms (128 B) stacked down M, so SBO = 128 B, LBO = 64 rows x 16 B
    d = wgmma.descriptor("K", "INTER", 64, 16)
    assert (d.leading_bytes, d.stride_bytes, d.layout_type.name) == (1024, 128, "INTERLEAVE")
    # 128-byte swizzle: 8 rows of 128 B per group, LBO unused (CuTe writes 1)
    d = wgmma.descriptor("K", "SW128", 64, 64, kblock=1, start=0x400)
    assert d.encode() == encode(0x400 + 32, 16, 1024, TYPES["B128"])
    # MN-major 128-byte swizzle, N = 128: the next atom (64 halves x 8 K rows = 1024 B) along N, K rows 8-15 after both
    d = wgmma.descriptor("MN", "SW128", 128, 16)
    assert (d.leading_bytes, d.stride_bytes) == (1024, 2048)


def test_core_matrix_starts_follow_sbo_down_and_lbo_across():
    d = wgmma.descriptor("K", "INTER", 64, 16)
    starts = wgmma.core_matrix_starts(d.encode(), 64)
    assert starts.tolist() == [[128 * g, 1024 + 128 * g] for g in range(8)]


def test_a_wrong_sbo_or_type_reads_garbage_and_a_swizzled_lbo_is_unused():
    rows = {r["descriptor"]: r for r in wgmma.wrong_descriptors("B128")}
    assert rows["as make_gmma_desc builds it"]["wrong"] == 0
    assert rows["LBO = 4 (unused by swizzled K-major)"]["wrong"] == 0
    assert rows["SBO = 512 bytes instead of 1024"]["wrong"] > 2000
    assert rows["layout type INTERLEAVE instead of B128"]["wrong"] > 2000
    inter = {r["descriptor"]: r for r in wgmma.wrong_descriptors("INTERLEAVE")}
    assert inter["as make_gmma_desc builds it"]["wrong"] == 0
    assert all(r["wrong"] > 2000 for k, r in inter.items() if k != "as make_gmma_desc builds it")


@pytest.mark.parametrize("N", [8, 16, 64, 256])
def test_owner_is_the_ptx_fragment(N):
    for m in range(64):
        for n in range(N):
            assert wgmma.owner(m, n, N) == ptx_owner(m, n), (m, n)


def test_each_warp_holds_mma_sync_m16n8_fragments():
    assert wgmma.warp_layout_matches(64) and wgmma.warp_layout_matches(16)
    L = wgmma.warp_layout(16, 1)
    for lane in range(32):
        for v in range(8):
            t, _ = ptx_owner(16 + int(L(lane, v)) % 16, int(L(lane, v)) // 16)
            assert t == 32 + lane
    with pytest.raises(LayoutError, match="warp must be"):
        wgmma.warp_layout(16, 4)


def test_registers_text_counts_n_over_2_f32_registers():
    for n in (8, 64, 128, 256):
        assert f"m64n{n}k16: {n // 2} f32 registers" in wgmma.registers_text((n,))


def test_no_sm90_here_without_a_driver(monkeypatch):
    monkeypatch.setattr("labkit.driver.cuda_device_count", lambda: 0)
    assert wgmma.sm90_present() is False


@pytest.mark.parametrize("stages", [2, 3, 4])
def test_pipeline_schedule_keeps_the_barriers(stages):
    s = wgmma.pipeline_schedule(stages=stages, ktiles=6)
    ev = s.events
    copy = {int(e.label[1:]): e for e in ev if e.kind == "copy"}
    groups = sorted((e for e in ev if e.row == "tensor cores"), key=lambda e: e.start)
    releases = [e for e in ev if e.label.startswith("arrive empty")]
    assert len(copy) == 6 and len(groups) == 6 and len(releases) == 5
    # the tensor cores run one group at a time, each after its k-tile landed
    assert all(a.end <= b.start + 1e-9 for a, b in zip(groups, groups[1:]))
    assert all(g.start >= copy[int(g.label.split("k")[1])].end for g in groups)
    # a stage is refilled only after its previous k-tile's group finished and was released
    for k in range(stages, 6):
        prev_group = groups[k - stages]
        assert copy[k].start >= prev_group.end, (k, copy[k], prev_group)
    with pytest.raises(LayoutError, match="deadlock"):
        wgmma.pipeline_schedule(stages=1)


def test_timeline_drawing():
    import matplotlib
    matplotlib.use("Agg")
    from labkit import viz
    fig = viz.draw_timeline(wgmma.pipeline_schedule(2, 4))
    assert fig.alt_text.startswith("Timeline of 2 stages, 4 k-tiles")
    with pytest.raises(LabkitError):
        viz.draw_timeline(type("S", (), {"rows": (), "events": (), "title": ""})())


def test_the_chapter_cites_the_best_mma_sync_rate_and_the_wgmma_run():
    page = (REPO / "book" / "06g_wgmma.md").read_text()
    cited = re.findall(r"\{measured\}`([^`]+)`", page)
    assert "wgmma-peak:best_tflops:.1f" in cited
    path = next(c for c in cited if c.startswith("gemm:mma_rate")).split(":")[1]
    record = json.loads((REPO / "benchmarks" / "results" / "gemm_h200_2026-12-01.json").read_text())
    rates = {(a, b): v for a, row in record["mma_rate"]["tflops"].items() for b, v in row.items()}
    _, _, a, b = path.split(".")
    assert rates[a, b] == max(rates.values())          # "at most" is the best of the recorded chains
    peak = json.loads((REPO / "benchmarks" / "results" / "wgmma_peak_h200_2026-12-02.json").read_text())
    assert wgmma.ceiling_ratio().startswith(f"wgmma / mma.sync: {peak['best_tflops'] / max(rates.values()):.2f}x")


def test_lab_calls_the_gpu_through_one_guarded_entry_point():
    import nbformat
    nb = nbformat.read(REPO / "notebooks" / "08_wgmma.ipynb", as_version=4)
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    lines = code.splitlines()
    calls = [i for i, line in enumerate(lines) if "wgmma.device_matmul(" in line]
    assert len(calls) == 2 and "wgmma_probe" not in code         # the SS and the RS runs
    assert all(lines[i - 1].strip() == "if on_hopper:" for i in calls)
    assert "../book/06g_wgmma.md" in "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")


# ---------------------------------------------------------------------- exercise 8's variants

BOOK_ANSWERS = {"q2": (8, 64, "Sw<3,4,3>"), "q3": (1, 16, "B32"), "q4": (2, 3, 1202), "q5": (1024, 2048),
                "q6": (37, 6), "q7": (4, 128, 64), "q8": (1056, 16, 1024, "B128"), "q9": (1, 4),
                "q10": encode(2048 + 32, 16, 512, TYPES["B64"]), "q11": (37, 3, 0), "q12": (0, 5, 0),
                # e4m3: K 32 a wgmma (32 bytes), 128 of them in a 128-byte k-tile, 4 wgmma, 2 units of 16 B apart
                "q13": (32, 128, 4, 2),
                # 3.3 = 1.65 x 2^1: exponent field 1 + 7 = 8, mantissa 0.65 x 8 = 5.2 -> 5: 0.1000.101
                "q14": (0b01000101, 8, 5),
                # 8-bit atoms exist only K-major (_TN); (128 + 256) rows of 128 bytes; 64 x 256 / 128 threads
                "q15": ("SM90_64x256x32_F32E4M3E4M3_SS_TN", 128, 49152, 128),
                # tile 5 is odd: consumer 1; its first k-tile is the 320th of the stream: stage 320 % 6 = 2,
                # after 53 full rounds of the 6 stages: parity 1
                "q16": (1, 320, 2, 1),
                # 2 consumers in each of 2 CTAs free a stage; A's 128 rows (16384 bytes), then rank 1's
                # 128 rows of B; pair index 5 of 16 pair rows: group 0 (pair rows 0-3), column 5 // 4 = 1,
                # pair row 5 % 4 = 1, so tile rows 2 and 3: rank 1 has (3, 1)
                "q17": (4, 32768, (3, 1))}

FP8 = {"e4m3": (3, 7, 448.0, 0x7E), "e5m2": (2, 15, 57344.0, 0x7B)}    # mantissa bits, bias, max, max code (OCP)


def hand_fp8(x, fmt):
    """cvt.rn.satfinite to an OCP 8-bit float, by the rule: nearest, ties to even, clamped."""
    m_bits, bias, top, top_code = FP8[fmt]
    sign, a = (0x80 if x < 0 else 0), abs(x)
    if a < 2.0 ** (1 - bias):                                   # subnormal: exponent field 0
        code = round(a / 2.0 ** (1 - bias - m_bits))
    else:
        e = math.floor(math.log2(a))
        m = round((a / 2.0 ** e - 1) * 2 ** m_bits)              # exact in binary; round() ties to even
        e, m = (e + 1, 0) if m == 2 ** m_bits else (e, m)
        code = ((e + bias) << m_bits) | m
    return sign | min(code, top_code)


def hand(v):
    major, sw, bits = v.atom2
    row = 16 * W[sw] * 8 // bits                    # elements in one row of 16 W bytes
    out = {"q2": (8, row, f"Sw<{W[sw].bit_length() - 1},4,3>") if major == "K" else (row, 8, f"Sw<{W[sw].bit_length() - 1},4,3>")}
    sw3, rows = v.tile3
    if sw3 == "INTER":
        out["q3"] = (rows * 16 // 16, 128 // 16, "INTERLEAVE")
    else:
        out["q3"] = (1, 8 * 16 * W[sw3] // 16, {"SW32": "B32", "SW64": "B64", "SW128": "B128"}[sw3])
    r, k = v.elem4
    out["q4"] = (k // 8, (k // 8) ^ (r % 8), k_major_sw128_byte(r, k))
    sw5, N = v.tile5
    atom_bytes = 8 * 16 * W[sw5]                    # T W elements of N x 8 K rows
    out["q5"] = (atom_bytes, atom_bytes * (N // (8 * W[sw5])))
    out["q6"] = ptx_owner(*v.mn6)
    out["q7"] = (v.bk7 // 16, v.n7 // 2, v.n7 // 4)
    d = v.desc8
    name = {0: "INTERLEAVE", 1: "B128", 2: "B64", 3: "B32"}[d >> 62]
    out["q8"] = ((d & 0x3FFF) << 4, ((d >> 16) & 0x3FFF) << 4, ((d >> 32) & 0x3FFF) << 4, name)
    out["q9"] = (v.wait9[1], v.wait9[0] - v.wait9[1])
    major, sw, N, kblock, start = v.b10
    lt = {"SW32": 3, "SW64": 2, "SW128": 1}[sw]
    if major == "K":
        out["q10"] = encode(start + 32 * kblock, 16, 8 * 16 * W[sw], lt)
    else:
        atom_bytes = 8 * 16 * W[sw]
        out["q10"] = encode(start, atom_bytes if N > 8 * W[sw] else 0, atom_bytes * (N // (8 * W[sw])), lt)
    out["q11"] = ptx_a_owner(*v.a11)
    start, row = v.b12
    # CuTe's Sw<3,4,3> of the absolute address needs base offset 0; a pattern restarted at start
    # needs the PTX ISA's (start >> 7) & 7; CuTe stores chunk 0 of row r in chunk ((start >> 7) + r) % 8
    out["q12"] = (0, (start >> 7) & 7, swizzle128(start + 128 * row) // 16 % 8)
    kind, nbytes = v.kt13
    bits = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8}[kind]
    out["q13"] = (32 * 8 // bits, nbytes * 8 // bits, nbytes // 32, 2)
    fmt, x = v.x14
    code = hand_fp8(x, fmt)
    m_bits = FP8[fmt][0]
    out["q14"] = (code, (code & 0x7F) >> m_bits, code & ((1 << m_bits) - 1))
    a, b, n, consumers = v.cfg15
    out["q15"] = (f"SM90_64x{n}x32_F32{a.upper()}{b.upper()}_SS_TN", 128, (64 * consumers + n) * 128, 64 * n // 128)
    seq, ktiles, stages = v.pp16
    out["q16"] = (seq % 2, seq * ktiles, seq * ktiles % stages, seq * ktiles // stages % 2)
    consumers, bn, rank, tiles_m, tiles_n, index = v.cl17
    pairs_m, order = (tiles_m + 1) // 2, []
    for top in range(0, pairs_m, 4):                 # groups of 4 pair rows, each walked column by column
        for col in range(tiles_n):
            order += [(pair, col) for pair in range(top, min(top + 4, pairs_m))]
    pair, col = order[index]
    out["q17"] = (2 * consumers, 64 * consumers * 128 + rank * bn // 2 * 128, (2 * pair + rank, col))
    return out


def test_variant_zero_is_the_book_exercise():
    assert variants.answers(EX, 0) == BOOK_ANSWERS
    assert hand(variants.of(EX, 0)) == BOOK_ANSWERS


@pytest.mark.parametrize("seed", range(1, 61))
def test_every_question_is_well_posed_and_worked_by_hand(seed):
    v = variants.of(EX, seed)
    got = variants.answers(EX, seed)
    assert got == hand(v)
    for q, book in BOOK_ANSWERS.items():
        assert got[q] != book, q
    assert 0 <= v.desc8 < 1 << 64 and v.wait9[0] > v.wait9[1] >= 0


def test_a_student_id_gives_a_stable_variant():
    assert variants.of(EX, "ana").seed == variants.of(EX, "ana").seed != 0
    assert "08_wgmma, variant 0 (the book's numbers)" in str(variants.of(EX, ""))


def test_the_fixed_cost_fit_is_the_least_squares_line_of_the_recorded_times():
    run = json.loads((REPO / "benchmarks" / "results" / "wgmma_fixed_cost_h200_2026-12-02.json").read_text())
    split = wgmma.fixed_cost_split(4096)
    for fit in run["fit"]:
        rows = [r for r in run["runs"] if r["step"] == fit["step"]]
        assert [r["K"] for r in rows] == [512, 1024, 2048, 4096, 8192]
        assert fit["variant"] in ("wgmma", "cuBLAS", "cuBLAS f32 out")
        X = np.array([[1.0, r["K"] / 64] for r in rows])
        (fixed, per), *_ = np.linalg.lstsq(X, np.array([r["ms"] * 1e3 for r in rows]), rcond=None)
        assert abs(fixed - fit["fixed_us"]) < 1e-6 and abs(per - fit["per_k64_us"]) < 1e-9
        t4096 = next(r["ms"] for r in rows if r["K"] == 4096) * 1e3
        assert abs(fit["fixed_share_at_4096"] - fixed / t4096) < 1e-9
        if fit["variant"] in ("wgmma", "cuBLAS"):
            assert f"{fixed:.1f}" in split and f"{per * 64:.1f}" in split
        assert all(r.get("rel_err", 0) < 1e-4 for r in rows)          # each shape checked before it was timed
    with pytest.raises(LayoutError, match="the run timed K"):
        wgmma.fixed_cost_split(3000)


def test_the_consumer_schedules_overlap_the_epilogue_only_in_ping_pong():
    # worked by hand, main loop 6 and epilogue 2 a tile: the cooperative warpgroups multiply and
    # store together, 4 x (6 + 2) = 32; ping-pong overlaps each epilogue with the other's main
    # loop, 4 x 6 + the last epilogue = 26; an epilogue longer than a main loop (7 > 6) shows
    # through: tile 2 waits for warpgroup 1 until 6 + 7 = 13, so 13 + 6 + 6 + 7 = 32
    coop, pp = wgmma.consumer_schedule("cooperative"), wgmma.consumer_schedule("pingpong")
    assert max(e.end for e in coop.events) == 32 and max(e.end for e in pp.events) == 26
    busy = sorted((e.start, e.end) for e in pp.events if e.row == "tensor cores")
    assert busy == [(0, 6), (6, 12), (12, 18), (18, 24)]                  # never idle between tiles
    idle = sorted((e.start, e.end) for e in coop.events if e.row == "tensor cores")
    assert idle == [(0, 6), (8, 14), (16, 22), (24, 30)]                  # idle through each epilogue
    assert max(e.end for e in wgmma.consumer_schedule("pingpong", 4, 6, 7).events) == 32
    with pytest.raises(LabkitError, match="design must be 'cooperative' or 'pingpong'"):
        wgmma.consumer_schedule("stream-k")
