"""Step 7's compiled kernel, reported: registers, spills, shared memory and the SASS mix
(:func:`labkit.cuda.kernels.ladder.gemm_wgmma.kernel_report`). A kernel not launched yet has
nothing to report:

>>> from labkit.cuda.kernels.ladder import gemm_wgmma
>>> gemm_wgmma.kernel_report(config="128x256x64s4rm-tma")
Traceback (most recent call last):
...
labkit.errors.DeviceError: kernel: gemm_wgmma has not been compiled yet; launch it first
"""

from __future__ import annotations

from labkit.errors import DeviceError

__all__ = ["kernel_report"]


def kernel_report(kernel, cfg, mma_per_ktile, sass_path=None):
    """Registers, spills, shared memory and SASS mix of ``kernel`` (the numba dispatcher of ``cfg``'s
    kernel; it must have been launched once). ``per_ktile`` counts one consumer warp's k-tile of the
    main loop (the loop with the most wgmma, ``mma_per_ktile`` of them), with ``UTMALDG`` from the
    producer's loop."""
    from labkit.cuda.kernels.ladder import gemm_sass

    if not kernel.overloads:
        raise DeviceError("kernel: gemm_wgmma has not been compiled yet; launch it first")

    def one(v):
        return next(iter(v.values())) if isinstance(v, dict) else v

    regs = one(kernel.get_regs_per_thread())
    report = dict(regs=regs, local_bytes=one(kernel.get_local_mem_per_thread()),
                  static_smem=one(kernel.get_shared_mem_per_block()), dynamic_smem=cfg.smem_bytes(),
                  threads=cfg.threads, mix={}, per_ktile={}, sass="", sass_from="")
    report["ctas_per_sm"] = gemm_sass.ctas_per_sm(regs, cfg.threads, cfg.smem_bytes() + report["static_smem"], 90)
    try:
        sass = one(kernel.inspect_sass())
        report["sass_from"] = "inspect_sass (nvdisasm)"
    except Exception:
        sass = ""
    if sass:
        report["sass"] = sass
        report["mix"] = dict(gemm_sass.instruction_mix(sass))
        opcode = "HGMMA" if cfg.a == "f16" else "QGMMA"       # SASS's names: 16-bit and 8-bit operands
        report["per_ktile"] = gemm_sass.wgmma_ktile_mix(sass, mma_per_ktile, opcode=opcode)
        if sass_path:
            with open(sass_path, "w") as out:
                out.write(sass)
    return report
