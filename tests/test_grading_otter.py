"""Past one machine: the autograder zip ``labkit grade --assign`` builds runs unchanged under
otter's own runner (``otter run``, what Gradescope's otter image runs) and scores what
``labkit grade`` scores: exercise 1's solution (the book's numbers and a student's own), its
handed-out notebook, and a student's notebook holding the book's answers instead of their own.

The zip also names labkit among its requirements (Gradescope's image installs them).
"""

from __future__ import annotations

import csv
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
EX = "01_shape_stride"
ENV_PATH = {"PYTHONPATH": str(REPO)}
OTTER = shutil.which("otter", path=str(Path(sys.executable).parent)) or shutil.which("otter")

pytestmark = pytest.mark.skipif(OTTER is None, reason="otter-grader's `otter` is not installed")


def env():
    import os
    return {**os.environ, **ENV_PATH}


def with_id(src: Path, student_id, out: Path, extra: str | None = None) -> Path:
    nb = nbformat.read(src, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert 'student_id = "book"' in first.source
    first.source = first.source.replace('student_id = "book"', f"student_id = {student_id!r}", 1)
    if extra:
        nb.cells.append(nbformat.v4.new_code_cell(extra))
    nbformat.write(nb, out)
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("otter")
    masters = root / "masters"
    masters.mkdir()
    shutil.copy(REPO / "solutions" / f"{EX}.ipynb", masters)
    proc = subprocess.run([sys.executable, "-m", "labkit", "grade", "--assign", "--masters",
                           str(masters), "--tests", str(root / "built"), "--no-run-tests"],
                          cwd=REPO, env=env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return root


@pytest.fixture(scope="module")
def both(built) -> dict:
    """Every submission graded by ``otter run`` (two at a time) and by ``labkit grade``."""
    from labkit.grading import variants

    auto = built / "built" / EX / "autograder"
    solution = auto / f"{EX}.ipynb"
    blank = REPO / "exercises" / EX / "student" / f"{EX}.ipynb"
    subs = built / "subs"
    subs.mkdir()
    book = variants.answers(EX, 0)
    names = {q: _answer_var(auto / "tests" / f"{q}.py") for q in book}
    copy_book = "\n".join(f"{names[q]} = {book[q]!r}" for q in book)
    files = {
        "solution_book": with_id(solution, "book", subs / "solution_book.ipynb"),
        "solution_ana": with_id(solution, "ana.lima", subs / "solution_ana.ipynb"),
        "blank_ana": with_id(blank, "ana.lima", subs / "blank_ana.ipynb"),
        "copied_ana": with_id(solution, 4127, subs / "copied_ana.ipynb", copy_book),
    }
    zips = list(auto.glob("*-autograder_*.zip"))
    assert len(zips) == 1
    with zipfile.ZipFile(zips[0]) as zf:
        environment = zf.read("environment.yml").decode()
    otter = {}
    pending = list(files.items())
    while pending:
        batch, pending = pending[:2], pending[2:]
        procs = []
        for name, path in batch:
            out = built / "otter_out" / name
            out.mkdir(parents=True)
            procs.append((name, out, subprocess.Popen(
                [OTTER, "run", "-a", str(zips[0]), "-o", str(out), "--no-logo", str(path)],
                cwd=out, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)))
        for name, out, proc in procs:
            log = proc.communicate(timeout=600)[0]
            assert proc.returncode == 0, log[-3000:]
            results = json.loads((out / "results.json").read_text())
            otter[name] = {t["name"]: float(t["score"]) for t in results["tests"]
                           if t["name"].startswith("q")}
    csv_path = built / "labkit.csv"
    proc = subprocess.run([sys.executable, "-m", "labkit", "grade", "--tests", str(built / "built"),
                           "--csv", str(csv_path), str(subs)], cwd=REPO, env=env(),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    labkit = {}
    with open(csv_path) as f:
        for row in csv.DictReader(f):
            labkit.setdefault(Path(row["file"]).stem, {})[row["question"]] = float(row["points"])
    maxima = {}
    for path in (auto / "tests").glob("q*.py"):
        spec = {}
        exec(path.read_text(), spec)
        maxima[path.stem] = float(spec["test"]["points"])
    return {"otter": otter, "labkit": labkit, "environment": environment, "maxima": maxima,
            "stdout": proc.stdout, "varying": list(book)}


def _answer_var(test_file: Path) -> str:
    import re
    return re.search(r"checks\.exact\((\w+),", test_file.read_text()).group(1)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["solution_book", "solution_ana", "blank_ana", "copied_ana"])
def test_otter_run_scores_what_labkit_grade_scores(both, name):
    assert both["otter"][name] == both["labkit"][name], both["stdout"]


@pytest.mark.slow
def test_the_scores_are_the_fair_ones(both):
    got, top = both["labkit"], both["maxima"]
    total = sum(top.values())
    assert sum(got["solution_book"].values()) == sum(got["solution_ana"].values()) == total
    assert sum(got["blank_ana"].values()) == 0
    # the book's answers in a student's own variant: every varying question is lost, the others
    # keep the solution's points
    assert got["copied_ana"] == {q: 0.0 if q in both["varying"] else p for q, p in top.items()}


@pytest.mark.slow
def test_the_zip_installs_labkit_where_otter_runs_it(both):
    assert "labkit @ git+https://github.com/layout-lab/layout-lab@main" in both["environment"]
