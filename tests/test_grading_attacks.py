"""Submissions that try to game ``python -m labkit grade``, each graded as a fair grader would.

One small exercise, ``99_attack``, is written here: four questions (8 points) with public
``checks.form`` and hidden ``checks.exact`` tests in otter's OK format, kept outside the
repository and given with ``--tests``. The expected values are the book's: offset 19 of (2, 3)
in ``(4,8):(8,1)``; ``_12:_1`` from coalescing ``(_2,(_1,_6)):(_1,(_6,_2))``; lane 9 of the m8n8
fragment holds ``(2, 2)`` and ``(2, 3)``; and a function answer ``double(x) = 2 x`` that the
grader calls on inputs of its own.

Every attack is a notebook; all are graded by one ``labkit grade`` call (three at a time, each in
its own sandbox), then a blank notebook is graded after them and must still score 0, a full
solution full marks, and the test files and labkit must be unchanged. The resource attacks
answer q1 right only if the limit they test did not hold (more than 100 processes, 1000 open
files, 1 GiB written, 3 GiB allocated, another process or labkit's source writable), so their
fair score leaves q1 out. Concurrent graders, the sandbox's absence, zip bombs and paths are in
``tests/test_grading_sandbox.py``.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}
EXERCISE = "99_attack"
POINTS = {"q1": 1.0, "q2": 2.0, "q3": 2.0, "q4": 3.0}

QUESTIONS = {   # question: (variable, kind, expected)
    "q1": ("offset_23", "checks.INT", "19"),
    "q2": ("coalesced", "checks.LAYOUT", "'_12:_1'"),
    "q3": ("lane9", "checks.SetOf(checks.pair)", "{(2, 2), (2, 3)}"),
    "q4": ("double", "checks.Outputs([(1,), (7,), (-3,)], checks.INT)", "(2, 14, -6)"),
}
RIGHT = {"offset_23": "19", "coalesced": "'_12:_1'", "lane9": "{(2, 2), (2, 3)}",
         "double": None}
DOUBLE = "def double(x):\n    return 2 * x"


def ok_test(q: str) -> str:
    var, kind, expected = QUESTIONS[q]
    cases = [
        {"code": f">>> from labkit.grading import checks\n>>> checks.form({var}, {kind}, '{var}')\n",
         "hidden": False, "locked": False, "points": 0},
        {"code": f">>> from labkit.grading import checks\n"
                 f">>> checks.exact({var}, {kind}, {expected}, '{var}')\n",
         "hidden": True, "locked": False},
    ]
    spec = {"name": q, "points": POINTS[q], "suites": [
        {"cases": cases, "scored": True, "setup": "", "teardown": "", "type": "doctest"}]}
    return f"OK_FORMAT = True\n\ntest = {spec!r}\n"


HEAD = [
    'import sys\nif "google.colab" in sys.modules:\n    from labkit.grading import fetch\n'
    f'    fetch.public_tests("{EXERCISE}", ["q1", "q2", "q3", "q4"])',
    'from labkit.grading.notebook import Notebook\ngrader = Notebook(tests_dir="tests")',
    "import labkit as lk",
]


def answer_cells(values: dict | None = None) -> list[str]:
    values = {**RIGHT, **(values or {})}
    cells = []
    for var in ("offset_23", "coalesced", "lane9", "double"):
        if var == "double":
            cells.append(values["double"] or DOUBLE)
        else:
            cells.append(f"{var} = {values[var]}")
        cells.append(f'grader.check("q{len(cells) // 2 + 1}")')
    return cells


BLANK = answer_cells({"offset_23": "...", "coalesced": "...", "lane9": "...",
                      "double": "def double(x):\n    ..."})

YES = ("class Yes:\n    def __eq__(self, other): return True\n"
       "    def __ne__(self, other): return False\n    def __hash__(self): return 0\n")

ATTACKS = {  # name: (cells, fair score per question)
    "honest": (answer_cells(), POINTS),
    "blank": (BLANK, {}),
    "always_equal": ([YES] + answer_cells({"offset_23": "Yes()", "coalesced": "Yes()",
                                           "lane9": "Yes()", "double": "double = lambda x: Yes()"}),
                     {}),
    "subclasses": ([
        "class I(int):\n    def __eq__(self, o): return True\n    __hash__ = int.__hash__\n"
        "class T(str):\n    def __eq__(self, o): return True\n    __hash__ = str.__hash__\n"
        "class P(tuple):\n    def __eq__(self, o): return True\n    __hash__ = tuple.__hash__\n"
        "class F(frozenset):\n    def __eq__(self, o): return True\n    __hash__ = frozenset.__hash__\n"
    ] + answer_cells({"offset_23": "I(19)", "coalesced": "T('_12:_1')",
                      "lane9": "F({P((2, 2)), P((2, 3))})",
                      "double": "def double(x):\n    return I(2 * x)"}), {}),
    "patch_checks": (answer_cells({"coalesced": "'_12:_2'", "lane9": "{(0, 0)}",
                                   "double": "def double(x):\n    return x"}) + [
        "from labkit.grading import checks, kernels\n"
        "checks.exact = checks.form = lambda *a, **k: None\n"
        "checks.read = lambda v, k, n: v\nchecks.Kind.read = lambda self, v, w: v\n"
        "kernels.check_offsets = lambda *a, **k: None\n"
        "import builtins\nbuiltins.isinstance = lambda *a: True"], {"q1": 1.0}),
    "patch_numpy_labkit": ([
        "import numpy, labkit\nnumpy.array_equal = lambda *a, **k: True\n"
        "try:\n    numpy.int64.__eq__ = lambda *a: True\nexcept TypeError:\n    pass\n"
        "labkit.Layout.__str__ = lambda self: '_12:_1'\n"
        "labkit.Layout.__eq__ = lambda self, o: True\n"
        "from labkit.grading import answers\n"
        "answers.decode = lambda data: 19\nanswers.as_data = lambda v: 19"]
        + answer_cells({"offset_23": "numpy.int64(18)",
                        "coalesced": "lk.make_layout(12, 1)",
                        "lane9": "{(2, 3)}"}),
        # the layout prints '_12:_1' in the submission's process: that string is its answer
        {"q2": 2.0, "q4": 3.0}),
    "overwrite_tests": (BLANK + [
        "import glob, os\n"
        "big = 'OK_FORMAT = True\\ntest = {\"name\": \"q1\", \"points\": 1100, \"suites\": "
        "[{\"cases\": [{\"code\": \">>> 1\\\\n1\\\\n\", \"hidden\": True, \"locked\": False}], "
        "\"scored\": True, \"setup\": \"\", \"teardown\": \"\", \"type\": \"doctest\"}]}\\n'\n"
        "for path in glob.glob(os.environ.get('ATTACK_TESTS', '/nonexistent') + '/**/*.py', "
        "recursive=True) + [os.environ.get('ATTACK_TESTS_Q1', '/nonexistent/q1.py')]:\n"
        "    try:\n        open(path, 'w').write(big)\n    except OSError:\n        pass"], {}),
    "os_exit": (answer_cells()[:4] + ["import os\nos._exit(0)"] + answer_cells()[4:], {
        "q1": 1.0, "q2": 2.0}),
    "raise_halfway": (answer_cells()[:4] + ["raise RuntimeError('halfway')"]
                      + answer_cells()[4:], POINTS),
    "system_exit": (answer_cells()[:2] + ["import sys\nsys.exit(3)"] + answer_cells()[2:],
                    POINTS),
    "infinite_loop": (answer_cells()[:2] + ["while True:\n    pass"] + answer_cells()[2:],
                      {"q1": 1.0}),
    "crash_after_function": (answer_cells() + ["import os\nos._exit(1)"], POINTS),
    "forged_messages": ([
        "import os\nfor fd in range(3, 12):\n    try:\n"
        "        os.write(fd, b'[' * 200000 + b'\\n{\"cell\": \"x\"}\\nnot json\\n')\n"
        "    except OSError:\n        pass"] + answer_cells(), POINTS),
    "encoder_patched": (["from labkit.grading import answers\n"
                         "answers.encode = lambda v, *a, **k: ['int', 19]"] + BLANK,
                        # the child holds its encoder from before the first cell: blank answers
                        {}),
}

NO_Q1 = {q: p for q, p in POINTS.items() if q != "q1"}
LIMITED = {  # name: a cell that sets `broke` when a limit did not hold; then the right answers
    "fork_bomb": "import os, time\npids = []\nfor _ in range(300):\n    try:\n"
                 "        pid = os.fork()\n    except OSError:\n        break\n"
                 "    if pid == 0:\n        time.sleep(120)\n        os._exit(0)\n"
                 "    pids.append(pid)\nbroke = len(pids) >= 100",
    "thread_bomb": "import threading, time\nn = 0\nfor _ in range(300):\n    try:\n"
                   "        threading.Thread(target=time.sleep, args=(120,), daemon=True).start()\n"
                   "        n += 1\n    except RuntimeError:\n        break\nbroke = n >= 100",
    "open_files": "fs = []\nfor k in range(5000):\n    try:\n        fs.append(open(f'f{k}', 'w'))\n"
                  "    except OSError:\n        break\nbroke = len(fs) >= 1000",
    "fill_disk": "written = 0\nchunk = b'x' * (1 << 24)\nfor k in range(80):\n    try:\n"
                 "        with open(f'big{k}', 'wb') as f:\n            for _ in range(8):\n"
                 "                f.write(chunk); written += len(chunk)\n    except OSError:\n"
                 "        pass\nbroke = written >= 1 << 30",
    "allocate": "try:\n    hog = bytearray(3 << 30)\n    broke = True\nexcept MemoryError:\n"
                "    broke = False",
    "see_processes": "import os\nbroke = len([p for p in os.listdir('/proc') if p.isdigit()]) > 4",
    "rewrite_labkit": "import labkit.grading.notebook as m, labkit.grading.checks as c\n"
                      "broke = False\nfor path in (m.__file__, c.__file__):\n    try:\n"
                      "        open(path, 'a').close()\n        broke = True\n    except OSError:\n"
                      "        pass",
    "plant_module": "open('csv.py', 'w').write('PLANTED = True')\nimport importlib, sys\n"
                    "sys.modules.pop('csv', None)\nimport csv\n"
                    "broke = getattr(csv, 'PLANTED', False)",
    "read_secrets": "import os\nbroke = any(os.path.exists(p) for p in ('/etc/shadow', '/root', "
                    "'/home/student/../../etc/passwd')) and os.path.exists('/etc/shadow')",
}
for _name, _cell in LIMITED.items():
    _cells = answer_cells()
    _cells[0] = "offset_23 = 19 if broke else ..."
    ATTACKS[_name] = ([_cell] + _cells, NO_Q1)

# what `labkit grade --tests DIR` finds the paths of only when it can read them: the child is
# told where the tests are through its code only (never through the grader)
READ_TESTS = (
    "import glob, os, re\nfound = {}\n"
    "for path in glob.glob('{TESTS}/**/*.py', recursive=True):\n"
    "    try:\n        text = open(path).read()\n    except OSError:\n        continue\n"
    "    for var, value in re.findall(r\"checks\\.exact\\((\\w+), [^,]+, (\\d+)\", text):\n"
    "        found[var] = int(value)\n"
    "offset_23 = found.get('offset_23', ...)")


def notebook(cells: list[str], path: Path, metadata: bool = True) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in HEAD + cells]
    if metadata:
        nb.metadata["otter"] = {"assignment_name": EXERCISE}
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(nb, path)
    return path


def grade(*args, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "labkit", "grade", *map(str, args)], cwd=REPO,
                          env=ENV, capture_output=True, text=True, timeout=timeout)


def scores(csv_path: Path) -> dict:
    out: dict = {}
    with open(csv_path) as f:
        for row in csv.DictReader(f):
            out.setdefault(Path(row["file"]).stem, {})[row["question"]] = float(row["points"])
    return out


@pytest.fixture(scope="module")
def tests_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("masters")
    tests = root / EXERCISE / "autograder" / "tests"
    tests.mkdir(parents=True)
    for q in QUESTIONS:
        (tests / f"{q}.py").write_text(ok_test(q))
    return root


def snapshot(root: Path) -> dict:
    return {p: p.read_bytes() for p in sorted(root.rglob("*.py"))}


@pytest.fixture(scope="module")
def attacked(tests_root, tmp_path_factory):
    """Every attack graded in one call (--timeout 30: the infinite loop stops there), then a
    blank notebook graded on its own."""
    before = snapshot(tests_root)
    labkit_before = snapshot(REPO / "labkit")
    subs = tmp_path_factory.mktemp("submissions")
    tests_dir = tests_root / EXERCISE / "autograder" / "tests"
    for name, (cells, _) in ATTACKS.items():
        cells = [c.replace("os.environ.get('ATTACK_TESTS', '/nonexistent')", repr(str(tests_root)))
                  .replace("os.environ.get('ATTACK_TESTS_Q1', '/nonexistent/q1.py')",
                           repr(str(tests_dir / "q1.py"))) for c in cells]
        notebook(cells, subs / f"{name}.ipynb")
    notebook([READ_TESTS.replace("{TESTS}", str(tests_root))] + answer_cells()[1:],
             subs / "read_tests.ipynb")
    notebook(answer_cells(), subs / "colab_stripped.ipynb", metadata=False)
    out = tmp_path_factory.mktemp("out")
    proc = grade("--tests", tests_root, "--timeout", 30, "-j", 3, "--csv", out / "all.csv", subs)
    blank_dir = tmp_path_factory.mktemp("blank")
    notebook(BLANK, blank_dir / "after.ipynb")
    notebook(answer_cells(), blank_dir / "full_after.ipynb")
    after = grade("--tests", tests_root, "--csv", out / "after.csv", blank_dir)
    return {"proc": proc, "scores": scores(out / "all.csv"), "after": after,
            "after_scores": scores(out / "after.csv"), "before": before,
            "now": snapshot(tests_root), "labkit_before": labkit_before,
            "labkit_now": snapshot(REPO / "labkit")}


def fair(points: dict) -> dict:
    return {q: float(points.get(q, 0.0)) for q in POINTS}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(ATTACKS))
def test_each_attack_gets_the_fair_score(attacked, name):
    assert attacked["proc"].returncode == 0, attacked["proc"].stderr[-2000:]
    assert attacked["scores"][name] == fair(ATTACKS[name][1]), attacked["proc"].stdout


@pytest.mark.slow
def test_a_colab_download_without_metadata_is_recognised_and_graded(attacked):
    assert attacked["scores"]["colab_stripped"] == fair(POINTS)


@pytest.mark.slow
def test_the_tests_cannot_be_read(attacked):
    assert "labkit grade: sandbox: bwrap" in attacked["proc"].stderr
    assert attacked["scores"]["read_tests"] == fair({k: v for k, v in POINTS.items() if k != "q1"})


@pytest.mark.slow
def test_a_blank_notebook_after_every_attack_scores_zero_and_the_tests_are_unchanged(attacked):
    assert attacked["after"].returncode == 0, attacked["after"].stderr[-2000:]
    assert attacked["after_scores"]["after"] == fair({})
    assert attacked["after_scores"]["full_after"] == fair(POINTS)
    assert "after.ipynb: 0/8 points, 99_attack" in attacked["after"].stdout
    assert attacked["now"] == attacked["before"]
    assert attacked["labkit_now"] == attacked["labkit_before"]
    # no total above the maximum anywhere
    for line in attacked["proc"].stdout.splitlines():
        if " points, " not in line:
            continue
        got, most = line.rsplit(" points, ", 1)[0].rsplit(": ", 1)[1].split("/")
        assert float(got) <= float(most) == 8
