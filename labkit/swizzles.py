"""Old name of :mod:`labkit.swizzle_atoms` (the hardware swizzle atoms and their recommendation).

Kept only until labkit/__init__.py, labkit/viz and labkit/widgets import the new name.
"""

from labkit.swizzle_atoms import *  # noqa: F401,F403
from labkit.swizzle_atoms import __all__  # noqa: F401
