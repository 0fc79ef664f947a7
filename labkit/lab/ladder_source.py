"""The Python source of a hand-written ladder kernel (steps 1 and 2, plain ``@cuda.jit`` functions)
read as statements: what each one assigns and calls, and the lines that do one piece of work, so
:mod:`labkit.lab.ladder_cute` can set them beside the CuTe calls they stand for.

>>> lines = ["def k(A):", "    s = 0", "    for k in range(4):", "        s += A[k]", "    A[0] = s"]
>>> _, stmts = source_statements(lines)
>>> pick_lines(lines, stmts, names=("s",))          # (count, first line) of each kind
((1, 's = 0'), (1, 's += A[k]'))
>>> loop_lines(stmts, "k")                           # the body of the loop over k
(3, 4)
"""

from __future__ import annotations

import ast

__all__ = ["source_statements", "pick_lines", "loop_lines"]


def source_statements(lines):
    """(tree, [(first line, last line, assigned names, called names, node)]) of kernel source lines,
    compound statements (for, if, while) as their header line only."""
    import textwrap

    tree = ast.parse(textwrap.dedent("\n".join(lines)))
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or isinstance(node, (ast.FunctionDef, ast.Return)):
            continue
        header = isinstance(node, (ast.For, ast.If, ast.While))
        probe = node.iter if isinstance(node, ast.For) else node.test if header else node
        names, calls = set(), set()
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            todo = list(targets)
            while todo:
                t = todo.pop()
                if isinstance(t, ast.Name):
                    names.add(t.id)
                elif isinstance(t, (ast.Tuple, ast.List)):
                    todo += t.elts
                elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                    names.add(t.value.id + "[]")
        if isinstance(node, ast.For):
            names |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        for n in ast.walk(probe):
            if isinstance(n, ast.Call):
                f = n.func
                calls.add(f.id if isinstance(f, ast.Name) else
                          f"{f.value.id}.{f.attr}" if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                          else "")
        last = node.lineno if header else node.end_lineno
        out.append((node.lineno, last, names, calls, node))
    out.sort(key=lambda e: e[0])
    return tree, out


class _Blur(ast.NodeTransformer):
    """Forget what tells repeated statements apart: numbers, and the digits of names."""

    def visit_Constant(self, node):
        return ast.Constant(0) if isinstance(node.value, (int, float)) else node

    def visit_Name(self, node):
        return ast.Name("".join(ch for ch in node.id if not ch.isdigit()), node.ctx)


def _shape(node):
    import copy

    head = node.iter if isinstance(node, ast.For) else node.test if isinstance(node, (ast.If, ast.While)) else node
    return ast.dump(_Blur().visit(copy.deepcopy(head)))


def loop_lines(stmts, loop_var):
    """Line range (first, last) of the body of the ``for`` loop over ``loop_var``."""
    for first, _, names, _, node in stmts:
        if isinstance(node, ast.For) and loop_var in names:
            return first, node.end_lineno
    return None


def pick_lines(lines, stmts, *, names=(), calls=(), prefixes=(), within=None, outside=None, loops=()):
    """Lines of the statements that assign one of ``names`` (or a name starting with one of
    ``prefixes``), call one of ``calls``, or are the ``for`` over one of ``loops``; restricted to
    the line range ``within`` or outside ``outside``. Runs of one kind collapse to (count, first)."""
    import textwrap

    text = textwrap.dedent("\n".join(lines)).splitlines()
    picked = []
    for first, last, assigned, called, node in stmts:
        if within and not within[0] < first <= within[1]:
            continue
        if outside and outside[0] <= first <= outside[1]:
            continue
        if isinstance(node, ast.For):
            kind = ("for", tuple(sorted(assigned))) if assigned & set(loops) else None
        elif assigned & set(names):
            kind = ("assign", tuple(sorted(assigned & set(names))))
        elif any(a.startswith(p) for a in assigned for p in prefixes):
            kind = ("assign", next(p for a in assigned for p in prefixes if a.startswith(p)))
        elif called & set(calls) and not isinstance(node, (ast.If, ast.While)) or (
                isinstance(node, ast.While) and called & set(calls)):
            kind = ("call", tuple(sorted(called & set(calls))))
        else:
            kind = None
        if kind is not None:
            line = " ".join(" ".join(text[first - 1:last]).split())
            picked.append((kind + (type(node).__name__, _shape(node)), line))
    out = []
    for kind, line in picked:
        if out and out[-1][0] == kind:
            out[-1][1] += 1
        else:
            out.append([kind, 1, line])
    return tuple((n, line) for _, n, line in out)
