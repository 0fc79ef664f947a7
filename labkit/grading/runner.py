"""Run a submission's code cells in a new isolated process and collect its answers as data.

The child (:mod:`labkit.grading.child`) sends each answer variable after every cell, so a
crash, ``os._exit`` or timeout keeps the answers already given; once the notebook ran, the
grader sends the calls it wants of each function answer and the child sends back their outputs.
:func:`_env_of` turns what came back into the values the tests read.

>>> from labkit.grading.runner import MAX_OUTPUT, _env_of, _Run
>>> MAX_OUTPUT >> 20     # MiB a submission's process may send
64
>>> _env_of(_Run(), {})
{}
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field

from . import answers as _answers

__all__ = ["MAX_OUTPUT"]


MAX_OUTPUT = 64 << 20          # bytes a submission's process may send


@dataclass
class _Run:
    answers: dict = field(default_factory=dict)       # name -> data (encoded)
    cell_errors: list = field(default_factory=list)
    calls: dict = field(default_factory=dict)         # name -> [["value", data] | ["error", text]]
    last_cell: int = -1
    done: bool = False
    error: str | None = None


def _run_child(box, cells: list[str], names: list[str], calls: dict, timeout: float) -> _Run:
    """Run ``cells`` in a new isolated process; collect its answers as they come."""
    import selectors
    import shutil
    import subprocess

    run = _Run()
    work = tempfile.mkdtemp(prefix="labkit-grade-")
    uid = box.next_uid()
    if box.name == "unsafe" and box.root:
        os.chown(work, uid, uid)
        os.chmod(work, 0o700)
    cmd, cwd = box.command(box.python(), uid, work)
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, cwd=work, env=box.env(cwd),
                                start_new_session=True)
    except OSError as e:
        shutil.rmtree(work, ignore_errors=True)
        run.error = f"the notebook could not be started: {e}"
        return run
    deadline = time.monotonic() + timeout
    received = 0
    buf = b""
    try:
        proc.stdin.write((_answers.dumps({"cells": cells, "answers": names}) + "\n").encode())
        proc.stdin.flush()
    except OSError:
        pass
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    fd = proc.stdout.fileno()
    ended = False
    try:
        while not ended:
            left = deadline - time.monotonic()
            if left <= 0:
                run.error = f"stopped after {timeout:g} s (the notebook did not finish)"
                break
            if not sel.select(min(left, 1.0)):
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                if not run.done:
                    run.error = ("the notebook's process ended before its last cell "
                                 f"(after code cell {run.last_cell + 1})")
                break
            received += len(chunk)
            if received > MAX_OUTPUT:
                run.error = "the notebook sent too much data"
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    msg = json.loads(line)
                except (ValueError, RecursionError, MemoryError):   # not a message: ignored
                    continue
                if not isinstance(msg, dict):
                    continue
                if "cell" in msg and type(msg["cell"]) is int:
                    run.last_cell = max(run.last_cell, msg["cell"])
                    if isinstance(msg.get("answers"), dict):
                        for k, v in msg["answers"].items():
                            if k in names:
                                run.answers[k] = v
                    if isinstance(msg.get("error"), str):
                        run.cell_errors.append(msg["error"][:300])
                elif msg.get("done") is True and not run.done:
                    run.done = True
                    wanted = {n: calls[n] for n in calls
                              if isinstance(run.answers.get(n), list)
                              and run.answers[n][:1] == ["function"]}
                    try:
                        proc.stdin.write((_answers.dumps({"calls": wanted}) + "\n").encode())
                        proc.stdin.flush()
                    except OSError:
                        pass
                elif isinstance(msg.get("calls"), dict) and run.done:
                    for k, v in msg["calls"].items():
                        if k in calls and isinstance(v, list):
                            run.calls[k] = v
                elif msg.get("end") is True:
                    ended = True
                    break
    finally:
        sel.close()
        _stop(proc)
        if box.name == "unsafe" and box.root:
            _kill_uid(uid)          # what it started in a session of its own
        shutil.rmtree(work, ignore_errors=True)
    return run


def _stop(proc) -> None:
    import signal
    import subprocess

    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
    for f in (proc.stdin, proc.stdout):
        try:
            f.close()
        except OSError:
            pass
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass


def _kill_uid(uid: int) -> None:
    """SIGKILL every process whose real uid is ``uid`` (a child's own, distinct uid)."""
    import signal

    for _ in range(3):
        found = False
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/status") as f:
                    line = next(ln for ln in f if ln.startswith("Uid:"))
                if int(line.split()[1]) == uid:
                    os.kill(int(entry), signal.SIGKILL)
                    found = True
            except (OSError, StopIteration, ValueError):
                continue
        if not found:
            return
        time.sleep(0.05)


def _env_of(run: _Run, calls: dict) -> dict:
    """The answers as the tests read them: decoded data; function answers answer from the
    outputs their calls returned."""
    env = {}
    for name, data in run.answers.items():
        value = _answers.decode(data)
        if isinstance(value, _answers.RemoteFunction):
            outputs = {}
            for args, out in zip(calls.get(name, []), run.calls.get(name, [])):
                if isinstance(out, list) and len(out) == 2 and out[0] == "value":
                    outputs[tuple(args)] = ("value", _answers.decode(out[1]))
                elif isinstance(out, list) and len(out) == 2 and out[0] == "error":
                    outputs[tuple(args)] = ("error", str(out[1])[:300])
            value.outputs = outputs
        env[name] = value
    return env
