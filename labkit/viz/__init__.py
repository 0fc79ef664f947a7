"""labkit.viz: pictures of layouts, atoms, banks and fragments.

Two kinds of output:

* ``draw_*`` functions return a matplotlib ``Figure`` (colours from the Okabe-Ito palette and
  viridis, alt text in ``fig.alt_text``) that a notebook or the book shows as SVG with real text,
  never narrower than its smallest text needs on a phone or a desktop (``labkit.viz.svg``; a
  pyplot chart goes through ``page_figure``, speeds through ``draw_bars``);
* ``labkit.viz.html`` builds self-contained interactive SVG figures that answer clicks
  without a kernel (``*_figure`` functions returning objects with ``_repr_html_``).

>>> import matplotlib; matplotlib.use("Agg")
>>> import labkit as lk
>>> from labkit import viz
>>> viz.draw_layout(lk.make_layout((2, 4), (4, 1))).alt_text[:22]
'Layout (2,4):(4,1) dra'
"""

from labkit.viz.atoms import draw_banks, draw_mma, draw_swizzle_atom
from labkit.viz.charts import draw_bars
from labkit.viz.copies import draw_tiled_copy
from labkit.viz.fragments import draw_fragments
from labkit.viz.grid import alt_text
from labkit.viz.layouts import draw_layout, draw_tiling, draw_tv_layout
from labkit.viz.mesh import draw_mesh
from labkit.viz.routing import draw_ldmatrix_routing
from labkit.viz.svg import page_figure
from labkit.viz.tables import text_table
from labkit.viz.timeline import draw_timeline
from labkit.viz.tmem import draw_tmem

__all__ = ["alt_text", "draw_layout", "draw_tv_layout", "draw_tiling", "draw_mma", "draw_tiled_copy",
           "draw_swizzle_atom", "draw_banks", "draw_tmem", "draw_mesh", "draw_fragments",
           "draw_ldmatrix_routing", "draw_bars", "draw_timeline", "page_figure", "text_table"]
