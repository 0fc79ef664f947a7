"""Lab 9: your own step of the GEMM ladder, a tensor-core step with a shared-memory layout you choose.

:func:`try_layout` copies a tensor-core step's config with your ``smem_layout`` and answers what
the kernel would make of it, before anything runs: whether the config is accepted (the
:class:`~labkit.errors.ConfigError` otherwise, as text), warp 0's shared-memory wavefronts for one
k-tile beside the step's own layout's, the bytes of a stage, and, with ``run=True``, the kernel's
relative error against float64 on the GPU or, without one, on numba's CUDA simulator at a small
size. :func:`offsets_agree` checks that the compiled offset function the kernel calls
(``lk.offset_function``) gives the layout's own offsets; :func:`trial_table` lines trials up.

>>> import labkit as lk
>>> t = try_layout("mma", lk.make_layout((lk.S(64), lk.S(64)), (lk.S(72), lk.S(1))))
>>> t.accepted, t.ldmatrix, t.step_ldmatrix, t.stage_bytes
(True, (64, 64), (512, 64), 18432)
>>> try_layout("mma", lk.make_layout((lk.S(64), lk.S(64)), (lk.S(66), lk.S(1)))).refused.split(":")[0]
'config.smem_layout'
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from labkit.errors import ConfigError, LabkitError

__all__ = ["LAB_STEPS", "Trial", "step_config", "try_layout", "offsets_agree", "trial_table"]

#: the steps whose shared-memory layout a reader may replace (the TMA writes its own: step 6 takes
#: only the TMA's swizzle; step 7 is the wgmma step, whose descriptors read the GMMA atoms)
LAB_STEPS = ("mma", "swizzle", "pipeline")


@dataclass(frozen=True)
class Trial:
    """What a step makes of a layout (see :func:`try_layout`)."""

    step: str
    layout: object
    config: object
    refused: str | None
    ldmatrix: tuple | None
    store: tuple | None
    step_ldmatrix: tuple
    stage_bytes: int | None
    step_stage_bytes: int
    run: tuple | None = None          # (relative error, tolerance, backend, M, N, K)

    @property
    def accepted(self) -> bool:
        return self.refused is None


def step_config(step, small=False):
    """The step's own :class:`TileConfig` (``small``: one that runs on the simulator in seconds)."""
    from labkit.cuda.kernels.ladder import gemm

    gemm.check_step(step, LAB_STEPS, " (the steps whose shared-memory layout you may replace)")
    mod = gemm.step_module(step)
    cfg = mod.CONFIGS[mod.DEFAULT] if step == "pipeline" else mod.CONFIG
    if small:       # the same bk (a layout of the step's tiles still fits), two warps of 16x32
        cfg = dataclasses.replace(cfg, bm=32, bn=32, warps_m=2, warps_n=1, group_m=2, conflict_free=False)
    return cfg


def _run(step, cfg, M, N, K, seed):
    from labkit.cuda import SIMULATED
    from labkit.cuda.kernels.ladder import gemm

    err, tol = gemm.check(step, M, N, K, acc="f32", seed=seed, config=cfg)
    return float(err), float(tol), "CUDA simulator" if SIMULATED else "GPU", M, N, K


def try_layout(step, smem_layout, conflict_free=False, run=False, M=None, N=None, K=None, seed=0) -> Trial:
    """Step ``step`` (``"mma"``, ``"swizzle"`` or ``"pipeline"``) with ``smem_layout`` for its A and B
    tiles (see the module text). ``run=True`` launches it once on random inputs: on a GPU at
    ``M = N = K = 1024`` by default, under the simulator with a 32x32 tile of two warps at 64 x 64 x 128.
    ``smem_layout`` needs rows for the tiles it is given (the step's ``max(bm, bn)``)."""
    from labkit.cuda import SIMULATED
    from labkit.cuda.kernels.ladder.gemm_smem_check import smem_conflicts

    own = step_config(step, small=run and SIMULATED)
    base = smem_conflicts(own)
    try:
        cfg = dataclasses.replace(own, smem_layout=smem_layout, conflict_free=conflict_free)
    except ConfigError as e:
        return Trial(step, smem_layout, None, str(e), None, None, base["ldmatrix"], None, own.stage_bytes())
    costs = smem_conflicts(cfg)
    done = None
    if run:
        size = (64, 64, 128) if SIMULATED else (1024, 1024, 1024)
        done = _run(step, cfg, M or size[0], N or size[1], K or size[2], seed)
    return Trial(step, smem_layout, cfg, None, costs["ldmatrix"], costs.get("store"), base["ldmatrix"],
                 cfg.stage_bytes(), own.stage_bytes(), done)


def offsets_agree(layout, rows=None, cols=None) -> bool:
    """Whether ``lk.offset_function(layout)`` (what the kernel calls, here its Python function)
    gives ``layout(r, c)`` for every ``r < rows``, ``c < cols`` (default: the whole layout)."""
    from labkit.cuda.offset_function import offset_function
    from labkit.layout import ComposedLayout, Layout, size

    if not isinstance(layout, (Layout, ComposedLayout)) or not isinstance(layout.shape, tuple) \
            or len(layout.shape) != 2:
        raise LabkitError(f"layout: must be a rank-2 labkit layout; got {layout!r}")
    rows = int(size(layout.shape[0])) if rows is None else rows
    cols = int(size(layout.shape[1])) if cols is None else cols
    f = offset_function(layout).py_func
    return all(f(r, c) == int(layout(r, c)) for r in range(rows) for c in range(cols))


def trial_table(trials) -> list:
    """One row a trial (a header row first): step, layout, ldmatrix wavefronts (least), stage
    bytes, the run (error <= tolerance, backend) and the rule broken if refused; print it with
    ``lk.viz.text_table``."""
    rows = [("step", "layout", "ldmatrix waves (least)", "stage bytes", "run", "refused")]
    for t in trials:
        lds = "-" if t.ldmatrix is None else f"{t.ldmatrix[0]} ({t.ldmatrix[1]})"
        ran = "-" if t.run is None else f"{t.run[0]:.2g} <= {t.run[1]:.2g}: {t.run[0] <= t.run[1]} ({t.run[2]})"
        rows.append((t.step, str(t.layout), lds, "-" if t.stage_bytes is None else str(t.stage_bytes), ran,
                     "" if t.refused is None else t.refused.split(": ", 1)[1][:60]))
    return rows
