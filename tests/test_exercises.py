"""Every graded exercise in solutions/ grades: the solution scores Y/Y with ``python -m labkit
grade``, the handed-out notebook 0/Y, always-equal answers 0/Y, one wrong answer loses exactly
that question's points; the committed exercises/ are what otter assign makes of the masters
and hold no hidden test or answer; Run All of each handed-out notebook completes, and on a
faked Colab the notebook fetches only its public tests, checks and tells how to submit.

The assignment is built once per session (one process, otter imported once) and every
submission is graded by one ``python -m labkit grade`` call.
"""

from __future__ import annotations

import ast
import asyncio
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
MASTERS = sorted((REPO / "solutions").glob("[0-9][0-9]*_*.ipynb"))
# LABKIT_EXERCISES="08_wgmma,07_gemm_ladder" checks only those exercises (the whole set by default)
ONLY = [n for n in os.environ.get("LABKIT_EXERCISES", "").replace(",", " ").split() if n]
NAMES = [p.stem for p in MASTERS if not ONLY or p.stem in ONLY]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])}
EXACT = re.compile(r"checks\.exact\(\s*([A-Za-z_]\w*)\s*,")


def follows_conventions(name: str) -> bool:
    """A master graded by hidden ``checks.exact`` tests (solutions/README.md)."""
    text = (REPO / "solutions" / f"{name}.ipynb").read_text()
    return "checks.exact(" in text and "hidden: true" in text


def graded_names() -> list:
    return [n if follows_conventions(n) else pytest.param(
        n, marks=pytest.mark.skip(reason=f"{n} has no hidden checks.exact tests yet"))
        for n in NAMES]


def run(cmd: list[str], cwd: Path = REPO, timeout: float = 900) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def load_tests(tests_dir: Path) -> dict[str, dict]:
    """question -> otter test spec (the OK-format dict)."""
    specs = {}
    for path in tests_dir.glob("q*.py"):
        env: dict = {}
        exec(path.read_text(), env)
        specs[path.stem] = env["test"]
    return specs


def cases(spec: dict) -> list[dict]:
    return spec["suites"][0]["cases"]


def answer_vars(spec: dict) -> list[str]:
    return [m.group(1) for c in cases(spec) if c.get("hidden") for m in EXACT.finditer(c["code"])]


def with_cell(nb_path: Path, source: str, out: Path) -> Path:
    nb = nbformat.read(nb_path, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(source))
    nbformat.write(nb, out)
    return out


# ------------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="session")
def session(tmp_path_factory) -> dict:
    """Everything the tests look at, made once and side by side: otter assign of every master
    (one process) runs while the handed-out notebooks Run All (one kernel each; the first
    exercise on a faked Colab), then one ``python -m labkit grade`` grades every submission."""
    out = tmp_path_factory.mktemp("assign")
    assign = subprocess.Popen(
        [sys.executable, "-c", "import sys; from pathlib import Path; "
         "from labkit.grading.assign import build; build(sys.argv[2:], out=Path(sys.argv[1]), run_tests=False)",
         str(out), *NAMES], cwd=REPO, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        ran = run_handed_out(tmp_path_factory)
    finally:
        log, _ = assign.communicate(timeout=900)
    assert assign.returncode == 0, f"otter assign failed:\n{log[-4000:]}"
    graded = grade_submissions(out, ran, tmp_path_factory.mktemp("submissions"))
    return {"assigned": out, "ran": ran, "graded": graded}


@pytest.fixture(scope="session")
def assigned(session) -> Path:
    return session["assigned"]


@pytest.fixture(scope="session")
def graded(session) -> dict:
    return session["graded"]


@pytest.fixture(scope="session")
def ran(session) -> dict:
    return session["ran"]


def grade_submissions(assigned: Path, ran: dict, work: Path) -> dict:
    """Per exercise: the solution, the handed-out notebook, always-equal answers and one wrong
    answer; the first exercise also as an export zip and as downloaded from (faked) Colab.
    All are graded as one folder, the way an instructor grades a class."""
    meta = {}
    for name in NAMES:
        if not follows_conventions(name):
            continue
        solution = assigned / name / "autograder" / f"{name}.ipynb"
        specs = load_tests(assigned / name / "autograder" / "tests")
        every_var = [v for q in sorted(specs) for v in answer_vars(specs[q])]
        last_q = max(specs, key=lambda q: int(q[1:]))
        probe = "from labkit.grading import probes\n"
        files = {
            "solution": Path(shutil.copy(solution, work / f"{name}-solution.ipynb")),
            "blank": Path(shutil.copy(REPO / "exercises" / name / "student" / f"{name}.ipynb",
                                      work / f"{name}-blank.ipynb")),
            "always_equal": with_cell(solution, probe + "\n".join(
                f"{v} = probes.always_equal({v})" for v in every_var), work / f"{name}-eq.ipynb"),
            "wrong": with_cell(solution, probe + "\n".join(
                f"{v} = probes.wrong({v})" for v in answer_vars(specs[last_q])),
                work / f"{name}-wrong.ipynb"),
        }
        if name in VARIANT_EXERCISES:
            # a student with their own id: the solution works their numbers; the book's
            # answers copied into their notebook lose every question whose answer differs
            mine = with_student_id(solution, STUDENT, work / f"{name}-variant.ipynb")
            files["variant"] = mine
            book = {q: literals(specs[q])[0] for q in variant_questions(name)}
            files["copied"] = with_cell(mine, "\n".join(
                f"{answer_vars(specs[q])[0]} = {book[q]!r}" for q in book),
                work / f"{name}-copied.ipynb")
        if ("colab", name) in ran:
            zpath = work / f"{name}_export.zip"
            with zipfile.ZipFile(zpath, "w") as zf:
                zf.write(solution, f"{name}.ipynb")
                zf.writestr(".OTTER_LOG", b"")
                zf.writestr("__zip_filename__", zpath.name)
            files["zip"] = zpath
            # what the learner downloads from Colab: the executed notebook, without the cell
            # that stands in for Colab importing google.colab
            nb = nbformat.read(ran[("colab", name)][2], as_version=4)
            nb.cells.pop(0)
            files["colab"] = work / f"{name}-colab.ipynb"
            nbformat.write(nb, files["colab"])
        meta[name] = {"files": {k: str(v) for k, v in files.items()}, "specs": specs,
                      "wrong_question": last_q}
    if not meta:
        return {"meta": {}, "scores": {}, "stdout": "", "header": []}
    csv_path = work.parent / f"{work.name}-grades.csv"
    stdout = run([sys.executable, "-m", "labkit", "grade", "--autograder", str(assigned),
                  "--csv", str(csv_path), str(work)])
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    scores: dict = {}
    for row in rows:
        scores.setdefault(row["file"], {})[row["question"]] = (float(row["points"]),
                                                              float(row["max"]))
    return {"meta": meta, "scores": scores, "stdout": stdout, "header": rows and list(rows[0])}


STUDENT = "student-1"


def _variant_exercises():
    from labkit.grading import variants
    return set(variants.EXERCISES) & set(NAMES)


VARIANT_EXERCISES = _variant_exercises()


def variant_questions(name: str) -> list:
    from labkit.grading import variants
    return variants.questions(name)


def with_student_id(nb_path: Path, student: str, out: Path) -> Path:
    nb = nbformat.read(nb_path, as_version=4)
    first = next(c for c in nb.cells if c.cell_type == "code")
    assert 'student_id = "book"' in first.source
    first.source = first.source.replace('student_id = "book"', f"student_id = {student!r}", 1)
    nbformat.write(nb, out)
    return out


@pytest.mark.parametrize("name", sorted(VARIANT_EXERCISES))
def test_a_student_variant_is_graded_with_its_own_numbers(graded, name):
    from labkit.grading import variants

    meta = graded["meta"][name]
    specs = meta["specs"]
    seed = variants.seed_of(STUDENT)
    full = {q: (points_of(s), points_of(s)) for q, s in specs.items()}
    assert graded["scores"][meta["files"]["variant"]] == full
    assert f"{meta['files']['variant']}: " in graded["stdout"]
    assert f"(variant {seed})" in graded["stdout"]
    copied = graded["scores"][meta["files"]["copied"]]
    lost = {q for q in variant_questions(name)
            if variants.answer(name, q, seed) != variants.answer(name, q, 0)}
    assert len(lost) >= len(variant_questions(name)) - 2
    assert copied == {q: (0.0 if q in lost else points_of(s), points_of(s))
                      for q, s in specs.items()}


def points_of(spec: dict) -> float:
    return float(spec["points"])


# ------------------------------------------------------------------------------ grading


@pytest.mark.parametrize("name", graded_names())
def test_solution_scores_full_marks(graded, name):
    meta = graded["meta"][name]
    specs = meta["specs"]
    full = {q: (points_of(s), points_of(s)) for q, s in specs.items()}
    assert graded["scores"][meta["files"]["solution"]] == full
    total = sum(p for p, _ in full.values())
    assert f"{meta['files']['solution']}: {total:g}/{total:g} points" in graded["stdout"]
    # an export zip is recognised and graded the same
    if "zip" in meta["files"]:
        assert graded["scores"][meta["files"]["zip"]] == full


@pytest.mark.parametrize("name", graded_names())
def test_questions_are_many_worth_points_and_hidden(graded, name):
    specs = graded["meta"][name]["specs"]
    assert len(specs) >= 8, f"{name} has {len(specs)} questions; at least 8 are graded"
    for q, spec in specs.items():
        assert points_of(spec) > 0, q
        public = [c for c in cases(spec) if not c.get("hidden")]
        hidden = [c for c in cases(spec) if c.get("hidden")]
        assert public and hidden, f"{name} {q}: needs a public and a hidden test"
        assert all(c.get("points") == 0 for c in public), f"{name} {q}: public tests carry no points"
        assert answer_vars(spec), f"{name} {q}: the hidden test calls checks.exact(var, ...)"


@pytest.mark.parametrize("name", graded_names())
def test_handed_out_notebook_scores_zero(graded, name):
    meta = graded["meta"][name]
    got = graded["scores"][meta["files"]["blank"]]
    assert got == {q: (0.0, points_of(s)) for q, s in meta["specs"].items()}


@pytest.mark.parametrize("name", graded_names())
def test_always_equal_answers_score_zero(graded, name):
    meta = graded["meta"][name]
    got = graded["scores"][meta["files"]["always_equal"]]
    assert got == {q: (0.0, points_of(s)) for q, s in meta["specs"].items()}


@pytest.mark.parametrize("name", graded_names())
def test_one_wrong_answer_loses_exactly_its_points(graded, name):
    meta = graded["meta"][name]
    wrong = meta["wrong_question"]
    got = graded["scores"][meta["files"]["wrong"]]
    want = {q: (0.0 if q == wrong else points_of(s), points_of(s))
            for q, s in meta["specs"].items()}
    assert got == want


def test_csv_has_the_documented_columns(graded):
    if not graded["meta"]:
        pytest.skip("no exercise follows the conventions")
    assert graded["header"] == ["file", "exercise", "student_id", "variant", "question", "points",
                                "max"]
    lines = graded["stdout"].splitlines()
    assert len(lines) == sum(len(m["files"]) for m in graded["meta"].values())
    assert all(re.fullmatch(r"\S+: \d+(\.\d+)?/\d+(\.\d+)? points, \w+"
                            r"(, student_id '[^']*' \(variant \d+\))?", ln)
               for ln in lines), lines


# ------------------------------------------------------------------------------ what is committed


def cell_sources(path: Path):
    return [(c.cell_type, c.source) for c in nbformat.read(path, as_version=4).cells]


@pytest.mark.parametrize("name", NAMES)
def test_committed_exercise_is_what_otter_assign_makes(assigned, name):
    student = REPO / "exercises" / name / "student"
    fresh = assigned / name / "student"
    hint = f"rebuild: otter assign solutions/{name}.ipynb exercises/{name}"
    assert cell_sources(student / f"{name}.ipynb") == cell_sources(fresh / f"{name}.ipynb"), hint
    committed = sorted(p.name for p in (student / "tests").glob("*.py"))
    assert committed == sorted(p.name for p in (fresh / "tests").glob("*.py")), hint
    for test in (fresh / "tests").glob("*.py"):
        assert (student / "tests" / test.name).read_text() == test.read_text(), hint
    for _, source in cell_sources(student / f"{name}.ipynb"):
        assert "# SOLUTION" not in source


def tracked(path: str) -> list[str]:
    out = subprocess.run(["git", "ls-files", path], cwd=REPO, capture_output=True, text=True)
    return out.stdout.split()


def test_no_hidden_test_or_autograder_is_committed():
    leftovers = ["exercises/01_shape_stride/student/.OTTER_LOG", ".OTTER_LOG",
                 "exercises/01_shape_stride/student/01_shape_stride_2026_01_01T00_00_00_0.zip",
                 "exercises/01_shape_stride/autograder/tests/q1.py"]
    ignored = subprocess.run(["git", "check-ignore", *leftovers], cwd=REPO, capture_output=True,
                             text=True).stdout.split()
    assert ignored == leftovers, "otter's log, export zips and autograder output are ignored"
    files = tracked("exercises")
    assert not [f for f in files if "/autograder/" in f or f.endswith((".zip", ".OTTER_LOG"))]
    for f in files:
        if f.endswith(".py"):
            text = (REPO / f).read_text()
            assert "'hidden': True" not in text and "checks.exact" not in text, f


def literals(spec: dict) -> list:
    """The expected values of a question's hidden checks.exact calls."""
    found = []
    for c in cases(spec):
        if not c.get("hidden"):
            continue
        for line in c["code"].splitlines():
            src = line.removeprefix(">>> ").strip()
            if "checks.exact(" in src:
                call = ast.parse(src).body[0].value
                try:
                    found.append(ast.literal_eval(call.args[2]))
                except ValueError:   # computed for the variant: the book's (variant 0)
                    from labkit.grading import variants
                    found.append(eval(compile(ast.Expression(call.args[2]), "<expected>", "eval"),
                                      {"variants": variants, "variant": 0}))
    return found


def spelled(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (set, frozenset)):
        return [repr(v) for v in value]
    if isinstance(value, int):
        return [str(value)] if value >= 10 else []
    return [repr(value), repr(value).replace(" ", "")]


@pytest.mark.parametrize("name", graded_names())
def test_public_tests_do_not_contain_the_answers(assigned, name):
    specs = load_tests(assigned / name / "autograder" / "tests")
    for q, spec in specs.items():
        public = (REPO / "exercises" / name / "student" / "tests" / f"{q}.py").read_text()
        # a choice question's public check lists every choice (the question lists them too)
        choices = {c for group in re.findall(r"checks\.OneOf\(([^)]*)\)", public)
                   for c in re.findall(r"\w+", group)}
        for value in literals(spec):
            for text in spelled(value):
                if text in choices or (text.startswith("(") and set(
                        re.findall(r"'([^']*)'", text)) <= choices and choices):
                    continue
                assert not re.search(rf"(?<![\w.]){re.escape(text)}(?![\w.])", public), (
                    f"{name} {q}: the public test spells the answer {text!r}")


@pytest.mark.parametrize("name", graded_names())
def test_colab_cell_installs_from_the_repository_and_fetches_every_public_test(name):
    from labkit import _repository

    first = [c.source for c in nbformat.read(REPO / "exercises" / name / "student" /
                                              f"{name}.ipynb", as_version=4).cells
             if c.cell_type == "code"][0]
    assert '"google.colab" in sys.modules' in first
    assert f"git+{_repository.REPOSITORY_URL}@{_repository.BRANCH}" in first
    assert "otter-grader" in first and "setup_runtime()" in first
    fetched = re.search(r'public_tests\("(\w+)", \[(.*?)\]\)', first, flags=re.S)
    assert fetched and fetched.group(1) == name
    questions = re.findall(r'"(q\d+)"', fetched.group(2))
    assert sorted(questions) == sorted(
        p.stem for p in (REPO / "exercises" / name / "student" / "tests").glob("q*.py"))
    assert "git clone" not in first and "solutions" not in first


# ------------------------------------------------------------------------------ Run All


def outputs_text(cell) -> str:
    parts = []
    for o in cell.get("outputs", []):
        parts.append(o.get("text", ""))
        parts.append(o.get("data", {}).get("text/plain", ""))
        if o.get("output_type") == "error":
            parts.append(f"{o['ename']}: {o['evalue']}")
    return "".join(parts)


async def _execute(nb, cwd: Path, env: dict):
    from nbclient import NotebookClient

    client = NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(cwd)}})
    # the kernel sees env (a faked google.colab, a fake pip) through its environment
    await client.async_execute(env=env)
    return nb


def run_notebooks(jobs: list[tuple[Path, Path, dict]]):
    """Run All of each (notebook, folder, env) side by side; returns the executed notebooks."""
    async def main():
        nbs = [nbformat.read(path, as_version=4) for path, _, _ in jobs]
        return await asyncio.gather(*[_execute(nb, cwd, env)
                                      for nb, (_, cwd, env) in zip(nbs, jobs)])
    return asyncio.run(main())


def check_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("grader.check(")]


def run_handed_out(tmp_path_factory) -> dict:
    """Run All of every handed-out notebook in a copy of its folder; the first exercise runs on
    a faked Colab instead (google.colab importable, pip and the downloads served offline, the
    notebook alone in its folder as in Colab's /content)."""
    jobs, keys = [], []
    names = [n for n in NAMES if follows_conventions(n)]
    for name in names[1:]:
        work = tmp_path_factory.mktemp(f"run-{name}")
        shutil.copytree(REPO / "exercises" / name / "student", work, dirs_exist_ok=True)
        jobs.append((work / f"{name}.ipynb", work, dict(ENV)))
        keys.append(("jupyter", name))
    if names:
        colab_name = names[0]
        fake = tmp_path_factory.mktemp("fake-colab")
        (fake / "google" / "colab").mkdir(parents=True)
        (fake / "google" / "__init__.py").write_text("")
        (fake / "google" / "colab" / "__init__.py").write_text(FAKE_COLAB)
        (fake / "pip").mkdir()
        (fake / "pip" / "__init__.py").write_text("")
        (fake / "pip" / "__main__.py").write_text(FAKE_PIP)
        content = tmp_path_factory.mktemp("content")
        shutil.copy(REPO / "exercises" / colab_name / "student" / f"{colab_name}.ipynb", content)
        nb_path = content / f"{colab_name}.ipynb"
        # on Colab google.colab is imported before any cell runs
        nb = nbformat.read(nb_path, as_version=4)
        nb.cells.insert(0, nbformat.v4.new_code_cell("import google.colab"))
        nbformat.write(nb, nb_path)
        env = dict(ENV)
        env["PYTHONPATH"] = os.pathsep.join([str(fake), ENV["PYTHONPATH"]])
        env["FAKE_COLAB_LOG"] = str(content / "colab.log")
        env["FAKE_COLAB_REPO"] = str(REPO)
        jobs.append((nb_path, content, env))
        keys.append(("colab", colab_name))
    if not jobs:
        return {}
    nbs = run_notebooks(jobs)
    executed = {}
    for key, nb, (path, cwd, _) in zip(keys, nbs, jobs):
        done = cwd / f"executed-{path.name}"
        nbformat.write(nb, done)
        executed[key] = (nb, cwd, done)
    return executed


FAKE_COLAB = '''"""A stand-in for google.colab: serves the repository's raw files from the checkout."""
import io, json, os, urllib.request, urllib.response
from labkit import _repository

PREFIX = _repository.raw_url("")
LOG = os.environ["FAKE_COLAB_LOG"]


class _Handler(urllib.request.BaseHandler):
    handler_order = 100  # before urllib's own HTTPSHandler

    def https_open(self, req):
        url = req.full_url
        with open(LOG, "a") as f:
            f.write(json.dumps({"download": url}) + "\\n")
        assert url.startswith(PREFIX), url
        path = os.path.join(os.environ["FAKE_COLAB_REPO"], url[len(PREFIX):])
        resp = urllib.response.addinfourl(io.BytesIO(open(path, "rb").read()), {}, url, 200)
        resp.msg = "OK"
        return resp


urllib.request.install_opener(urllib.request.build_opener(_Handler))
'''

FAKE_PIP = '''import json, os, sys
with open(os.environ["FAKE_COLAB_LOG"], "a") as f:
    f.write(json.dumps({"pip": sys.argv[1:]}) + "\\n")
'''


@pytest.mark.parametrize("name", graded_names())
def test_run_all_of_the_handed_out_notebook_completes(ran, name):
    mode = "jupyter" if ("jupyter", name) in ran else "colab"
    nb, cwd, _ = ran[(mode, name)]
    code = [c for c in nb.cells if c.cell_type == "code"]
    errors = [c.source[:60] for c in code if any(o.get("output_type") == "error"
                                                  for o in c.get("outputs", []))]
    assert not errors, errors
    assert code[-1].source == "grader.export()" and code[-1].execution_count
    # every blank answer's check says so in one line
    checks = check_cells(nb)
    assert checks
    for cell in checks:
        lines = outputs_text(cell).strip().splitlines()
        q = cell.source.split('"')[1]
        assert len(lines) == 1 and re.fullmatch(rf"{q}: \w+: not answered yet", lines[0]), lines
    export = outputs_text(code[-1])
    assert "Warning" not in export and "TCP" not in export and "submit" in export.lower(), export
    if mode == "jupyter":
        assert list(cwd.glob(f"{name}_*.zip")), "the export cell writes the submission zip"


def test_colab_fetches_only_public_tests_checks_and_says_how_to_submit(ran, graded):
    colab = [k for k in ran if k[0] == "colab"]
    if not colab:
        pytest.skip("no exercise follows the conventions")
    (key,) = colab
    name = key[1]
    nb, content, _ = ran[key]
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not [c.source[:60] for c in code
                if any(o.get("output_type") == "error" for o in c.get("outputs", []))]
    log = [json.loads(line) for line in (content / "colab.log").read_text().splitlines()]
    pips = [e["pip"] for e in log if "pip" in e]
    assert any(any(a.startswith("labkit @ git+") for a in p) and
               any(a.startswith("otter-grader") for a in p) for p in pips), pips
    downloads = sorted(e["download"] for e in log if "download" in e)
    from labkit._repository import raw_url
    public = sorted((REPO / "exercises" / name / "student" / "tests").glob("q*.py"))
    assert downloads == sorted(raw_url(f"exercises/{name}/student/tests/{p.name}") for p in public)
    assert not any("solutions" in d or "autograder" in d for d in downloads)
    # grader.check works with the fetched tests
    for cell in check_cells(nb):
        assert outputs_text(cell).strip().endswith("not answered yet")
    export = outputs_text(code[-1])
    assert "File → Download" in export and "Error" not in export
    assert not list(content.glob("*.zip"))
    # the downloaded notebook is a submission python -m labkit grade accepts (0 points: blank)
    meta = graded["meta"][name]
    got = graded["scores"][meta["files"]["colab"]]
    assert got == {q: (0.0, points_of(s)) for q, s in meta["specs"].items()}
