"""CuTe's tutorial GEMMs and CUTLASS's Hopper GEMM, built with nvcc, as the benchmark's anchors.

The ``nvidia-cutlass`` wheel ships the CUTLASS/CuTe headers and the CuTe tutorials under
``cutlass_library/source``; ``LABKIT_CUTLASS_DIR`` can name another copy of that folder
(with ``include/``, ``tools/util/include/`` and ``examples/cute/tutorial/``). :data:`ANCHORS`
is the table of anchors, each with its source, its nvcc target and flags, its arguments per
problem, its output parser and the GPUs it runs on. The three tutorials are run ``T N`` (A and
B K-major, C M-major), fp16 in and out with fp16 accumulation: they offer no f32-accumulate form.

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

CUTLASS's own production Hopper GEMM is labkit's ``anchors/cutlass_sm90_gemm.cu`` (shipped with
the package; it needs CUTLASS's ``include/`` and ``tools/util/include/``, not its examples),
built twice, ``-DLABKIT_GEMM_F16`` and ``-DLABKIT_GEMM_E4M3``: ``GemmUniversal`` over a
``CollectiveBuilder`` mainloop of schedule ``KernelTmaWarpSpecializedCooperative`` (a TMA
producer warpgroup, two consumer warpgroups taking 64 rows each of a 128-row tile, a
persistent tile scheduler) and a ``TmaWarpSpecializedCooperative`` epilogue (``LinearCombination``,
TMA store), f32 accumulators, ``T N`` with D (M,N) row-major, as many stages as fit beside the
epilogue.

- ``cutlass_sm90_f16``: half_t in, half_t C/D (beta = 0), 128x256x64 tiles (wgmma m64n256k16).
- ``cutlass_sm90_e4m3``: float_e4m3_t in, bfloat16_t D, no C, 128x256x128 tiles (wgmma
  m64n256k32), D = alpha·A·Bᵀ with alpha the product of two per-tensor scales (1/448 each: codes
  uniform over e4m3's range, as if quantized from [-1, 1)); it accumulates in the wgmma
  accumulators over all of K (``KernelTmaWarpSpecializedCooperativeFP8FastAccum``), as step 7
  does. The promoting schedule (``KernelTmaWarpSpecializedCooperative`` on fp8: partial sums
  added into a second set of f32 registers every 4 k-blocks) needs 128 more registers a thread
  at this tile and spills at the 168-register cap (ptxas: 820 bytes of spill stores).

Both are launched in clusters of 2x1x1: at its default instantiation level CUTLASS's library
generator (the profiler's kernels) emits these tiles with 2-CTA clusters only, 1x2x1 and 2x1x1
(1x1x1 needs a higher level); 2x1x1 pairs two CTAs along M that share one 256-row B tile, which
TMA multicasts to both, so the larger operand tile crosses L2 once per 256x256 of D. The program
fills A and B on the GPU from a fixed seed, runs once and checks D on 24 x 24 sampled elements
against float64 on the host, times 100 launches between two CUDA events, and prints
``CUTLASS_GEMM: [GFlop/s] (ms) rel_err e abs_ratio r samples n`` (``abs_ratio`` is
``‖|A| |B|ᵀ‖ / ‖A Bᵀ‖`` over the samples, what an fp8 bound relative to ``|A| |B|ᵀ`` needs).

>>> parse_output("CUTE_GEMM:     [374123.4]GFlop/s  (0.3674)ms")
(374.1234, 0.3674)
>>> parse_output("no figure") is None
True
>>> ANCHORS["wgmma_sm90"].gencode(90), ANCHORS["wgmma_sm90"].argv(4096, 4096, 4096)
('-gencode=arch=compute_90a,code=sm_90a', ['4096', '4096', '4096', 'T', 'N'])
>>> ANCHORS["cutlass_sm90_e4m3"].label, ANCHORS["cutlass_sm90_e4m3"].argv(4096, 14336, 4096)
('CUTLASS sm90 cooperative e4m3 (nvcc)', ['4096', '14336', '4096'])
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
           "anchors", "parse_output", "parse_cutlass_output", "build_notes", "first_error"]

TUTORIAL = os.path.join("examples", "cute", "tutorial")
SOURCE = os.path.join(TUTORIAL, "sgemm_sm80.cu")
HERE = os.path.dirname(os.path.abspath(__file__))
#: labkit's CUTLASS anchor, relative to this package's folder
CUTLASS_SOURCE = os.path.join("anchors", "cutlass_sm90_gemm.cu")
#: what it includes from a CUTLASS source folder: the collective builders, and tools/util's helpers
CUTLASS_NEEDS = (os.path.join("include", "cutlass", "gemm", "collective", "collective_builder.hpp"),
                 os.path.join("tools", "util", "include", "cutlass", "util", "packed_stride.hpp"))


def parse_output(text):
    """(TFLOP/s, ms) from a CuTe tutorial's ``CUTE_GEMM: [x]GFlop/s (y)ms`` line, or None.

    sgemm_sm80, wgmma_sm90 and wgmma_tma_sm90 print it with the same ``printf`` format.
    """
    m = re.search(r"CUTE_GEMM:\s*\[\s*([0-9.]+)\]GFlop/s\s*\(\s*([0-9.]+)\)ms", text)
    return (float(m.group(1)) / 1e3, float(m.group(2))) if m else None


def parse_cutlass_output(text):
    """(TFLOP/s, ms, rel_err, abs_ratio) from ``cutlass_sm90_gemm.cu``'s ``CUTLASS_GEMM:`` line, or None.

    >>> parse_cutlass_output("CUTLASS_GEMM: [374123.4]GFlop/s  (0.2244)ms  rel_err 1.250e-04  "
    ...                      "abs_ratio 4.800e+01  samples 576")
    (374.1234, 0.2244, 0.000125, 48.0)
    """
    m = re.search(r"CUTLASS_GEMM:\s*\[\s*([0-9.]+)\]GFlop/s\s*\(\s*([0-9.]+)\)ms\s+"
                  r"rel_err\s+(\S+)\s+abs_ratio\s+(\S+)", text)
    if not m:
        return None
    try:
        err, ratio = float(m.group(3)), float(m.group(4))
    except ValueError:
        return None
    return float(m.group(1)) / 1e3, float(m.group(2)), err, ratio


@dataclass(frozen=True)
class AnchorSpec:
    """One anchor: a CuTe tutorial, or a variant of labkit's CUTLASS source.

    ``source`` is relative to the CUTLASS source folder, or to this package's folder when
    ``in_labkit``; ``arch`` is None to build for the GPU's own ``sm_XY`` (any GPU of SM
    ``min_sm`` or newer), or an arch-specific target such as ``"90a"``, whose code runs on that
    SM alone; ``transposes`` follow M N K on the command line; ``parser`` turns the program's
    output into (TFLOP/s, ms) or (TFLOP/s, ms, rel_err, abs_ratio), or None; ``flags`` are
    further nvcc flags; ``needs`` are files the CUTLASS folder must hold; ``acc`` and ``types``
    (``a·b→d``) are the benchmark row's; ``maker`` and ``title`` name the row.
    """

    name: str
    source: str
    min_sm: int
    arch: str | None = None
    transposes: tuple = ("T", "N")
    parser: Callable = parse_output
    computes: str = ""
    flags: tuple = ()
    in_labkit: bool = False
    needs: tuple = ()
    acc: str = "f16"
    types: str = "f16·f16→f16"
    maker: str = "CuTe"
    title: str = ""

    @property
    def label(self):
        """The benchmark table's row name, e.g. ``CuTe sgemm_sm80 (nvcc)``."""
        return f"{self.title or f'{self.maker} {self.name}'} (nvcc)"

    @property
    def who(self):
        """``CuTe's sgemm_sm80``: how messages name the anchor."""
        return f"{self.maker}'s {self.name}"

    def path(self, root):
        """The source file, given the CUTLASS source folder ``root``."""
        return os.path.join(HERE, self.source) if self.in_labkit else os.path.join(root, self.source)

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
        """Why this anchor cannot run on a GPU of SM ``sm``, or None."""
        sm = check_sm(sm)
        if self.arch is None:
            if sm < self.min_sm:
                return f"{self.name} needs sm_{self.min_sm} or newer, this GPU is sm_{sm}"
            return None
        if sm != self.target_sm(sm):
            return (f"{self.name} is built for sm_{self.arch} (wgmma; arch-specific code runs on "
                    f"sm_{self.target_sm(sm)} alone), this GPU is sm_{sm}: {self.who} is left out")
        return None


_TN = "T N: A (M,K) K-major, B (N,K) K-major, C (M,N) M-major; C = A·Bᵀ; "
_COOP = ("GemmUniversal, CollectiveBuilder mainloop KernelTmaWarpSpecializedCooperative + epilogue "
         "TmaWarpSpecializedCooperative (LinearCombination, TMA store), cluster 2x1x1, persistent; "
         "T N: A (M,K) K-major, B (N,K) K-major, D (M,N) N-major (row-major); ")


def _cutlass(name, variant, title, computes, types):
    return AnchorSpec(name, CUTLASS_SOURCE, 90, arch="90a", transposes=(), parser=parse_cutlass_output,
                      computes=_COOP + computes, flags=("-DNDEBUG", f"-DLABKIT_GEMM_{variant}"),
                      in_labkit=True, needs=CUTLASS_NEEDS, acc="f32", types=types, maker="CUTLASS",
                      title=f"CUTLASS sm90 cooperative {title}")


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
    "cutlass_sm90_f16": _cutlass(
        "cutlass_sm90_f16", "F16", "f16",
        "D = A·Bᵀ + 0·C, half_t A, B, C and D, f32 accumulate; 128x256x64 tiles of wgmma "
        "m64n256k16.f32.f16.f16", "f16·f16→f16"),
    "cutlass_sm90_e4m3": _cutlass(
        "cutlass_sm90_e4m3", "E4M3", "e4m3",
        "D = alpha·A·Bᵀ (no C), float_e4m3_t A and B, bfloat16_t D, f32 accumulate in the wgmma "
        "accumulators over all of K (FP8FastAccum), alpha = the per-tensor scales' product; "
        "128x256x128 tiles of wgmma m64n256k32.f32.e4m3.e4m3", "e4m3·e4m3→bf16"),
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
    >>> build_command("nvcc", "/c", 90, "/t/f16", "cutlass_sm90_f16")[9:11]
    ['-DNDEBUG', '-DLABKIT_GEMM_F16']
    """
    spec = _spec(anchor)
    return [nvcc, "-O3", "-std=c++17", spec.gencode(sm),
            "--expt-relaxed-constexpr", "-I", os.path.join(root, "include"),
            "-I", os.path.join(root, "tools", "util", "include"), *spec.flags,
            spec.path(root), "-o", out]


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


def first_error(log, chars=1500):
    """The log from its first line that says ``error`` on (at most ``chars`` characters), else its end.

    >>> first_error("a.cu(3): warning: x\\na.cu(9): error: no type Sm90\\n  detected during ...\\n", 39)
    'a.cu(9): error: no type Sm90\\n  detected'
    """
    lines = log.splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if "error" in line.lower()), None)
    return log[-chars:] if at is None else "".join(lines[at:])[:chars]


def _spec(name):
    from labkit.errors import DeviceError

    if name not in ANCHORS:
        raise DeviceError(f"anchor: {name!r} is not one of {', '.join(ANCHORS)}")
    return ANCHORS[name]


class Anchor:
    """Builds one anchor in the background (``start``), then times it per problem (``run``).

    ``reason`` says why there is no anchor (no nvcc, no CUTLASS sources or not the files it
    needs in them, a GPU it cannot run on, a failed build). After a run of an anchor that checks
    its result, ``checked`` holds (rel_err, abs_ratio), else None.
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
        self.checked = None
        self.notes = []
        self.nvcc = nvcc_path()
        self.root = cutlass_dir(None)
        who = self.spec.who
        if self.nvcc is None:
            self.reason = f"nvcc not found (PATH, $CUDA_HOME/bin): {who} is left out"
        elif self.root is None:
            self.reason = ("CUTLASS sources not found (pip install nvidia-cutlass, or set "
                           f"LABKIT_CUTLASS_DIR): {who} is left out")
        elif self.spec.in_labkit and not os.path.isfile(self.spec.path(self.root)):
            self.reason = f"{self.spec.path(self.root)} is missing from labkit's package: {who} is left out"
        else:
            wanted = (() if self.spec.in_labkit else (self.spec.source,)) + self.spec.needs
            missing = [f for f in wanted if not os.path.isfile(os.path.join(self.root, f))]
            self.reason = (f"{missing[0]} is not in the CUTLASS sources at {self.root}: {who} is left out"
                           if missing else self.spec.refusal(self.sm))

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
                self.reason = f"nvcc failed ({rc}) building {self.name}: {first_error(text)}"
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
        self.checked = tuple(got[2:4]) if len(got) >= 4 else None
        return got[0], got[1], done.stdout


def anchors(sm, names=None):
    """An :class:`Anchor` for each name (default: every one in :data:`ANCHORS`, in order)."""
    return [Anchor(sm, n) for n in (ANCHORS if names is None else names)]
