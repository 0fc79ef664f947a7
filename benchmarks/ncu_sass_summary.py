"""Where a kernel's warps spent their time, by how often each instruction ran: one Nsight Compute
source page (``ncu -i REPORT --page source --csv --print-source sass``, optionally gzipped).

    python benchmarks/ncu_sass_summary.py benchmarks/results/hopper_sass_step7_h100_2026-12-06.csv.gz

Instructions that ran equally often belong to one loop level of the kernel: in a persistent GEMM,
the consumers' k-tile loop, the producer's, and the once-a-tile epilogue. For each level it prints
the instructions, their warp-stall samples (share of the kernel's) and its most common opcodes.
"""

import collections
import csv
import gzip
import sys


def rows(path):
    """(header, instruction rows) of an ncu source-page CSV."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        table = list(csv.reader(f))
    head = next(i for i, r in enumerate(table) if r and r[0] == "Address")
    return table[head], [r for r in table[head + 1:] if len(r) == len(table[head])]


def opcode(sass):
    """The opcode of one SASS line.

    >>> opcode("@P0   BRA 0x7f82537ae060"), opcode("HGMMA.64x256x16.F32 R24, gdesc[UR20], R24")
    ('BRA', 'HGMMA.64x256x16.F32')
    """
    words = sass.split()
    return words[1] if words and words[0].startswith("@") else (words[0] if words else "")


def levels(path, top=6):
    """``[(times executed, instructions, share of stall samples, [(opcode, count)])]``, busiest first."""
    header, data = rows(path)
    samples, executed = header.index("Warp Stall Sampling (All Samples)"), header.index("Instructions Executed")
    total = sum(float(r[samples] or 0) for r in data)
    by = collections.defaultdict(list)
    for r in data:
        by[int(float(r[executed] or 0))].append(r)
    out = [(n, len(rs), sum(float(r[samples] or 0) for r in rs) / total,
            collections.Counter(opcode(r[1]) for r in rs).most_common(top)) for n, rs in by.items()]
    return sorted(out, key=lambda level: -level[2])


def main(argv):
    for path in argv:
        print(path)
        for n, count, share, ops in levels(path)[:6]:
            print(f"  executed {n:>7} times: {count:>4} instructions, {share:6.1%} of the stall samples; "
                  + ", ".join(f"{op} {k}" for op, k in ops))


if __name__ == "__main__":
    main(sys.argv[1:])
