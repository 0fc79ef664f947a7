"""Read a submission: its notebook, the exercise it belongs to, its variant, its code cells.

A submission is a notebook (``.ipynb``) or an otter export zip holding one; nothing of it runs
here (its student id is read from the source).

>>> import nbformat
>>> from labkit.grading.submission import code_of, exercise_of, student_variant
>>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('student_id = 7'),
...                                      nbformat.v4.new_code_cell('grader.public_tests("01_layouts")')])
>>> exercise_of(nb), student_variant(nb), len(code_of(nb))
('01_layouts', 7, 2)
"""

from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path

from .scores import GradingError

__all__ = ["read_submission", "exercise_of", "student_variant", "code_of"]


def read_submission(path: str | os.PathLike):
    """The notebook (an ``nbformat`` node) of a submission: an ``.ipynb`` or an export zip."""
    import nbformat

    path = Path(path)
    if not path.is_file():
        raise GradingError(f"submission {str(path)!r} is not a file")
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as zf:
                names = [n for n in zf.namelist()
                         if n.endswith(".ipynb") and ".ipynb_checkpoints" not in n]
                if len(names) != 1:
                    raise GradingError(f"submission {path.name!r}: an export zip holds one "
                                       f"notebook, found {len(names)}")
                text = zf.read(names[0]).decode("utf-8")
        else:
            text = path.read_text(encoding="utf-8")
        return nbformat.reads(text, as_version=4)
    except GradingError:
        raise
    except Exception as e:  # not JSON, not a notebook
        raise GradingError(f"submission {path.name!r} is not a readable notebook: {e}") from None


_EXERCISE_IN_SOURCE = re.compile(r"""public_tests\(\s*["']([0-9A-Za-z_]+)["']""")


def exercise_of(nb) -> str:
    """The exercise a notebook belongs to (otter's ``assignment_name``, else its fetch cell)."""
    name = (nb.metadata.get("otter") or {}).get("assignment_name")
    if name:
        return str(name)
    for cell in nb.cells:
        m = _EXERCISE_IN_SOURCE.search(cell.source if cell.cell_type == "code" else "")
        if m:
            return m.group(1)
    raise GradingError("the notebook does not say which exercise it is "
                       "(no otter assignment_name in its metadata)")


def student_variant(nb) -> int:
    """The variant a notebook asks for: the seed of the first ``student_id = "..."`` its code
    cells assign (an int is a seed itself; read from the source, never run), else 0."""
    import ast

    from .variants import seed_of

    for source in code_of(nb):
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in tree.body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name)
                    and node.targets[0].id == "student_id"):
                value = node.value
                if isinstance(value, ast.Constant) and type(value.value) is int and value.value >= 0:
                    return value.value                  # a variant handed out as its seed
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    return seed_of(value.value)
                return 0
    return 0


def code_of(nb) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "code"]
