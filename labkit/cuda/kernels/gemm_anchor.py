"""CuTe's own ``sgemm_sm80`` tutorial kernel, built with nvcc, as the benchmark's anchor.

The ``nvidia-cutlass`` wheel ships the CUTLASS/CuTe headers and the CuTe tutorials under
``cutlass_library/source``; ``LABKIT_CUTLASS_DIR`` can name another copy of that folder
(with ``include/``, ``tools/util/include/`` and ``examples/cute/tutorial/sgemm_sm80.cu``).
The kernel is CUTLASS's: 128x128x64 tiles, 2x2 warps, 3-stage ``cp.async``,
``Swizzle<3,3,3>``, fp16 in and out with fp16 accumulation (``SM80_16x8x16_F16F16F16F16_TN``).
It is run as ``sgemm_sm80 M N K T N`` (its default ``N T`` asserts for half), times 100
launches itself and prints GFlop/s, which :func:`run` parses.

>>> parse_output("CUTE_GEMM:     [374123.4]GFlop/s  (0.3674)ms")
(374.1234, 0.3674)
>>> parse_output("no figure") is None
True
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile

from labkit.cuda.kernels.gemm_config import check_sm

__all__ = ["cutlass_dir", "nvcc_path", "build_command", "Anchor", "parse_output"]

SOURCE = os.path.join("examples", "cute", "tutorial", "sgemm_sm80.cu")


def cutlass_dir():
    """The folder holding CUTLASS's ``include/`` and the CuTe tutorials, or None."""
    env = os.environ.get("LABKIT_CUTLASS_DIR")
    candidates = [env] if env else []
    try:
        import cutlass_library

        candidates.append(os.path.join(os.path.dirname(cutlass_library.__file__), "source"))
    except ImportError:
        pass
    for c in candidates:
        if c and os.path.isfile(os.path.join(c, SOURCE)) and os.path.isdir(os.path.join(c, "include", "cute")):
            return c
    return None


def nvcc_path():
    """nvcc on the PATH or under ``$CUDA_HOME/bin``, or None."""
    from labkit.cuda.kernels.gemm_sass import tool

    return tool("nvcc")


def build_command(nvcc, root, sm, out):
    """The nvcc command line that builds ``sgemm_sm80`` for SM ``sm`` (an int: 90 for sm_90).

    >>> " ".join(build_command("nvcc", "/c", 90, "/t/sgemm")[1:4])
    '-O3 -std=c++17 -gencode=arch=compute_90,code=sm_90'
    """
    sm = check_sm(sm)
    return [nvcc, "-O3", "-std=c++17", f"-gencode=arch=compute_{sm},code=sm_{sm}",
            "--expt-relaxed-constexpr", "-I", os.path.join(root, "include"),
            "-I", os.path.join(root, "tools", "util", "include"),
            os.path.join(root, SOURCE), "-o", out]


def parse_output(text):
    """(TFLOP/s, ms) from sgemm_sm80's ``CUTE_GEMM: [x]GFlop/s (y)ms`` line, or None."""
    m = re.search(r"CUTE_GEMM:\s*\[\s*([0-9.]+)\]GFlop/s\s*\(\s*([0-9.]+)\)ms", text)
    return (float(m.group(1)) / 1e3, float(m.group(2))) if m else None


class Anchor:
    """Builds sgemm_sm80 in the background (``start``), then times it per size (``run``).

    ``reason`` says why there is no anchor (no nvcc, no CUTLASS sources, a failed build).
    """

    def __init__(self, sm):
        self.sm = check_sm(sm)
        self.reason = None
        self.proc = None
        self.binary = None
        self.nvcc = nvcc_path()
        self.root = cutlass_dir()
        if self.nvcc is None:
            self.reason = "nvcc not found (PATH, $CUDA_HOME/bin): CuTe's sgemm_sm80 is left out"
        elif self.root is None:
            self.reason = ("CUTLASS sources not found (pip install nvidia-cutlass, or set "
                           "LABKIT_CUTLASS_DIR): CuTe's sgemm_sm80 is left out")
        elif self.sm < 80:
            self.reason = f"sgemm_sm80 needs sm_80 or newer, this GPU is sm_{self.sm}"

    def start(self):
        """Start nvcc (it runs while the ladder's kernels compile and run)."""
        if self.reason:
            return
        self.tmp = tempfile.mkdtemp(prefix="labkit-anchor-")
        self.binary = os.path.join(self.tmp, "sgemm_sm80")
        self.command = build_command(self.nvcc, self.root, self.sm, self.binary)
        self.log = open(os.path.join(self.tmp, "nvcc.log"), "w+")
        self.proc = subprocess.Popen(self.command, stdout=self.log, stderr=subprocess.STDOUT)

    def wait(self, timeout=900):
        """Wait for the build; False (with ``reason``) if it failed."""
        if self.reason:
            return False
        if self.proc is not None:
            rc = self.proc.wait(timeout=timeout)
            self.proc = None
            if rc != 0:
                self.log.seek(0)
                self.reason = f"nvcc failed ({rc}): {self.log.read()[-1500:]}"
                return False
        return True

    def run(self, M, N, K):
        """(TFLOP/s, ms, output) of ``sgemm_sm80 M N K T N``; raises RuntimeError on failure."""
        done = subprocess.run([self.binary, str(M), str(N), str(K), "T", "N"],
                              capture_output=True, text=True, timeout=600)
        got = parse_output(done.stdout)
        if done.returncode != 0 or got is None:
            raise RuntimeError(f"sgemm_sm80 {M} {N} {K} T N failed ({done.returncode}): "
                               f"{(done.stdout + done.stderr)[-800:]}")
        return got[0], got[1], done.stdout
