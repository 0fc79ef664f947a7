"""labkit.colab picks the numba-cuda extra that matches the runtime's CUDA driver.

Expected values: numba-cuda's extras (``cu12`` pulls the CUDA 12 toolkit, ``cu13`` CUDA 13, per
its package metadata) and the header nvidia-smi prints (driver 535 = CUDA 12.2 as on Colab's T4
runtimes, 580 = CUDA 13.0 as on the H200 of docs/benchmarks.md, 470 = CUDA 11.4). The fake
``run`` records the commands a runtime would execute; nothing is installed.
"""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest

from labkit import colab
from labkit.errors import DeviceError

T4_CUDA12 = """Mon Dec  1 10:00:00 2026
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
|   0  Tesla T4                       Off | 00000000:00:04.0 Off |                    0 |
+---------------------------------------------------------------------------------------+
"""
H200_CUDA13 = """+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.159.04             Driver Version: 580.159.04     CUDA Version: 13.0     |
+-----------------------------------------+------------------------+----------------------+
|   0  NVIDIA H200                    On  |   00000000:19:00.0 Off |                    0 |
"""
OLD_CUDA11 = "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4     |\n"
NO_DRIVER = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
             "Make sure that the latest NVIDIA driver is installed and running.\n")


@pytest.mark.parametrize("text, extra", [
    (T4_CUDA12, "cu12"),
    (H200_CUDA13, "cu13"),
    ("| NVIDIA-SMI 590.10   Driver Version: 590.10   CUDA Version: 13.1 |", "cu13"),
    ("| NVIDIA-SMI 525.60.13   Driver Version: 525.60.13   CUDA Version: 12.0 |", "cu12"),
    (OLD_CUDA11, None),          # numba-cuda 0.30 needs a CUDA 12 driver or newer
    (NO_DRIVER, None),
    ("", None),
])
def test_extra_matches_the_driver(text, extra):
    assert colab.numba_cuda_extra(text) == extra


def test_driver_version_and_bad_input():
    assert colab.driver_cuda_version(T4_CUDA12) == (12, 2)
    assert colab.driver_cuda_version(H200_CUDA13) == (13, 0)
    with pytest.raises(DeviceError, match="nvidia_smi_output"):
        colab.numba_cuda_extra(None)


class FakeRuntime:
    """Stands in for subprocess.run: answers nvidia-smi from canned text, records pip."""

    def __init__(self, header: str | None, query: str = ""):
        self.header, self.query, self.calls = header, query, []

    def __call__(self, cmd, **kwargs):
        self.calls.append(list(cmd))
        if cmd[0] == "nvidia-smi":
            if self.header is None:
                raise FileNotFoundError("nvidia-smi")
            out = self.query if len(cmd) > 1 else self.header
            return SimpleNamespace(returncode=0 if out else 9, stdout=out, stderr="")
        return SimpleNamespace(returncode=0, stdout="", stderr="")

    def pip_installs(self):
        return [c[c.index("install") + 1:] for c in self.calls if "pip" in c]


@pytest.fixture
def on_colab(monkeypatch):
    monkeypatch.setitem(sys.modules, "google.colab", SimpleNamespace())


@pytest.mark.parametrize("header, query, extra, name, sm", [
    (T4_CUDA12, "Tesla T4, 7.5\n", "cu12", "Tesla T4", "sm_75"),
    (H200_CUDA13, "NVIDIA H200, 9.0\n", "cu13", "NVIDIA H200", "sm_90"),
])
def test_on_colab_installs_the_matching_extra(on_colab, capsys, header, query, extra, name, sm):
    fake = FakeRuntime(header, query)
    report = colab.setup_runtime(run=fake)
    assert fake.pip_installs() == [["-q", f"numba-cuda[{extra}]>=0.30.4,<0.31"]]
    pip = next(c for c in fake.calls if "pip" in c)
    assert pip[:3] == [sys.executable, "-m", "pip"]
    assert (report["colab"], report["extra"], report["gpu"], report["sm"]) == (True, extra, name, sm)
    printed = capsys.readouterr().out
    assert printed.startswith(f"backend: {report['backend']} | GPU: {name} ({sm}, CUDA driver")
    assert f"installed numba-cuda[{extra}]" in printed


def test_on_colab_without_a_gpu_installs_nothing(on_colab, capsys):
    fake = FakeRuntime(None)
    report = colab.setup_runtime(run=fake)
    assert fake.pip_installs() == [] and report["extra"] is None and report["gpu"] is None
    assert "GPU: no GPU" in capsys.readouterr().out


def test_elsewhere_it_only_reports(monkeypatch, capsys):
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    fake = FakeRuntime(T4_CUDA12, "Tesla T4, 7.5\n")
    report = colab.setup_runtime(run=fake)
    assert fake.pip_installs() == [] and report["installed"] is None
    assert report["colab"] is False and report["sm"] == "sm_75"
    assert "on this machine" in capsys.readouterr().out


def test_the_real_machine_reports_a_backend(capsys):
    report = colab.setup_runtime(run=subprocess.run)
    assert report["backend"] in ("gpu", "cudasim", "sim")
    assert capsys.readouterr().out.startswith(f"backend: {report['backend']} | GPU: ")
