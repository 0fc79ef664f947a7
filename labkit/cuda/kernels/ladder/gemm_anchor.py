"""CuTe's own tutorial GEMM kernels, built with nvcc, as the benchmark's anchors.

The ``nvidia-cutlass`` wheel ships the CUTLASS/CuTe headers and the CuTe tutorials under
``cutlass_library/source``; ``LABKIT_CUTLASS_DIR`` can name another copy of that folder
(with ``include/``, ``tools/util/include/`` and ``examples/cute/tutorial/``). :data:`ANCHORS`
is the table of tutorials, each with its source, its nvcc target, its arguments per size, its
output parser and the GPUs it runs on. All three are run ``T N`` (A and B K-major, C M-major),
fp16 in and out with fp16 accumulation: the tutorials offer no f32-accumulate form.

- ``sgemm_sm80`` (``tutorial/sgemm_sm80.cu``): 128x128x64 tiles, 2x2 warps of
  ``SM80_16x8x16_F16F16F16F16_TN`` (mma.sync), 3-stage ``cp.async``, ``Swizzle<3,3,3>``,
  ldmatrix. Built for the GPU's own ``sm_XY``; needs sm_80 or newer. Its default ``N T``
  asserts for half.
- ``wgmma_sm90`` (``tutorial/hopper/wgmma_sm90.cu``): 128x128x64 tiles, one warpgroup (128
  threads) issuing ``SM90_64x64x16_F16F16F16_SS`` (wgmma, both operands from shared memory,
  K-major) 2x2 times per k-block; 3 stages in ``GMMA::Layout_K_SW128_Atom`` (128-byte swizzle)
  filled by 16-byte ``cp.async``; each k-tile waits for all its copies and all its wgmmas.
- ``wgmma_tma_sm90`` (``tutorial/hopper/wgmma_tma_sm90.cu``): the same tile, MMA and shared
  memory, filled by TMA (``SM90_TMA_LOAD``, one elected thread, a transaction mbarrier per
  stage, a consumer mbarrier of 128 arrivals per stage), launched in clusters of 2x1x1.

The two Hopper tutorials need wgmma, hence ``-gencode=arch=compute_90a,code=sm_90a``, whose
code runs on sm_90 GPUs alone. Each tutorial fills A and B on the host (sgemm_sm80: uniform in
[-1, 1]; the Hopper ones: +-1), runs once, then times 100 calls of its host ``gemm`` between
two CUDA events and prints the mean as ``CUTE_GEMM: [GFlop/s] (ms)``; none checks its result.

>>> parse_output("CUTE_GEMM:     [374123.4]GFlop/s  (0.3674)ms")
(374.1234, 0.3674)
>>> parse_output("no figure") is None
True
>>> ANCHORS["wgmma_sm90"].gencode(90), ANCHORS["wgmma_sm90"].argv(4096, 4096, 4096)
('-gencode=arch=compute_90a,code=sm_90a', ['4096', '4096', '4096', 'T', 'N'])
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Callable

from labkit.cuda.kernels.ladder.gemm_config import check_sm

__all__ = ["cutlass_dir", "nvcc_path", "build_command", "Anchor", "AnchorSpec", "ANCHORS",
           "anchors", "parse_output", "build_notes"]

TUTORIAL = os.path.join("examples", "cute", "tutorial")
SOURCE = os.path.join(TUTORIAL, "sgemm_sm80.cu")


def parse_output(text):
    """(TFLOP/s, ms) from a CuTe tutorial's ``CUTE_GEMM: [x]GFlop/s (y)ms`` line, or None.

    sgemm_sm80, wgmma_sm90 and wgmma_tma_sm90 print it with the same ``printf`` format.
    """
    m = re.search(r"CUTE_GEMM:\s*\[\s*([0-9.]+)\]GFlop/s\s*\(\s*([0-9.]+)\)ms", text)
    return (float(m.group(1)) / 1e3, float(m.group(2))) if m else None


@dataclass(frozen=True)
class AnchorSpec:
    """One CuTe tutorial as an anchor.

    ``source`` is relative to the CUTLASS source folder; ``arch`` is None to build for the
    GPU's own ``sm_XY`` (any GPU of SM ``min_sm`` or newer), or an arch-specific target such as
    ``"90a"``, whose code runs on that SM alone; ``transposes`` follow M N K on the command
    line; ``parser`` turns the program's output into (TFLOP/s, ms) or None.
    """

    name: str
    source: str
    min_sm: int
    arch: str | None = None
    transposes: tuple = ("T", "N")
    parser: Callable = parse_output
    computes: str = ""

    @property
    def label(self):
        """The benchmark table's row name, e.g. ``CuTe sgemm_sm80 (nvcc)``."""
        return f"CuTe {self.name} (nvcc)"

    def target_sm(self, sm):
        """The SM nvcc builds for: ``sm`` itself, or the arch-specific target's."""
        return check_sm(sm) if self.arch is None else int(self.arch.rstrip("abcdefghijklmnopqrstuvwxyz"))

    def gencode(self, sm):
        """nvcc's ``-gencode`` flag for a GPU of SM ``sm``.

        >>> ANCHORS["sgemm_sm80"].gencode(90)
        '-gencode=arch=compute_90,code=sm_90'
        """
        t = self.arch or str(check_sm(sm))
        return f"-gencode=arch=compute_{t},code=sm_{t}"

    def argv(self, M, N, K):
        """The program's arguments for an M x N x K GEMM."""
        return [str(M), str(N), str(K), *self.transposes]

    def refusal(self, sm):
        """Why this tutorial cannot run on a GPU of SM ``sm``, or None."""
        sm = check_sm(sm)
        if self.arch is None:
            if sm < self.min_sm:
                return f"{self.name} needs sm_{self.min_sm} or newer, this GPU is sm_{sm}"
            return None
        if sm != self.target_sm(sm):
            return (f"{self.name} is built for sm_{self.arch} (wgmma; arch-specific code runs on "
                    f"sm_{self.target_sm(sm)} alone), this GPU is sm_{sm}: CuTe's {self.name} is left out")
        return None


_TN = "T N: A (M,K) K-major, B (N,K) K-major, C (M,N) M-major; C = A·Bᵀ; "
ANCHORS = {
    "sgemm_sm80": AnchorSpec(
        "sgemm_sm80", SOURCE, 80,
        computes=_TN + "half_t in and out, half accumulate (mma.sync SM80_16x8x16_F16F16F16F16_TN)"),
    "wgmma_sm90": AnchorSpec(
        "wgmma_sm90", os.path.join(TUTORIAL, "hopper", "wgmma_sm90.cu"), 90, arch="90a",
        computes=_TN + "half_t in and out, half accumulate (wgmma SM90_64x64x16_F16F16F16_SS, "
                       "operands by cp.async)"),
    "wgmma_tma_sm90": AnchorSpec(
        "wgmma_tma_sm90", os.path.join(TUTORIAL, "hopper", "wgmma_tma_sm90.cu"), 90, arch="90a",
        computes=_TN + "half_t in and out, half accumulate (wgmma SM90_64x64x16_F16F16F16_SS, "
                       "operands by TMA, clusters of 2)"),
}


def cutlass_dir(source=SOURCE):
    """The folder holding CUTLASS's ``include/`` (and ``source`` under it, unless None), or None."""
    env = os.environ.get("LABKIT_CUTLASS_DIR")
    candidates = [env] if env else []
    try:
        import cutlass_library

        candidates.append(os.path.join(os.path.dirname(cutlass_library.__file__), "source"))
    except ImportError:
        pass
    for c in candidates:
        if (c and os.path.isdir(os.path.join(c, "include", "cute"))
                and (source is None or os.path.isfile(os.path.join(c, source)))):
            return c
    return None


def nvcc_path():
    """nvcc on the PATH or under ``$CUDA_HOME/bin``, or None."""
    from labkit.cuda.kernels.ladder.gemm_sass import tool

    return tool("nvcc")


def build_command(nvcc, root, sm, out, anchor="sgemm_sm80"):
    """The nvcc command line that builds ``anchor`` (a name in :data:`ANCHORS`) for SM ``sm``
    (an int: 90 for sm_90).

    >>> " ".join(build_command("nvcc", "/c", 90, "/t/sgemm")[1:4])
    '-O3 -std=c++17 -gencode=arch=compute_90,code=sm_90'
    >>> build_command("nvcc", "/c", 90, "/t/w", "wgmma_tma_sm90")[3]
    '-gencode=arch=compute_90a,code=sm_90a'
    """
    spec = _spec(anchor)
    return [nvcc, "-O3", "-std=c++17", spec.gencode(sm),
            "--expt-relaxed-constexpr", "-I", os.path.join(root, "include"),
            "-I", os.path.join(root, "tools", "util", "include"),
            os.path.join(root, spec.source), "-o", out]


def build_notes(log):
    """The compiler's performance warnings in an nvcc log, each without the mangled kernel name.

    >>> build_notes("ptxas info    : (C7510) Potential Performance Loss: wgmma.mma_async "
    ...             "instructions are serialized due to X in the function '_Z11gemm'\\nptxas info: 0 bytes")
    ['(C7510) Potential Performance Loss: wgmma.mma_async instructions are serialized due to X']
    """
    notes = []
    for line in log.splitlines():
        if "Performance Loss" in line or "warning" in line.lower():
            note = line.split(" in the function '")[0].split(" : ", 1)[-1].strip()
            if note not in notes:
                notes.append(note)
    return notes


def _spec(name):
    from labkit.errors import DeviceError

    if name not in ANCHORS:
        raise DeviceError(f"anchor: {name!r} is not one of {', '.join(ANCHORS)}")
    return ANCHORS[name]


class Anchor:
    """Builds one tutorial in the background (``start``), then times it per size (``run``).

    ``reason`` says why there is no anchor (no nvcc, no CUTLASS sources or no such tutorial in
    them, a GPU it cannot run on, a failed build).
    """

    def __init__(self, sm, name="sgemm_sm80"):
        self.sm = check_sm(sm)
        self.spec = _spec(name)
        self.name = name
        self.label = self.spec.label
        self.reason = None
        self.proc = None
        self.binary = None
        self.command = None
        self.notes = []
        self.nvcc = nvcc_path()
        self.root = cutlass_dir(None)
        if self.nvcc is None:
            self.reason = f"nvcc not found (PATH, $CUDA_HOME/bin): CuTe's {name} is left out"
        elif self.root is None:
            self.reason = ("CUTLASS sources not found (pip install nvidia-cutlass, or set "
                           f"LABKIT_CUTLASS_DIR): CuTe's {name} is left out")
        elif not os.path.isfile(os.path.join(self.root, self.spec.source)):
            self.reason = (f"{self.spec.source} is not in the CUTLASS sources at {self.root}: "
                           f"CuTe's {name} is left out")
        else:
            self.reason = self.spec.refusal(self.sm)

    def start(self):
        """Start nvcc (it runs while the ladder's kernels compile and run)."""
        if self.reason:
            return
        self.tmp = tempfile.mkdtemp(prefix=f"labkit-anchor-{self.name}-")
        self.binary = os.path.join(self.tmp, self.name)
        self.command = build_command(self.nvcc, self.root, self.sm, self.binary, self.name)
        self.log = open(os.path.join(self.tmp, "nvcc.log"), "w+")
        self.proc = subprocess.Popen(self.command, stdout=self.log, stderr=subprocess.STDOUT)

    def wait(self, timeout=900):
        """Wait for the build; False (with ``reason``) if it failed."""
        if self.reason:
            return False
        if self.proc is not None:
            rc = self.proc.wait(timeout=timeout)
            self.proc = None
            self.log.seek(0)
            text = self.log.read()
            if rc != 0:
                self.reason = f"nvcc failed ({rc}) building {self.name}: {text[-1500:]}"
                return False
            self.notes = build_notes(text)
        return True

    def run(self, M, N, K):
        """(TFLOP/s, ms, output) of one run at M x N x K; raises RuntimeError on failure."""
        argv = self.spec.argv(M, N, K)
        done = subprocess.run([self.binary, *argv], capture_output=True, text=True, timeout=600)
        got = self.spec.parser(done.stdout)
        if done.returncode != 0 or got is None:
            raise RuntimeError(f"{self.name} {' '.join(argv)} failed ({done.returncode}): "
                               f"{(done.stdout + done.stderr)[-800:]}")
        return got[0], got[1], done.stdout


def anchors(sm, names=None):
    """An :class:`Anchor` for each name (default: every one in :data:`ANCHORS`, in order)."""
    return [Anchor(sm, n) for n in (ANCHORS if names is None else names)]
