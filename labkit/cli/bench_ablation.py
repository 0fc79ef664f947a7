"""The ablation of step 7: each technique of the top of the GEMM ladder as a pair of configurations
that differ in it alone, timed in one run, and the table of what each one changed.

``python -m labkit bench gemm --ablation`` times every configuration :data:`ABLATION` names (and
cuBLAS) in the same interleaved rounds and prints :func:`table`: per technique and problem size,
the configuration without it, with it, and the change.

>>> rows = [dict(size="4096", step="wgmma[128x256x64s4]", tflops=650.0),
...         dict(size="4096", step="wgmma[128x256x64s4g1]", tflops=630.0)]
>>> print(table(rows, sizes=["4096"]).splitlines()[2])
| raster groups of 8 tile rows (L2 reuse) | 128x256x64s4g1 → 128x256x64s4 | 630.0 → 650.0 (+3.2%) |
"""

from __future__ import annotations

from labkit.cuda.kernels.ladder.gemm_wgmma_config import ABLATION  # the pairs live with the configurations

__all__ = ["ABLATION", "configs", "table"]


def configs() -> list[str]:
    """Every configuration the ablation times, each once, in the table's order."""
    out = []
    for _, without, with_ in ABLATION:
        out += [c for c in (without, with_) if c not in out]
    return out


def _tflops(rows, size, config):
    for r in rows:
        if str(r["size"]) == str(size) and r["step"] == f"wgmma[{config}]" and "tflops" in r:
            return float(r["tflops"])
    return None


def table(rows, sizes) -> str:
    """The ablation as a markdown table from one run's result rows (``size``, ``step``, ``tflops``):
    a technique whose pair was not both timed at a size shows a dash there."""
    head = "| technique | configurations | " + " | ".join(f"{s} TFLOP/s" for s in sizes) + " |"
    lines = [head, "|---|---|" + "---|" * len(sizes)]
    for what, without, with_ in ABLATION:
        cells = []
        for s in sizes:
            a, b = _tflops(rows, s, without), _tflops(rows, s, with_)
            cells.append("—" if a is None or b is None else f"{a:.1f} → {b:.1f} ({(b - a) / a:+.1%})")
        lines.append(f"| {what} | {without} → {with_} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
