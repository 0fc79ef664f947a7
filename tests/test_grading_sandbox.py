"""``labkit grade`` grading a class: notebooks graded together cannot touch each other, nothing in
a notebook picks code or paths, and without bubblewrap nothing runs unless asked for.

The exercise is ``99_attack`` of ``tests/test_grading_attacks.py`` (8 points; its tests are
kept outside the repository and given with ``--tests``). Concurrent graders: an attacker that
stays alive plants a ``csv.py`` in every other process's working folder it can reach through
``/proc/<pid>/cwd`` (blank victims would then read offset 19 from it, full solutions would
exit before answering) and reads their memory; graded beside blank and full victims, in
one grader and in two graders at once, as root and as an unprivileged user, the victims still
score 0 and 8 and the attacker sees no other process. These tests need bubblewrap: they skip,
saying why, only where it cannot run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_grading_attacks import (BLANK, ENV, EXERCISE, POINTS, REPO, answer_cells,  # noqa: E402
                                  fair, grade, notebook, ok_test, QUESTIONS, scores, snapshot)

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
USER = 4321     # the unprivileged user the grader runs as in the tests that ask for one
VICTIMS = 2     # blank and full victims beside the attacker


def _bwrap_runs() -> str | None:
    """None when bubblewrap runs here, else why not."""
    if not shutil.which("bwrap"):
        return "bubblewrap is not installed (apt-get install bubblewrap)"
    proc = subprocess.run(["bwrap", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev",
                           "--unshare-pid", "--unshare-net", "--unshare-user", "true"],
                          capture_output=True, text=True)
    return None if proc.returncode == 0 else f"bwrap cannot run here: {proc.stderr.strip()}"


NO_BWRAP = _bwrap_runs()
needs_bwrap = pytest.mark.skipif(NO_BWRAP is not None, reason=str(NO_BWRAP))
needs_root = pytest.mark.skipif(not ROOT, reason="runs the grader as root and as another user")


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """A folder every user can read: the tests (``tests/99_attack/...``) and submissions."""
    root = Path(tempfile.mkdtemp(prefix="labkit-class-"))
    os.chmod(root, 0o755)
    tests = root / "tests" / EXERCISE / "autograder" / "tests"
    tests.mkdir(parents=True)
    for q in QUESTIONS:
        (tests / f"{q}.py").write_text(ok_test(q))
    yield root
    shutil.rmtree(root, ignore_errors=True)


ATTACKER = (
    "import glob, os, time\nseen = set()\nend = time.time() + 9\n"
    "payload = 'import os\\nOFFSET = 19\\nif os.path.exists(\"full\"):\\n    os._exit(0)\\n'\n"
    "while time.time() < end:\n"
    "    for d in glob.glob('/proc/[0-9]*'):\n"
    "        if d == f'/proc/{os.getpid()}' or d == '/proc/1':\n            continue\n"
    "        try:\n            if b'python' in open(d + '/cmdline', 'rb').read():\n"
    "                seen.add(d)\n        except OSError:\n            pass\n"
    "        for what in ('/cwd/csv.py', '/root/home/student/csv.py'):\n"
    "            try:\n                open(d + what, 'w').write(payload)\n"
    "            except OSError:\n                pass\n"
    "        try:\n            open(d + '/mem', 'rb').read(1)\n            seen.add(d)\n"
    "        except OSError:\n            pass\n"
    "    time.sleep(0.2)\n")


def victim(full: bool) -> list[str]:
    wait = "import time\ntime.sleep(4)" + ("\nopen('full', 'w').close()" if full else "")
    if full:
        return [wait, "import csv"] + answer_cells()
    return [wait, "import csv\nfound = getattr(csv, 'OFFSET', ...)"] + \
        ["offset_23 = found"] + BLANK[1:]


def class_of(folder: Path, attacker: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if attacker:
        notebook([ATTACKER] + ["offset_23 = 19 if seen else ..."] + answer_cells()[1:],
                 folder / "attacker.ipynb")
    for k in range(VICTIMS):
        notebook(victim(False), folder / f"blank{k}.ipynb")
        notebook(victim(True), folder / f"full{k}.ipynb")
    for p in [folder, *folder.iterdir()]:
        os.chmod(p, 0o755 if p.is_dir() else 0o644)
    return folder


def as_user(cmd: list[str]) -> list[str]:
    """``cmd`` run as the unprivileged USER: the Python installation made reachable for it
    (a folder of it under a private home is shown through a readable tmpfs in a mount
    namespace of the command's own), then ``setpriv``."""
    prefix = ""
    for p in {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()}:
        for top in p.parents:
            if top != Path("/") and top.parent == Path("/") and not os.stat(top).st_mode & 0o001:
                keep = p.relative_to(top).parts[0]
                prefix += (f"mkdir -p /tmp/.lk-{top.name}; mount --bind {top}/{keep} "
                           f"/tmp/.lk-{top.name}; mount -t tmpfs -o mode=755 lk {top}; "
                           f"mkdir -p {top}/{keep}; mount --bind /tmp/.lk-{top.name} "
                           f"{top}/{keep}; ")
    run = " ".join(f"'{a}'" for a in cmd)
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            f"set -e; {prefix}exec setpriv --reuid={USER} --regid={USER} --clear-groups "
            f"--no-new-privs env HOME=/tmp {run}"]


def grade_cmd(*args) -> list[str]:
    return [sys.executable, "-m", "labkit", "grade", *map(str, args)]


def run(cmd, env=ENV) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


def check_class(csv_paths: list[Path], attacker: bool = True) -> None:
    got = {}
    for p in csv_paths:
        got.update(scores(p))
    for k in range(VICTIMS):
        assert got[f"blank{k}"] == fair({}), got
        assert got[f"full{k}"] == fair(POINTS), got
    if attacker:
        assert got["attacker"] == fair({q: p for q, p in POINTS.items() if q != "q1"}), got


def class_graded(shared: Path, name: str, user: bool) -> None:
    """One grader with the attacker beside the victims, then two graders at once (the attacker
    in one, the victims in the other)."""
    wrap = as_user if user else list
    one = class_of(shared / name / "one")
    out = shared / name / "out"
    out.mkdir()
    os.chmod(out, 0o777)
    proc = run(wrap(grade_cmd("--tests", shared / "tests", "-j", 1 + 2 * VICTIMS, "--csv",
                              out / "one.csv", one)))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "sandbox: bwrap" in proc.stderr
    check_class([out / "one.csv"])
    attacker = shared / name / "two_a"
    attacker.mkdir()
    shutil.move(str(one / "attacker.ipynb"), attacker / "attacker.ipynb")
    os.chmod(attacker, 0o755)
    a = subprocess.Popen(wrap(grade_cmd("--tests", shared / "tests", "--csv", out / "a.csv",
                                        attacker)), cwd=REPO, env=ENV,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc = run(wrap(grade_cmd("--tests", shared / "tests", "-j", 2 * VICTIMS, "--csv",
                              out / "b.csv", one)))
    a_out, a_err = a.communicate(timeout=600)
    assert proc.returncode == 0 and a.returncode == 0, proc.stderr + a_err
    check_class([out / "a.csv", out / "b.csv"])


@pytest.mark.slow
@needs_bwrap
@needs_root
def test_concurrent_graders_as_root_cannot_touch_each_other(shared):
    class_graded(shared, "root", user=False)


@pytest.mark.slow
@needs_bwrap
@needs_root
def test_concurrent_graders_as_a_user_cannot_touch_each_other(shared):
    probe = run(as_user([sys.executable, "-c", "import labkit"]))
    if probe.returncode != 0:
        pytest.skip(f"Python or this checkout is not readable by an unprivileged user here: "
                    f"{probe.stderr.strip()[-300:]}")
    probe = run(as_user(["bwrap", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev",
                         "--unshare-pid", "--unshare-user", "true"]))
    if probe.returncode != 0:
        pytest.skip(f"bwrap cannot run for an unprivileged user here: {probe.stderr.strip()}")
    class_graded(shared, "user", user=True)


# ------------------------------------------------------------------ without bubblewrap


@pytest.fixture
def no_bwrap(tmp_path):
    """A PATH whose ``bwrap`` fails, as where user namespaces are not allowed."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "bwrap").write_text("#!/bin/sh\necho 'bwrap: No permissions to create new "
                                "namespace' >&2\nexit 1\n")
    (fake / "bwrap").chmod(0o755)
    return {**ENV, "PATH": f"{fake}{os.pathsep}{os.environ.get('PATH', '')}"}


def test_without_bubblewrap_grading_is_refused(shared, tmp_path, no_bwrap):
    notebook(BLANK, tmp_path / "blank.ipynb")
    proc = run(grade_cmd("--tests", shared / "tests", tmp_path / "blank.ipynb"), env=no_bwrap)
    assert proc.returncode == 2
    assert "the sandbox cannot run here" in proc.stderr and "--unsafe-no-sandbox" in proc.stderr
    assert "points" not in proc.stdout


@pytest.mark.slow
@needs_root
def test_unsafe_no_sandbox_never_lets_a_notebook_change_labkit_or_the_tests(shared, tmp_path,
                                                                           no_bwrap):
    labkit_before, tests_before = snapshot(REPO / "labkit"), snapshot(shared / "tests")
    q1 = shared / "tests" / EXERCISE / "autograder" / "tests" / "q1.py"
    rewrite = ("import labkit.grading.notebook as m\nfor path in (m.__file__, " + repr(str(q1))
               + "):\n    try:\n        open(path, 'a').write('\\n# changed')\n"
               "    except OSError:\n        pass")
    notebook([rewrite] + BLANK, tmp_path / "a_rewrite.ipynb")
    notebook(BLANK, tmp_path / "b_blank.ipynb")
    notebook(answer_cells(), tmp_path / "c_full.ipynb")
    proc = run(grade_cmd("--tests", shared / "tests", "--unsafe-no-sandbox", "-j", 1, "--csv",
                         tmp_path / "s.csv", tmp_path), env=no_bwrap)
    if "a notebook's process cannot start here" in proc.stderr:
        pytest.skip(f"Python or this checkout is not readable by an unprivileged uid here: "
                    f"{proc.stderr.strip()[-300:]}")
    assert proc.returncode == 0, proc.stderr
    assert "sandbox: unsafe-no-sandbox (NO sandbox" in proc.stderr
    got = scores(tmp_path / "s.csv")
    assert got["a_rewrite"] == got["b_blank"] == fair({}) and got["c_full"] == fair(POINTS)
    assert snapshot(REPO / "labkit") == labkit_before
    assert snapshot(shared / "tests") == tests_before


# ------------------------------------------------------------------ paths, metadata, zips


def with_metadata(cells, path: Path, name) -> Path:
    notebook(cells, path)
    nb = nbformat.read(path, as_version=4)
    nb.metadata["otter"] = {"assignment_name": name}
    nbformat.write(nb, path)
    return path


@needs_bwrap
def test_nothing_in_a_notebook_picks_code_or_paths(shared, tmp_path):
    evil = tmp_path / "evil" / "autograder" / "tests"
    evil.mkdir(parents=True)
    (evil / "q1.py").write_text(ok_test("q1").replace("'points': 1.0", "'points': 1000"))
    subs = tmp_path / "subs"
    subs.mkdir()
    with_metadata(BLANK, subs / "dots.ipynb", f"../../../../..{tmp_path}/evil")
    with_metadata(BLANK, subs / "absolute.ipynb", str(tmp_path / "evil"))
    with_metadata(BLANK, subs / "not_a_name.ipynb", ["99_attack"])
    with_metadata(answer_cells(), subs / "other.ipynb", "01_shape_stride")
    notebook(answer_cells(), subs / "right.ipynb")
    proc = run(grade_cmd("--tests", shared / "tests", "--exercise", EXERCISE, "--csv",
                         tmp_path / "s.csv", subs))
    out = proc.stdout
    assert proc.returncode == 1, proc.stderr
    for name in ("dots", "absolute", "not_a_name"):
        assert f"{name}.ipynb: error: the notebook names exercise" in out, out
    assert "other.ipynb: error: the notebook is exercise 01_shape_stride, not 99_attack" in out
    assert f"right.ipynb: 8/8 points, {EXERCISE}" in out
    assert "1000" not in out
    rows = (tmp_path / "s.csv").read_text().splitlines()
    assert rows[0] == "file,exercise,student_id,variant,question,points,max"
    assert all(",99_attack,," in r for r in rows[1:])


def test_an_unknown_exercise_is_refused_before_anything_runs(shared, tmp_path):
    notebook(BLANK, tmp_path / "blank.ipynb")
    proc = run(grade_cmd("--tests", shared / "tests", "--exercise", "../x", tmp_path))
    assert proc.returncode == 2 and "exercise must be one of" in proc.stderr


def test_zip_bombs_are_refused_before_they_are_read(tmp_path):
    import resource

    big = tmp_path / "bomb.zip"
    with zipfile.ZipFile(big, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bomb.ipynb", b" " * (200 << 20))
    liar = tmp_path / "liar.zip"
    with zipfile.ZipFile(liar, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("liar.ipynb", b" " * (40 << 20))
    data = bytearray(liar.read_bytes())       # the directory says 1000 bytes: it lies
    local, central = data.find(b"PK\x03\x04"), data.find(b"PK\x01\x02")
    data[local + 22:local + 26] = (1000).to_bytes(4, "little")
    data[central + 24:central + 28] = (1000).to_bytes(4, "little")
    liar.write_bytes(bytes(data))
    many = tmp_path / "many.zip"
    with zipfile.ZipFile(many, "w") as zf:
        for k in range(1500):
            zf.writestr(f"f{k}.txt", b"")
        zf.writestr("x.ipynb", b"{}")
    assert big.stat().st_size < 1 << 20
    peak = ("import resource, subprocess, sys\nsubprocess.run(sys.argv[1:])\n"
            "print('peak', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss >> 10)")
    proc = run([sys.executable, "-c", peak, *grade_cmd(big, liar, many)])
    out = proc.stdout
    assert "bomb.zip: error: submission 'bomb.zip': its notebook is larger than 16 MiB" in out
    # the liar's directory says 1000 bytes: reading stops there (and its CRC fails)
    assert "liar.zip: error: submission 'liar.zip'" in out
    assert "many.zip: error: submission 'many.zip': an export zip holds at most 1000 files" in out
    peak_mib = int(out.rsplit("peak ", 1)[1])
    assert peak_mib < 400, f"the grader grew to {peak_mib} MiB"
