"""Time the predicated tiled copy of a ragged matrix (chapter 2b) on this machine's GPU.

    python benchmarks/bench_predicated_copy.py --out benchmarks/results [--tag h200] [--shape 8008 7768]

Copies a column-major matrix of halves, 128x128 tiles, one block of 256 threads each, twice:
with one 2-byte copy per value (threads (32,8)) and with one 16-byte vector per value
(threads (16,16), 8 halves down a column); then the same with M rounded up to a multiple of 16
halves, so that every column starts on a 32-byte sector. Writes ``predicated_copy_<tag>_<date>.json`` (the environment and each run's
rows, read back by ``labkit.lab.predicated_copy.recorded``) and a ``.log`` of the printed tables.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="benchmarks/results")
    ap.add_argument("--tag", default="h200")
    ap.add_argument("--shape", type=int, nargs=2, default=(8008, 7768))
    ap.add_argument("--reps", type=int, default=50)
    args = ap.parse_args(argv)

    from labkit.lab import experiments as ex
    from labkit.lab import predicated_copy as pc
    from labkit.lab import backend

    if backend() != "gpu":
        sys.exit("bench_predicated_copy needs a CUDA GPU")
    m, n = args.shape
    env = ex.environment()
    try:
        import subprocess

        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
        env["nvidia-smi"] = smi.stdout.strip()
    except Exception:  # noqa: BLE001 - the driver line is a courtesy
        pass
    e = pc.run((m, n), reps=args.reps)
    aligned = (-(-m // 16) * 16, n)
    e_aligned = pc.run(aligned, reps=args.reps) if aligned != (m, n) else None
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    day = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    stem = out / f"predicated_copy_{args.tag}_{day}"
    data = {"environment": env, "experiment": e.to_dict()}
    if e_aligned is not None:
        data["aligned"] = e_aligned.to_dict()
    stem.with_suffix(".json").write_text(json.dumps(data, indent=1) + "\n")
    text = "\n\n".join([json.dumps(env), str(e)] + ([str(e_aligned)] if e_aligned is not None else []))
    stem.with_suffix(".log").write_text(text + "\n")
    print(text)
    print(f"wrote {stem}.json and .log")


if __name__ == "__main__":
    main()
