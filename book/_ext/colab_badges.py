"""Open-in-Colab buttons for the book, built from ``_config.yml``'s ``repository`` (url, branch).

* Every page made from a notebook of the repository (the labs in ``notebooks/``, the exercises
  in ``exercises/``) gets a button under its title that opens that notebook in Colab.
* A chapter names its lab with the directive ``{colab-badge} notebooks/NN_name.ipynb``.
* The theme's own "Colab" launch button (``launch_buttons.colab_url``) would open a chapter's
  Markdown source, which Colab cannot run: on a chapter it is pointed at the chapter's lab (the
  first ``{colab-badge}`` of the page), and pages with no lab lose it.

The address is ``https://colab.research.google.com/github/OWNER/REPO/blob/BRANCH/PATH``, so the
button opens the notebook straight from the repository, as Colab's "GitHub" tab does.
"""

from __future__ import annotations

import html
from pathlib import PurePosixPath

from docutils import nodes
from docutils.parsers.rst import Directive, directives

COLAB = "https://colab.research.google.com/github"
AUTO_FOLDERS = ("notebooks", "exercises")


def colab_url(repository_url: str, branch: str, path: str) -> str:
    """The Colab address of ``path`` (relative to the repository root) on ``branch``.

    >>> colab_url("https://github.com/layout-lab/layout-lab", "main", "notebooks/01_shape_stride.ipynb")
    'https://colab.research.google.com/github/layout-lab/layout-lab/blob/main/notebooks/01_shape_stride.ipynb'
    """
    prefix = "https://github.com/"
    if not repository_url.startswith(prefix):
        raise ValueError(f"repository.url must be a GitHub address ({prefix}OWNER/REPO); got {repository_url!r}")
    owner_repo = repository_url[len(prefix):].strip("/")
    if owner_repo.count("/") != 1 or not branch:
        raise ValueError(f"repository.url must be {prefix}OWNER/REPO with a branch; got {repository_url!r}, {branch!r}")
    return f"{COLAB}/{owner_repo}/blob/{branch}/{PurePosixPath(path).as_posix().lstrip('/')}"


def badge_html(url: str, label: str) -> str:
    """A self-contained link button (no image from the network)."""
    return (f'<p class="colab-badge"><a class="sd-btn sd-btn-outline-primary" href="{html.escape(url, quote=True)}" '
            f'target="_blank" rel="noopener">&#9654;&#xFE0E; {html.escape(label)}</a></p>')


def _repository(config) -> tuple[str, str]:
    opts = config.html_theme_options or {}
    return opts.get("repository_url", ""), opts.get("repository_branch", "") or "main"


class ColabBadge(Directive):
    """``{colab-badge} PATH`` with an optional ``:label:``."""

    required_arguments = 1
    option_spec = {"label": directives.unchanged}

    def run(self):
        env = self.state.document.settings.env
        url = colab_url(*_repository(env.config), self.arguments[0])
        targets = env.__dict__.setdefault("colab_targets", {})
        targets.setdefault(env.docname, url)
        label = self.options.get("label", "Open the lab in Colab")
        return [nodes.raw("", badge_html(url, label), format="html")]


def _insert_notebook_badges(app, doctree):
    docname = app.env.docname
    if not docname.startswith(AUTO_FOLDERS) or not app.env.doc2path(docname).endswith(".ipynb"):
        return
    url = colab_url(*_repository(app.config), f"{docname}.ipynb")
    what = "lab" if docname.startswith("notebooks") else "exercise"
    badge = nodes.raw("", badge_html(url, f"Open this {what} in Colab"), format="html")
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None:
        doctree.insert(0, badge)
        return
    title = next(iter(section.findall(nodes.title)), None)
    section.insert(section.index(title) + 1 if title is not None else 0, badge)


def _purge(app, env, docname):
    getattr(env, "colab_targets", {}).pop(docname, None)


def _merge(app, env, docnames, other):
    env.__dict__.setdefault("colab_targets", {}).update(
        {d: u for d, u in getattr(other, "colab_targets", {}).items() if d in docnames})


def _fix_launch_button(app, pagename, templatename, context, doctree):
    """Runs after the theme's ``add_launch_buttons``: chapters launch their lab, pages that are
    neither a notebook of the repository nor a chapter with a lab launch nothing."""
    if pagename.startswith(AUTO_FOLDERS):
        return
    target = getattr(app.env, "colab_targets", {}).get(pagename)
    for group in context.get("header_buttons", []):
        if group.get("label") != "launch-buttons":
            continue
        kept = []
        for button in group.get("buttons", []):
            if "colab.research.google.com" in str(button.get("url", "")):
                if target is None:
                    continue
                button = dict(button, url=target, tooltip="Open this chapter's lab in Colab")
            kept.append(button)
        group["buttons"] = kept
    context["header_buttons"] = [g for g in context.get("header_buttons", [])
                                 if g.get("label") != "launch-buttons" or g.get("buttons")]


def setup(app):
    app.add_directive("colab-badge", ColabBadge)
    app.connect("doctree-read", _insert_notebook_badges)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("html-page-context", _fix_launch_button, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
