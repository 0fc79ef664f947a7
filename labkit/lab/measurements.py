"""The measured figures the book cites, read from the committed result files.

Every page reads its measured figures through this module: :data:`GEMM_RUN` is the latest GEMM
ladder run (the one constant every page reads), :data:`RUNS` names every run any page cites, and
:func:`figure` reads one figure of a run by its path (``"ladder.4096 f32 tma.tflops"``). The
book's ``{measured}`` role and the Measurements page (:func:`report`) print figures with the
same markup, so a test can check that each figure a page cites is on the Measurements page with
the same value. The readers live in :mod:`labkit.lab.measurement_records`, the tables a person
reads (:func:`report`, :func:`ladder`, :func:`table`) in :mod:`labkit.lab.measurement_report`.

>>> round(figure("gemm", "ladder.4096 f32 tma.tflops").value, 1)
504.5
>>> print(str(ladder("gemm")).splitlines()[0].split()[:3])
['step', 'acc', '4096³']
"""

from labkit.lab.measurement_records import *  # noqa: F401,F403 - the readers, under the pages' name
from labkit.lab.measurement_records import __all__ as _records
from labkit.lab.measurement_report import Report, ablation, build_notes, label, ladder, report, setmaxnreg_table, table

__all__ = [*_records, "Report", "ablation", "build_notes", "label", "ladder", "report", "setmaxnreg_table", "table"]
