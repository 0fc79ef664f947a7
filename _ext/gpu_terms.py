"""Every page links the GPU's words to their definitions where it first uses them.

``book/00_gpu.md`` defines the hardware words the book uses (warp, lane, CTA, shared memory,
bank, sector, request, register, fragment, warpgroup, ...), each under a label (``gpu-warp``).
On every other page, the first use of each word in the prose (not in code, headings, links or
math) becomes a link to its definition, so a reader who does not write CUDA is never handed a
word the book has not defined. :data:`TERMS` is the list; ``tests/test_built_pages.py`` checks
the built pages against it.
"""

from __future__ import annotations

import re

from docutils import nodes

GLOSSARY = "book/00_gpu"

#: (label in book/00_gpu.md, pattern of the word's uses in the prose)
TERMS = (
    ("gpu-thread", r"\bCTAs?\b"),
    ("gpu-thread", r"\bthread blocks?\b"),
    ("gpu-warp", r"\bwarps?\b"),
    ("gpu-warp", r"\blanes?\b"),
    ("gpu-warpgroup", r"\bwarpgroups?\b"),
    ("gpu-register", r"\bregisters?\b"),
    ("gpu-register", r"\bfragments?\b"),
    ("gpu-shared-memory", r"\bshared memory\b"),
    ("gpu-shared-memory", r"\bbanks?\b"),
    ("gpu-swizzle", r"\bswizzle[sd]?\b"),
    ("gpu-sector", r"\bsectors?\b"),
    ("gpu-sector", r"\brequests?\b"),
    ("gpu-tensor-memory", r"\bTMEM\b"),
    ("gpu-tensor-memory", r"\btensor memory\b"),
    ("gpu-cute-words", r"\bpartition(?:s|ed)?\b"),
)
#: (label, instruction): its first use as inline code (```ldmatrix```, ```ldmatrix.x4```) is linked too
CODE_TERMS = (("gpu-cute-words", "ldmatrix"), ("gpu-warpgroup", "wgmma"))
_SKIP = (nodes.literal, nodes.literal_block, nodes.reference, nodes.title, nodes.raw, nodes.math,
         nodes.math_block, nodes.target, nodes.comment, nodes.rubric, nodes.caption)


def _skipped(node) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, _SKIP) or "cell_output" in parent.get("classes", []) \
                or "cell_input" in parent.get("classes", []):
            return True
        parent = parent.parent
    return False


def link_first_uses(doctree, uri: str) -> int:
    """Wrap the first prose use of each term of :data:`TERMS` in ``doctree`` in a link to
    ``uri + "#" + label``; the number of links made."""
    todo = [(label, re.compile(pattern, re.I if pattern == pattern.lower() else 0)) for label, pattern in TERMS]
    made = 0
    for text in list(doctree.findall(nodes.Text)):
        if not todo or _skipped(text):
            continue
        node, parent = text, text.parent
        if not isinstance(parent, (nodes.paragraph, nodes.emphasis, nodes.strong, nodes.inline, nodes.term,
                                   nodes.definition, nodes.list_item)):
            continue
        while True:
            value = node.astext()
            hits = [(m.start(), m.end(), label, rx) for label, rx in todo for m in [rx.search(value)] if m]
            if not hits:
                break
            start, end, label, rx = min(hits)
            todo = [(lab, r) for lab, r in todo if r is not rx]
            ref = nodes.reference(value[start:end], value[start:end], refuri=f"{uri}#{label}",
                                  internal=True, classes=["lk-term"])
            rest = nodes.Text(value[end:])
            new = [nodes.Text(value[:start]), ref, rest]
            index = next(k for k, child in enumerate(parent.children) if child is node)
            parent.remove(node)
            for k, n in enumerate(new):
                parent.insert(index + k, n)
            node = rest
            made += 1
    return made


def link_first_code_uses(doctree, uri: str) -> int:
    """Wrap the first inline-code use of each instruction of :data:`CODE_TERMS` in a link."""
    made = 0
    for label, word in CODE_TERMS:
        for lit in doctree.findall(nodes.literal):
            text = lit.astext()
            if not (text == word or text.startswith(word + ".")) or _skipped(lit):
                continue
            ref = nodes.reference("", "", refuri=f"{uri}#{label}", internal=True, classes=["lk-term"])
            lit.replace_self(ref)
            ref.append(lit)
            made += 1
            break
    return made


def _resolved(app, doctree, docname):
    if docname == GLOSSARY or app.builder.format != "html" or GLOSSARY not in app.env.all_docs:
        return
    uri = app.builder.get_relative_uri(docname, GLOSSARY)
    link_first_uses(doctree, uri)
    link_first_code_uses(doctree, uri)


def setup(app):
    app.connect("doctree-resolved", _resolved)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
