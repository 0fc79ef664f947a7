"""Widget update time for a 128x128 layout: the layout explorer recomputes and redraws.

One update = parse the text, evaluate the 16,384 offsets, draw the table (matplotlib, Agg)
and encode the PNG the widget shows. Two 128x128 layouts alternate so every update is a
real change. Prints the median and the spread over the runs.

    python benchmarks/bench_widgets.py [--runs 30]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import matplotlib

matplotlib.use("Agg")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args(argv)
    import labkit as lk
    from labkit import widgets
    texts = ["(128,128):(128,1)", "(128,128):(1,128)"]
    rows = []
    for color_by in ("value", "bank"):
        ex = widgets.layout_explorer(texts[1], color_by=color_by)
        times = []
        for i in range(args.runs + 3):
            t0 = time.perf_counter()
            ex.text.value = texts[i % 2]
            times.append(time.perf_counter() - t0)
            assert ex.error is None and lk.size(ex.layout) == 128 * 128
        times = times[3:]                                           # first updates warm caches
        rows.append((color_by, statistics.median(times) * 1e3, min(times) * 1e3, max(times) * 1e3))
    print(f"layout explorer, 128x128 layout, {args.runs} updates each "
          f"(python {platform.python_version()}, {platform.machine()}, matplotlib {matplotlib.__version__})")
    print(f"{'colour by':<10} {'median ms':>10} {'min ms':>8} {'max ms':>8}")
    for c, med, lo, hi in rows:
        print(f"{c:<10} {med:>10.1f} {lo:>8.1f} {hi:>8.1f}")


if __name__ == "__main__":
    main()
