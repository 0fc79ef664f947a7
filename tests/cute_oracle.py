"""CuTe C++ on the CPU: CUTLASS's headers compiled by g++, with every result cached.

The headers come from pip (``nvidia-cutlass``, plus the CUDA header wheels its ``config.hpp``
needs); ``LABKIT_CUTE_INCLUDES`` (four folders, CUTLASS's first, ':'-separated) points elsewhere.
Results are cached in ``$LABKIT_CUTE_CPP_CACHE`` or ``~/.cache/labkit/cute_cpp``, keyed by a hash
of g++'s version, CUTLASS's ``version.h``, the header distributions' versions, the flags and the
program's text, so a second run compiles nothing. Cache files are replaced atomically: pytest-xdist
workers and two checkouts side by side never read a torn file.

``tests/cute_cpp_results/`` records what C++ printed for the repository's own cases, under the
same file names and keys: a fresh clone with the pinned toolchain (requirements.txt's header
wheels, Debian's g++) compiles only what changed. A key holds the toolchain and the case's text,
so a changed case, header or compiler is compiled again, never read from a stale record;
``LABKIT_CUTE_CPP_FRESH=1`` ignores the records and compiles every case.

>>> src = '#include <cute/layout.hpp>\\nint main() { cute::print(cute::make_layout(8)); }'
>>> program_output(src) if available() else '_8:_1'
'_8:_1'
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

FLAGS = ["-std=c++17", "-O0", "-w", "-fno-diagnostics-show-caret", "-fdiagnostics-color=never"]
HEADER_DISTRIBUTIONS = ("nvidia-cutlass", "nvidia-cuda-runtime-cu12", "nvidia-cuda-nvcc-cu12",
                        "nvidia-cuda-cccl-cu12")
SKIP_REASON = ("needs g++ and CuTe's headers (nvidia-cutlass, nvidia-cuda-runtime-cu12, "
               "nvidia-cuda-nvcc-cu12, nvidia-cuda-cccl-cu12)")


def _site_dirs():
    env = os.environ.get("LABKIT_CUTE_INCLUDES")     # four folders, ':'-separated
    if env:
        return [Path(p) for p in env.split(":")]
    spec = importlib.util.find_spec("cutlass_library")
    nv = importlib.util.find_spec("nvidia")
    if spec is None or nv is None or not spec.submodule_search_locations \
            or not nv.submodule_search_locations:
        return None
    cutlass = Path(list(spec.submodule_search_locations)[0]) / "source" / "include"
    roots = [Path(p) for p in nv.submodule_search_locations]

    def find(sub, probe):
        return next((r / sub / "include" for r in roots if (r / sub / "include" / probe).exists()),
                    None)

    dirs = [cutlass, find("cuda_runtime", "cuda_runtime.h"), find("cuda_nvcc", "crt/host_defines.h"),
            find("cuda_cccl", "cuda/std/type_traits")]
    if any(d is None for d in dirs) or not (cutlass / "cute" / "layout.hpp").exists():
        return None
    return dirs


GXX = shutil.which("g++")
INCLUDES = _site_dirs()


def available() -> bool:
    """g++ and the four include folders are here."""
    return GXX is not None and INCLUDES is not None


@functools.cache
def compiler_and_headers() -> str:
    """g++'s version line, CUTLASS's version.h and the versions of the header distributions."""
    ver = subprocess.run([GXX, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    hdr = INCLUDES[0] / "cutlass" / "version.h"
    parts = [ver, hdr.read_text() if hdr.exists() else str(INCLUDES[0])]
    for name in HEADER_DISTRIBUTIONS:
        try:
            parts.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:     # LABKIT_CUTE_INCLUDES: folders only
            parts.append(f"{name}: " + ":".join(map(str, INCLUDES)))
    return "\n".join(parts)


def toolchain_key(program: bytes = b"") -> str:
    """A key of g++'s version, CUTLASS's headers, the flags and ``program``: cached results are
    reused only while all of them stay the same."""
    h = hashlib.sha256(compiler_and_headers().encode())
    h.update(" ".join(FLAGS).encode() + program)
    return h.hexdigest()[:16]


def cache_dir() -> Path:
    base = os.environ.get("LABKIT_CUTE_CPP_CACHE") or Path.home() / ".cache" / "labkit" / "cute_cpp"
    d = Path(base)
    d.mkdir(parents=True, exist_ok=True)
    return d


RECORDED = Path(__file__).resolve().parent / "cute_cpp_results"


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (FileNotFoundError, ValueError):
        return {}


def read_cache(cache_file: Path) -> dict:
    """The results of ``cache_file``, over those recorded with the repository under its name."""
    fresh = os.environ.get("LABKIT_CUTE_CPP_FRESH", "0") not in ("", "0")
    return {**({} if fresh else _read(RECORDED / cache_file.name)), **_read(cache_file)}


def save_cache(cache_file: Path, results: dict) -> None:
    """Merge ``results`` into the JSON cache file, replacing it atomically (runs side by side
    may each add their cases; neither ever reads a half-written file)."""
    cache = _read(cache_file)
    cache.update(results)
    fd, tmp = tempfile.mkstemp(dir=cache_file.parent, prefix=cache_file.name, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(cache, f)
    os.chmod(tmp, 0o644)                # mkstemp's 0600 would hide the cache from other users
    os.replace(tmp, cache_file)


def program_output(source: str, timeout: float = 600) -> str:
    """The standard output of the C++ program ``source`` (compiled with CuTe's headers on the
    include path), from the cache when this toolchain already ran the same text. A program that
    does not compile or exits non-zero raises ``RuntimeError`` with g++'s or the program's
    error output."""
    key = toolchain_key(source.encode())
    cache_file = cache_dir() / "programs.json"
    hit = read_cache(cache_file).get(key)
    if hit is not None:
        return hit
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / "prog.cpp", Path(tmp) / "prog"
        src.write_text(source)
        cmd = [GXX, *FLAGS, *(f"-I{d}" for d in INCLUDES), str(src), "-o", str(exe)]
        built = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if built.returncode != 0:
            raise RuntimeError("g++ refused the program:\n" + built.stderr[-3000:])
        ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=timeout)
        if ran.returncode != 0:
            raise RuntimeError(f"the program exited with {ran.returncode}:\n{ran.stderr[-3000:]}")
    save_cache(cache_file, {key: ran.stdout})
    return ran.stdout


_TRAITS = r"""#include <cute/tensor.hpp>
{includes}#include <cstdio>
using namespace cute;
template <class Op> void show(const char* name) {{
  using T = MMA_Traits<Op>;
  printf("%s|", name); print(typename T::Shape_MNK{{}}); printf("|"); print(typename T::ThrID{{}});
  printf("|"); print(typename T::ALayout{{}}); printf("|"); print(typename T::BLayout{{}});
  printf("|"); print(typename T::CLayout{{}}); printf("\n");
}}
int main() {{
{shows}
}}
"""


def mma_traits(atoms, headers, op="{atom}") -> dict:
    """{atom: [Shape_MNK, ThrID, ALayout, BLayout, CLayout]} as C++ prints ``MMA_Traits`` of each
    CuTe MMA atom (``op`` spells the template argument, e.g. ``"{atom}<GMMA::Major::K, ...>"``),
    with ``headers`` (CuTe's traits headers) included."""
    shows = "\n".join(f'  show<{op.format(atom=a)}>("{a}");' for a in atoms)
    includes = "".join(f"#include <{h}>\n" for h in headers)
    out = program_output(_TRAITS.format(includes=includes, shows=shows))
    return {row[0]: row[1:] for row in (line.split("|") for line in out.splitlines() if line)}
