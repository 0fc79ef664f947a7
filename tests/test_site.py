"""The book as a website, checked on its sources: every lab and exercise is a page, every page
can be opened in Colab, every chapter states its objectives and ends with a summary and links to
its lab and exercise, the site mentions nothing a reader does not have, and chapter 6 is split
into pages a reader can finish (at most 30 code cells each).

The Colab addresses are Colab's documented form, colab.research.google.com/github/OWNER/REPO/
blob/BRANCH/PATH, with OWNER/REPO and BRANCH from _config.yml.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import jupytext
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
TOC = yaml.safe_load((REPO / "_toc.yml").read_text())
CONFIG = yaml.safe_load((REPO / "_config.yml").read_text())
CHAPTERS = [c["file"] for part in TOC["parts"] if part["caption"] == "Chapters" for c in part["chapters"]]
#: the measurements page and its second and third parts (step 7 on an H100; under Nsight Compute)
MEASUREMENT_PAGES = ["book/measurements", "book/measurements_h100", "book/measurements_h100_ncu"]
LABS = sorted(p.relative_to(REPO).with_suffix("").as_posix() for p in (REPO / "notebooks").glob("*.ipynb"))
EXERCISES = sorted(p.relative_to(REPO).with_suffix("").as_posix()
                   for p in (REPO / "exercises").glob("*/student/*.ipynb"))


def part(caption: str) -> list[str]:
    return [c["file"] for p in TOC["parts"] if p["caption"] == caption for c in p["chapters"]]


def test_labs_and_exercises_are_parts_of_the_toc():
    assert [p["caption"] for p in TOC["parts"]] == ["Before you start", "Chapters", "Labs", "Exercises", "Appendix"]
    # the page on the GPU comes before chapter 1
    assert part("Before you start") == ["book/00_gpu"]
    assert part("Labs") == LABS and len(LABS) == 10
    assert part("Exercises") == EXERCISES and len(EXERCISES) == 9
    # labs run at build time (cached), exercises are shown as handed out (never executed)
    execute = CONFIG["execute"]
    assert execute["execute_notebooks"] == "cache"
    from pathlib import PurePosixPath
    for page in EXERCISES:
        assert any(PurePosixPath(f"/build/{page}.ipynb").match(p) for p in execute["exclude_patterns"]), page
    for page in LABS + CHAPTERS:
        assert not any(PurePosixPath(f"/build/{page}.ipynb").match(p) for p in execute["exclude_patterns"]), page
    for folder in ("notebooks", "exercises"):
        assert folder not in CONFIG["exclude_patterns"]


@pytest.fixture(scope="module")
def badges():
    sys.path.insert(0, str(REPO / "book" / "_ext"))
    try:
        import colab_badges
    finally:
        sys.path.pop(0)
    return colab_badges


def test_colab_addresses_come_from_the_config(badges):
    url, branch = CONFIG["repository"]["url"], CONFIG["repository"]["branch"]
    owner_repo = url.removeprefix("https://github.com/")
    assert badges.colab_url(url, branch, "notebooks/06_fragment_trace.ipynb") == (
        f"https://colab.research.google.com/github/{owner_repo}/blob/{branch}/notebooks/06_fragment_trace.ipynb")
    with pytest.raises(ValueError, match="repository.url"):
        badges.colab_url("https://gitlab.com/a/b", "main", "x.ipynb")
    assert "colab_badges" in CONFIG["sphinx"]["local_extensions"]
    # the theme's launch button opens labs and exercises; the extension points a chapter's at its lab
    assert CONFIG["launch_buttons"]["colab_url"] == "https://colab.research.google.com"
    html = badges.badge_html("https://colab.research.google.com/github/a/b/blob/main/x.ipynb", "Open")
    assert 'href="https://colab.research.google.com/github/a/b/blob/main/x.ipynb"' in html and "<img" not in html


def lab_of(chapter_text: str) -> str:
    return re.search(r"```\{colab-badge\} (notebooks/\w+)\.ipynb", chapter_text).group(1)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_has_objectives_summary_and_links(chapter):
    text = (REPO / f"{chapter}.md").read_text()
    title = re.search(r"^# .+$", text, re.M)
    after_title = text[title.end():title.end() + 1500]
    # opens with a Colab button for its lab and what the reader will be able to do
    assert after_title.lstrip().startswith("```{colab-badge} notebooks/")
    assert re.search(r"```\{admonition\} After this (chapter|page) you can\n:class: tip\n(- .+\n(  .+\n)*)+```",
                     after_title)
    lab = lab_of(after_title)
    assert lab in LABS
    # ends with a summary, then links to its lab and its exercise
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[-2:] in (["Summary", "Lab and exercise"], ["What the ladder teaches", "Lab and exercise"])
    tail = text.split("## Lab and exercise")[1]
    assert f"{{doc}}`/{lab}`" in tail
    exercise = re.search(r"\{doc\}`/(exercises/[\w/]+)`", tail).group(1)
    assert exercise in EXERCISES
    assert f"```{{colab-badge}} {exercise}.ipynb" in tail


FORBIDDEN = [r"\bseeds?\b(?! *[=)])", r"source material", r"excalidraw", r"docs/benchmarks", r"gemm_notes",
             r"FACTS\.md", r"\berrata\b", r"benchmarks/results", r"\.log\b"]


@pytest.mark.parametrize("page", CHAPTERS + ["book/intro", "book/gallery"] + part("Appendix"))
def test_the_site_stands_alone(page):
    path = REPO / f"{page}.md"
    # markdown only: what the reader reads (code cells may name a file through labkit)
    nb = jupytext.read(path)
    prose = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    for pattern in FORBIDDEN:
        assert not re.search(pattern, prose, re.I), (page, pattern)
    assert not re.search(r"gemm_h200_\d|\.\./benchmarks", code), page
    # repository files are linked as pages, never named as paths the reader must find
    assert not re.search(r"`(notebooks|exercises)/[\w/]+\.ipynb`", prose), page


@pytest.mark.parametrize("page", ["book/06a_one_warp_mma", "book/06b_sgemm_sm80_cta", "book/06c_gemm_ladder",
                                  "book/06d_gemm_tma", "book/06e_ladder_in_cute"])
def test_chapter_6_pages_are_short_enough(page):
    nb = jupytext.read(REPO / f"{page}.md")
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert 5 <= len(code) <= 30, len(code)
    # the book only calls labkit: no helper functions, no regular expressions over printed text
    source = "\n".join(c.source for c in code)
    assert not re.search(r"^\s*(def|class)\s", source, re.M)
    assert "import re\n" not in source and "re.findall" not in source and "re.search" not in source, page
    # result files are read through labkit.lab.measurements, never opened by the page
    assert "json.load" not in source and "read_text(" not in source and "open(" not in source, page



def test_no_text_claims_a_site_that_is_not_there():
    """The project has no public home yet: the README says how to build the book and where the
    workflow will publish it, never that it is published."""
    readme = (REPO / "README.md").read_text()
    assert not re.search(r"\b(is|are) (now )?(published|live|online|hosted) (at|on)\b", readme, re.I)
    assert "no public home yet" in readme
    for page in CHAPTERS + ["book/intro", "book/gallery"] + MEASUREMENT_PAGES:
        assert "github.io" not in (REPO / f"{page}.md").read_text(), page


def test_pages_read_the_one_latest_run():
    """Every page that shows the GEMM ladder reads labkit.lab.measurements.GEMM_RUN."""
    for page in CHAPTERS + MEASUREMENT_PAGES:
        text = (REPO / f"{page}.md").read_text()
        assert "H200_RUN" not in text, page
        for m in re.finditer(r"gemm_ladder\(([^)]*)\)", text):
            assert m.group(1) in ("measurements.GEMM_RUN", ""), (page, m.group(0))


def test_glue_and_myst_nb_live_in_removed_cells():
    for page in CHAPTERS + ["book/intro", "book/gallery"] + MEASUREMENT_PAGES:
        nb = jupytext.read(REPO / f"{page}.md")
        for cell in nb.cells:
            if cell.cell_type == "code" and ("glue(" in cell.source or "myst_nb" in cell.source):
                assert "remove-cell" in cell.metadata.get("tags", []), (page, cell.source[:80])


# The book's cells stay thin: tables are formatted and bank arithmetic is done by labkit (the
# Measurements page, the ladder and the recorded experiments print through
# labkit.lab.measurements), never by a page's own f-string widths, ljust/rjust, or % 32.
TABLE_FORMAT = re.compile(r"\{[^{}]*:[<>^]?\d+(?:\.\d+)?[a-zA-Z]?\}|\{[^{}]*:[<>^]\{|\.ljust\(|\.rjust\(|\.center\(")
BANK_ARITHMETIC = re.compile(r"%\s*32\b|//\s*\d+\)?\s*%\s*\d+|\bbank\s*=\s*\(")


def fat_lines(page: str) -> list[str]:
    nb = jupytext.read(REPO / f"{page}.md")
    return [line for c in nb.cells if c.cell_type == "code" for line in c.source.splitlines()
            if TABLE_FORMAT.search(line) or BANK_ARITHMETIC.search(line)]


def test_the_thin_cell_rule_sees_table_formatting_and_bank_arithmetic(tmp_path):
    for line in ('print(f"{name:<30} {n:>4}")', "bank = (addr // 4) % 32", 'print(str(x).ljust(8))',
                 'print(f"{x:6.3g}")', "slot = (2 * off // 16) % 8"):
        assert TABLE_FORMAT.search(line) or BANK_ARITHMETIC.search(line), line
    for line in ('print(f"{x:.1f} TFLOP/s")', "measurements.ladder('gemm')", 'print(f"{name}: {n}")'):
        assert not (TABLE_FORMAT.search(line) or BANK_ARITHMETIC.search(line)), line


@pytest.mark.parametrize("page", CHAPTERS + ["book/intro", "book/gallery"] + MEASUREMENT_PAGES)
def test_book_cells_stay_thin(page):
    # tables are printed and banks computed by labkit (labkit.viz.text_table, labkit.banks), not by the page
    assert fat_lines(page) == []
