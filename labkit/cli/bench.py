"""``python -m labkit bench gemm``: TFLOP/s of every GEMM ladder step beside cuBLAS.

For each size (M = N = K) and accumulator, every step is checked once against a float64
reference on fresh random inputs (C poisoned with NaN first), then timed: warm-up
launches, then at least ``--reps`` launches each between two CUDA events, cycling through
``--sets`` input sets so the L2 cache cannot hold the operands; the figure is the median.
cuBLAS (through torch, else cupy) runs in the same process on the same inputs. With
``--anchor``, CuTe's own tutorial kernels (``sgemm_sm80``; on sm_90 also ``wgmma_sm90`` and
``wgmma_tma_sm90``) and, on sm_90, CUTLASS's warp-specialized cooperative GEMM in f16 and e4m3 are
built with nvcc (in the background, while the ladder runs) and timed in the same session at every
size and shape (:mod:`labkit.cuda.kernels.ladder.gemm_anchor`); each one that cannot be built or run
here is left out with its reason, and the benchmark goes on ("vs CuTe" is against sgemm_sm80).
Each tensor-core kernel's registers, spills, shared memory and SASS instruction mix per k-tile
are read from the compiled kernel.
A step whose 20 repetitions would take longer than ``--max-seconds`` runs fewer, and the
table says so.

>>> from labkit.cli.bench import parse_args
>>> a = parse_args(["gemm", "--sizes", "256", "--steps", "mma,pipeline"])
>>> a.sizes, a.steps, a.reps, a.anchor
([256], ['mma', 'pipeline'], 20, False)
"""

from __future__ import annotations

import argparse
import csv
import datetime
import platform
import statistics
import sys
import time

from labkit.cli import bench_backends
from labkit.cli.bench_table import CUTE_REF, TC_STEPS_REPORTED, _ratio, _table

__all__ = ["main", "parse_args", "flops"]


def flops(M, N, K):
    """Floating-point operations of one GEMM: a multiply and an add per (m, n, k).

    >>> flops(4096, 4096, 4096) / 1e12
    0.137438953472
    """
    return 2.0 * M * N * K


def _csv_list(text, kind=str):
    return [kind(x) for x in text.split(",") if x]


def _shape(text):
    """``"4096x14336x4096"`` -> ``(4096, 14336, 4096)`` (M, N, K).

    >>> _shape("16384x4096x4096")
    (16384, 4096, 4096)
    """
    parts = text.lower().split("x")
    if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"a shape is MxNxK with three positive integers; got {text!r}")
    return tuple(int(p) for p in parts)


def parse_args(argv):
    """Parse ``bench`` arguments (the first one names the benchmark: only ``gemm``)."""
    from labkit.cuda.kernels.ladder.gemm import ALL_STEPS as STEPS

    p = argparse.ArgumentParser(prog="python -m labkit bench", description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=["gemm"], help="which benchmark")
    p.add_argument("--sizes", type=lambda s: _csv_list(s, int), default=[4096, 8192],
                   help="square sizes M=N=K, comma-separated (default 4096,8192)")
    p.add_argument("--steps", type=_csv_list, default=list(STEPS),
                   help="ladder steps, comma-separated (default: all)")
    p.add_argument("--acc", type=_csv_list, default=["f32", "f16"],
                   help="accumulators, comma-separated: f32, f16 (default both)")
    p.add_argument("--configs", type=_csv_list, default=None,
                   help="configurations to time for steps that have several (names from the "
                        "step module's CONFIGS, e.g. gemm_pipeline.CONFIGS)")
    p.add_argument("--shapes", type=lambda s: [_shape(x) for x in s.split(",") if x], default=[],
                   help="also these problems, MxNxK, comma-separated (e.g. 4096x14336x4096)")
    p.add_argument("--runs", type=int, default=5,
                   help="interleaved rounds: every kernel, cuBLAS included, is timed once a round; "
                        "its figure is the median of the rounds (default 5)")
    p.add_argument("--reps", type=int, default=20, help="timed launches per step and round (default 20)")
    p.add_argument("--warmup", type=int, default=5, help="untimed launches first (default 5)")
    p.add_argument("--sets", type=int, default=4, help="input sets cycled through (default 4)")
    p.add_argument("--max-seconds", type=float, default=20.0,
                   help="time a slow step fewer than --reps times when they would take longer")
    p.add_argument("--csv", default=None, help="also write the results to this CSV file")
    p.add_argument("--no-cublas", action="store_true", help="leave cuBLAS out")
    p.add_argument("--ablation", action="store_true",
                   help="time step 7's technique pairs (labkit.cli.bench_ablation) and print what each changed")
    p.add_argument("--anchor", action="store_true",
                   help="also build CuTe's tutorial GEMMs with nvcc (sgemm_sm80; wgmma_sm90 and "
                        "wgmma_tma_sm90 on sm_90) and CUTLASS's sm90 cooperative GEMM (f16, e4m3; "
                        "sm_90) and time them in the same session")
    p.add_argument("--sass", default=None, metavar="DIR",
                   help="also keep each tensor-core kernel's SASS in DIR")
    args = p.parse_args(argv)
    if args.ablation:
        from labkit.cli.bench_ablation import configs

        args.steps, args.acc = ["wgmma"], ["f32"]
        args.configs = list(dict.fromkeys((args.configs or []) + configs()))
    for s in args.steps:
        if s not in STEPS:
            p.error(f"--steps: {s!r} is not one of {', '.join(STEPS)}")
    for a in args.acc:
        if a not in ("f32", "f16"):
            p.error(f"--acc: {a!r} is not f32 or f16")
    if args.reps < 1 or args.sets < 1 or args.warmup < 0 or args.runs < 1:
        p.error("--reps, --runs and --sets must be >= 1, --warmup >= 0")
    return args


def _header(backend):
    import numba
    import numpy as np
    from numba import cuda

    dev = cuda.get_current_device()
    try:
        from labkit.cuda import _numba

        drv = ".".join(str(v) for v in _numba.driver_version())
    except Exception:  # the header says "?" rather than stop the benchmark
        drv = "?"
    name = dev.name.decode() if isinstance(dev.name, bytes) else dev.name
    from labkit.cuda._numba import NUMBA_CUDA_VERSION as nc
    cc = dev.compute_capability
    lines = [
        f"date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}",
        f"gpu: {name} (sm_{cc[0]}{cc[1]}, {dev.MULTIPROCESSOR_COUNT} SMs); CUDA driver API {drv}",
        f"python {platform.python_version()}, numba {numba.__version__}, numba-cuda {nc}, "
        f"numpy {np.__version__}, {backend.name} {backend.version}",
    ]
    try:
        import subprocess

        smi = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm,power.limit", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=20,
        )
        if smi.returncode == 0:
            lines.append(f"nvidia-smi: driver, max SM clock, power limit = {smi.stdout.strip()}")
    except Exception:
        pass
    return lines




def _variants(args):
    """(step, options, label, (kind, out)) for every kernel to time: ``kind`` the operand element
    types of its configuration (``("f16", "f16")`` for every step before fp8; a third ``"block"``
    for block scales), ``out`` C's type where the configuration sets it."""
    from labkit.cuda.kernels.ladder import gemm as ladder

    variants = []
    for step in args.steps:
        mod = ladder.step_module(step)
        configs = getattr(mod, "CONFIGS", None)
        if configs:
            names = [n for n in (args.configs or []) if n in configs] or [mod.DEFAULT]
            for n in names:
                cfg = configs[n]
                kind = (getattr(cfg, "a", "f16"), getattr(cfg, "b", "f16"))
                kind += ("block",) if getattr(cfg, "block_scales", False) else ()
                variants.append((step, {"config": n}, f"{step}[{n}]", (kind, getattr(cfg, "c", None))))
        else:
            variants.append((step, {}, step, (("f16", "f16"), None)))
    return variants


def _shapes(args):
    """(M, N, K) of every problem: ``--sizes`` squares, then ``--shapes``."""
    return [(s, s, s) for s in args.sizes] + list(args.shapes)


def _label(shape):
    """``4096`` for a square problem, else ``MxNxK``.

    >>> _label((4096, 4096, 4096)), _label((4096, 14336, 4096))
    ('4096', '4096x14336x4096')
    """
    M, N, K = shape
    return str(M) if M == N == K else f"{M}x{N}x{K}"


def _spread(times):
    """(median, (max - min) / median) of the runs' medians."""
    med = statistics.median(times)
    return med, (max(times) - min(times)) / med


def run_gemm(args, out=sys.stdout):
    """Run the GEMM benchmark described by ``args``; return the result rows.

    Every kernel (the ladder's and cuBLAS's) is first checked once, then timed in ``--runs``
    rounds: each round times every kernel once (the median of its launches), in the same order,
    so that a slow moment of the GPU falls on all of them; a kernel's figure is the median of its
    rounds, and its spread (max - min over median) is printed beside it."""
    from numba import cuda

    from labkit.cuda.kernels.ladder import gemm as ladder
    from labkit.cuda.kernels.ladder.gemm_anchor import anchors as make_anchors
    from labkit.cuda.kernels.ladder.gemm_common import output_dtype, simulated, tolerance
    from labkit.cuda.kernels.ladder.gemm_wgmma_check import ROUNDOFF
    from labkit.cuda.launch import device_sm
    from labkit.errors import DeviceError

    if simulated():
        raise DeviceError("bench: the CUDA simulator is on (NUMBA_ENABLE_CUDASIM); timings need a GPU")
    sm = device_sm()
    backend = bench_backends.backend()
    for line in _header(backend):
        print(line, file=out)
    anchors = make_anchors(sm) if args.anchor else []
    for anchor in anchors:
        anchor.start()
        print(f"anchor: {anchor.reason}" if anchor.reason else
              f"anchor: building {anchor.spec.who}: {' '.join(anchor.command)}", file=out, flush=True)
        anchor.said = bool(anchor.reason)
    torch = getattr(backend, "torch", None)
    events = bench_backends.torch_events(torch) if torch is not None else bench_backends.numba_events
    rows = []
    reports = {}
    variants = _variants(args)
    for shape in _shapes(args):
        M, N, K = shape
        size = _label(shape)
        kinds = sorted({v[3][0] for v in variants}, key=lambda k: (k != ("f16", "f16"), k))
        timed = []               # (row, launches) of every kernel checked, timed below in rounds
        for kind in kinds:
            try:
                sets = [backend.operands(M, N, K, seed=1000 * M + 7 * N + K + i, kinds=kind)
                        for i in range(args.sets)]
            except DeviceError as e:
                print(f"{'·'.join(kind)} {size}: skipped: {e}", file=out)
                continue
            dev_sets = [(backend.view(A), backend.view(B)) for A, B in sets]
            ref = backend.reference(*sets[0])
            eight, block = kind != ("f16", "f16"), len(kind) > 2
            ratio = backend.abs_norm_ratio(*sets[0], ref) if eight else None
            rtol = _fp8_rtol(kind[:2]) if eight else None
            cuda.synchronize()
            for step, options, label, (vkind, c) in variants:
                if vkind != kind:
                    continue
                a, b = kind[:2]
                for acc in (args.acc if c is None else ["f32"]):
                    if c is not None and "f32" not in args.acc:
                        continue
                    mod = ladder.step_module(step)
                    cdt = mod.operand_dtypes(options["config"])[1] if c is not None else output_dtype(acc)
                    C = cuda.device_array((M, N), cdt)
                    t0 = time.time()
                    try:
                        per_set = [{"scales": backend.scales(*s)} if block else {"alpha": backend.alpha(*s)}
                                   if eight else {} for s in sets]
                        launches = [ladder.prepare(step, A, B, C, acc, sm, **options, **per_set[i])[1]
                                    for i, (A, B) in enumerate(dev_sets)]
                        if cdt.kind == "f":
                            C[:] = float("nan")  # poison: an unwritten element fails the check
                        else:
                            C[:] = 0xFFFF        # a bf16 NaN
                        launches[0]()
                        cuda.synchronize()
                    except DeviceError as e:
                        print(f"{label} {acc} {size}: skipped: {e}", file=out)
                        continue
                    compile_s = time.time() - t0
                    err = backend.rel_error(C, ref)
                    if eight:
                        bound = rtol * ratio + ROUNDOFF[c]
                    else:
                        bound = tolerance(acc, K) + (ROUNDOFF[c] if c else 0.0)
                    ok = err <= bound
                    types = f"{a}·{b}{' (block scales)' if block else ''}→{c or acc}"
                    row = dict(size=size, M=M, N=N, K=K, acc=acc, types=types, step=label, rel_err=err,
                               tol=bound, ok=ok, note="", compile_s=compile_s)
                    print(f"{label:>34} {types} {size}: checked, rel err {err:.2e} (bound {bound:.1e}) "
                          f"{'ok' if ok else 'FAIL'}", file=out, flush=True)
                    timed.append((row, launches))
                    if hasattr(mod, "kernel_config") and (label, acc) not in reports:
                        reports[label, acc] = _report(step, acc, sm, options, label, args.sass, out)
                    row.update(_report_columns(reports.get((label, acc))))
            # cuBLAS as it is called by default, and for per-tensor fp8 also with use_fast_accum (step 7's arithmetic)
            for fast in ((False, True) if eight and not block else (False,)) if not args.no_cublas else ():
                pairs = [backend.cublas(A, B, fast_accum=fast) for A, B in sets]
                if pairs[0][0] is None and pairs[0][1]:
                    print(f"cuBLAS {'·'.join(kind)} {size}: left out: {pairs[0][1]}", file=out, flush=True)
                if pairs[0][0] is not None:
                    launches = [p[0] for p in pairs]
                    launches[0]()
                    cuda.synchronize()
                    err = backend.rel_error(pairs[0][1], ref)
                    out_t = "bf16" if eight else "f16"
                    bound = (rtol * ratio if eight else tolerance("f32", K)) + ROUNDOFF[out_t]
                    name = (f"cuBLAS {kind[0]}x{kind[1]}{' block-scaled' if block else ''}{' fast accum' if fast else ''}"
                            " (torch _scaled_mm)" if eight else f"cuBLAS ({backend.name})")
                    row = dict(size=size, M=M, N=N, K=K, acc="f32",
                               types=f"{kind[0]}·{kind[1]}{' (block scales)' if block else ''}→{out_t}",
                               step=name, rel_err=err, tol=bound, ok=err <= bound,
                               note=f"{out_t} out" + ((", block scales" if block else ", per-tensor scales")
                                                      if eight else "") + (", use_fast_accum" if fast else ""),
                               compile_s=0.0)
                    print(f"{name:>34} {row['types']} {size}: checked, rel err {err:.2e}", file=out, flush=True)
                    timed.append((row, launches))
        _time_in_rounds(timed, args, M * N * K, events, out)
        rows += [r for r, _ in timed]
        del timed
        for anchor in anchors:
            rows += _anchor_rows(anchor, shape, out)
    _table(rows, out)
    if args.ablation:
        from labkit.cli.bench_ablation import table

        print("\n" + table(rows, [_label(s) for s in _shapes(args)]), file=out)
    if args.csv:
        fields = []
        for r in rows:
            fields += [k for k in r if k not in fields]
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields + ["vs_cublas", "vs_cute"])
            w.writeheader()
            for r in rows:
                w.writerow(dict(r, vs_cublas=_ratio(rows, r, "cuBLAS"), vs_cute=_ratio(rows, r, CUTE_REF)))
    return rows


def _fp8_rtol(kind):
    """The relative bound of Hopper's 8-bit float MMAs with f32 accumulators (the record's
    ``tolerance()``), against ``|A| |B|ᵀ``."""
    from labkit.atoms.instructions import instruction
    from labkit.cuda.kernels.ladder.gemm_wgmma_config import WgmmaConfig
    from labkit.cuda.kernels.ladder.gemm_wgmma_operands import atom_name

    return instruction(atom_name(WgmmaConfig(a=kind[0], b=kind[1], c="bf16"))).tolerance()[0]


def _time_in_rounds(timed, args, mnk, events, out):
    """Time every kernel of ``timed`` in ``args.runs`` interleaved rounds; fill each row's ms,
    tflops, spread, reps and run medians."""
    from numba import cuda

    per = {id(r): [] for r, _ in timed}
    host = {id(r): [] for r, _ in timed}
    used = {}
    for _ in range(args.runs):
        for row, launches in timed:
            med, best, n, projected, host_ms = bench_backends.time_launches(
                launches, args.warmup, args.reps, args.max_seconds, cuda.synchronize, events)
            per[id(row)].append(med)
            host[id(row)].append(host_ms)
            used[id(row)] = (n, projected)
    for row, _ in timed:
        med, spread = _spread(per[id(row)])
        n, projected = used[id(row)]
        row.update(ms=med, best_ms=min(per[id(row)]), tflops=2.0 * mnk / med / 1e9, spread=spread,
                   runs=len(per[id(row)]), reps=n, run_ms=" ".join(f"{t:.4f}" for t in per[id(row)]),
                   host_us=1e3 * statistics.median(host[id(row)]))
        if n < args.reps:
            row["note"] = (row["note"] + "; " if row["note"] else "") + \
                f"{n} reps: {args.reps} would take {projected:.0f} s"
        print(f"{row['step']:>34} {row['types']} {row['size']}: {row['tflops']:8.1f} TFLOP/s "
              f"median of {row['runs']} runs {med:.4f} ms (spread {spread:.1%}), {n} launches a run, "
              f"host {row['host_us']:.1f} us to issue one",
              file=out, flush=True)




def _anchor_rows(anchor, shape, out):
    """Time one anchor at ``shape`` (M, N, K), or an int for a square (after its background
    build); a row, or none. An anchor that checks its own result is held to the bound of cuBLAS's
    row on the same types."""
    if anchor.reason is None and anchor.proc is not None:
        t0 = time.time()
        if anchor.wait():
            print(f"anchor: {anchor.name} built (waited {time.time() - t0:.0f} s)"
                  + "".join(f"; nvcc: {n}" for n in anchor.notes), file=out, flush=True)
    if anchor.reason is not None:
        if not getattr(anchor, "said", False):
            print(f"anchor: {anchor.reason}", file=out, flush=True)
            anchor.said = True
        return []
    M, N, K = (shape,) * 3 if isinstance(shape, int) else shape
    try:
        tflops, ms, _ = anchor.run(M, N, K)
    except Exception as e:  # a failed run is reported, the rest of the table stands
        print(f"anchor: {e}", file=out, flush=True)
        return []
    spec = anchor.spec
    err, bound, check = float("nan"), float("nan"), ""
    if anchor.checked is not None:
        from labkit.cuda.kernels.ladder.gemm_common import tolerance
        from labkit.cuda.kernels.ladder.gemm_wgmma_check import ROUNDOFF

        err, ratio = anchor.checked
        (a, b), d = spec.types.split("→")[0].split("·"), spec.types.split("→")[1]
        bound = (_fp8_rtol((a, b)) * ratio if a != "f16" else tolerance(spec.acc, K)) + ROUNDOFF[d]
        check = f", rel err {err:.2e} (bound {bound:.1e}) {'ok' if err <= bound else 'FAIL'}"
    row = dict(size=_label((M, N, K)), M=M, N=N, K=K, acc=spec.acc, types=spec.types, step=anchor.label,
               ms=ms, best_ms=ms, tflops=tflops, reps=100, rel_err=err, tol=bound,
               ok=anchor.checked is None or err <= bound, compile_s=0.0,
               note=f"its own timing: mean of 100 launches on one input set; {spec.acc} accumulate")
    print(f"{row['step']:>28} {spec.types} {row['size']}: {tflops:8.1f} TFLOP/s mean {ms:.3f} ms "
          f"(of 100){check}", file=out, flush=True)
    return [row]


def _report(step, acc, sm, options, label, folder, out):
    """Registers, spills, shared memory and SASS instruction mix of one kernel (printed)."""
    import os

    from labkit.cuda.kernels.ladder import gemm as ladder

    path = None
    if folder:
        os.makedirs(folder, exist_ok=True)
        safe = "".join(ch if ch.isalnum() else "_" for ch in label)
        path = os.path.join(folder, f"{safe}_{acc}.sass")
    rep = ladder.kernel_report(step, acc, sm, sass_path=path, **options)
    k = rep["per_ktile"]
    mix = ", ".join(f"{n} {k.get(n, 0):g}" for n in TC_STEPS_REPORTED + ("BAR",)) + f", total {k.get('total', 0):g}"
    print(f"{'':>28} {label} {acc}: {rep['regs']} registers, {rep['local_bytes']} bytes local "
          f"(spills), {rep['dynamic_smem'] + rep['static_smem']} bytes smem, {rep['threads']} threads, "
          f"{rep['ctas_per_sm']} CTAs/SM; SASS per k-tile (one warp): {mix}"
          + (f" [{rep['sass_from']}]" if rep["sass_from"] else " [no disassembler]"),
          file=out, flush=True)
    return rep


def _report_columns(rep):
    if rep is None:
        return {}
    k = rep["per_ktile"]
    cols = dict(regs=rep["regs"], local_bytes=rep["local_bytes"],
                smem_bytes=rep["dynamic_smem"] + rep["static_smem"], threads=rep["threads"],
                ctas_per_sm=rep["ctas_per_sm"])
    for n in TC_STEPS_REPORTED:
        cols[f"{n.lower()}_per_ktile"] = k.get(n, 0) if k else ""
    cols["sass_per_ktile"] = k.get("total", "") if k else ""
    return cols


def main(argv=None):
    """Entry point of ``python -m labkit bench``; returns the exit status."""
    from labkit.errors import DeviceError

    args = parse_args(sys.argv[1:] if argv is None else list(argv))
    try:
        rows = run_gemm(args)
    except DeviceError as e:
        print(f"bench: {e}", file=sys.stderr)
        return 2
    return 0 if rows and all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
