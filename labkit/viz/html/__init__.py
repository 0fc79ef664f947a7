"""Interactive figures without a kernel: self-contained SVG + a little inline JavaScript.

Each ``*_figure`` function computes its numbers with labkit and returns an
:class:`HtmlFigure`; Jupyter (JupyterLab, Colab, VS Code) shows it through
``_repr_html_``, and a MyST page shows it from a code cell's output in the built book.
Click or hover over a cell: a panel gives its coordinates and related cells light up.

>>> from labkit.viz import html
>>> fig = html.fragment_figure()
>>> fig.cells[fig.find(coordinate=(5, 3), view="logical")[0]]["info"]["laneid"]
21
"""

from labkit.viz.html.atoms_browser import swizzle_atom_figure
from labkit.viz.html.figure import HtmlFigure
from labkit.viz.html.fragment import fragment_figure
from labkit.viz.html.ldmatrix_figure import ldmatrix_figure
from labkit.viz.html.mesh_figure import mesh_figure
from labkit.viz.html.mma_figure import mma_figure
from labkit.viz.html.path import path_figure
from labkit.viz.html.stepper import bank_stepper_figure
from labkit.viz.html.tiling import tiling_figure
from labkit.viz.html.tmem_figure import sfa_tmem_figure
from labkit.viz.html.xor import xor_swizzle_figure

__all__ = ["HtmlFigure", "tiling_figure", "fragment_figure", "sfa_tmem_figure", "mesh_figure",
           "xor_swizzle_figure", "swizzle_atom_figure", "bank_stepper_figure", "mma_figure",
           "ldmatrix_figure", "path_figure"]
