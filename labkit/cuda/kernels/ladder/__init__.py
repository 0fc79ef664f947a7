"""The GEMM ladder: ``gemm`` (the steps), one module per step (``gemm_naive`` ... ``gemm_wgmma``)
and what the steps share (configurations, layouts, the statement generator, launch, PTX, SASS)."""
