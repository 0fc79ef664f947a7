"""labkit.widgets: live explorers for a Jupyter kernel (ipywidgets).

Each explorer recomputes with labkit when a control changes and shows a matplotlib picture;
input mistakes appear as a message under the controls. Without a browser, the state after
each change is in ``.figure``, ``.message.value`` and ``.image.value``.
(The static book shows ``labkit.viz.html`` figures instead: they need no kernel.)

>>> import matplotlib; matplotlib.use("Agg")
>>> from labkit import widgets
>>> ex = widgets.layout_explorer("(2,2):(1,2)")
>>> ex.message.value
'(2,2):(1,2): size 4, cosize 4'
"""

from labkit.widgets.explorers import (OPERATIONS, DivideProductPlayground, LayoutExplorer, LdmatrixExplorer,
                                      SwizzleExplorer, divide_product_playground, layout_explorer,
                                      ldmatrix_explorer, swizzle_explorer)
from labkit.widgets.player import FragmentPlayer, fragment_player

__all__ = ["LayoutExplorer", "layout_explorer", "DivideProductPlayground", "divide_product_playground",
           "SwizzleExplorer", "swizzle_explorer", "LdmatrixExplorer", "ldmatrix_explorer",
           "FragmentPlayer", "fragment_player", "OPERATIONS"]
