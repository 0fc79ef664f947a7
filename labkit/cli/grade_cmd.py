"""``python -m labkit grade SUBMISSION...``: grade exercise notebooks or otter export zips.

Runs each submission in a bubblewrap sandbox of its own, which sends its answers back as data,
then runs its exercise's public and hidden tests in this process on that data, and prints
``NAME: X/Y points, EXERCISE`` per submission (``, student_id 'ID' (variant N)`` after it for
an exercise with variants; on stderr, the sandbox used). ``--csv FILE`` writes
``file,exercise,student_id,variant,question,points,max``. ``--exercise NAME`` grades every
submission as that exercise and refuses any other; ``--jobs N`` grades N at a time.
``--tests DIR`` reads the hidden tests from a folder of otter assign outputs kept outside the
repository; ``--variant SEED`` grades every submission as one variant. ``--assign`` first
builds the hidden tests from ``solutions/`` (otter assign, into ``exercises/<name>/autograder``).
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from ..errors import LabkitError
from ..grading.grade import GradingError, fmt, grade


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m labkit grade",
        description="Grade exercise notebooks (.ipynb) or otter export zips: run each one in a "
                    "bubblewrap sandbox of its own, then its exercise's public and hidden tests. "
                    "Prints NAME: X/Y points, EXERCISE.")
    ap.add_argument("submissions", nargs="*", help="notebooks or zips; a folder means every "
                    ".ipynb and .zip in it")
    ap.add_argument("--csv", metavar="FILE", help="also write file,exercise,student_id,variant,"
                    "question,points,max rows")
    ap.add_argument("--tests", "--autograder", metavar="DIR", action="append", default=[],
                    dest="autograder",
                    help="an otter assign output folder (or a folder of them) holding the hidden "
                         "tests, e.g. kept outside the repository; default "
                         "exercises/<name>/autograder")
    ap.add_argument("--exercise", metavar="NAME", default=None,
                    help="every submission is this exercise (a notebook naming another one is "
                         "an error); default: the exercise its metadata names, from the book's "
                         "exercises and those in the --tests folders")
    ap.add_argument("--unsafe-no-sandbox", action="store_true",
                    help="where bubblewrap cannot run (grading is refused there without this "
                         "flag), run the notebooks without its sandbox: they can then read "
                         "whatever the user they run as can")
    ap.add_argument("--memory", type=int, default=2048, metavar="MIB",
                    help="address space a notebook may use, in MiB (default 2048)")
    ap.add_argument("--assign", action="store_true",
                    help="first build exercises/<name> from solutions/<name>.ipynb with otter "
                         "assign (the handed-out notebook, public and hidden tests)")
    ap.add_argument("--masters", metavar="DIR",
                    help="with --assign: build from the masters in DIR (kept outside the "
                         "repository) into the first --tests DIR instead of solutions/ into "
                         "exercises/")
    ap.add_argument("--no-run-tests", action="store_true",
                    help="with --assign: do not run the masters against their own tests")
    ap.add_argument("--variant", type=int, default=None, metavar="SEED",
                    help="grade every submission as this variant (0: the book's numbers); "
                         "default: each notebook's own, from the student id in its first cell")
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="seconds one submission may run (default 300)")
    ap.add_argument("-j", "--jobs", type=int, default=None,
                    help="submissions graded at a time (default: the number of CPUs, at most 8)")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="also print each lost question and why")
    return ap


def _expand(paths: list[str]) -> list[Path]:
    out = []
    for p in map(Path, paths):
        try:
            if p.is_dir():
                out += sorted(q for q in p.iterdir() if q.suffix in (".ipynb", ".zip"))
                continue
        except OSError:
            pass            # reported as not a readable file when it is graded
        out.append(p)
    return out


def main(argv=None) -> int:
    ap = _parser()
    args = ap.parse_args(argv)
    if args.assign:
        from ..grading.assign import build
        kwargs = {}
        if args.masters:
            if not args.autograder:
                print("labkit grade: --masters needs --tests DIR (where to build)", file=sys.stderr)
                return 2
            kwargs = {"solutions": Path(args.masters), "out": Path(args.autograder[0])}
        try:
            built = build(run_tests=not args.no_run_tests, **kwargs)
        except GradingError as e:
            print(f"labkit grade: {e}", file=sys.stderr)
            return 2
        for name, path in built.items():
            print(f"built {path}/student and {path}/autograder")
    if not args.submissions:
        if args.assign:
            return 0
        ap.print_usage(sys.stderr)
        print("labkit grade: give at least one notebook or zip to grade", file=sys.stderr)
        return 2
    from ..grading import grade as grade_module
    from ..grading.sandbox import Limits

    try:
        limits = Limits(memory=args.memory << 20).check() if args.memory > 0 else Limits(
            memory=args.memory).check()
        reports = grade(_expand(args.submissions), [Path(d) for d in args.autograder],
                        args.timeout, args.jobs, unsafe=args.unsafe_no_sandbox,
                        variant=args.variant, exercise=args.exercise, limits=limits)
    except LabkitError as e:
        print(f"labkit grade: {e}", file=sys.stderr)
        return 2
    if grade_module.last_isolation:
        print(f"labkit grade: sandbox: {grade_module.last_isolation}", file=sys.stderr)
    failed = 0
    for r in reports:
        if r.exercise is None:
            failed += 1
            print(f"{r.file}: error: {r.error}")
            continue
        who = "" if r.student_id is None else f", student_id {r.student_id!r}"
        variant = "" if r.variant is None else f" (variant {r.variant})"
        print(f"{r.file}: {fmt(r.points)}/{fmt(r.max)} points, {r.exercise}{who}{variant}")
        if r.error:
            print(f"  {r.error}")
        if args.verbose:
            for q in r.questions:
                if q.points < q.max:
                    why = "; ".join(q.messages) or "failed"
                    print(f"  {q.question}: {fmt(q.points)}/{fmt(q.max)}: {why}")
            for e in r.cell_errors:
                print(f"  {e}")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["file", "exercise", "student_id", "variant", "question", "points", "max"])
            for r in reports:
                for q in r.questions:
                    w.writerow([r.file, r.exercise, "" if r.student_id is None else r.student_id,
                                "" if r.variant is None else r.variant, q.question,
                                fmt(q.points), fmt(q.max)])
    return 1 if failed else 0
