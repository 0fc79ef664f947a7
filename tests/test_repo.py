"""The repository keeps its promises: the README's commands, CI, the book's table of contents,
the first lab, and the first graded exercise."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import nbformat
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
BOOK_COMMAND = "python -m pip install -r requirements.txt && jupyter-book build ."
TEST_COMMAND = "python -m pip install -r requirements.txt && python -m pytest"
LAB = REPO / "notebooks" / "01_shape_stride.ipynb"
MASTER = REPO / "solutions" / "01_shape_stride.ipynb"
STUDENT = REPO / "exercises" / "01_shape_stride" / "student"


def code_cells(path: Path) -> list[str]:
    nb = nbformat.read(path, as_version=4)
    return [cell.source for cell in nb.cells if cell.cell_type == "code"]


def text_output(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.output_type == "stream")


# README, requirements, CI ------------------------------------------------------------------


def test_readme_quick_start_has_the_two_commands():
    readme = (REPO / "README.md").read_text()
    quick_start = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", quick_start, flags=re.S)
    commands = [line.strip() for block in blocks for line in block.splitlines() if line.strip()]
    assert commands == [BOOK_COMMAND, TEST_COMMAND]
    assert "jupyter lab notebooks/" in readme
    assert "Colab" in readme


def test_ci_runs_the_readme_test_command():
    script = (REPO / ".ci" / "run").read_text()
    assert script.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in script
    last_command = [line for line in script.splitlines() if line.strip()][-1]
    assert last_command == TEST_COMMAND


def test_requirements_install_labkit_and_pin_the_toolchain():
    lines = [
        line.split("#")[0].strip()
        for line in (REPO / "requirements.txt").read_text().splitlines()
    ]
    lines = [line.replace(" ", "") for line in lines if line]
    assert "-e." in lines or "." in lines
    numpy = [line for line in lines if re.match(r"numpy\b", line)]
    assert numpy and "<2.5" in numpy[0]
    assert "jupyter-book>=1.0.4,<2" in lines
    assert "otter-grader==7.0.0" in lines


def test_pyproject_declares_the_markers_and_the_version():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    markers = config["tool"]["pytest"]["ini_options"]["markers"]
    assert sorted(m.split(":")[0] for m in markers) == ["browser", "cute_dsl", "gpu", "slow"]
    assert config["project"]["requires-python"] == ">=3.11"
    assert config["project"]["dynamic"] == ["version"]
    assert config["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "labkit._version.__version__"}


def test_labkit_is_installed_from_this_repository():
    from importlib.metadata import version

    import labkit

    assert version("labkit") == labkit.__version__  # the installed metadata is this checkout's
    assert Path(labkit.__path__[0]).resolve() == REPO / "labkit"


# The book --------------------------------------------------------------------------------


def toc_files(entry) -> list[str]:
    found = []
    if isinstance(entry, dict):
        for key, value in entry.items():
            if key in ("file", "root"):
                found.append(value)
            else:
                found += toc_files(value)
    elif isinstance(entry, list):
        for item in entry:
            found += toc_files(item)
    return found


def test_every_page_in_the_toc_exists():
    toc = yaml.safe_load((REPO / "_toc.yml").read_text())
    assert toc["format"] == "jb-book"
    pages = toc_files(toc)
    assert "book/intro" in pages and "book/gallery" in pages
    for page in pages:
        candidates = [REPO / page, REPO / f"{page}.md", REPO / f"{page}.ipynb"]
        assert any(p.is_file() for p in candidates), f"{page} is in _toc.yml but not on disk"


def test_book_config_builds_offline_and_executes_chapters():
    config = yaml.safe_load((REPO / "_config.yml").read_text())
    assert config["title"] == "Layout Lab"
    assert config["execute"]["execute_notebooks"] in ("cache", "force")
    assert config["sphinx"]["config"]["nb_execution_raise_on_error"] is True
    assert config["sphinx"]["config"].get("intersphinx_mapping", {}) == {}
    assert config["launch_buttons"].get("thebe") is False


# Notebooks ---------------------------------------------------------------------------------


def all_notebooks() -> list[Path]:
    found = []
    for folder in ("notebooks", "solutions", "exercises"):
        found += sorted((REPO / folder).rglob("*.ipynb"))
    return [p for p in found if ".ipynb_checkpoints" not in p.parts]


def _is_learner_answer(node: ast.FunctionDef, source: str) -> bool:
    """A function the learner writes: handed out with ``...`` where the learner's lines go (the
    whole body, or the middle of a kernel whose set-up and timing are given), or an otter solution."""
    if any(isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) and n.value.value is Ellipsis
           for n in ast.walk(node)):
        return True
    return "# BEGIN SOLUTION" in (ast.get_source_segment(source, node) or "")


@pytest.mark.parametrize("path", all_notebooks(), ids=lambda p: str(p.relative_to(REPO)))
def test_notebooks_import_labkit_and_define_no_helpers(path):
    graded = path.is_relative_to(REPO / "exercises") or path.is_relative_to(REPO / "solutions")
    for source in code_cells(path):
        code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(code)):
            if isinstance(node, ast.ClassDef) or (
                    isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and not (graded and _is_learner_answer(node, code))):
                raise AssertionError(f"{path.name} defines {node.name!r}; helpers belong in labkit:\n{source}")


@pytest.mark.parametrize("path", sorted((REPO / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_labs_install_labkit_first_on_colab(path):
    first = code_cells(path)[0]
    assert '"google.colab" in sys.modules' in first
    assert "pip" in first and "install" in first


def test_colab_cells_use_the_repository_address():
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    address = config["project"]["urls"]["Repository"]
    assert address in code_cells(LAB)[0]
    assert address in code_cells(MASTER)[0]
    assert address in (REPO / "README.md").read_text()


@pytest.mark.slow
def test_first_lab_runs_and_shows_the_hand_computed_facts(executed_page):
    nb = executed_page(LAB)
    outputs = {cell.source: text_output(cell) for cell in nb.cells if cell.cell_type == "code"}
    by_first_line = {source.splitlines()[0]: out for source, out in outputs.items() if source}

    # (4,8):(8,1) with dynamic integers, and the same layout with static ones
    assert by_first_line["L = lk.make_layout((4, 8), (8, 1))"] == "(4,8):(8,1)\n"
    static = by_first_line["Ls = lk.make_layout((lk.S(4), lk.S(8)), (lk.S(8), lk.S(1)))"]
    assert static.splitlines() == ["(_4,_8):(_8,_1)", "True False"]
    # the default stride is column-major, with CuTe's static unit stride first (LayoutLeft)
    assert by_first_line["print(lk.make_layout((4, 8)))"] == "(4,8):(_1,4)\n"
    # 2*8 + 3*1 = 19; index 13 is (1,3) -> 11; the first eight indices walk down column 0, 1
    assert by_first_line["print(L(2, 3))"].splitlines() == [
        "19",
        "11 11",
        "[0, 8, 16, 24, 1, 9, 17, 25]",
    ]
    # size 32, cosize 3*8 + 7*1 + 1 = 32, rank 2
    assert by_first_line["print(lk.size(L), lk.cosize(L), lk.rank(L))"] == "32 32 2\n"
    # (_2,(_1,_6)):(_1,(_6,_2)) coalesces to _12:_1 and (_4,_8):(_1,_4) to _32:_1; CuTe merges
    # modes only when that is decided at compile time, so dynamic (4,8):(1,4) stays, and
    # (4,8):(8,1) cannot merge at all (4*8 != 1)
    coalesced = by_first_line[
        "A = lk.make_layout((lk.S(2), (lk.S(1), lk.S(6))), (lk.S(1), (lk.S(6), lk.S(2))))"
    ]
    assert coalesced.splitlines() == ["(_2,(_1,_6)):(_1,(_6,_2)) -> _12:_1", "True"]
    merged = by_first_line["print(lk.coalesce(lk.make_layout((lk.S(4), lk.S(8)), (lk.S(1), lk.S(4)))))"]
    assert merged.splitlines() == ["_32:_1", "(4,8):(1,4)", "(4,8):(8,1)"]
    # print_layout: one row of offsets per row coordinate, r*8 + c in row r, column c
    table = by_first_line["lk.print_layout(L)"]
    rows = [
        [int(cell) for cell in line.split("|")[1:-1]]
        for line in table.splitlines()
        if line.count("|") > 1
    ]
    assert rows == [[8 * r + c for c in range(8)] for r in range(4)]


# One address for the repository -------------------------------------------------------------

GITHUB = re.compile(r"https://github\.com/([\w.-]+/[\w.-]+?)(?:\.git)?(?=[@/\s\"')`>\]]|$)")
RAW = re.compile(r"https://raw\.githubusercontent\.com/([\w.-]+/[\w.-]+)/([\w.-]+)/")
PAGES = re.compile(r"https://([\w-]+)\.github\.io/([\w.-]+)/?")


def repository_config() -> tuple[str, str]:
    repo = yaml.safe_load((REPO / "_config.yml").read_text())["repository"]
    return repo["url"], repo["branch"]


def install_cells() -> dict[str, str]:
    """The Colab install cell (first code cell) of every lab, exercise and graded master."""
    paths = sorted((REPO / "notebooks").glob("*.ipynb")) + sorted((REPO / "exercises").glob("*/student/*.ipynb"))
    paths += sorted((REPO / "solutions").glob("*.ipynb"))
    return {str(p.relative_to(REPO)): code_cells(p)[0] for p in paths}


def test_one_address_names_the_repository():
    url, branch = repository_config()
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", url) and branch
    owner_repo = url.removeprefix("https://github.com/")
    # labkit carries the same values into the installed package
    import labkit._repository as where
    assert (where.REPOSITORY_URL, where.BRANCH) == (url, branch)
    assert where.raw_url("a/b.py") == f"https://raw.githubusercontent.com/{owner_repo}/{branch}/a/b.py"
    # pyproject.toml
    assert tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["urls"]["Repository"] == url
    # every GitHub, raw and Pages address in the README, pyproject, the book and the notebooks
    texts = {"README.md": (REPO / "README.md").read_text(), "pyproject.toml": (REPO / "pyproject.toml").read_text()}
    texts.update({str(p.relative_to(REPO)): p.read_text() for p in sorted((REPO / "book").glob("*.md"))})
    texts.update({str(p.relative_to(REPO)): p.read_text() for p in sorted((REPO / ".github").rglob("*.yml"))})
    texts.update(install_cells())
    for name, text in texts.items():
        for found in GITHUB.findall(text):
            assert found == owner_repo, (name, found)
        for found, ref in RAW.findall(text):
            assert (found, ref) == (owner_repo, branch), (name, found, ref)
        for owner, repo in PAGES.findall(text):
            assert f"{owner}/{repo}" == owner_repo, (name, owner, repo)


def test_every_install_cell_installs_from_the_repository():
    url, branch = repository_config()
    cells = install_cells()
    assert len(cells) >= 7 + 6
    for name, cell in cells.items():
        assert '"google.colab" in sys.modules' in cell, name
        assert url in cell, name
    for name, cell in cells.items():
        if name.startswith("notebooks/"):
            # pip installs labkit from the repository's branch, then numba-cuda for the driver
            assert f'"labkit @ git+{url}@{branch}"' in cell, name
            assert cell.rstrip().endswith("colab.setup_runtime();") and "from labkit import colab" in cell, name


def test_readme_says_where_the_book_is_published():
    url, _ = repository_config()
    owner, repo = url.removeprefix("https://github.com/").split("/")
    readme = (REPO / "README.md").read_text()
    assert f"https://{owner}.github.io/{repo}/" in readme
    assert url in readme


def test_workflows_build_the_book_and_run_ci():
    book = yaml.safe_load((REPO / ".github" / "workflows" / "book.yml").read_text())
    on = book.get("on", book.get(True))            # YAML 1.1 reads the key `on` as True
    assert on["push"]["branches"] == ["main"]
    steps = [s for job in book["jobs"].values() for s in job["steps"]]
    runs = [s.get("run", "") for s in steps]
    assert BOOK_COMMAND in runs
    assert any(s.get("uses", "").startswith("actions/upload-pages-artifact") and s["with"]["path"] == "_build/html"
               for s in steps)
    assert any(s.get("uses", "").startswith("actions/deploy-pages") for s in steps)
    assert book["permissions"]["pages"] == "write"
    ci = yaml.safe_load((REPO / ".github" / "workflows" / "ci.yml").read_text())
    ci_runs = [s.get("run", "") for job in ci["jobs"].values() for s in job["steps"]]
    assert "bash .ci/run" in ci_runs
