"""Every graded exercise: its otter master passes its own tests, the committed learner copy is
what ``otter assign`` makes of the master (with no solution left in it), and a blank learner
notebook scores zero on every question.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
# question -> points, as each master declares them
EXERCISES = {
    "01_shape_stride": {"q1": 1.0, "q2": 2.0, "q3": 2.0},
    "02_tiling": None,
    "03_named_axes": None,
    "04_replication_offset": None,
    "05_banks_swizzle": {"q1": 1.0, "q2": 1.0, "q3": 2.0, "q4": 2.0, "q5": 2.0},
    "06_fragment_trace": {"q1": 2.0, "q2": 2.0, "q3": 1.0, "q4": 2.0, "q5": 2.0, "q6": 1.0},
}
QUESTIONS = {"02_tiling": 5, "03_named_axes": 5, "04_replication_offset": 5}


def cells(path: Path):
    return [(c.cell_type, c.source) for c in nbformat.read(path, as_version=4).cells]


def run_all(commands: dict[str, tuple[list[str], Path]]) -> dict[str, str]:
    """Run the commands side by side; each must exit 0. Returns their logs."""
    procs = {name: subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True)
             for name, (cmd, cwd) in commands.items()}
    logs = {}
    for name, proc in procs.items():
        log, _ = proc.communicate(timeout=900)
        assert proc.returncode == 0, f"{name}: {' '.join(commands[name][0])} failed:\n{log[-4000:]}"
        logs[name] = log
    return logs


@pytest.fixture(scope="module")
def assigned(tmp_path_factory) -> dict[str, Path]:
    """``otter assign`` of every master (it exits non-zero when a solution fails its tests)."""
    out = tmp_path_factory.mktemp("assign")
    run_all({name: ([sys.executable, "-m", "otter", "assign",
                     str(REPO / "solutions" / f"{name}.ipynb"), str(out / name)], REPO)
             for name in EXERCISES})
    return {name: out / name for name in EXERCISES}


@pytest.mark.parametrize("name", list(EXERCISES))
def test_master_grades_every_question(assigned, name):
    tests = sorted(p.stem for p in (assigned[name] / "autograder" / "tests").glob("q*.py"))
    want = EXERCISES[name] or {f"q{k}": None for k in range(1, QUESTIONS[name] + 1)}
    assert tests == sorted(want)


@pytest.mark.parametrize("name", list(EXERCISES))
def test_committed_exercise_matches_the_master(assigned, name):
    student = REPO / "exercises" / name / "student"
    fresh = assigned[name] / "student"
    assert cells(student / f"{name}.ipynb") == cells(fresh / f"{name}.ipynb"), (
        f"run: otter assign solutions/{name}.ipynb exercises/{name}")
    assert (sorted(p.name for p in (student / "tests").glob("*.py"))
            == sorted(p.name for p in (fresh / "tests").glob("*.py")))
    for test in (fresh / "tests").glob("*.py"):
        assert (student / "tests" / test.name).read_text() == test.read_text()
    for _, source in cells(student / f"{name}.ipynb"):
        assert "# SOLUTION" not in source


def test_blank_exercises_score_zero(assigned, tmp_path):
    commands = {}
    for name in EXERCISES:
        (zip_path,) = (assigned[name] / "autograder").glob("*.zip")
        (tmp_path / name).mkdir()
        commands[name] = ([sys.executable, "-m", "otter", "run", "-a", str(zip_path), "-o",
                           str(tmp_path / name),
                           str(REPO / "exercises" / name / "student" / f"{name}.ipynb")],
                          tmp_path / name)
    run_all(commands)
    for name in EXERCISES:
        results = json.loads((tmp_path / name / "results.json").read_text())
        scores = {t["name"]: (t["score"], t["max_score"]) for t in results["tests"] if "score" in t}
        assert all(score == 0 for score, _ in scores.values()), (name, scores)
        if EXERCISES[name]:
            assert scores == {q: (0, pts) for q, pts in EXERCISES[name].items()}
        else:
            assert len(scores) == QUESTIONS[name]
