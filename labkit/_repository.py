"""Where Layout Lab lives: the repository that Colab installs from and the book links to.

The book's ``_config.yml`` (``repository.url`` and ``repository.branch``) is the one place that
names it; this module carries the same values into the installed package, and a test fails when
the two, the notebooks' install cells, the README or ``pyproject.toml`` disagree.

>>> REPOSITORY_URL
'https://github.com/layout-lab/layout-lab'
>>> raw_url("exercises/01_shape_stride/student/tests/q1.py")
'https://raw.githubusercontent.com/layout-lab/layout-lab/main/exercises/01_shape_stride/student/tests/q1.py'
"""

REPOSITORY_URL = "https://github.com/layout-lab/layout-lab"
BRANCH = "main"


def raw_url(path: str) -> str:
    """The address of one file of the repository's ``BRANCH``, as a browser or ``urllib`` fetches it."""
    owner_repo = REPOSITORY_URL.removeprefix("https://github.com/")
    return f"https://raw.githubusercontent.com/{owner_repo}/{BRANCH}/{path.lstrip('/')}"
