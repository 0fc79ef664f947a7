"""Run every lab experiment once on this machine's GPU and write the figures.

    python benchmarks/bench_experiments.py --out benchmarks/results [--tag h200]

Writes ``experiments_<tag>_<date>.json`` (the environment and every experiment's rows, read back
by ``labkit.lab.experiments.recorded``) and ``.log`` (the printed tables). Chapter 1: the copy
through row-major, padded and column-major layouts of an 8192x8192 int32 matrix; chapter 4:
the same copy through a stride-0 broadcast (row and column) and an offset sub-tile; chapter 2:
the 8192x8192 transpose, naive / tiled / tiled + padded; chapter 3: ldmatrix.x1 against the
m8n8 Axe layout; chapter 5: clock64 cycles of eight shared-memory patterns (32 warps, and
again with 8 and 16 warps to show how the one-wavefront cost depends on the load in flight).
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from pathlib import Path


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="benchmarks/results")
    ap.add_argument("--tag", default="h200")
    ap.add_argument("--size", type=int, default=8192)
    args = ap.parse_args(argv)

    from labkit.lab import experiments as ex
    from labkit.lab import backend

    if backend() != "gpu":
        sys.exit("bench_experiments needs a CUDA GPU")
    n = args.size
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    day = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    stem = out / f"experiments_{args.tag}_{day}"
    results = {"environment": ex.environment()}
    try:
        import subprocess

        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
        results["environment"]["nvidia-smi"] = smi.stdout.strip()
    except Exception:  # noqa: BLE001
        pass
    log = [json.dumps(results["environment"])]

    def step(key, fn):
        t = time.time()
        try:
            e = fn()
        except Exception:  # noqa: BLE001 - log it and go on: the other experiments still count
            import traceback

            text = f"== {key} FAILED\n{traceback.format_exc()}"
            print(text, flush=True)
            log.append(text)
            return
        results[key] = e.to_dict()
        text = f"== {key} ({time.time() - t:.1f} s)\n{e}"
        print(text, flush=True)
        log.append(text)

    step("copy", lambda: ex.layout_copy(ex.copy_layouts(n, n)))
    step("copy_repeat", lambda: ex.layout_copy(ex.copy_layouts(n, n)))     # the spread between two runs
    step("broadcast", lambda: ex.layout_copy({
        "materialised": f"({n},{n}):({n},1)",
        "row broadcast": f"({n},{n}):(0,1)",
        "column broadcast": f"({n},{n}):(1,0)",
        "offset sub-tile": (f"({n},{n}):({2 * n},1)", (n // 2) * 2 * n + n // 2),
    }))
    step("transpose", lambda: ex.transpose(n, n))
    step("fragment", lambda: ex.fragment())
    step("banks", lambda: ex.bank_timing())
    for w in (8, 16):
        step(f"banks_{w}_warps", lambda w=w: ex.bank_timing(warps=w))
    stem.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")
    stem.with_suffix(".log").write_text("\n".join(log) + "\n")
    print("wrote", stem.with_suffix(".json"))


if __name__ == "__main__":
    main()
