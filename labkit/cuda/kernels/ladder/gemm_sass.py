"""What the compiler made of a tensor-core step: registers, spills, occupancy and SASS.

:func:`kernel_report` reads a compiled kernel through numba's public dispatcher API;
:func:`offline_report` builds one without a GPU (``numba.cuda.compile_ptx`` + ``ptxas -v`` +
``cuobjdump``). Both count the SASS opcodes of the whole kernel (:func:`instruction_mix`) and
of one k-tile of the main loop (:func:`ktile_mix`), and give the CTAs one multiprocessor holds
from ``labkit.atoms.sm_limits.occupancy``.

>>> from labkit.cuda.kernels.ladder.gemm_config import TileConfig
>>> hmma_per_ktile(TileConfig(), 90), hmma_per_ktile(TileConfig(), 75)
(128, 256)
"""

from __future__ import annotations

import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile


from labkit.atoms.sm_limits import occupancy
from labkit.cuda import _numba
from labkit.cuda.kernels.ladder.gemm_config import check_sm
from labkit.cuda.kernels.ladder.gemm_launch import build_kernel, program
from labkit.errors import DeviceError

__all__ = ["tool", "disassemble", "instruction_mix", "ktile_mix", "wgmma_ktile_mix", "hmma_per_ktile", "ctas_per_sm",
           "offline_report", "kernel_report"]

_SASS_LINE = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)([^;]*)")


def tool(name):
    """Path of a CUDA binary utility (ptxas, cuobjdump, nvdisasm), or None.

    Looks on the PATH, under ``$CUDA_HOME/bin`` (default /usr/local/cuda), then in the
    ``nvidia-cuda-*`` pip wheels (``nvidia/cu13/bin``, ``nvidia/cuda_nvcc/bin``).
    """

    found = shutil.which(name)
    if found:
        return found
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    candidates = [os.path.join(home, "bin", name)]
    for site in sys.path:
        candidates += sorted(glob.glob(os.path.join(site, "nvidia", "*", "bin", name)))
    return next((c for c in candidates if os.path.isfile(c) and os.access(c, os.X_OK)), None)


def disassemble(cubin_bytes):
    """SASS text of a cubin through cuobjdump (or nvdisasm); '' when neither is installed."""

    for name, flags in (("cuobjdump", ["-sass"]), ("nvdisasm", [])):
        path = tool(name)
        if path is None:
            continue
        with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
            f.write(bytes(cubin_bytes))
            f.flush()
            done = subprocess.run([path, *flags, f.name], capture_output=True, text=True, timeout=300)
        if done.returncode == 0 and done.stdout.strip():
            return done.stdout
    return ""


def hmma_per_ktile(cfg, sm):
    """``HMMA`` instructions one warp issues per k-tile: every atom of its tile, each k-block.

    >>> from labkit.cuda.kernels.ladder.gemm_config import TileConfig
    >>> hmma_per_ktile(TileConfig(), 90), hmma_per_ktile(TileConfig(), 75)
    (128, 256)
    """
    MI, NI = cfg.atoms
    per = MI * NI * (cfg.bk // 16)
    return per if check_sm(sm) >= 80 else 2 * per


def _signature(acc, cfg=None):
    types = _numba.types  # numba-cuda's type objects, through labkit's numba boundary

    c = types.float32 if acc == "f32" else types.uint16

    def arr(t):
        return types.Array(t, 1, "C")

    sig = (arr(types.float16), arr(types.float16), arr(c), types.int32, types.int32, types.int32)
    return sig + (arr(types.uint64),) if cfg is not None and cfg.loader == "tma" else sig


def ctas_per_sm(regs, threads, smem, sm):
    """CTAs of ``threads`` threads, ``regs`` registers each and ``smem`` bytes of shared memory
    one multiprocessor of SM ``sm`` holds (``labkit.atoms.sm_limits.occupancy``); None for an
    SM the limits table does not know.

    >>> ctas_per_sm(254, 128, 98304, 90), ctas_per_sm(254, 128, 98304, 120)
    (2, None)
    """
    try:
        return occupancy(int(regs), int(threads), int(smem), check_sm(sm))
    except DeviceError:
        from labkit.atoms.sm_limits import SM_LIMITS

        if check_sm(sm) in SM_LIMITS:
            raise
        return None


def offline_report(cfg, acc, sm, name="gemm_tc", sass_path=None):
    """Build ``cfg``'s kernel without a GPU and read registers, spills and SASS from it.

    numba writes the PTX (``numba.cuda.compile_ptx``: needs the CUDA toolkit's NVVM and
    NVRTC); ``ptxas -v`` assembles it for SM ``sm`` with the kernel's register cap and reports
    registers, spill bytes and stack; ``cuobjdump -sass`` gives the instructions, counted
    over the whole kernel (``mix``) and per k-tile of the main loop (``per_ktile``).
    """

    ptxas = tool("ptxas")
    if ptxas is None:
        raise DeviceError("ptxas: not found (PATH, $CUDA_HOME/bin); offline_report needs the CUDA toolkit")
    sm = check_sm(sm)
    ptx_text = program(cfg, acc, sm, name).compile_ptx(_signature(acc, cfg), cc=divmod(sm, 10), fastmath=True)
    with tempfile.TemporaryDirectory() as tmp:
        ptx_path, cubin_path = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
        with open(ptx_path, "w") as f:
            f.write(ptx_text)
        args = [ptxas, f"-arch=sm_{sm}", "-v", ptx_path, "-o", cubin_path]
        if cfg.max_registers:
            args.insert(1, f"-maxrregcount={cfg.max_registers}")
        done = subprocess.run(args, capture_output=True, text=True, timeout=600)
        if done.returncode:
            raise DeviceError(f"ptxas: failed on {name}: {done.stderr[-2000:]}")
        with open(cubin_path, "rb") as f:
            cubin = f.read()
    info = done.stderr

    def num(pattern):
        m = re.search(pattern, info)
        return int(m.group(1)) if m else 0

    sass = disassemble(cubin)
    if sass_path and sass:
        with open(sass_path, "w") as out:
            out.write(sass)
    regs = num(r"Used (\d+) registers")
    return dict(
        regs=regs, spill_stores=num(r"(\d+) bytes spill stores"),
        spill_loads=num(r"(\d+) bytes spill loads"), stack=num(r"(\d+) bytes stack frame"),
        dynamic_smem=cfg.smem_bytes(sm), threads=cfg.threads,
        ctas_per_sm=ctas_per_sm(regs, cfg.threads, cfg.smem_bytes(sm), sm),
        mix=dict(instruction_mix(sass)), per_ktile=ktile_mix(sass, hmma_per_ktile(cfg, sm)),
        sass=sass, ptxas=info,
    )


def ktile_mix(sass, hmma_ktile, op="HMMA"):
    """Instruction counts of the main loop, per k-tile, from ``cuobjdump``/``nvdisasm`` SASS.

    The main loop is the backward branch whose body holds the most ``op`` (``HMMA``; ``HGMMA``
    for wgmma, ``UTMALDG`` for a TMA producer's loop); its counts are divided by the k-tiles
    one trip covers (``op`` in the body / ``hmma_ktile``, the ``op`` of one k-tile). Empty
    when there is no SASS or no such loop.

    >>> sass = '''
    ...         /*0000*/                   MOV R1, c[0x0][0x28] ;
    ...         /*0010*/                   HMMA.16816.F32 R4, R8, R12, R4 ;
    ...         /*0020*/                   LDSM.16.M88.4 R8, [R3] ;
    ...         /*0030*/                   HMMA.16816.F32 R4, R8, R12, R4 ;
    ...         /*0040*/               @P0 BRA 0x10 ;
    ... '''
    >>> ktile_mix(sass, 2)
    {'HMMA': 2.0, 'LDSM': 1.0, 'BRA': 1.0, 'total': 4.0}
    """

    label_re = re.compile(r"^\s*(\.L\w+):")
    insts, labels, pending = [], {}, []
    for line in sass.splitlines():
        m = label_re.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = _SASS_LINE.match(line)
        if m:
            addr = int(m.group(1), 16)
            for lab in pending:
                labels[lab] = addr
            pending = []
            insts.append((addr, m.group(2), m.group(3)))
    best = None
    for i, (addr, name, rest) in enumerate(insts):
        if name != "BRA":
            continue
        t = re.search(r"0x([0-9a-f]+)", rest)
        lab = re.search(r"(\.L\w+)", rest)
        target = int(t.group(1), 16) if t else (labels.get(lab.group(1)) if lab else None)
        if target is None or target >= addr:
            continue
        body = [o for a, o, _ in insts[: i + 1] if a >= target]
        hmma = body.count(op)
        # the most ``op``; of loops with as many (a loop and the loops around it), the innermost
        if hmma and (best is None or hmma > best[0] or (hmma == best[0] and len(body) < len(best[1]))):
            best = (hmma, body)
    if best is None:
        return {}
    trips = best[0] / hmma_ktile
    out = {k: v / trips for k, v in collections.Counter(best[1]).most_common()}
    out["total"] = len(best[1]) / trips
    return out


def wgmma_ktile_mix(sass, hgmma_ktile, tma_ktile=2, opcode="HGMMA"):
    """Per k-tile counts of a warp-specialized wgmma kernel: the consumer's loop (the one with the
    most ``opcode``, ``hgmma_ktile`` of them a k-tile; ``HGMMA`` for 16-bit operands, ``QGMMA``
    for 8-bit floats) and, as ``UTMALDG``, the TMA copies of the producer's loop (the one with
    the most ``UTMALDG``, ``tma_ktile`` a k-tile).

    >>> sass = '''
    ...         /*0000*/                   UTMALDG.2D [UR8], [UR4] ;
    ...         /*0010*/                   UTMALDG.2D [UR12], [UR4] ;
    ...         /*0020*/               @P0 BRA 0x0 ;
    ...         /*0030*/                   HGMMA.64x256x16.F32 R24, gdesc[UR4], R24 ;
    ...         /*0040*/                   HGMMA.64x256x16.F32 R24, gdesc[UR8], R24 ;
    ...         /*0050*/               @P1 BRA 0x30 ;
    ... '''
    >>> wgmma_ktile_mix(sass, 2)
    {'HGMMA': 2.0, 'BRA': 1.0, 'total': 3.0, 'UTMALDG': 2.0}
    """
    out = ktile_mix(sass, hgmma_ktile, opcode)
    producer = ktile_mix(sass, tma_ktile, "UTMALDG")
    if out and producer:
        out["UTMALDG"] = producer["UTMALDG"]
    return out


def instruction_mix(sass):
    """Count SASS opcodes (the part before the first '.') in ``cuobjdump -sass`` text.

    >>> text = '''
    ...         /*0100*/                   HMMA.16816.F32 R4, R132.reuse, R136, R4 ;
    ...         /*0110*/              @!P0 LDGSTS.E.BYPASS.LTC128B.128 [R200], desc[UR14][R202.64] ;
    ...         /*0120*/                   LDSM.16.M88.4 R168, [R196+UR4] ;
    ...         /*0130*/                   HMMA.16816.F32 R8, R132.reuse, R138, R8 ;
    ... '''
    >>> sorted(instruction_mix(text).items())
    [('HMMA', 2), ('LDGSTS', 1), ('LDSM', 1)]
    """

    counts = collections.Counter()
    for line in sass.splitlines():
        m = _SASS_LINE.match(line)
        if m:
            counts[m.group(2)] += 1
    return counts


def kernel_report(cfg, acc, sm, name="gemm_tc", sass_path=None):
    """Registers, local memory (spills), shared memory and SASS instruction mix of a kernel.

    The kernel must have been launched (compiled) already. Everything comes through numba's
    public dispatcher API: ``get_regs_per_thread``, ``get_local_mem_per_thread``,
    ``get_shared_mem_per_block``, and the SASS from ``inspect_sass`` (nvdisasm on the
    cubin) or, without nvdisasm, ``inspect_asm``'s PTX assembled by ptxas and read by
    cuobjdump. ``mix`` counts the whole kernel, ``per_ktile`` one k-tile of the main loop.
    """

    sm = check_sm(sm)
    kernel = build_kernel(cfg, acc, sm, name)
    if not kernel.overloads:
        raise DeviceError(f"kernel: {name} has not been compiled yet; launch it first")

    def one(v):
        return next(iter(v.values())) if isinstance(v, dict) else v

    regs = one(kernel.get_regs_per_thread())
    report = dict(regs=regs, local_bytes=one(kernel.get_local_mem_per_thread()),
                  static_smem=one(kernel.get_shared_mem_per_block()),
                  dynamic_smem=cfg.smem_bytes(sm), threads=cfg.threads, mix={}, per_ktile={},
                  sass="", sass_from="")
    report["ctas_per_sm"] = ctas_per_sm(regs, cfg.threads, cfg.smem_bytes(sm) + report["static_smem"], sm)
    sass = ""
    try:
        sass = one(kernel.inspect_sass())
        report["sass_from"] = "inspect_sass (nvdisasm)"
    except Exception:  # no nvdisasm: assemble the PTX numba produced
        ptxas = tool("ptxas")
        if ptxas is not None:
            ptx_text = one(kernel.inspect_asm())
            with tempfile.TemporaryDirectory() as tmp:
                p, c = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
                with open(p, "w") as f:
                    f.write(ptx_text)
                args = [ptxas, f"-arch=sm_{sm}", p, "-o", c]
                if cfg.max_registers:
                    args.insert(1, f"-maxrregcount={cfg.max_registers}")
                if subprocess.run(args, capture_output=True, timeout=600).returncode == 0:
                    with open(c, "rb") as f:
                        sass = disassemble(f.read())
                    report["sass_from"] = "inspect_asm + ptxas + cuobjdump"
    if sass:
        report["sass"] = sass
        report["mix"] = dict(instruction_mix(sass))
        report["per_ktile"] = ktile_mix(sass, hmma_per_ktile(cfg, sm))
        if sass_path:
            with open(sass_path, "w") as out:
                out.write(sass)
    return report
