"""Figures of Nsight Compute text reports (``ncu`` without ``--csv``), one kernel a report, as JSON.

    python benchmarks/ncu_summary.py step7=ncu_step7.txt cublas=ncu_cublas.txt > profile.json

Each report gives the kernel's name (as ncu prints it, shortened), its duration, SM clock, elapsed
and active SM cycles, the busiest SM pipe's share of the elapsed cycles (ncu's "Compute (SM)
Throughput"), DRAM bytes, L2 hit rate, the wgmma instructions it executed, its grid, block,
cluster, registers and dynamic shared memory, for whichever of those sections and metrics the
report holds. Values are as ncu printed them: units are in the keys (MB of 10^6 bytes).
"""

import json
import re
import sys

# key: (ncu's metric name or section row, unit ncu must print, scale to the key's unit)
ROWS = {
    "time_us": ("Duration", {"us": 1.0, "ms": 1e3, "ns": 1e-3}),
    "sm_clock_ghz": ("SM Frequency", {"Ghz": 1.0, "Mhz": 1e-3}),
    "elapsed_cycles": ("Elapsed Cycles", {"cycle": 1.0}),
    "sm_active_cycles": ("SM Active Cycles", {"cycle": 1.0}),
    "sm_busy_pct": ("Compute (SM) Throughput", {"%": 1.0}),
    "dram_read_mb": ("dram__bytes_read.sum", {"Mbyte": 1.0, "Gbyte": 1e3, "Kbyte": 1e-3}),
    "dram_write_mb": ("dram__bytes_write.sum", {"Mbyte": 1.0, "Gbyte": 1e3, "Kbyte": 1e-3}),
    "l2_hit_pct": ("lts__t_sector_hit_rate.pct", {"%": 1.0}),
    "gmma_instructions": ("sm__inst_executed_pipe_tensor_op_gmma.sum", {"inst": 1.0}),
    "grid": ("Grid Size", {"": 1.0}),
    "block": ("Block Size", {"": 1.0}),
    "cluster": ("Cluster Size", {"": 1.0}),
    "registers": ("Registers Per Thread", {"register/thread": 1.0}),
    "dynamic_smem_kb": ("Dynamic Shared Memory Per Block", {"Kbyte/block": 1.0}),
}


def _number(text):
    return float(text.replace(",", ""))


def summary(text):
    """The figures of one ncu text report (the first kernel in it).

    >>> r = summary('  k (2, 66, 1)x(384, 1, 1), Context 1\\n    Duration   us   180.38\\n'
    ...             '    Elapsed Cycles   cycle   285,470\\n')
    >>> r["kernel"], r["time_us"], r["elapsed_cycles"]
    ('k', 180.38, 285470.0)
    """
    out = {}
    for line in text.splitlines():
        head = re.match(r"^  (\S.*?) \(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)", line)
        if head and "kernel" not in out:
            name = head.group(1).split("[")[0]          # numba's mangled suffix off
            out["kernel"] = name if len(name) <= 60 else name[:60] + "..."
            continue
        for key, (name, units) in ROWS.items():
            if key in out:
                continue
            m = re.match(rf"^\s+{re.escape(name)}\s+(\S*?)\s+([\d,.]+)\s*$", line)
            if m and m.group(1) in units:
                out[key] = _number(m.group(2)) * units[m.group(1)]
            elif (m := re.match(rf"^\s+{re.escape(name)}\s+([\d,.]+)\s*$", line)) and "" in units:
                out[key] = _number(m.group(1))
    return out


def main(argv):
    profile = {}
    for arg in argv:
        name, _, path = arg.partition("=")
        with open(path) as f:
            profile[name] = summary(f.read())
    json.dump(profile, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
