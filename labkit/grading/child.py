"""``python -m labkit.grading.child``: run one submission's code cells and send its answers as data.

The grader starts this process (isolated: see :mod:`labkit.grading.sandbox`) and talks to it in
JSON lines: it writes one job, ``{"cells": [...], "answers": [names]}``, on stdin; after every
cell this process writes ``{"cell": i, "answers": {name: data}, "error": text or null}`` with
the answers that changed (:func:`labkit.grading.answers.encode`), so answers already given
survive a crash, an ``os._exit`` or a timeout later on. After the last cell it writes
``{"done": true}``, reads ``{"calls": {name: [args, ...]}}`` (the inputs the grader picked for
each function answer) and writes ``{"calls": {name: [["value", data] or ["error", text]]}}``,
then ``{"end": true}``.

The submission's own output goes nowhere; stdin and stdout are kept on private descriptors
before its first cell runs. Nothing here decides a score: whatever this process sends is read by
the grader as the submission's answers, nothing more.
"""

from __future__ import annotations

import json
import os
import sys


def _private(fd: int, mode: str):
    return os.fdopen(os.dup(fd), mode, buffering=1 if "w" in mode else -1, encoding="utf-8")


def _stand_in_notebook_module():
    import types

    class Notebook:
        """``labkit.grading.notebook.Notebook`` while grading: every method does nothing."""

        _grading_mode = True

        def __init__(self, *args, **kwargs):
            pass

        def check(self, *args, **kwargs):
            return None

        check_all = export = check

    module = types.ModuleType("labkit.grading.notebook")
    module.Notebook = Notebook
    module.on_colab = lambda: False
    return module


def limit(memory: int, processes: int, files: int, file_size: int, cpu: int) -> None:
    """Lower this process's limits (hard and soft) before any of the notebook's code runs: a
    process without capabilities cannot raise them again."""
    import resource

    for what, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_NPROC, processes),
                        (resource.RLIMIT_NOFILE, files), (resource.RLIMIT_FSIZE, file_size),
                        (resource.RLIMIT_CPU, cpu), (resource.RLIMIT_CORE, 0)):
        soft, hard = resource.getrlimit(what)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(what, (value, value))


def run(memory: int, processes: int, files: int, file_size: int, cpu: int) -> None:
    """The child's entry point (see :mod:`labkit.grading.sandbox`): limits, then :func:`main`."""
    code = main((memory, processes, files, file_size, cpu))
    sys.stdout.flush()
    os._exit(code)


def main(limits: tuple | None = None) -> int:
    proto_in = _private(0, "r")
    proto_out = _private(1, "w")
    job = json.loads(proto_in.readline())
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    sys.stdin = open(os.devnull)
    sys.stdout = sys.stderr = open(os.devnull, "w")

    from . import answers

    dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True).encode
    encode = answers.encode

    def send(obj) -> None:
        proto_out.write(dumps(obj) + "\n")
        proto_out.flush()

    os.environ.setdefault("MPLBACKEND", "Agg")
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    # the exercise's ``grader``: while grading its checks and export do nothing (the grader
    # reads the answers itself), so the notebook gets a stand-in and otter is not imported
    sys.modules["labkit.grading.notebook"] = _stand_in_notebook_module()
    config = Config()
    config.HistoryManager.enabled = False
    shell = InteractiveShell.instance(config=config)
    # the working folder is never on the import path: a module the notebook writes there
    # cannot stand in for one the grading or the notebook imports
    here = os.getcwd()
    sys.path[:] = [p for p in sys.path if p not in ("", ".", here)]
    if limits is not None:
        limit(*limits)
    names = [str(n) for n in job.get("answers", [])]
    sent: dict[str, str] = {}

    def changed() -> dict:
        out = {}
        for name in names:
            if name not in shell.user_ns:
                continue
            try:
                data = encode(shell.user_ns[name])
            except BaseException as e:  # noqa: BLE001 - a value whose printing fails
                data = ["other", f"a value that could not be read ({type(e).__name__})"]
            text = dumps(data)
            if sent.get(name) != text:
                sent[name] = text
                out[name] = data
        return out

    for i, source in enumerate(job.get("cells", [])):
        error = None
        try:
            result = shell.run_cell(source, store_history=False, silent=True)
            if not result.success:
                err = result.error_in_exec or result.error_before_exec
                error = f"code cell {i + 1}: {type(err).__name__}: {err}"[:300]
        except BaseException as e:  # noqa: BLE001 - a SystemExit IPython lets through
            error = f"code cell {i + 1}: {type(e).__name__}: {e}"[:300]
        send({"cell": i, "answers": changed(), "error": error})
    send({"done": True})

    line = proto_in.readline()
    request = json.loads(line) if line.strip() else {}
    for name, arg_lists in (request.get("calls") or {}).items():
        fn = shell.user_ns.get(name)
        outs = []
        for args in arg_lists:
            try:
                outs.append(["value", encode(fn(*args))])
            except BaseException as e:  # noqa: BLE001 - the submission's function raised
                outs.append(["error", f"{type(e).__name__}: {e}"[:300]])
        send({"calls": {name: outs}})
    send({"end": True})
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)
