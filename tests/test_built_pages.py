"""The built book read as HTML: every measured figure a page cites is on the Measurements page
with the same value, every "chapter N" is a link that carries the chapter's title, labs and
exercises link their chapters and each other, and no glue/myst_nb code is shown."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from book_site import PAGES, toc_pages as _toc_pages

#: the measurements page and its second and third parts (step 7 on an H100; under Nsight Compute)
MEASUREMENT_PAGES = ["book/measurements", "book/measurements_h100", "book/measurements_h100_ncu"]

pytestmark = pytest.mark.slow        # the book is built (or read from BOOK_HTML) once per run


def _soup(html_dir, path):
    from bs4 import BeautifulSoup
    return BeautifulSoup((html_dir / f"{path}.html").read_text(encoding="utf-8"), "html.parser")


def _article(html_dir, path):
    return _soup(html_dir, path).select_one("article.bd-article")


def _number(text: str) -> float:
    return float(text.replace(",", "").replace("\u2212", "-"))


def _decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text and "e" not in text.lower() else 0


def test_every_cited_figure_is_on_the_measurements_page_with_the_same_value(html_dir):
    from labkit.lab import measurements
    pages = [_article(html_dir, p) for p in MEASUREMENT_PAGES]
    listed = {}
    for page in pages:
        for span in page.select("span.lk-measured"):
            listed.setdefault((span["data-run"], span["data-figure"]), set()).add(span["data-value"])
    # every run the book cites is listed with its date, machine and versions
    runs = {run for run, _ in listed}
    assert runs == set(measurements.RUNS.values())
    info = " ".join(page.get_text(" ") for page in pages)
    for run in runs:
        for key, value in measurements.run_info(run).items():
            if key in ("date", "gpu", "device", "nvidia-smi", "driver", "python", "numba"):
                assert str(value) in info, (run, key)
    cited, missing, differ = 0, [], []
    for path in PAGES:
        if path in MEASUREMENT_PAGES:
            continue
        for span in _article(html_dir, path).select("span.lk-measured"):
            cited += 1
            key = (span["data-run"], span["data-figure"])
            if key not in listed:
                missing.append((path, key))
                continue
            value = float(span["data-value"])
            shown = span.get_text()
            # the same recorded value, and the page shows it correctly rounded
            if {float(v) for v in listed[key]} != {value} or \
                    abs(_number(shown) - value) > 0.5 * 10 ** -_decimals(shown) * (1 + 1e-9) + 1e-12:
                differ.append((path, key, shown, listed[key]))
    assert cited >= 60 and missing == [] and differ == []


def test_no_measured_figure_is_left_as_source(html_dir):
    for path in PAGES:
        text = _article(html_dir, path).get_text(" ")
        assert "{measured}" not in text and "{glue" not in text, path


_CHAPTER = re.compile(r"\b[Cc]hapters?\s+(\d+[a-z]?)\b")


def _titles(html_dir):
    """page path -> its title without the chapter number, for every chapter page."""
    out = {}
    for cap, path in _toc_pages():
        if cap == "Chapters":
            h1 = _article(html_dir, path).find("h1").get_text(" ", strip=True).rstrip("#¶ ")
            number, title = h1.split(" ", 1)
            out[path] = (number.rstrip("."), " ".join(title.split()))
    return out


def test_chapters_are_numbered_and_every_chapter_reference_is_a_link_with_the_title(html_dir):
    titles = _titles(html_dir)
    numbers = [n for n, _ in titles.values()]
    assert numbers == ["1", "2", "2b", "2c", "3", "4", "5", "6a", "6b", "6c", "6d", "6e", "6f", "6g"]
    # the sidebar shows the numbers
    nav = _soup(html_dir, "book/intro").select_one("nav.bd-docs-nav").get_text(" ")
    for number, title in titles.values():
        assert f"{number}. " in " ".join(nav.split()), number
    bad, links = [], 0
    for path in PAGES:
        article = _article(html_dir, path)
        for node in article.find_all(string=_CHAPTER):
            if node.find_parent(["pre", "script", "style"]) is not None:
                continue
            link = node.find_parent("a")
            for m in _CHAPTER.finditer(node):
                if link is None:
                    bad.append((path, "no link", str(node).strip()[:80]))
                    continue
                href = link.get("href", "").split("#")[0]
                target = (Path(path).parent / href).as_posix()
                target = __import__("posixpath").normpath(target).removesuffix(".html")
                text = " ".join(link.get_text(" ").split())
                number, title = titles.get(target, (None, None))
                ref = m.group(1)          # "chapter 6" may lead to any of 6a-6e, "chapter 6c" to 6c only
                squeeze = lambda t: "".join(t.split())       # noqa: E731 - code elements split words
                if number is None or squeeze(title) not in squeeze(text) or not (
                        number == ref or (ref.isdigit() and number[:-1] == ref and number[-1].isalpha())):
                    bad.append((path, target, text))
                links += 1
    assert links >= 40 and bad == []


def _links(html_dir, path):
    """The pages ``path`` links to from its text (toc paths)."""
    import posixpath
    out = set()
    for a in _article(html_dir, path).select("a.reference.internal"):
        href = a.get("href", "").split("#")[0]
        if href:
            out.add(posixpath.normpath((Path(path).parent / href).as_posix()).removesuffix(".html"))
    return out


def test_labs_and_exercises_link_their_chapters_and_each_other_by_title(html_dir):
    chapters = [p for cap, p in _toc_pages() if cap == "Chapters"]
    labs = [p for cap, p in _toc_pages() if cap == "Labs"]
    exercises = [p for cap, p in _toc_pages() if cap == "Exercises"]
    named_by = {p: set() for p in labs + exercises}             # lab/exercise -> chapters that name it
    partners = {p: set() for p in labs + exercises}
    for chapter in chapters:
        article = _article(html_dir, chapter)
        section = article.select_one("section#lab-and-exercise")
        linked = _links(html_dir, chapter) if section is None else {
            __import__("posixpath").normpath((Path(chapter).parent / a["href"].split("#")[0]).as_posix())
            .removesuffix(".html") for a in section.select("a.reference.internal")}
        lab = [p for p in linked if p in labs]
        ex = [p for p in linked if p in exercises]
        for p in lab + ex:
            named_by[p].add(chapter)
        for a in lab:
            partners[a].update(ex)
        for e in ex:
            partners[e].update(lab)
    problems = []
    for page in labs + exercises:
        links = _links(html_dir, page)
        if not named_by[page] & links:
            problems.append((page, "links none of its chapters", sorted(named_by[page])))
        if not partners[page] <= links:
            problems.append((page, "does not link", sorted(partners[page] - links)))
        article = _article(html_dir, page)
        # every link to a page carries words (its title), and no repository path stands in for one
        for a in article.select("a.reference.internal:not(.lk-term)"):   # a term's link is the word
            if len(a.get_text(strip=True)) < 4:
                problems.append((page, "bare link", str(a)[:80]))
        for code in article.select("code"):
            if code.find_parent("pre") is None and re.search(r"(notebooks|exercises|book)/[\w/]+\.(ipynb|md)\b",
                                                           code.get_text()):
                problems.append((page, "repository path", code.get_text()))
    assert problems == []


def test_no_glue_or_myst_nb_code_is_shown(html_dir):
    shown = {}
    for path in PAGES:
        article = _article(html_dir, path)
        for cell in article.select("div.cell_input, div.highlight"):
            text = cell.get_text()
            if "glue(" in text or "myst_nb" in text:
                shown.setdefault(path, []).append(text.strip()[:60])
    assert shown == {}


# -- the GPU's words: defined before chapter 1, linked where each page first uses them -------

# the words a reader without CUDA must be given (issue list), as they appear in the prose, and
# the section of book/00_gpu that defines each (read from the page itself, not from _ext)
_TERMS = {"warp": r"\bwarps?\b", "lane": r"\blanes?\b", "CTA": r"\bCTAs?\b", "shared memory": r"\bshared memory\b",
          "bank": r"\bbanks?\b", "sector": r"\bsectors?\b", "request": r"\brequests?\b",
          "register": r"\bregisters?\b", "fragment": r"\bfragments?\b", "warpgroup": r"\bwarpgroups?\b",
          "swizzle": r"\bswizzle[sd]?\b", "TMEM": r"\bTMEM\b", "partition": r"\bpartition(?:s|ed)?\b"}


_NOT_PROSE = {"cell_output", "cell_input", "math", "lkf", "lk-table", "admonition-title", "output"}


def _prose_strings(article):
    """The article's text nodes a reader reads as prose, in order: not code, math, headings,
    figures or cell outputs."""
    skip = ["pre", "code", "script", "style", "math", "h1", "h2", "h3", "h4", "figure", "svg", "button",
            "nav"]
    for node in article.find_all(string=True):
        if node.find_parent(skip) is not None:
            continue
        if node.find_parent(class_=lambda c: c in _NOT_PROSE) is not None:
            continue
        link = node.find_parent("a")
        if link is not None and "lk-term" not in (link.get("class") or []):
            continue            # the title of a link to another page, not a use of the word
        yield node


def test_every_gpu_word_links_to_its_definition_at_first_use(html_dir):
    glossary = _article(html_dir, "book/00_gpu")
    defined = {el.get("id") for el in glossary.select("[id]")}
    for word in ("thread", "warp", "warpgroup", "register", "shared-memory", "swizzle", "sector", "tensor-memory"):
        assert f"gpu-{word}" in defined, word
    # the page that defines them comes before chapter 1
    assert PAGES.index("book/00_gpu") < PAGES.index("book/01_shape_stride")
    unlinked, linked = [], 0
    for path in PAGES:
        if path == "book/00_gpu":
            continue
        article = _article(html_dir, path)
        todo = dict(_TERMS)
        for node in _prose_strings(article):
            for word, pattern in list(todo.items()):
                flags = 0 if word.isupper() else re.I
                if re.search(pattern, str(node), flags):
                    del todo[word]
                    a = node.find_parent("a")
                    href = (a.get("href") or "") if a is not None else ""
                    target = href.split("#")[-1] if "#" in href else ""
                    if a is None or "00_gpu.html" not in href or target not in defined:
                        unlinked.append((path, word, str(node).strip()[:60]))
                    else:
                        linked += 1
    assert unlinked == [] and linked >= 100, unlinked[:10]


_REFERENCE = re.compile(r"\b(?:[Ll]abs?|[Ee]xercises?)\s+\d+[a-z]?\b|\b[Ss]ections?\s+\d+|\b[Pp]ages\s+\d+[a-z]?\s+to\b")


def test_every_reference_to_a_lab_exercise_or_section_is_a_link(html_dir):
    bad = []
    for path in PAGES:
        article = _article(html_dir, path)
        for node in article.find_all(string=_REFERENCE):
            if node.find_parent(["pre", "script", "style", "h1", "title"]) is not None:
                continue
            if node.find_parent("a") is None:
                bad.append((path, str(node).strip()[:80]))
    assert bad == []


def test_the_first_inline_ldmatrix_and_wgmma_of_a_page_link_to_their_definition(html_dir):
    unlinked, linked = [], 0
    for path in PAGES:
        if path == "book/00_gpu":
            continue
        for word in ("ldmatrix", "wgmma"):
            for code in _article(html_dir, path).select("p code, li code"):
                text = code.get_text()
                if text == word or text.startswith(word + "."):
                    a = code.find_parent("a")
                    if a is not None and "lk-term" not in (a.get("class") or []):
                        continue            # in the title of a link to another page
                    if a is None or "00_gpu.html#gpu-" not in a.get("href", ""):
                        unlinked.append((path, word))
                    linked += a is not None
                    break
    assert unlinked == [] and linked >= 10, (unlinked, linked)

