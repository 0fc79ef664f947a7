"""Live explorers for a kernel (ipywidgets): type or pick, and the picture follows.

>>> import matplotlib; matplotlib.use("Agg")
>>> ex = layout_explorer("(4,8):(8,1)")
>>> ex.figure.alt_text.startswith("Layout (4,8):(8,1)")
True
>>> ex.text.value = "(4,8):(8,1,1)"            # a mistake becomes a message
>>> "LayoutError" in ex.message.value
True
"""

from __future__ import annotations

import ipywidgets as W

from labkit.errors import LayoutError
from labkit import layout as _layout
from labkit.layout import cosize, make_layout, parse_layout, rank, size
from labkit.widgets.base import Explorer

__all__ = ["LayoutExplorer", "layout_explorer", "DivideProductPlayground", "divide_product_playground",
           "SwizzleExplorer", "swizzle_explorer", "LdmatrixExplorer", "ldmatrix_explorer",
           "OPERATIONS"]


class LayoutExplorer(Explorer):
    """Type ``shape:stride`` (CuTe syntax, ``_n`` static); the table of offsets redraws,
    coloured by value or by bank."""

    def __init__(self, text: str = "(4,8):(8,1)", color_by: str = "value", element_bytes: int = 2):
        self.text = W.Text(value=text, description="layout", continuous_update=False)
        self.color_by = W.Dropdown(options=["value", "bank", "none"], value=color_by, description="colour by")
        self.element_bytes = W.Dropdown(options=[1, 2, 4, 8, 16], value=element_bytes, description="bytes")
        super().__init__([self.text, self.color_by, self.element_bytes])
        self.layout = None
        self.update()

    def render(self):
        from labkit.viz import draw_layout
        L = parse_layout(self.text.value.strip())
        self.layout = L
        fig = draw_layout(L, color_by=self.color_by.value, element_bytes=self.element_bytes.value)
        return fig, f"{L}: size {size(L)}, cosize {cosize(L)}"


def layout_explorer(text: str = "(4,8):(8,1)", **kw) -> LayoutExplorer:
    """A :class:`LayoutExplorer` (display it in a notebook cell)."""
    return LayoutExplorer(text, **kw)


OPERATIONS = ("logical_divide", "zipped_divide", "tiled_divide", "logical_product", "blocked_product",
              "raked_product")


def _parse_tiler(text: str):
    """A layout, or a per-mode tiler written as layouts separated by ``;`` (``2:1; 4:1``)."""
    parts = [p.strip() for p in text.split(";") if p.strip()]
    if not parts:
        raise LayoutError("tiler: empty; write a layout such as 2:1, or one per mode: 2:1; 4:1")
    layouts = tuple(parse_layout(p) for p in parts)
    return layouts[0] if len(layouts) == 1 else layouts


class DivideProductPlayground(Explorer):
    """A layout, a tiler (or block) and an operation; shows the result's text and, when the
    result has rank 1 or 2, its table."""

    def __init__(self, layout: str = "(8,8):(8,1)", tiler: str = "2:1; 4:1", op: str = "zipped_divide"):
        self.layout_text = W.Text(value=layout, description="layout", continuous_update=False)
        self.tiler_text = W.Text(value=tiler, description="tiler", continuous_update=False)
        self.op = W.Dropdown(options=list(OPERATIONS), value=op, description="operation")
        super().__init__([self.layout_text, self.tiler_text, self.op])
        self.result = None
        self.update()

    def render(self):
        from labkit.viz import draw_layout
        L = parse_layout(self.layout_text.value.strip())
        T = _parse_tiler(self.tiler_text.value)
        op = self.op.value
        if op not in OPERATIONS:
            raise LayoutError(f"operation must be one of {OPERATIONS}, got {op!r}")
        if op.endswith("product") and isinstance(T, tuple):
            raise LayoutError(f"{op}: the second operand is one layout (a block), not a per-mode tiler")
        R = getattr(_layout, op)(L, T)
        self.result = R
        shown = R if rank(R) <= 2 else make_layout(R[0], make_layout(*[R[i] for i in range(1, rank(R))]))
        fig = draw_layout(shown, title=f"{op}({L}, {self.tiler_text.value.strip()})")
        note = "" if shown is R else " (modes 1.. grouped into columns)"
        return fig, f"{op} = {R}{note}"


def divide_product_playground(layout: str = "(8,8):(8,1)", tiler: str = "2:1; 4:1",
                              op: str = "zipped_divide") -> DivideProductPlayground:
    """A :class:`DivideProductPlayground`."""
    return DivideProductPlayground(layout, tiler, op)


class SwizzleExplorer(Explorer):
    """Pick a swizzle mode and element type: the atom (``labkit.swizzle_atoms.swizzle_atom``)
    drawn by bank, with the cost of reading one 16-byte column of 8 rows."""

    def __init__(self, mode: str = "SWIZZLE_128B", element: str = "fp16"):
        from labkit.swizzle_atoms import SWIZZLE_MODES
        self.mode = W.Dropdown(options=[m.name for m in SWIZZLE_MODES], value=mode, description="mode")
        self.element = W.Dropdown(options=["fp8", "fp16", "fp32"], value=element, description="element")
        super().__init__([self.mode, self.element])
        self.update()

    def render(self):
        from labkit.banks import bank_conflicts
        from labkit.swizzle_atoms import element_bits, swizzle_atom
        from labkit.viz import draw_layout
        atom = swizzle_atom(self.mode.value, self.element.value)
        eb = element_bits(self.element.value) // 8
        fig = draw_layout(atom, color_by="bank", element_bytes=eb, title=f"{self.mode.value} on {self.element.value}: {atom}")
        # eight lanes read the first 16-byte chunk of each row (a column of chunks)
        res = bank_conflicts([int(atom(r, 0)) * eb for r in range(8)], 16)
        return fig, (f"{atom}: reading chunk 0 of all 8 rows with 16-byte loads takes {res.wavefronts} "
                     f"wavefront(s) ({'conflict-free' if res.conflict_free else f'{res.degree}-way conflict'})")


def swizzle_explorer(mode: str = "SWIZZLE_128B", element: str = "fp16") -> SwizzleExplorer:
    """A :class:`SwizzleExplorer`."""
    return SwizzleExplorer(mode, element)


class LdmatrixExplorer(Explorer):
    """Pick an ldmatrix variant: its routing from source rows to destination lanes and slots."""

    VARIANTS = ("SM75_U32x1_LDSM_N", "SM75_U32x2_LDSM_N", "SM75_U32x4_LDSM_N",
                "SM75_U16x2_LDSM_T", "SM75_U16x4_LDSM_T", "SM75_U16x8_LDSM_T")

    def __init__(self, variant: str = "SM75_U32x4_LDSM_N"):
        self.variant = W.Dropdown(options=list(self.VARIANTS), value=variant, description="variant")
        super().__init__([self.variant])
        self.update()

    def render(self):
        from labkit.viz.routing import draw_ldmatrix_routing, routing
        atom, route = routing(self.variant.value)
        fig = draw_ldmatrix_routing(self.variant.value)
        return fig, (f"{atom.ptx}: {len(route) // 64} matrices, {len(route) // 32} 16-bit slots per lane; "
                     f"src {atom.layout_src}, dst {atom.layout_dst}")


def ldmatrix_explorer(variant: str = "SM75_U32x4_LDSM_N") -> LdmatrixExplorer:
    """A :class:`LdmatrixExplorer`."""
    return LdmatrixExplorer(variant)
