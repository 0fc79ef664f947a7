"""Execute the book's notebooks side by side before Sphinx reads them one by one.

Jupyter Book runs every chapter and lab in page order, one kernel at a time, while the other
cores wait. Before Sphinx reads the pages, this extension takes every page it is about to read
that myst-nb would execute in ``cache`` mode, reads it exactly as myst-nb does (same reader,
same configuration), and runs the ones the jupyter-cache does not hold yet, one kernel per core
(at most 4). Each executed notebook goes into the same cache, so when myst-nb reaches the page it
finds it there. A notebook that fails is left alone: myst-nb runs it again in page order and
reports the error as it always does, so what a build accepts does not change.

``nb_parallel_execution`` (default: one per core, at most 4) sets how many run at once; 1 turns
the extension off.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath

from sphinx.util import logging

LOGGER = logging.getLogger(__name__)


def _to_execute(app, env, docnames):
    """(path, notebook) of every page to read that myst-nb would execute and the cache lacks."""
    from jupyter_cache import get_cache
    from myst_nb.core.read import create_nb_reader

    nb_config = getattr(env, "mystnb_config", None)
    if nb_config is None or nb_config.execution_mode != "cache":
        return None, []
    cache = get_cache(nb_config.execution_cache_path)
    jobs = []
    for docname in docnames:
        path = Path(env.doc2path(docname))
        posix = PurePosixPath(path.as_posix())
        if path.suffix not in (".md", ".ipynb") or any(
                posix.match(p) for p in nb_config.execution_excludepatterns):
            continue
        text = path.read_text(encoding="utf8")
        reader = create_nb_reader(str(path), env.myst_config, nb_config, text)
        if reader is None:
            continue
        notebook = reader.read(text)
        if nb_config.metadata_key in notebook.metadata:
            continue                      # a notebook with its own execution settings: left to myst-nb
        try:
            cache.match_cache_notebook(notebook)
            continue                      # already executed with this code
        except KeyError:
            pass
        jobs.append((path, notebook, reader.read_fmt))
    # the longest first (file size stands for work), so the last one to start is short
    jobs.sort(key=lambda j: -j[0].stat().st_size)
    return cache, jobs


def _execute(job, nb_config):
    from jupyter_cache.executors.utils import single_nb_execution

    path, notebook, _ = job
    result = single_nb_execution(notebook, cwd=str(path.parent), allow_errors=False,
                                 timeout=nb_config.execution_timeout, meta_override=True)
    return job, result


def execute_in_parallel(app, env, docnames):
    workers = app.config.nb_parallel_execution or min(4, os.cpu_count() or 1)
    if workers < 2:
        return
    cache, jobs = _to_execute(app, env, docnames)
    if not jobs:
        return
    from jupyter_cache.base import CacheBundleIn
    from jupyter_cache.cache.db import NbProjectRecord

    start = time.perf_counter()
    LOGGER.info(f"executing {len(jobs)} notebooks, {workers} at a time")
    done = 0
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for job, result in pool.map(lambda j: _execute(j, env.mystnb_config), jobs):
            path, notebook, read_fmt = job
            if result.err is not None:
                LOGGER.info(f"{path}: failed here, left to the page build ({type(result.err).__name__})")
                continue
            record = cache.add_nb_to_project(str(path), read_data=read_fmt) if read_fmt else \
                cache.add_nb_to_project(str(path))
            NbProjectRecord.remove_tracebacks([record.pk], cache.db)
            cache.cache_notebook_bundle(CacheBundleIn(notebook, record.uri,
                                                      data={"execution_seconds": result.time}),
                                        check_validity=False, overwrite=True)
            done += 1
    LOGGER.info(f"executed {done} of {len(jobs)} notebooks in {time.perf_counter() - start:.1f} s")


def setup(app):
    app.add_config_value("nb_parallel_execution", 0, "env")
    # after myst-nb has made its configuration (builder-inited), before any page is read
    app.connect("env-before-read-docs", execute_in_parallel)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
