"""How a submission's process is kept apart from the grader, the tests and every other submission.

Each notebook runs in a sandbox of its own, built by bubblewrap (``bwrap``, Debian's
``bubblewrap`` package):

- its own PID namespace with a fresh ``/proc`` (it sees no other process, none of their
  folders or memory), its own network (none), IPC and UTS namespaces; it dies with the grader;
- a filesystem that holds only what a notebook needs, read-only: ``/usr`` (the system's
  libraries), the Python installation, and the ``labkit`` package; the tests, the masters,
  ``solutions/``, the other submissions and the rest of the machine are simply not there;
- a private scratch folder (a tmpfs of :attr:`Limits.scratch` bytes), its working folder and
  the only place it can write;
- a uid of its own: run as root, the grader gives every child a distinct unprivileged uid
  (:func:`uid_for`) with no capabilities and ``no_new_privs`` (``setpriv``); run as another
  user, the child is that user inside a user namespace of its own;
- Python started with ``-I`` (the working folder is not on the import path, no ``PYTHON*``
  variable is read), and limits (:class:`Limits`) on address space, processes, open files,
  file size and CPU time, set before the notebook's first cell.

:func:`choose` checks once per run that such a sandbox starts here. Where it cannot, grading is
refused unless the instructor asks for ``unsafe`` (``labkit grade --unsafe-no-sandbox``): the
child then runs with the same limits and scrubbed environment, as a distinct uid when the grader
is root, and only if the installed labkit is not writable by the child's user.

>>> Limits().memory >> 20, Limits().processes
(2048, 64)
>>> uid_for(1234, 5) == uid_for(1234, 5) != uid_for(1235, 5)
True
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import LabkitError

__all__ = ["Limits", "Sandbox", "choose", "uid_for", "LABKIT_ROOT", "SCRATCH"]

LABKIT_ROOT = Path(__file__).resolve().parents[2]
"""The folder that holds the ``labkit`` package (a checkout, or site-packages)."""
SCRATCH = "/home/student"
"""The child's working folder inside the sandbox."""
_UID_BASE = 1 << 30


def uid_for(grader_pid: int, slot: int) -> int:
    """The uid of a child: distinct for every grader process (its pid) and for every child it
    runs at once (``slot`` < 256), above every account's uid."""
    return _UID_BASE + ((grader_pid & 0x3FFFFF) << 8) + (slot & 0xFF)


@dataclass(frozen=True)
class Limits:
    """What one child may use: ``memory`` (address space, bytes), ``processes`` (threads
    included), ``files`` (open at once), ``file_size`` (one file, bytes), ``scratch`` (its
    folder, bytes), ``cpu`` (seconds of CPU time)."""

    memory: int = 2 << 30
    processes: int = 64
    files: int = 256
    file_size: int = 64 << 20
    scratch: int = 256 << 20
    cpu: int = 600

    def check(self) -> "Limits":
        for name in ("memory", "processes", "files", "file_size", "scratch", "cpu"):
            value = getattr(self, name)
            if type(value) is not int or value <= 0:
                raise LabkitError(f"limit {name} must be a positive int; got {value!r}")
        if self.memory < 512 << 20:
            raise LabkitError(f"limit memory must be at least 512 MiB (Python, IPython and "
                              f"labkit need it); got {self.memory >> 20} MiB")
        return self


def _boot(limits: Limits) -> str:
    """The ``-c`` program of the child: labkit's folder on the path, then the child's main."""
    return (f"import sys; sys.path.insert(0, {str(LABKIT_ROOT)!r}); "
            f"from labkit.grading import child; child.run({limits.memory}, {limits.processes}, "
            f"{limits.files}, {limits.file_size}, {limits.cpu})")


@dataclass
class Sandbox:
    """How children start: ``name`` is ``bwrap`` or ``unsafe``; ``root``: the grader is root
    (each child gets a distinct uid); ``description``: what it gives, as printed on stderr."""

    name: str
    root: bool
    limits: Limits = field(default_factory=Limits)
    description: str = ""
    _slots: "itertools.count" = field(default_factory=itertools.count, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def next_uid(self) -> int:
        with self._lock:
            return uid_for(os.getpid(), next(self._slots))

    def env(self, work: str) -> dict:
        return {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": work, "TMPDIR": work, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "MPLBACKEND": "Agg", "MPLCONFIGDIR": f"{work}/.mpl",
            "IPYTHONDIR": f"{work}/.ipython", "NUMBA_CACHE_DIR": f"{work}/.numba",
            "JUPYTER_PLATFORM_DIRS": "1", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1",
        }

    def python(self) -> list[str]:
        return [sys.executable, "-I", "-c", _boot(self.limits)]

    def command(self, argv: list[str], uid: int, work: str | None = None) -> tuple[list, str]:
        """``(command, working folder)`` that runs ``argv`` as a child with uid ``uid``; the
        working folder of an ``unsafe`` child is ``work`` (a folder the grader made)."""
        drop = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs"]
        if self.name == "unsafe":
            return ([*drop, *argv] if self.root else list(argv)), work
        cmd = [_bwrap(), "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
               "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
        if not self.root:
            cmd += ["--unshare-user", "--disable-userns", "--uid", str(60000 + (uid & 0xFF)),
                    "--gid", str(60000 + (uid & 0xFF)), "--cap-drop", "ALL"]
        cmd += _mounts()
        cmd += ["--proc", "/proc", "--dev", "/dev",
                "--perms", "0700" if not self.root else "1777", "--size", str(self.limits.scratch),
                "--tmpfs", SCRATCH, "--chdir", SCRATCH, "--"]
        return [*cmd, *(drop if self.root else []), *argv], SCRATCH


def _bwrap() -> str:
    return shutil.which("bwrap") or "bwrap"


def python_roots() -> list[Path]:
    """The folders of the Python installation the child runs (prefixes and the interpreter)."""
    roots = []
    exe = Path(sys.executable)
    for p in (sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix,
              exe.parent, exe.resolve().parent.parent):
        p = Path(p).resolve()
        if p == Path("/") or any(p == r or p.is_relative_to(r) for r in roots):
            continue
        if str(p).startswith("/usr/") or p == Path("/usr"):
            continue                          # bound as a whole below
        roots = [r for r in roots if not r.is_relative_to(p)] + [p]
    return roots


def _mounts() -> list[str]:
    out = ["--ro-bind", "/usr", "/usr"]
    for top in ("bin", "lib", "lib32", "lib64", "libx32", "sbin"):
        p = Path("/") / top
        if p.is_symlink():
            out += ["--symlink", os.readlink(p), str(p)]
        elif p.is_dir():
            out += ["--ro-bind", str(p), str(p)]
    for f in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime", "/etc/fonts",
              "/etc/alternatives"):
        out += ["--ro-bind-try", f, f]
    made: set = set()
    pkg = LABKIT_ROOT / "labkit"
    for root in [*python_roots(), pkg]:
        for parent in reversed(root.parents):     # folders bwrap makes on the way: 0755
            if parent != Path("/") and parent not in made:
                made.add(parent)
                out += ["--perms", "0755", "--dir", str(parent)]
        out += ["--ro-bind", str(root), str(root)]
    return out


_PROBE = r"""
import os, sys
try:
    import labkit, IPython
except Exception as e:
    print("cannot import:", e); raise SystemExit(0)
pids = [p for p in os.listdir("/proc") if p.isdigit()]
bad = [h for h in sys.argv[2:] if os.path.exists(h)]
cwd_on_path = [p for p in sys.path if p in ("", ".", os.getcwd())]
try:
    open(labkit.__file__, "a").close(); writable = True
except OSError:
    writable = False
isolated = sys.argv[1] == "1"
print("ok" if (len(pids) <= 3 or not isolated) and not bad and not cwd_on_path and not writable
      and os.getuid() != 0 else f"leaky pids={pids} seen={bad} path={cwd_on_path} w={writable}")
"""


def _probe(box: Sandbox, hide: list[Path]) -> str | None:
    """None when ``box`` starts Python with labkit here and hides what it must, else why not."""
    argv = [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(LABKIT_ROOT)!r})\n"
            + _PROBE, "1" if box.name == "bwrap" else "0", *[str(h) for h in hide]]
    work = tempfile.mkdtemp(prefix="labkit-probe-")
    try:
        cmd, cwd = box.command(argv, box.next_uid(), work)
        if box.name == "unsafe" and box.root:
            os.chmod(work, 0o777)
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=120,
                              env=box.env(cwd), cwd=work)
    except (OSError, subprocess.SubprocessError) as e:
        return str(e)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out = proc.stdout.decode(errors="replace").strip()
    if proc.returncode == 0 and out.endswith("ok"):
        return None
    err = proc.stderr.decode(errors="replace").strip().splitlines()
    return (out or (err[-1] if err else f"exit status {proc.returncode}"))[:300]


def _labkit_writable_by(uid: int | None) -> list[str]:
    """Files or folders of the installed labkit that ``uid`` (None: this user) could change."""
    import stat

    pkg = LABKIT_ROOT / "labkit"
    found = []
    for dirpath, dirnames, filenames in os.walk(pkg):
        for p in [dirpath] + [os.path.join(dirpath, f) for f in filenames]:
            if uid is None:
                w = os.access(p, os.W_OK)
            else:
                st = os.stat(p)
                w = bool(st.st_mode & stat.S_IWOTH) or st.st_uid == uid
            if w:
                found.append(p)
                if len(found) >= 3:
                    return found
    return found


def choose(unsafe: bool = False, hide: list | tuple = (), limits: Limits | None = None) -> Sandbox:
    """The sandbox for this run (see the module's text); ``hide``: folders the probe checks the
    child cannot see (tests, masters, submissions). Raises :class:`labkit.errors.LabkitError`
    when bubblewrap cannot run here and ``unsafe`` is not asked for, or when the installed labkit
    would be writable by an ``unsafe`` child.

    >>> choose(unsafe=True, limits=Limits(memory=1 << 30)).limits.memory >> 20   # doctest: +SKIP
    1024
    """
    limits = (limits or Limits()).check()
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    hide = [Path(p).resolve() for p in hide]
    if not unsafe:
        why = "bubblewrap (bwrap) is not installed" if not shutil.which("bwrap") else None
        if why is None and root and not shutil.which("setpriv"):
            why = "setpriv (util-linux) is not installed"
        box = Sandbox("bwrap", root, limits)
        if why is None:
            why = _probe(box, hide)
        if why is None:
            who = ("a distinct unprivileged uid per child, no capabilities" if root else
                   "this user in a user namespace of its own, no capabilities")
            box.description = (f"bwrap (own PID namespace and fresh /proc, no network, "
                               f"read-only Python and labkit only, private scratch folder, "
                               f"{who}; limits: {_limits_text(limits)})")
            return box
        raise LabkitError(
            f"the sandbox cannot run here ({why}); install bubblewrap (apt-get install "
            "bubblewrap) where user namespaces are allowed, or pass --unsafe-no-sandbox to "
            "run the notebooks without it (they can then read what the grader's user can)")
    box = Sandbox("unsafe", root, limits)
    writable = _labkit_writable_by(box.next_uid() if root else None)
    if writable:
        raise LabkitError(
            "--unsafe-no-sandbox: the installed labkit is writable by the user the notebooks "
            f"would run as ({', '.join(writable)}); make it read-only (chmod -R a-w) or grade "
            "as root (each notebook then runs as a distinct unprivileged uid)")
    why = _probe(box, [])
    if why is not None:
        raise LabkitError(f"--unsafe-no-sandbox: a notebook's process cannot start here ({why})")
    who = "a distinct unprivileged uid per child" if root else "the grader's own user"
    box.description = (f"unsafe-no-sandbox (NO sandbox: the notebooks can read what {who} can "
                       f"read; a fresh folder, scrubbed environment; limits: "
                       f"{_limits_text(limits)})")
    return box


def _limits_text(limits: Limits) -> str:
    return (f"{limits.memory >> 20} MiB memory, {limits.processes} processes, {limits.files} "
            f"open files, {limits.file_size >> 20} MiB a file, {limits.scratch >> 20} MiB "
            f"scratch, {limits.cpu} s CPU")
