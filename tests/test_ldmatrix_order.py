"""The mistaken page-order drawing of ldmatrix.x4 against the MMA's order.

Expected values: the PTX ISA's fragment layout of mma.m16n8k16's A (a0: rows 0-7, K 0-7; a1:
rows 8-15, K 0-7; a2: rows 0-7, K 8-15; a3: rows 8-15, K 8-15; lane t holds row t/4, columns
2(t%4) and +1 of each), the ldmatrix rule (lanes 8i..8i+7 address matrix i, which lands in
register i), and A(0,9) at lane 0, value 5, high half of a2 (CuTe's SM80 A layout, worked by hand).
"""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from labkit.lab import ldmatrix_order as lo
from labkit.errors import LabkitError


def isa_register(m: int, k: int) -> int:
    return (m >= 8) + 2 * (k >= 8)


def test_cute_order_is_the_isa_fragment():
    asg = lo.x4_assignment("cute")
    for m in range(16):
        for k in range(16):
            assert tuple(asg[m, k]) == (4 * (m % 8) + (k % 8) // 2, isa_register(m, k), k % 2)
    assert tuple(asg[0, 9]) == (0, 2, 1)           # A(0,9): lane 0, a2, high half


def test_mistaken_order_swaps_a1_and_a2():
    cute, wrong = lo.x4_assignment("cute"), lo.x4_assignment("mistaken")
    assert np.array_equal(cute[..., 0], wrong[..., 0]) and np.array_equal(cute[..., 2], wrong[..., 2])
    swap = {0: 0, 1: 2, 2: 1, 3: 3}
    assert all(wrong[m, k, 1] == swap[cute[m, k, 1]] for m in range(16) for k in range(16))


def test_addresses_follow_the_lane_rule():
    # 16x16 fp16 row-major: row m starts at byte 32 m; K 8 is 16 bytes in
    cute = lo.x4_row_addresses("cute")
    assert [cute[t] for t in (0, 7, 8, 15, 16, 24, 31)] == [0, 224, 256, 480, 16, 272, 496]
    wrong = lo.x4_row_addresses("mistaken")
    assert [wrong[t] for t in (8, 16)] == [16, 256]
    assert lo.x4_row_addresses("cute", row_stride=24)[8] == 2 * 8 * 24
    with pytest.raises(LabkitError, match="order"):
        lo.x4_origins("page")
    with pytest.raises(LabkitError, match="row_stride"):
        lo.x4_row_addresses("cute", row_stride=12)


def test_the_simulator_shows_the_evidence():
    right, wrong = lo.run_x4_order("cute"), lo.run_x4_order("mistaken")
    assert right.exact and not right.exact_if_swapped
    assert not wrong.exact and wrong.exact_if_swapped and wrong.max_error > 0
    # lane 0: a0 = A(0,0..1), a1 = A(8,0..1), a2 = A(0,8..9), a3 = A(8,8..9)
    assert right.lane0 == [(0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9)]
    assert wrong.lane0 == [(0, 0), (0, 1), (0, 8), (0, 9), (8, 0), (8, 1), (8, 8), (8, 9)]
    with pytest.raises(LabkitError, match="m16n8k16"):
        lo.run_x4_order("cute", atom="SM80_16x8x8_F32F16F16F32_TN")


def test_drawing_labels_lanes_and_registers():
    from labkit.viz.ldmatrix_orders import draw_x4_orders
    fig = draw_x4_orders()
    texts = [t.get_text() for t in fig.axes[0].texts]
    # each of the two orders names every matrix and its register once (CuTe's and the mistaken one)
    assert sum("matrix 1 → a1" in t for t in texts) == 2 and sum("matrix 2 → a2" in t for t in texts) == 2
    assert set(fig.blocks) == {"mistaken", "cute"}
    assert "mistaken" in fig.alt_text and "swapped" in fig.alt_text
