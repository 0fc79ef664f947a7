"""The fragment-fill player: Play and a slider step through the stages of the trace lab
(nothing loaded, ldmatrix of A, ldmatrix of B, mma.sync). It runs ``labkit.lab.trace_mma``
once on the best backend there is (a GPU, the CUDA simulator, or labkit's numpy model).

>>> import matplotlib; matplotlib.use("Agg")
>>> p = fragment_player(backend="sim")
>>> p.slider.value = 1
>>> p.stage, "ldmatrix of A" in p.message.value
(1, True)
"""

from __future__ import annotations

import ipywidgets as W

from labkit.widgets.base import Explorer

__all__ = ["FragmentPlayer", "fragment_player"]


class FragmentPlayer(Explorer):
    """Play + slider over the stages of one ``trace_mma`` run."""

    def __init__(self, atom=None, variant=None, b_variant=None, backend=None, interval_ms: int = 1200):
        from labkit import lab
        from labkit.viz.fragments import STAGES
        self.trace = lab.trace_mma(atom=atom, variant=variant, b_variant=b_variant, backend=backend)
        self.slider = W.IntSlider(value=0, min=0, max=len(STAGES) - 1, description="stage")
        self.play = W.Play(value=0, min=0, max=len(STAGES) - 1, interval=interval_ms, description="play")
        W.jslink((self.play, "value"), (self.slider, "value"))
        super().__init__([self.play, self.slider])
        self.update()

    @property
    def stage(self) -> int:
        return int(self.slider.value)

    def render(self):
        from labkit.viz.fragments import STAGES, draw_fragments
        fig = draw_fragments(self.trace, self.stage)
        return fig, (f"{STAGES[self.stage]} | {self.trace.atom} on backend '{self.trace.backend}' "
                     f"({self.trace.device}); registers equal labkit.sim: {self.trace.matches_sim}")


def fragment_player(atom=None, variant=None, b_variant=None, backend=None) -> FragmentPlayer:
    """A :class:`FragmentPlayer` (backend ``None`` picks the best available)."""
    return FragmentPlayer(atom, variant, b_variant, backend)
