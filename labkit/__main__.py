"""``python -m labkit <command>``: layout printing, hardware verification, benchmarks."""

import importlib
import sys

_COMMANDS = {
    "layout": ("labkit.cli.layout_cmd", "print a layout as CuTe's print_layout table"),
    "verify": ("labkit.cli.verify", "check hardware (or the CPU twin) against labkit's model"),
    "bench": ("labkit.cli.bench", "benchmarks, e.g. `bench gemm`"),
    "grade": ("labkit.cli.grade_cmd", "grade exercise notebooks or export zips (public + hidden tests)"),
}


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m labkit <command> [args]\n\ncommands:")
        for name, (_, text) in _COMMANDS.items():
            print(f"  {name:8s} {text}")
        return 0 if argv else 2
    cmd = argv[0]
    if cmd not in _COMMANDS:
        print(f"labkit: unknown command {cmd!r}; try one of {', '.join(_COMMANDS)}",
              file=sys.stderr)
        return 2
    mod = importlib.import_module(_COMMANDS[cmd][0])
    return int(mod.main(argv[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main())
