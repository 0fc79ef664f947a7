"""Run a script in a child Python, under numba's CUDA simulator or on the GPU (not a test module).

The simulator must be switched on before numba is imported, and other tests import numba without
it, so kernel tests run their kernels in a child and read back one ``RESULTS<json>`` line.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_child(script: str, simulated: bool, *args: str, drop=()) -> dict:
    """The JSON after ``RESULTS`` on the child's last such line; ``drop`` names environment
    variables the child must not see."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    if simulated:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    else:
        env.pop("NUMBA_ENABLE_CUDASIM", None)
    for name in drop:
        env.pop(name, None)
    done = subprocess.run([sys.executable, "-c", script, *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=600)
    lines = [x for x in done.stdout.splitlines() if x.startswith("RESULTS")]
    assert done.returncode == 0 and lines, done.stdout[-3000:] + done.stderr[-6000:]
    return json.loads(lines[-1][len("RESULTS"):])
