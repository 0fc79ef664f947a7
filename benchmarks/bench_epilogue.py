"""Time the epilogue's stores (chapter 6, "The epilogue") on this machine's GPU.

    python benchmarks/bench_epilogue.py --out benchmarks/results [--tag h200]

Two experiments of :mod:`labkit.lab.epilogue`:

- ``smem``: every warp of one block stores a 64x64 tile of f16 accumulator pairs into shared
  memory, with ``st.shared.b32`` and with ``stmatrix.x4``, into five layouts (rows of 128 and 256
  bytes, plain and swizzled); the image each leaves is checked against ``labkit.sim`` and the CuTe
  layout, and ``clock64`` counts the cycles of 256 rounds (8 warps; again with 4 warps as
  ``smem_4warps``);
- ``global``: an 8192x8192 C of halves written straight from the registers or staged through a
  ``Swizzle<3,3,4>`` tile and copied out with 16-byte stores; every element checked, median of
  20 launches.

Writes ``epilogue_<tag>_<date>.json`` (the environment, both experiments, each kernel's
registers and local memory; read back by ``labkit.lab.epilogue.recorded``) and a ``.log`` of
the printed tables.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from pathlib import Path


def _resources():
    """Registers and local (spill) bytes per thread of every compiled epilogue kernel."""
    from labkit.cuda.kernels.experiments import exp_epilogue as ke

    out = []
    for key, kernel in ke._KERNELS.items():
        d = kernel.dispatcher
        entry = {"kernel": " ".join(str(k) for k in key[:-1])}
        try:
            entry["registers"] = sorted(int(v) for v in d.get_regs_per_thread().values())
            entry["local_bytes"] = sorted(int(v) for v in d.get_local_mem_per_thread().values())
        except Exception as e:  # noqa: BLE001 - a courtesy: older numba-cuda lacks the query
            entry["error"] = str(e)
        out.append(entry)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="benchmarks/results")
    ap.add_argument("--tag", default="h200")
    ap.add_argument("--size", type=int, default=8192)
    ap.add_argument("--warps", type=int, default=8)
    args = ap.parse_args(argv)

    from labkit.lab import backend
    from labkit.lab import epilogue as ep
    from labkit.lab import experiments as ex

    if backend() != "gpu":
        sys.exit("bench_epilogue needs a CUDA GPU")
    env = ex.environment()
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.max.sm",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
        env["nvidia-smi"] = smi.stdout.strip()
    except Exception:  # noqa: BLE001 - the driver line is a courtesy
        pass
    smem = ep.run_smem(warps=args.warps)
    smem4 = ep.run_smem(warps=4)
    glob = ep.run_global((args.size, args.size))
    env["nvidia-smi after"] = subprocess.run(
        ["nvidia-smi", "--query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw", "--format=csv,noheader"],
        capture_output=True, text=True, timeout=30).stdout.strip()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    day = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    stem = out / f"epilogue_{args.tag}_{day}"
    data = {"environment": env, "smem": smem.to_dict(), "smem_4warps": smem4.to_dict(), "global": glob.to_dict(),
            "kernels": _resources(), "ordering": [list(o) for o in ep.ordering(smem)],
            "ordering_4warps": [list(o) for o in ep.ordering(smem4)]}
    stem.with_suffix(".json").write_text(json.dumps(data, indent=1) + "\n")
    lines = [json.dumps(env), str(smem), str(smem4), str(glob), json.dumps(data["kernels"])]
    for name, order in (("8 warps", data["ordering"]), ("4 warps", data["ordering_4warps"])):
        lines.append(f"ordering ({name}):\n" + "\n".join(
            f"  {a} {p} {b}: cycles ratio {r:.3f} agrees {ok}" for a, b, p, r, ok in order))
    text = "\n\n".join(lines)
    stem.with_suffix(".log").write_text(text + "\n")
    print(text)
    print(f"wrote {stem}.json and .log")


if __name__ == "__main__":
    main()
