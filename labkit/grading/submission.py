"""Read a submission: its notebook, the exercise it belongs to, its student id, its code cells.

A submission is a notebook (``.ipynb``) or an otter export zip holding one; nothing of it runs
here. Nothing in it picks code or paths: its exercise must be one of a fixed list (the book's
exercises, or those in the instructor's ``--tests`` folders; :func:`known_exercises`), and its
student id is read from the source as a literal (:func:`labkit.grading.variant.student_id_literal`).
Files and zip members are size-limited before they are read.

>>> import nbformat
>>> from labkit.grading.submission import code_of, exercise_of, student_id_of
>>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('student_id = 7'),
...                                      nbformat.v4.new_code_cell('grader.public_tests("01_shape_stride")')])
>>> exercise_of(nb, ["01_shape_stride"]), student_id_of(nb), len(code_of(nb))
('01_shape_stride', 7, 2)
>>> nb.metadata["otter"] = {"assignment_name": "../../tmp/x"}
>>> exercise_of(nb, ["01_shape_stride"])
Traceback (most recent call last):
...
labkit.grading.scores.GradingError: the notebook names exercise '../../tmp/x', which is not one of the exercises graded here (01_shape_stride)
"""

from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path

from .scores import GradingError

__all__ = ["read_submission", "exercise_of", "student_id_of", "student_variant", "code_of",
           "known_exercises", "EXERCISE_NAME", "MAX_NOTEBOOK"]

MAX_NOTEBOOK = 16 << 20
"""Bytes a notebook may have (in a zip: uncompressed)."""
MAX_MEMBERS = 1000
"""Members an export zip may hold."""
EXERCISE_NAME = re.compile(r"[0-9]{2}[a-z]?_[a-z0-9_]{1,60}")
"""What an exercise's name looks like (``01_shape_stride``, ``02b_global_to_thread``)."""


def read_submission(path: str | os.PathLike):
    """The notebook (an ``nbformat`` node) of a submission: an ``.ipynb`` or an export zip."""
    import nbformat

    path = Path(path)
    try:
        is_file = path.is_file()
    except OSError:
        is_file = False
    if not is_file:
        raise GradingError(f"submission {str(path)!r} is not a file")
    try:
        if zipfile.is_zipfile(path):
            text = _notebook_in_zip(path)
        else:
            if path.stat().st_size > MAX_NOTEBOOK:
                raise GradingError(f"submission {path.name!r} is larger than "
                                   f"{MAX_NOTEBOOK >> 20} MiB")
            text = path.read_text(encoding="utf-8")
        return nbformat.reads(text, as_version=4)
    except GradingError:
        raise
    except Exception as e:  # not JSON, not a notebook, a broken zip
        raise GradingError(f"submission {path.name!r} is not a readable notebook: "
                           f"{str(e)[:200]}") from None


def _notebook_in_zip(path: Path) -> str:
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
        if len(infos) > MAX_MEMBERS:
            raise GradingError(f"submission {path.name!r}: an export zip holds at most "
                               f"{MAX_MEMBERS} files, found {len(infos)}")
        names = [i for i in infos
                 if i.filename.endswith(".ipynb") and ".ipynb_checkpoints" not in i.filename]
        if len(names) != 1:
            raise GradingError(f"submission {path.name!r}: an export zip holds one "
                               f"notebook, found {len(names)}")
        info = names[0]
        if info.file_size > MAX_NOTEBOOK:
            raise GradingError(f"submission {path.name!r}: its notebook is larger than "
                               f"{MAX_NOTEBOOK >> 20} MiB")
        with zf.open(info) as f:        # the size in the zip's directory may lie: read no more
            data = f.read(MAX_NOTEBOOK + 1)
        if len(data) > MAX_NOTEBOOK:
            raise GradingError(f"submission {path.name!r}: its notebook is larger than "
                               f"{MAX_NOTEBOOK >> 20} MiB")
        return data.decode("utf-8")


def known_exercises(autograder_dirs=()) -> list[str]:
    """The exercises a submission may name: the book's, and with ``--tests`` folders the
    exercises built there (folders named like :data:`EXERCISE_NAME`)."""
    from .variants import EXERCISES

    names = set(EXERCISES)
    for d in autograder_dirs:
        d = Path(d)
        if EXERCISE_NAME.fullmatch(d.name):
            names.add(d.name)
        if d.is_dir():
            names.update(p.name for p in d.iterdir()
                         if p.is_dir() and EXERCISE_NAME.fullmatch(p.name))
    return sorted(names)


_EXERCISE_IN_SOURCE = re.compile(r"""public_tests\(\s*["']([0-9A-Za-z_]+)["']""")


def exercise_of(nb, known, forced: str | None = None) -> str:
    """The exercise of a notebook: otter's ``assignment_name`` in its metadata, else the exercise
    its fetch cell names; it must be one of ``known`` (and ``forced``, when given)."""
    meta = nb.metadata.get("otter") if isinstance(nb.metadata.get("otter"), dict) else {}
    name = meta.get("assignment_name")
    if name is None:
        for cell in nb.cells:
            m = _EXERCISE_IN_SOURCE.search(cell.source if cell.cell_type == "code" else "")
            if m:
                name = m.group(1)
                break
    if name is None:
        if forced is not None:
            return forced
        raise GradingError("the notebook does not say which exercise it is (no otter "
                           "assignment_name in its metadata); grade it with --exercise NAME")
    if type(name) is not str or name not in known:
        shown = repr(name)[:80]
        raise GradingError(f"the notebook names exercise {shown}, which is not one of the "
                           f"exercises graded here ({', '.join(known)})")
    if forced is not None and name != forced:
        raise GradingError(f"the notebook is exercise {name}, not {forced} (--exercise)")
    return name


def student_id_of(nb):
    """The ``student_id`` a notebook sets (its literal; None when it sets none). Set in any
    other way than a plain string or non-negative int literal, once, it is refused."""
    from ..errors import LabkitError
    from .variant import student_id_literal

    found = []
    for source in code_of(nb):
        try:
            value = student_id_literal(source)
        except LabkitError as e:
            raise GradingError(str(e)) from None
        if value is not None:
            found.append(value)
    if len(found) > 1:
        raise GradingError("student_id must be set once (in the notebook's first cell); "
                           f"it is set {len(found)} times")
    return found[0] if found else None


def student_variant(nb, needed: bool = True) -> int | None:
    """The variant seed of a notebook, from its ``student_id`` by the rule the notebook uses
    (:func:`labkit.grading.variant.student_seed`); a notebook that sets none is refused when
    ``needed`` (its exercise has variants), else None."""
    from ..errors import LabkitError
    from .variant import student_seed

    sid = student_id_of(nb)
    if sid is None:
        if needed:
            raise GradingError('the notebook does not set student_id (its first cell: '
                               'student_id = "your id", or "book" for the book\'s numbers)')
        return None
    try:
        return student_seed(sid)
    except LabkitError as e:
        raise GradingError(str(e)) from None


def code_of(nb) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "code"]
