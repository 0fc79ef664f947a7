"""``python -m labkit layout "(4,8):(8,1)"``: print a layout as CuTe's ``print_layout`` does.

>>> main(["(2,2):(2,1)"])
(2,2):(2,1)
      0   1 
    +---+---+
 0  | 0 | 1 |
    +---+---+
 1  | 2 | 3 |
    +---+---+
0
"""

import argparse
import sys

from ..errors import LayoutError
from ..layout import parse_layout, format_layout


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m labkit layout",
                                 description="Print a CuTe layout as a 2-D table of offsets.")
    ap.add_argument("layout", help='CuTe syntax, e.g. "(4,8):(8,1)" or "(_4,_8):(_8,_1)"')
    args = ap.parse_args(argv)
    try:
        lay = parse_layout(args.layout)
        sys.stdout.write(format_layout(lay))
    except LayoutError as e:
        print(f"labkit layout: {e}", file=sys.stderr)
        return 2
    return 0
