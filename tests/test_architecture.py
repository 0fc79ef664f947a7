"""The floors of labkit (ARCHITECTURE.md), checked from the code: every import, read with ``ast``.

Data flows one way: base -> layout -> layout models (axe, banks, sectors, swizzle atoms) -> atoms
-> tiled -> sim | cuda -> labs -> viz -> widgets -> cli and grading. A module may import its own floor or lower ones,
never a higher one (sim and cuda are side by side: neither imports the other), and no files
import each other in a circle. Function-local imports count: deferring an import does not
change which way it points.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "labkit"

# (floor, group) by module prefix, most specific first. Same floor, different group: siblings
# that must not import each other.
FLOORS = [
    ("labkit._version", 0), ("labkit._repository", 0), ("labkit.errors", 0), ("labkit.driver", 0), ("labkit.elements", 0), ("labkit.threads", 0),
    ("labkit.layout", 1),
    ("labkit.axe", 2), ("labkit.banks", 2), ("labkit.swizzle_atoms", 2),
    ("labkit.sectors", 2),
    ("labkit.atoms", 3),
    ("labkit.tiled", 4),
    ("labkit.sim", 5), ("labkit.cuda", 5),
    ("labkit.lab", 6), ("labkit.colab", 6),
    ("labkit.viz", 7),
    ("labkit.widgets", 8),
    ("labkit.cli", 9), ("labkit.__main__", 9), ("labkit.grading", 9),
    ("labkit", 10),                     # the package's face: lk.<name> reaches every floor
]
SIBLINGS = [("labkit.sim", "labkit.cuda")]

# Imports that break the floors today, each with what must change. Nothing else may.
KNOWN_UPWARD = {
    # The grader imports the whole package once before it forks a child per submission, so every
    # child starts with labkit loaded (the submissions import it); it uses no name from it.
    ("labkit.grading.grade", "labkit"),
}
KNOWN_CYCLES: set = set()


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def imports_of(name: str) -> set:
    """The labkit modules ``name`` imports (``from P import m`` counts as P.m when m is a module)."""
    tree = ast.parse(MODULES[name].read_text(), filename=str(MODULES[name]))
    here = name if is_package(name) else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "labkit"}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "labkit":
                continue
            subs = {f"{target}.{a.name}" for a in node.names} & set(MODULES)
            out |= subs or {target}
            if subs and len(subs) < len(node.names):
                out.add(target)
    return {m for m in out if m in MODULES and m != name}


def floor(name: str) -> int:
    for prefix, f in FLOORS:
        if name == prefix or (prefix != "labkit" and name.startswith(prefix + ".")):
            return f
    raise AssertionError(f"{name} has no floor: add it to FLOORS and ARCHITECTURE.md")


def group(name: str) -> str:
    for a, b in SIBLINGS:
        for g in (a, b):
            if name == g or name.startswith(g + "."):
                return g
    return ""


GRAPH = {m: imports_of(m) for m in MODULES}


def test_every_module_has_a_floor():
    for m in MODULES:
        floor(m)


def upward_imports() -> set:
    bad = set()
    for m, targets in GRAPH.items():
        for t in targets:
            if floor(t) > floor(m) or (floor(t) == floor(m) and group(t) and group(m) and group(t) != group(m)):
                bad.add((m, t))
    return bad


def test_no_module_imports_a_higher_floor():
    bad = upward_imports() - KNOWN_UPWARD
    assert not bad, "imports that point up (or across sim | cuda):\n" + "\n".join(
        f"  {m} -> {t} (floor {floor(m)} -> {floor(t)})" for m, t in sorted(bad))


def cycles() -> list:
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(frozenset(comp))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return out


def test_no_files_import_each_other_in_a_circle():
    # A package's __init__ that re-exports its own modules is not a circle with them.
    found = [c for c in cycles() if not all(is_package(m) or any(
        m.startswith(p + ".") for p in c if is_package(p)) for m in c)]
    bad = [sorted(c) for c in found if c not in KNOWN_CYCLES]
    assert not bad, f"files that import each other: {bad}"


# The kernels' three rooms (ARCHITECTURE.md, floor 5): the GEMM ladder, the chapters' experiments,
# traces and probes. The experiments may use the ladder's PTX; no other room imports another.
KERNEL_ROOMS = ("labkit.cuda.kernels.ladder", "labkit.cuda.kernels.experiments", "labkit.cuda.kernels.probes")
KERNEL_ROOM_IMPORTS = {("labkit.cuda.kernels.experiments", "labkit.cuda.kernels.ladder")}


def kernel_room(name: str) -> str:
    return next((r for r in KERNEL_ROOMS if name == r or name.startswith(r + ".")), "")


def test_the_kernel_rooms_import_one_way():
    assert all(r in MODULES for r in KERNEL_ROOMS)
    assert not [m for m in MODULES if m.startswith("labkit.cuda.kernels.") and not kernel_room(m)], \
        "every kernel module lives in one of the rooms ladder/, experiments/, probes/"
    bad = {(m, t) for m, ts in GRAPH.items() for t in ts
           if kernel_room(m) and kernel_room(t) and kernel_room(m) != kernel_room(t)
           and (kernel_room(m), kernel_room(t)) not in KERNEL_ROOM_IMPORTS}
    assert not bad, f"kernel rooms that import each other: {sorted(bad)}"


# A module one can read: none over 500 lines.
MAX_LINES = 500


def test_no_module_is_over_500_lines():
    over = {str(p.relative_to(PACKAGE.parent)): n for p in MODULES.values()
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines (split them by idea): {over}"


def test_the_checks_read_the_imports():
    # The checks above pass on an empty graph too: make sure the graph holds the real imports.
    assert "labkit.atoms" in GRAPH["labkit.tiled.tiled_mma"]
    assert "labkit.layout.offsets" in GRAPH["labkit.banks.layout_access"]
    assert sum(len(ts) for ts in GRAPH.values()) > 100


@pytest.mark.parametrize("source, expected", [
    ("from labkit.sim import fragment_trace", {"labkit.sim.fragment_trace"}),
    ("from ..layout import Layout", {"labkit.layout"}),
    ("import labkit as lk", {"labkit"}),
    ("from .tiled_mma import TiledMMA", {"labkit.tiled.tiled_mma"}),
])
def test_the_import_reader_resolves_what_python_does(source, expected, tmp_path, monkeypatch):
    # The reader above is what every other test here relies on: check it on lines whose meaning
    # Python defines (read as if they stood in labkit/tiled/element_trace.py).
    monkeypatch.setitem(MODULES, "labkit.tiled.element_trace", tmp_path / "element_trace.py")
    (tmp_path / "element_trace.py").write_text(source + "\n")
    assert imports_of("labkit.tiled.element_trace") == expected
