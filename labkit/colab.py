"""Make a notebook runtime use its GPU: on Google Colab, install the ``numba-cuda`` build that
matches the CUDA driver; everywhere, say which backend the labs will use.

numba-cuda ships its CUDA libraries as extras, ``numba-cuda[cu12]`` for CUDA 12 drivers and
``numba-cuda[cu13]`` for CUDA 13. Without the matching one, numba finds no usable toolkit on a
Colab GPU runtime and a lab would silently run on the CPU. ``nvidia-smi`` prints the driver's
CUDA version in its header ("CUDA Version: 12.4"); :func:`numba_cuda_extra` reads it.

>>> numba_cuda_extra("| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |")
'cu12'
>>> numba_cuda_extra("| NVIDIA-SMI 580.82.07   Driver Version: 580.82.07   CUDA Version: 13.0 |")
'cu13'
>>> numba_cuda_extra("") is None           # no nvidia-smi output: no GPU
True
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import Callable

from labkit.errors import DeviceError

__all__ = ["NUMBA_CUDA", "numba_cuda_extra", "driver_cuda_version", "gpu_info", "setup_runtime"]

# The numba-cuda versions labkit supports (as in pyproject.toml's dependencies).
NUMBA_CUDA = "numba-cuda>=0.30.4,<0.31"

_CUDA_VERSION = re.compile(r"CUDA Version:\s*(\d+)\.(\d+)")


def driver_cuda_version(nvidia_smi_output: str) -> tuple[int, int] | None:
    """The CUDA version of the driver, ``(major, minor)``, from ``nvidia-smi``'s header, or
    ``None`` when the text has none (no GPU, no driver, ``nvidia-smi`` failed)."""
    if not isinstance(nvidia_smi_output, str):
        raise DeviceError(f"nvidia_smi_output must be the text nvidia-smi printed (str); "
                          f"got {type(nvidia_smi_output).__name__}")
    found = _CUDA_VERSION.search(nvidia_smi_output)
    return (int(found.group(1)), int(found.group(2))) if found else None


def numba_cuda_extra(nvidia_smi_output: str) -> str | None:
    """The ``numba-cuda`` extra for the driver ``nvidia-smi`` describes: ``"cu12"`` for a CUDA 12
    driver, ``"cu13"`` for CUDA 13 (and newer, which run CUDA 13 code), ``None`` when there is no
    GPU or the driver is older than CUDA 12 (numba-cuda needs 12 or newer)."""
    version = driver_cuda_version(nvidia_smi_output)
    if version is None or version[0] < 12:
        return None
    return "cu12" if version[0] == 12 else "cu13"


def _nvidia_smi(run: Callable, *args: str) -> str:
    try:
        done = run(["nvidia-smi", *args], capture_output=True, text=True, check=False)
    except (FileNotFoundError, PermissionError, OSError):
        return ""
    return done.stdout if getattr(done, "returncode", 1) == 0 and isinstance(done.stdout, str) else ""


def gpu_info(run: Callable = subprocess.run) -> tuple[str, str] | None:
    """``(name, "sm_XY")`` of GPU 0 as ``nvidia-smi`` reports it, or ``None`` without a GPU.

    >>> class Done:
    ...     returncode, stdout = 0, "Tesla T4, 7.5\\n"
    >>> gpu_info(lambda *a, **k: Done())
    ('Tesla T4', 'sm_75')
    """
    text = _nvidia_smi(run, "--query-gpu=name,compute_cap", "--format=csv,noheader")
    line = text.strip().splitlines()[0] if text.strip() else ""
    name, _, cap = line.rpartition(",")
    if not name or not re.fullmatch(r"\s*\d+\.\d+\s*", cap):
        return None
    major, minor = cap.strip().split(".")
    return name.strip(), f"sm_{major}{minor}"


def setup_runtime(*, run: Callable = subprocess.run) -> dict:
    """Prepare this runtime for the labs and print what they will use.

    On Google Colab (``google.colab`` imported) with a GPU, pip-installs
    ``numba-cuda[cu12]`` or ``numba-cuda[cu13]`` to match the driver (``nvidia-smi``). Without a
    GPU anywhere, switches numba to its CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, before numba
    is first imported), so the labs run on the CPU twin. Then prints the backend, the GPU's name
    and its SM, and returns them with what was done: a dict with keys ``colab``, ``driver_cuda``,
    ``extra``, ``installed`` (the pip requirement, or ``None``), ``gpu``, ``sm`` and ``backend``.
    ``run`` stands in for :func:`subprocess.run` (tests pass a fake).
    """
    on_colab = "google.colab" in sys.modules
    header = _nvidia_smi(run)
    version = driver_cuda_version(header)
    extra = numba_cuda_extra(header)
    info = gpu_info(run) if header else None
    installed = None
    if on_colab and extra is not None:
        installed = f"numba-cuda[{extra}]{NUMBA_CUDA.removeprefix('numba-cuda')}"
        run([sys.executable, "-m", "pip", "install", "-q", installed], check=True)
    if info is None and "numba" not in sys.modules:
        os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")
    from labkit.lab import backend

    report = {
        "colab": on_colab,
        "driver_cuda": None if version is None else f"{version[0]}.{version[1]}",
        "extra": extra,
        "installed": installed,
        "gpu": None if info is None else info[0],
        "sm": None if info is None else info[1],
        "backend": backend(),
    }
    where = "Colab" if on_colab else "this machine"
    gpu = "no GPU" if info is None else f"{info[0]} ({info[1]}, CUDA driver {report['driver_cuda']})"
    print(f"backend: {report['backend']} | GPU: {gpu} | on {where}"
          + (f" | installed {installed}" if installed else ""))
    if info is not None and report["backend"] != "gpu":
        print("  numba does not see the GPU: restart the runtime (Runtime > Restart session) and run this cell again")
    return report
