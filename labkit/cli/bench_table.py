"""The benchmark's table: each kernel's TFLOP/s (and spread) per problem, with its ratio to cuBLAS
on the same operand types and to CuTe's ``sgemm_sm80``, and what its compiled code holds.

>>> rows = [dict(size="4096", step="cuBLAS (torch)", acc="f32", types="f16·f16→f16", tflops=700.0),
...         dict(size="4096", step="wgmma", acc="f32", types="f16·f16→f32", tflops=630.0)]
>>> _ratio(rows, rows[1])
'0.900'
"""

from __future__ import annotations

__all__ = ["CUTE_REF", "TC_STEPS_REPORTED"]

CUTE_REF = "CuTe sgemm_sm80"  # the "vs CuTe" column's reference row
TC_STEPS_REPORTED = ("HMMA", "HGMMA", "QGMMA", "LDSM", "LDGSTS", "UTMALDG")


def _operands(row):
    return row.get("types", "f16·f16→").split("→")[0]


def _ratio(rows, r, prefix="cuBLAS"):
    """``r``'s TFLOP/s over the reference row's (cuBLAS on the same operand types, or CuTe's) at
    the same problem, as text; "" without one."""
    ref = [x for x in rows if x["size"] == r["size"] and x["step"].startswith(prefix)
           and (prefix != "cuBLAS" or _operands(x) == _operands(r))]
    return f"{r['tflops'] / ref[0]['tflops']:.3f}" if ref and "tflops" in r else ""


def _num(v):
    """A count for the table: '12', '12.5', or '—' when the SASS was not read.

    >>> _num(12.0), _num(0), _num(""), _num(None)
    ('12', '0', '—', '—')
    """
    return "—" if v in ("", None) else f"{float(v):g}"


def _table(rows, out):
    if not rows:
        return
    by_work = {r["size"]: r.get("M", 0) * r.get("N", 0) * r.get("K", 0) for r in rows}
    sizes = sorted(by_work, key=lambda s: (by_work[s], str(s)))
    keys = []
    for r in rows:
        k = (r["step"], r["acc"])
        if k not in keys:
            keys.append(k)
    print("", file=out)
    head = (f"| {'step':<28} | acc | "
            + " | ".join(f"{s}{'³' if 'x' not in str(s) else ''} TFLOP/s (spread) | vs cuBLAS | vs CuTe"
                         for s in sizes)
            + f" | regs | spills (B) | smem (KB) | CTAs/SM | {' / '.join(TC_STEPS_REPORTED)} per k-tile | notes |")
    print(head, file=out)
    print("|" + "---|" * (8 + 3 * len(sizes)), file=out)
    for step, acc in keys:
        cells, notes, info = [], [], None
        for s in sizes:
            r = [x for x in rows if (x["step"], x["acc"], x["size"]) == (step, acc, s)]
            if r:
                r = r[0]
                info = info or (r if "regs" in r else None)
                mark = "" if r["ok"] else " (WRONG)"
                spread = f" ({r['spread']:.1%})" if "spread" in r else ""
                cells += [f"{r['tflops']:.1f}{spread}{mark}", _ratio(rows, r, "cuBLAS"), _ratio(rows, r, CUTE_REF)]
                if r["note"] and not r["step"].startswith(("cuBLAS", "CuTe")):
                    notes.append(f"{s}: {r['note']}")
            else:
                cells += ["—", "", ""]
        if info:
            mix = " / ".join(_num(info.get(n.lower() + "_per_ktile")) for n in TC_STEPS_REPORTED)
            cells += [str(info["regs"]), str(info["local_bytes"]), f"{info['smem_bytes'] / 1024:g}",
                      str(info["ctas_per_sm"]), mix]
        else:
            cells += ["", "", "", "", ""]
        print(f"| {step:<28} | {acc} | " + " | ".join(cells) + f" | {'; '.join(notes)} |", file=out)
