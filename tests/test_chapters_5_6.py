"""Chapters 5 (swizzle) and 6 (ldmatrix -> mma.sync): their labs run on this machine's backend
and show the facts of the seeds (the graded exercises are checked in test_exercises.py).

Expected values come from the seeds (000: the A(0,9) path, lane 0's table; 001: the 8x8 toy,
the 8-way ldmatrix conflict), the hardware run in docs/benchmarks.md, the PTX ISA's bank and fp16 rules worked by hand, never
from the code under test.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
LABS = {name: REPO / "notebooks" / f"{name}.ipynb" for name in ("05_banks_swizzle", "06_fragment_trace")}
BACKENDS = ("gpu", "cudasim", "sim")


def outputs_by_first_line(nb) -> dict[str, str]:
    out = {}
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.strip():
            text = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")
            out[cell.source.splitlines()[0]] = text
    return out


def run_lab(executed_page, path: Path) -> dict[str, str]:
    nb = executed_page(path)
    return outputs_by_first_line(nb)


# The labs ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_lab5_runs_and_counts_banks(executed_page):
    out = run_lab(executed_page, LABS["05_banks_swizzle"])
    backend = out["import numpy as np"].strip()
    assert re.fullmatch(r"backend: (gpu|cudasim|sim)", backend), backend

    # a column of a row-major fp32 tile with rows of s words: lane l hits bank (s*l) mod 32,
    # so gcd(s, 32) lanes share each bank; padding 32 to 33 words removes the conflict
    strides = out["for stride in (1, 2, 4, 8, 16, 32, 33):"].splitlines()
    for line, s in zip(strides, (1, 2, 4, 8, 16, 32, 33)):
        assert line.endswith(f"degree {math.gcd(s, 32)}"), line

    # seed 001's toy: a column is 8 cycles row-major, 1 cycle with col XOR row
    toy = out["plain_toy, xor_toy = lk.xor_toy_layout(swizzled=False), lk.xor_toy_layout()"]
    rows = [line for line in toy.splitlines() if line.startswith(" 1  |")]
    assert [int(v) for v in rows[0].split("|")[1:-1]] == [9, 8, 11, 10, 13, 12, 15, 14]   # PTX ISA figure, row 1
    assert toy.count("row-major 8 cycles, XOR 1 cycle") == 8

    # the 128x64 fp16 tile: 32 ldmatrix.x4 of 4 phases. Row-major rows are 128 B apart, so all 8
    # rows of a phase sit in banks 0-3: 8 wavefronts per phase (seed 001), 32*4*8 = 1024 in all;
    # sgemm_sm80's swizzled tile is conflict-free: 32*4 = 128. The blocked atom without the
    # swizzle puts a row's 8 chunks 128 B apart, so the 16x8-thread cp.async writes conflict 8 ways.
    tiles = {line.split()[0]: line for line in out['cp_async = lk.make_tiled_copy(lk.copy_atom("SM80_CP_ASYNC_CACHEALWAYS", "f16"),'].splitlines()}
    assert "ldmatrix  1024 wavefronts (min 128), cp.async   128 (min 128)" in tiles["row-major"]
    assert "ldmatrix   128 wavefronts (min 128), cp.async  1024 (min 128)" in tiles["blocked"]
    assert "ldmatrix   128 wavefronts (min 128), cp.async   128 (min 128)" in tiles["sgemm_sm80"]

    # the warp simulator's account of one ldmatrix.x4: 4 phases x 8-way, then 4 phases x 1
    sim = out["smem = lk.SharedMemory(16 * 64 * 2)"].splitlines()
    assert sim[0].endswith("32 wavefronts, degree 8") and sim[1].endswith("4 wavefronts, degree 1")

    cta = out['sm80 = lab.default_atom() == "SM80_16x8x16_F16F16F16F16_TN"      # False on sm_75 (e.g. a T4)']
    assert re.match(r"backend: (gpu|cudasim|sim) \|", cta)
    assert "registers == labkit.sim: True" in cta
    assert cta.count("worst degree 1") == 2     # cp.async and ldmatrix: the swizzle serves both


@pytest.mark.slow
def test_lab6_traces_fragments(executed_page):
    out = run_lab(executed_page, LABS["06_fragment_trace"])
    backend = out["%matplotlib inline"].splitlines()[0]
    assert backend in {f"backend: {b}" for b in BACKENDS}, backend
    trace = out["trace = lab.trace_mma()"]
    assert "registers == labkit.sim: True" in trace
    stage_a = out['print(trace.table("A", lanes=range(8)))']
    if "SM80_16x8x16" in trace:
        # seed 000's lane-0 table (and what an H200 returned, docs/benchmarks.md)
        assert "lane 0: [[0, 0], [0, 1], [8, 0], [8, 1], [0, 8], [0, 9], [8, 8], [8, 9]]" in stage_a
        # fp16 bit patterns: 8.0 = 0x4800, 9.0 = 0x4880, so a2 = 0x48804800
        regs = out['for j, word in enumerate(trace.regs["A"][0]):']
        assert "lane 0, a2 = 0x48804800: low 8 = A(0, 8), high 9 = A(0, 9)" in regs
        assert "holds 9 there (16*0 + 9 = 9)" in out['path = lk.trace_element("A", (0, 9))']
    assert re.search(r"(\d+) of \1 A values are where", stage_a)
    assert re.search(r"(\d+) of \1 B values are where", out['coords_B = trace.coords("B")'])
    stage_d = out["exact = trace.a @ trace.b.T"]
    assert re.search(r"(\d+) of \1 D values equal", stage_d) and "D == A·Bᵀ as a matrix: True" in stage_d
    # seed 000's path of A(0,9)
    path = out['path = lk.trace_element("A", (0, 9))'].splitlines()[0]
    assert path == ("A(0,9): shared-memory offset 9 -> source lane 16, row element 1 -> copy element e=129 "
                    "-> reference TV index 160 -> matrix index q=144 -> destination lane 0, slot 5 -> "
                    "tCrA(5,0,0) -> operand a2, high 16 bits")
    variants = out['a_regs = trace.spec.registers("A")'].splitlines()
    assert len(variants) >= 4 and all(line.endswith("registers as x4: True, D: True") or
                                      line.endswith("registers as x2: True, D: True") for line in variants)
    assert out["t75 = lab.trace_mma(atom=lab.default_atom(75))"].splitlines()[1] == \
        "lane 0 A: [[0, 0], [0, 1], [8, 0], [8, 1]]  B: [[0, 0], [0, 1]]"      # m16n8k8, PTX ISA
    assert "D == A·Bᵀ: True" in out["m, n, k = trace.spec.shape_mnk"]
    cta = out['sm80 = lab.default_atom() == "SM80_16x8x16_F16F16F16F16_TN"      # False on sm_75 (e.g. a T4)']
    assert "registers == labkit.sim: True" in cta and cta.rstrip().endswith(": True")


# The book ----------------------------------------------------------------------------------


def test_chapters_are_in_the_toc():
    toc = yaml.safe_load((REPO / "_toc.yml").read_text())
    files = [c["file"] for part in toc["parts"] for c in part["chapters"]]
    six = ["book/06a_one_warp_mma", "book/06b_sgemm_sm80_cta", "book/06c_gemm_ladder", "book/06d_gemm_tma",
           "book/06e_ladder_in_cute"]
    start = files.index("book/05_swizzle") + 1
    assert files[start:start + len(six)] == six
    assert all(files.index(f) < files.index("book/gallery") for f in six)
