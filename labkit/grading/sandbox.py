"""How a submission's process is isolated from the grader, the tests and other submissions.

:func:`choose` picks the strongest isolation this machine allows, once per grading run:

- ``namespaces``: ``unshare`` gives the submission its own mount, PID and network namespaces
  (``--user`` too when the grader is not root). Inside, the hidden tests and the masters are
  covered by empty mounts (the submission cannot read them), every mount is read-only, and the
  submission's folder is a fresh tmpfs, the only place it can write. It then runs with no
  capabilities and, when the grader is root and the interpreter is readable by ``nobody``, as
  the unprivileged user ``nobody``. No network; ending it ends every process it started.
- ``bwrap``: the same with bubblewrap, when ``unshare`` cannot make namespaces here.
- ``none``: a scrubbed environment and a fresh temporary folder only. The submission can read and
  write whatever the grader's user can; the grader keeps the tests it loaded in memory and puts
  back any test file that changed (:class:`labkit.grading.grade.TestGuard`).

Every level starts the submission with a scrubbed environment (``PATH``, ``HOME`` in its folder,
``PYTHONPATH`` to labkit, nothing else of the grader's).

>>> choose("none").name
'none'
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

LABKIT_ROOT = Path(__file__).resolve().parents[2]
"""The folder that holds the ``labkit`` package (a checkout, or site-packages)."""
NOBODY = 65534

_SCRIPT = r"""
set -e
work="$1"; shift
uid="$1"; shift
while [ "$1" != "--" ]; do
    [ -d "$1" ] && mount -t tmpfs -o size=4k,mode=000 labkit-hidden "$1"
    shift
done
shift
mount --rbind / /
for m in $(awk '{print $2}' /proc/self/mounts | sort -u); do
    mount -o remount,bind,ro "$m" 2>/dev/null || true
done
mount -t tmpfs -o size=512m,mode=0700,uid=$uid,gid=$uid labkit-work "$work"
cd "$work"
if [ "$uid" != 0 ]; then
    exec setpriv --reuid=$uid --regid=$uid --clear-groups --no-new-privs \
        --bounding-set=-all --inh-caps=-all "$@"
fi
exec setpriv --no-new-privs --bounding-set=-all --inh-caps=-all "$@"
"""


@dataclass
class Sandbox:
    """One isolation level: ``name``, what it gives (``description``), and how to start a child."""

    name: str
    description: str
    hide: list = field(default_factory=list)
    uid: int = 0
    userns: bool = False

    def env(self, work: str) -> dict:
        return {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": work, "TMPDIR": work, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "PYTHONPATH": str(LABKIT_ROOT), "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg", "MPLCONFIGDIR": f"{work}/.mpl",
            "IPYTHONDIR": f"{work}/.ipython", "NUMBA_CACHE_DIR": f"{work}/.numba",
            "JUPYTER_PLATFORM_DIRS": "1",
        }

    def command(self, argv: list[str], work: str) -> list[str]:
        """The command that runs ``argv`` isolated, in the folder ``work``."""
        hide = [str(p) for p in self.hide]
        if self.name == "namespaces":
            user = ["--user", "--map-root-user"] if self.userns else []
            return ["unshare", *user, "--mount", "--net", "--pid", "--fork", "--kill-child",
                    "--propagation", "private", "sh", "-c", _SCRIPT, "labkit-sandbox", work,
                    str(self.uid), *hide, "--", *argv]
        if self.name == "bwrap":
            cover = [a for p in hide if os.path.isdir(p) for a in ("--tmpfs", p)]
            return ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *cover,
                    "--tmpfs", work, "--chdir", work, "--unshare-all", "--die-with-parent",
                    "--new-session", "--cap-drop", "ALL", *argv]
        return list(argv)


def _works(cmd: list[str], timeout: float = 60) -> bool:
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout,
                              env={"PATH": "/usr/local/bin:/usr/bin:/bin"})
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0 and proc.stdout.strip() == b"ok"


def _probe(box: Sandbox) -> bool:
    """Whether ``box`` can start this interpreter and import labkit (and hides what it should)."""
    work = tempfile.mkdtemp(prefix="labkit-probe-")
    try:
        code = ("import os, sys, labkit\n"
                "def seen(h):\n"
                "    try:\n"
                "        return os.listdir(h)\n"
                "    except OSError:\n"
                "        return []\n"
                "assert not any(seen(h) for h in sys.argv[1:])\n"
                "print('ok')")
        argv = [sys.executable, "-c", code, *[str(p) for p in box.hide]]
        cmd = box.command(argv, work)
        try:
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=120,
                                  env=box.env(work), cwd=work)
        except (OSError, subprocess.SubprocessError):
            return False
        return proc.returncode == 0 and proc.stdout.strip().endswith(b"ok")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def choose(mode: str = "auto", hide: list | tuple = ()) -> Sandbox:
    """The isolation for this run: ``auto`` (the strongest that works here), ``namespaces``,
    ``bwrap`` or ``none``. ``hide``: folders the submission must not see (hidden tests, masters).

    A mode asked for by name that cannot work here raises :class:`labkit.errors.LabkitError`."""
    from ..errors import LabkitError

    if mode not in ("auto", "namespaces", "bwrap", "none"):
        raise LabkitError(f"isolation must be 'auto', 'namespaces', 'bwrap' or 'none'; got {mode!r}")
    hide = [Path(p).resolve() for p in hide]
    if mode == "none":
        return Sandbox("none", "none (scrubbed environment and a fresh folder only: the submission "
                       "can read and write what the grader's user can; changed test files are "
                       "put back)", hide)
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    candidates = []
    if mode in ("auto", "namespaces") and shutil.which("unshare") and shutil.which("setpriv"):
        if root:
            candidates.append(Sandbox("namespaces", "", hide, uid=NOBODY))
            candidates.append(Sandbox("namespaces", "", hide, uid=0))
        candidates.append(Sandbox("namespaces", "", hide, uid=0, userns=True))
    if mode in ("auto", "bwrap") and shutil.which("bwrap"):
        candidates.append(Sandbox("bwrap", "", hide))
    for box in candidates:
        if _probe(box):
            box.description = _describe(box)
            return box
    if mode != "auto":
        raise LabkitError(f"isolation {mode!r} does not work on this machine")
    return choose("none", hide)


def _describe(box: Sandbox) -> str:
    if box.name == "bwrap":
        return ("bwrap (hidden tests covered, read-only filesystem, a private writable folder, "
                "no network, no capabilities)")
    who = "user nobody" if box.uid == NOBODY else (
        "user namespace" if box.userns else "root without capabilities")
    return (f"namespaces (hidden tests covered, read-only filesystem, a private writable folder, "
            f"no network, own PID namespace; {who})")
