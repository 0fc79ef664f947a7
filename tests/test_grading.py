"""labkit.grading's answer checks and ``python -m labkit grade``'s handling of bad input.

Expected messages are the ones solutions/README.md promises students; the values checked are
the book's (offset 19 of (2,3) in (4,8):(8,1), '_12:_1' from coalescing
(_2,(_1,_6)):(_1,(_6,_2))).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from labkit.grading import checks, probes
from labkit.grading.checks import Hint, NotAnswered, Wrong

REPO = Path(__file__).resolve().parents[1]
PAIRS = checks.SetOf(checks.pair)


def message(fn, *args, **kwargs) -> str:
    with pytest.raises((Hint, Wrong)) as info:
        fn(*args, **kwargs)
    return str(info.value)


@pytest.mark.parametrize("blank, kind", [
    (..., checks.INT), ((..., ...), checks.pair), ({...}, PAIRS), ([1, ...], checks.ListOf(checks.INT)),
    (((1, ...), 2), checks.Tuple(checks.pair, checks.INT)), (..., checks.LAYOUT)])
def test_blank_answers_are_not_answered_yet(blank, kind):
    with pytest.raises(NotAnswered) as info:
        checks.form(blank, kind, "x", hint="never shown for a blank")
    assert str(info.value) == "x: not answered yet"


@pytest.mark.parametrize("value, kind, text", [
    ([(2, 2), (2, 3)], PAIRS, "x: expected a set of (row, col) pairs, got a list"),
    ((2, 2), PAIRS, "x: expected a set of (row, col) pairs, got a tuple"),
    ([2, 3], checks.pair, "x: expected a (row, col) pair, got a list"),
    ((2, 3, 4), checks.pair, "x: expected a (row, col) pair, got a tuple of 3 items instead of 2"),
    ("19", checks.INT, "x: expected an int, got a str"),
    (True, checks.INT, "x: expected an int, got a bool"),
    (19.0, checks.INT, "x: expected an int, got the float 19.0: use int(...)"),
    (None, checks.INT, "x: expected an int, got None"),
    (12, checks.LAYOUT, "x: expected a CuTe layout string such as '(4,8):(8,1)', got an int"),
    ("((1,1),2)", checks.Tuple(checks.pair, checks.INT),
     "x: expected a tuple ((int, int), int), got a str"),
])
def test_form_mismatches_are_named(value, kind, text):
    assert message(checks.form, value, kind, "x") == text


def test_layout_strings_must_parse():
    assert "not a CuTe layout string" in message(checks.form, "12", checks.LAYOUT, "x")
    assert "not a CuTe layout string" in message(checks.form, "(4,8):(8)", checks.LAYOUT, "x")
    checks.form("(4, 8) : (8, 1)", checks.LAYOUT, "x")  # spaces are ignored


def test_hints_are_added_to_a_wrong_form_only():
    text = message(checks.form, "19", checks.INT, "offset_23", hint="dot the coordinate")
    assert text == "offset_23: expected an int, got a str (hint: dot the coordinate)"
    checks.form(3, checks.INT, "offset_23", hint="dot the coordinate")


def test_public_check_never_names_the_expected_value():
    # form has no expected value to leak; exact's messages name the answer's form, not the value
    for got in (18, np.int64(20)):
        assert "19" not in message(checks.exact, got, checks.INT, 19, "offset_23")


def test_numpy_integers_are_ints():
    for t in (np.int8, np.int32, np.int64, np.uint16, np.intp):
        checks.exact(t(19), checks.INT, 19, "offset_23")
        checks.exact((t(1), t(3)), checks.pair, (1, 3), "coord_13")
    assert "got a float64" in message(checks.form, np.float64(19), checks.INT, "x")


def test_sets_compare_as_sets():
    checks.exact({(2, 3), (2, 2)}, PAIRS, {(2, 2), (2, 3)}, "lane9")
    checks.exact(frozenset({(2, 2), (2, 3)}), PAIRS, {(2, 2), (2, 3)}, "lane9")
    assert "not the right answer" in message(checks.exact, {(2, 2)}, PAIRS, {(2, 2), (2, 3)}, "x")


def test_static_and_dynamic_printing_differ_and_are_named():
    checks.exact("_12:_1", checks.LAYOUT, "_12:_1", "coalesced")
    text = message(checks.exact, "12:1", checks.LAYOUT, "_12:_1", "coalesced")
    assert "static vs dynamic" in text and "'12:1'" in text
    text = message(checks.exact, "_12:_2", checks.LAYOUT, "_12:_1", "coalesced")
    assert "static vs dynamic" not in text


@pytest.mark.parametrize("answer, kind", [
    (19, checks.INT), ("_12:_1", checks.LAYOUT), ((1, 3), checks.pair),
    (((1, 1), 2), checks.Tuple(checks.pair, checks.INT)), ({(2, 2), (2, 3)}, PAIRS),
    ([0, 1, 8, 9], checks.ListOf(checks.INT, 4)), ("S[(8,4):(1,8)]", checks.STR)])
def test_always_equal_and_wrong_answers_fail(answer, kind):
    checks.exact(answer, kind, answer, "x")
    eq = probes.always_equal(answer)
    assert eq == object() and not (eq != object())
    with pytest.raises(Hint):
        checks.exact(eq, kind, answer, "x")
    with pytest.raises((Hint, Wrong)):
        checks.exact(probes.wrong(answer), kind, answer, "x")


def test_a_metaclass_cannot_fake_the_type():
    class Meta(type):
        def __eq__(cls, other):
            return True

        __hash__ = type.__hash__

    class Fake(metaclass=Meta):
        def __eq__(self, other):
            return True

    for kind in (checks.INT, checks.pair, PAIRS, checks.STR):
        with pytest.raises(Hint):
            checks.exact(Fake(), kind, 1 if kind is checks.INT else "x", "x")


# ---------------------------------------------------------------------------- the CLI


def grade(*args: str, cwd: Path = REPO):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "labkit", "grade", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_unreadable_and_unknown_submissions_are_reported(tmp_path):
    (tmp_path / "notes.ipynb").write_text("not json")
    (tmp_path / "other.ipynb").write_text(
        '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    proc = grade(str(tmp_path / "notes.ipynb"), str(tmp_path / "other.ipynb"),
                 str(tmp_path / "missing.ipynb"))
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(f"{tmp_path / 'notes.ipynb'}: error: ") and "not a readable notebook" in lines[0]
    assert "does not say which exercise" in lines[1]
    assert "is not a file" in lines[2]
    assert "Traceback" not in proc.stdout + proc.stderr


def test_no_submission_is_a_usage_error():
    proc = grade()
    assert proc.returncode == 2 and "give at least one notebook" in proc.stderr


# ---------------------------------------------------------------------------- grader.check


PUBLIC_TEST = '''OK_FORMAT = True

test = {"name": "q5", "points": 2, "suites": [{"cases": [
    {"code": ">>> from labkit.grading import checks\\n"
             ">>> checks.form(lane9_elements, checks.SetOf(checks.pair), 'lane9_elements')\\n",
     "hidden": False, "locked": False, "points": 0}],
    "scored": True, "setup": "", "teardown": "", "type": "doctest"}]}
'''


@pytest.fixture()
def grader(tmp_path, monkeypatch):
    from labkit.grading.notebook import Notebook

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "q5.py").write_text(PUBLIC_TEST)
    monkeypatch.chdir(tmp_path)
    return Notebook(tests_dir="tests")


@pytest.mark.parametrize("env, line", [
    ({"lane9_elements": ...}, "q5: lane9_elements: not answered yet"),
    ({}, "q5: lane9_elements is not defined: run the question's cell first"),
    ({"lane9_elements": [(2, 2), (2, 3)]},
     "q5: lane9_elements: expected a set of (row, col) pairs, got a list"),
    ({"lane9_elements": {(0, 0), (7, 7)}},
     "q5: the answer has the expected form (its value is graded when you submit)"),
])
def test_grader_check_answers_in_one_line(grader, env, line):
    result = grader.check("q5", env)
    assert repr(result) == line
    assert "Traceback" not in result._repr_html_() and "doctest" not in result._repr_html_()


def test_grader_check_without_tests_says_where_they_should_be(grader):
    text = repr(grader.check("q6", {}))
    assert text.startswith("q6: no public test q6.py in ") and "\n" not in text


def test_grader_export_on_colab_says_how_to_submit(grader, monkeypatch, capsys):
    import types

    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    assert grader.export() is None
    out = capsys.readouterr().out
    assert "File → Download → Download .ipynb" in out and "labkit grade" in out


# ---------------------------------------------------------------------------- answers as data


def test_answers_leave_the_process_as_exact_data():
    from labkit.grading import answers

    plain = [1, (2, "x"), {3, 4}, None, ..., 2.5, True, [np.int32(7)]]
    assert answers.decode(answers.encode(plain)) == [1, (2, "x"), {3, 4}, None, ..., 2.5, True, [7]]

    class Yes(int):
        def __eq__(self, other):
            return True

        __hash__ = int.__hash__

    got = answers.decode(answers.encode((Yes(3), np.float64(1.0))))
    assert [type(g).__name__ for g in got] == ["Opaque", "Opaque"]
    assert got[0].name.endswith("Yes") and got[1].name == "float64"


def test_labkit_objects_are_read_as_cute_prints_them_with_a_note():
    import labkit as lk

    checks.take_notes()
    checks.exact(lk.make_layout((lk.S(4), lk.S(8))), checks.LAYOUT, "(_4,_8):(_1,_4)", "L")
    assert checks.take_notes() == ["L: read the labkit Layout as what CuTe prints, '(_4,_8):(_1,_4)'"]
    checks.exact(lk.S(4), checks.INT, 4, "n")
    assert checks.take_notes() == ["n: read the labkit S _4 as the int 4"]
    checks.exact(lk.Swizzle(2, 2, 3), checks.SWIZZLE, "Sw<2,2,3>", "sw")
    checks.exact(lk.parse_axe("S[(8,4):(1,8)]"), checks.AXE, "S[(8,4):(1,8)]", "axe")


@pytest.mark.parametrize("answer, kind, expected", [
    (" (_4, _8) : (_1, _4) ", checks.LAYOUT, "(_4,_8):(_1,_4)"),
    ("(_2, _4):(_1@0, _1@1)", checks.LAYOUT, "(_2,_4):(_1@0,_1@1)"),
    ("S[ (8,4) : (1,8) ]", checks.AXE, "S[(8,4):(1,8)]"),
    ("Sw< 2, 2, 3 >", checks.SWIZZLE, "Sw<2,2,3>"),
    (" SWIZZLE_32B ", checks.OneOf("SWIZZLE_32B", "SWIZZLE_64B"), "SWIZZLE_32B"),
    ("(_4, _8):(_1, _5)", checks.LAYOUT, "(_4,_8):(_1,_4)"),
])
def test_a_form_the_public_check_accepts_is_never_rejected_for_form(answer, kind, expected):
    checks.form(answer, kind, "x")
    try:
        checks.exact(answer, kind, expected, "x")
    except Wrong:                      # a wrong value, never a Hint about the form
        assert answer == "(_4, _8):(_1, _5)"


def test_a_bad_variant_is_a_clear_error(tmp_path):
    proc = grade("--variant", "-1", str(tmp_path / "x.ipynb"))
    assert proc.returncode == 2 and "variant must be a seed" in proc.stderr
    assert "Traceback" not in proc.stderr
