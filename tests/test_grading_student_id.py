"""``student_id``: one rule in the notebook and in the grader. A plain string or a non-negative
int literal, set once; ``"book"`` asks for the book's numbers; anything else is refused with a
message naming ``student_id``, by the notebook's first cell and by ``labkit grade`` alike (which
reads it from the source and never runs it). ``--csv`` has a ``student_id`` column.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from labkit.errors import LabkitError
from labkit.grading.variant import seed_of, student_id_literal, student_seed

REPO = Path(__file__).resolve().parents[1]
EX = "01_shape_stride"
FIRST = next(c.source for c in nbformat.read(REPO / "exercises" / EX / "student" / f"{EX}.ipynb",
                                              as_version=4).cells if c.cell_type == "code")

REFUSED = ['"ana" + ".lima"', "10**80", "-1", "True", '""', "1.5", "None", "f'{1}'",
           "b'ana'"]


def first_cell(literal: str) -> str:
    assert 'student_id = "book"' in FIRST
    return FIRST.replace('student_id = "book"', f"student_id = {literal}", 1)


@pytest.mark.parametrize("literal", REFUSED)
def test_the_rule_refuses_what_is_not_a_plain_literal(literal):
    with pytest.raises(LabkitError, match="student_id"):
        student_id_literal(f"student_id = {literal}")


def test_set_twice_is_refused():
    with pytest.raises(LabkitError, match="student_id must be set once"):
        student_id_literal('student_id = "ana"\nstudent_id = "bea"')


def test_the_book_is_asked_for_by_name_and_0_is_an_id():
    assert student_seed("book") == 0
    assert student_seed(0) == seed_of("0") != 0
    assert student_seed(10 ** 80) == seed_of(str(10 ** 80))
    with pytest.raises(LabkitError, match='student_id = "book"'):
        student_seed("")


@pytest.fixture(scope="module")
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    return InteractiveShell.instance()


@pytest.mark.parametrize("literal", REFUSED)
def test_the_notebooks_first_cell_refuses_it_too(shell, literal):
    result = shell.run_cell(first_cell(literal), store_history=True)
    err = result.error_in_exec or result.error_before_exec
    assert isinstance(err, LabkitError) and "student_id" in str(err), err


def test_the_notebooks_first_cell_takes_a_plain_id(shell):
    for literal in ('"ana.lima"', "4127", "0", '"book"'):
        result = shell.run_cell(first_cell(literal), store_history=True)
        assert result.success, result.error_in_exec


# ------------------------------------------------------------------------- at grading


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("built")
    masters = root / "masters"
    masters.mkdir()
    (masters / f"{EX}.ipynb").write_bytes((REPO / "solutions" / f"{EX}.ipynb").read_bytes())
    proc = grade("--assign", "--masters", masters, "--tests", root / "out", "--no-run-tests")
    assert proc.returncode == 0, proc.stderr
    return root / "out"


def grade(*args):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "labkit", "grade", *map(str, args)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=600)


def solution_with(built: Path, literal: str, out: Path) -> Path:
    nb = nbformat.read(built / EX / "autograder" / f"{EX}.ipynb", as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    first.source = first.source.replace('student_id = "book"', f"student_id = {literal}", 1)
    nbformat.write(nb, out)
    return out


def test_the_grader_refuses_what_the_notebook_refuses(built, tmp_path):
    for k, literal in enumerate(REFUSED):
        solution_with(built, literal, tmp_path / f"bad{k}.ipynb")
    nb = nbformat.read(built / EX / "autograder" / f"{EX}.ipynb", as_version=4)
    nb.cells = [c for c in nb.cells if "student_id" not in c.source or c.cell_type != "code"]
    nbformat.write(nb, tmp_path / "none.ipynb")
    proc = grade("--tests", built, tmp_path)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert len(lines) == len(REFUSED) + 1
    assert all(": error: " in ln and "student_id" in ln for ln in lines), lines
    assert "points" not in proc.stdout


@pytest.mark.slow
def test_the_grader_and_the_notebook_derive_one_variant(built, tmp_path):
    solution_with(built, "0", tmp_path / "zero.ipynb")
    solution_with(built, '"book"', tmp_path / "book.ipynb")
    solution_with(built, "4127", tmp_path / "int.ipynb")
    proc = grade("--tests", built, "--csv", tmp_path / "g.csv", "-j", 2, tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"zero.ipynb: 16/16 points, {EX}, student_id '0' (variant {seed_of('0')})" in out
    assert f"book.ipynb: 16/16 points, {EX}, student_id 'book' (variant 0)" in out
    assert f"int.ipynb: 16/16 points, {EX}, student_id '4127' (variant {seed_of('4127')})" in out
    with open(tmp_path / "g.csv") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["file", "exercise", "student_id", "variant", "question", "points",
                             "max"]
    ids = {(Path(r["file"]).stem, r["student_id"], r["variant"]) for r in rows}
    assert ids == {("zero", "0", str(seed_of("0"))), ("book", "book", "0"),
                   ("int", "4127", str(seed_of("4127")))}
