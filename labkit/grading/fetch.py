"""Fetch one exercise's public tests from the repository (what an exercise does on Colab).

Only ``exercises/<name>/student/tests/<question>.py`` is downloaded: no solutions, no hidden
tests. ``download`` is any function from an address to bytes (``urllib`` by default).

>>> import tempfile, os
>>> seen = []
>>> def fake(url):
...     seen.append(url)
...     return b"test = {}"
>>> with tempfile.TemporaryDirectory() as d:
...     paths = public_tests("01_shape_stride", ["q1", "q2"], dest=d, download=fake)
...     print([os.path.basename(p) for p in paths])
['q1.py', 'q2.py']
>>> seen[0]
'https://raw.githubusercontent.com/layout-lab/layout-lab/main/exercises/01_shape_stride/student/tests/q1.py'
"""

from __future__ import annotations

import os
import re
from typing import Callable, Iterable

from .._repository import raw_url
from ..errors import LabkitError

_NAME = re.compile(r"^[0-9A-Za-z_]+$")


def _urllib_download(url: str) -> bytes:
    import urllib.request
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read()


def test_path(exercise: str, question: str) -> str:
    """The repository path of one public test file."""
    for arg, value in (("exercise", exercise), ("question", question)):
        if not _NAME.match(value):
            raise LabkitError(f"{arg} must be a plain name such as '01_shape_stride' or 'q1', "
                              f"got {value!r}")
    return f"exercises/{exercise}/student/tests/{question}.py"


def public_tests(exercise: str, questions: Iterable[str], dest: str = "tests",
                 download: Callable[[str], bytes] | None = None) -> list[str]:
    """Download the public tests of ``exercise`` into ``dest``; returns the files written."""
    download = download or _urllib_download
    os.makedirs(dest, exist_ok=True)
    written = []
    for q in questions:
        data = download(raw_url(test_path(exercise, q)))
        path = os.path.join(dest, f"{q}.py")
        with open(path, "wb") as f:
            f.write(data)
        written.append(path)
    return written
