"""``python -m labkit layout``: CuTe's ``print_layout`` table, character for character.

The expected text follows CuTe's ``print_layout`` (layout.hpp): the layout, then a header of
column indices printed ``"  %*d "`` with ``idx_width - 2`` digits, where
``idx_width = num_digits(cosize(layout)) + 2``; each row is a delimiter ``"+"`` plus
``idx_width`` dashes per column, then ``"%2d  "`` and ``"| %*d "`` per value; a final
delimiter closes the table. Values wider than the field are printed whole (printf).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import labkit as lk
from labkit.cli.layout_cmd import main

TABLE_4x8 = """\
(4,8):(8,1)
       0    1    2    3    4    5    6    7 
    +----+----+----+----+----+----+----+----+
 0  |  0 |  1 |  2 |  3 |  4 |  5 |  6 |  7 |
    +----+----+----+----+----+----+----+----+
 1  |  8 |  9 | 10 | 11 | 12 | 13 | 14 | 15 |
    +----+----+----+----+----+----+----+----+
 2  | 16 | 17 | 18 | 19 | 20 | 21 | 22 | 23 |
    +----+----+----+----+----+----+----+----+
 3  | 24 | 25 | 26 | 27 | 28 | 29 | 30 | 31 |
    +----+----+----+----+----+----+----+----+
"""

# cosize 16 -> two digits; row m is (m%2)*1 + (m//2)*4, column n is (n%2)*2 + (n//2)*8
TABLE_NESTED = """\
((2,2),(2,2)):((1,4),(2,8))
       0    1    2    3 
    +----+----+----+----+
 0  |  0 |  2 |  8 | 10 |
    +----+----+----+----+
 1  |  1 |  3 |  9 | 11 |
    +----+----+----+----+
 2  |  4 |  6 | 12 | 14 |
    +----+----+----+----+
 3  |  5 |  7 | 13 | 15 |
    +----+----+----+----+
"""

# Sw<1,0,1> XORs bit 1 into bit 0: 0,1,2,3 -> 0,1,3,2; cosize 4 -> one digit
TABLE_SWIZZLED = """\
Sw<1,0,1> o _0 o (_2,_2):(_1,_2)
      0   1 
    +---+---+
 0  | 0 | 3 |
    +---+---+
 1  | 1 | 2 |
    +---+---+
"""

# cosize uses |stride|: 1 + 1 + 2 = 4, one digit; the -1 overflows its field as printf does
TABLE_NEGATIVE = """\
(2,2):(-1,2)
      0   1 
    +---+---+
 0  | 0 | 2 |
    +---+---+
 1  | -1 | 1 |
    +---+---+
"""

# Sw<1,1,2> XORs bit 3 into bit 1: offset 8 becomes 10, past cosize(layout_b) = 9; CuTe sizes
# the field from the cosize (one digit), so 10 overflows it
TABLE_SWIZZLE_OVERFLOW = """\
Sw<1,1,2> o _0 o (1,2):(1,8)
      0   1 
    +---+---+
 0  | 0 | 10 |
    +---+---+
"""


def run_main(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize(("text", "table"), [
    ("(4,8):(8,1)", TABLE_4x8),
    ("((2,2),(2,2)):((1,4),(2,8))", TABLE_NESTED),
    ("Sw<1,0,1> o _0 o (_2,_2):(_1,_2)", TABLE_SWIZZLED),
    ("(2,2):(-1,2)", TABLE_NEGATIVE),
    ("Sw<1,1,2> o _0 o (1,2):(1,8)", TABLE_SWIZZLE_OVERFLOW),
])
def test_print_layout_table(capsys, text, table):
    rc, out, err = run_main(capsys, text)
    assert rc == 0 and err == ""
    assert out == table
    assert lk.format_layout(lk.parse_layout(text)) == table


def test_two_digit_row_indices(capsys):
    # 11 rows: row 10 is printed "%2d  " -> "10  "; cosize 1 + 10*2 + 1 = 22 -> two digits
    rc, out, _ = run_main(capsys, "(11,2):(2,1)")
    lines = out.splitlines()
    assert rc == 0 and len(lines) == 2 + 2 * 11 + 1
    assert lines[-2] == "10  | 20 | 21 |"
    assert lines[3] == " 0  |  0 |  1 |" and lines[2] == "    +----+----+"


def test_print_layout_function_and_table(capsys):
    L = lk.parse_layout("(4,8):(8,1)")
    lk.print_layout(L)
    assert capsys.readouterr().out == TABLE_4x8
    assert lk.layout_table(L)[1] == [8 + j for j in range(8)]


def test_static_layout_prints_underscores(capsys):
    rc, out, _ = run_main(capsys, "(_2,_2):(_2,_1)")
    assert rc == 0 and out.splitlines()[0] == "(_2,_2):(_2,_1)"
    assert out.splitlines()[3] == " 0  | 0 | 1 |"


@pytest.mark.parametrize("text", ["(4,8):(8,1", "(2,2,2):(1,2,4)", "4:(1,2)", "hello"])
def test_bad_input_exits_2_with_a_message(capsys, text):
    rc, out, err = run_main(capsys, text)
    assert rc == 2 and out == ""
    assert err.startswith("labkit layout: ")


def test_module_entry_point():
    done = subprocess.run([sys.executable, "-m", "labkit", "layout", "(4,8):(8,1)"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == TABLE_4x8
