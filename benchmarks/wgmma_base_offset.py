"""What does wgmma read when a swizzled operand starts off the swizzle pattern's 1024-byte boundary?

One warpgroup's ``wgmma.mma_async.m64n64k16.f32.f16.f16`` (the probe kernel of
``labkit.cuda.kernels.probes.wgmma_probe``) reads a K-major, 128-byte swizzled A of 64 x 64 halves placed
at six start addresses (one on the boundary, five past it by 1 to 10 rows of 128 bytes) in two
ways: swizzled on the absolute shared-memory address, as CuTe's ``Sw<3,4,3>`` pointer writes it,
and with the pattern restarted at the start address (``labkit.cli.verify_wgmma.offset_image``).
Each image is read with every base offset 0..7 in A's descriptors: 96 launches. A and B are
small integers (``numpy.random.default_rng(0)``: A, then B, integers in [-3, 4), 64 x 64), so
every D is exact; the run records, per launch, how many elements of D equal ``A @ B.T`` and the
SHA-256 of D (64 x 64 float32, row-major), which ``tests/test_wgmma_sim.py`` compares with what
``labkit.sim.wgmma`` predicts for the same bytes and descriptors.

    python benchmarks/wgmma_base_offset.py [--json PATH]
"""

import argparse
import hashlib
import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from labkit.cli.verify_wgmma import offset_image, with_base_offset  # noqa: E402
from labkit.elements import to_bits  # noqa: E402

ENTRY = "wgmma_m64n64k16_f32f16f16_ss"
STARTS = (16384, 16384 + 128, 16384 + 384, 16384 + 512, 16384 + 896, 16384 + 1024 + 256)
LAYOUTS = {"absolute": False, "restarted": True}


def inputs():
    """A and B (64 x 64 integers) of the run."""
    rng = np.random.default_rng(0)
    return rng.integers(-3, 4, (64, 64)), rng.integers(-3, 4, (64, 64))


def d_sha256(D) -> str:
    return hashlib.sha256(np.ascontiguousarray(D, np.float32).tobytes()).hexdigest()


def launches(plan, to_bits):
    """Every (layout, start, base offset) with its image and descriptors."""
    A, B = inputs()
    for layout, restarted in LAYOUTS.items():
        for start in STARTS:
            img, descs = offset_image(plan, to_bits(A, "f16"), to_bits(B, "f16"), start, restarted)
            for b in range(8):
                yield layout, start, b, img, with_base_offset(descs, b)


def summarize(records, date, gpu) -> dict:
    """The run's file: where and when, D right per kind of read (``reads``), every launch
    (``measured``: layout, start, base offset, elements of D right, SHA-256 of D)."""
    def kind(r):
        phase = 0 if r["layout"] == "absolute" else (r["start"] >> 7) % 8
        want = "base offset 0" if r["layout"] == "absolute" else "base offset (start >> 7) % 8"
        return f"{r['layout']}, {want if r['base_offset'] == phase else 'any other base offset'}"

    kinds = {}
    for r in records:
        k = kinds.setdefault(kind(r), {"variant": kind(r), "launches": 0, "d_right": 0})
        k["launches"] += 1
        k["d_right"] += int(r["right"] == 64 * 64)
    return {"date": date, "gpu": gpu,
            "description": ("wgmma.mma_async m64n64k16 (f32.f16.f16) reading a K-major, 128-byte swizzled "
                            "A of 64 x 64 halves at six start addresses, swizzled on the absolute address "
                            "or restarted at the start, with each base offset 0 to 7: how many reads gave "
                            "D = A @ B.T exactly."),
           "entry": ENTRY, "reads": list(kinds.values()), "measured": records}


def main():
    from labkit.cuda.kernels.probes import wgmma_probe as wp

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", default=None)
    args = p.parse_args()
    plan = wp.make_plan(ENTRY, "K", "SW128", "K", "SW128")
    A, B = inputs()
    records = []
    for layout, start, b, img, descs in launches(plan, to_bits):
        D = wp.wgmma_run(plan, img, descs)
        records.append({"layout": layout, "start": start, "base_offset": b,
                        "right": int((D == A @ B.T).sum()), "d_sha256": d_sha256(D)})
        print(records[-1], flush=True)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    out = summarize(records, datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), smi)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
