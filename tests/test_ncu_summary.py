"""benchmarks/ncu_summary.py reads Nsight Compute's text reports, and the recorded profile run
holds what its raw reports say."""

import doctest
import json
from pathlib import Path

from bench_scripts import load

REPO = Path(__file__).resolve().parents[1]
RUN = REPO / "benchmarks" / "results" / "hopper_profile_ncu_h100_2026-12-05"


def _module():
    return load("ncu_summary")


def test_docstring_examples():
    mod = _module()
    assert doctest.testmod(mod).failed == 0


def test_units_are_scaled_and_rows_without_a_known_unit_skipped():
    # rows as ncu 2025 prints them; a duration in ms and a DRAM count in Gbyte
    text = ("  k (2, 66, 1)x(384, 1, 1), Context 1\n"
            "    Duration                         ms         1.25\n"
            "    dram__bytes_read.sum     Gbyte       1.50\n"
            "    SM Frequency                    furlong         9\n")
    got = _module().summary(text)
    assert got["time_us"] == 1250.0 and got["dram_read_mb"] == 1500.0 and "sm_clock_ghz" not in got


def test_the_recorded_profile_is_what_its_raw_reports_say():
    mod = _module()
    record = json.loads(RUN.with_suffix(".json").read_text())
    raw = RUN.with_suffix(".txt").read_text().split("===== ")[1:]
    assert len(raw) == len(record["profile"]) == 3
    for (who, fig), text in zip(record["profile"].items(), raw):
        parsed = mod.summary(text)
        for key, value in fig.items():
            assert abs(parsed[key] - value) <= 0.5, (who, key)      # SM active cycles: rounded
