"""One iter of an Axe layout: an extent, a stride and the named axis the stride moves along."""

from .axes import MEMORY_AXIS, _check_axis_name, _check_int

__all__ = ["AxeIter"]


class AxeIter:
    """An iter ``(extent, stride, axis)``: digit ``c`` (0..extent-1) moves ``c*stride`` on ``axis``.

    ``tagged`` only decides how the stride prints: ``16@m`` (tagged) or ``16`` (bare). A bare
    stride always means the memory axis ``m``; iters on other axes are always tagged. Two iters
    that differ only in ``tagged`` are equal.

    >>> import labkit as lk
    >>> it = lk.AxeIter(4, 32, "TLane")
    >>> it.extent, it.stride, it.axis
    (4, 32, 'TLane')
    >>> str(it), str(lk.AxeIter(8, 16)), str(lk.AxeIter(8, 16, "m", tagged=True))
    ('4:32@TLane', '8:16', '8:16@m')
    >>> lk.AxeIter(8, 16) == lk.AxeIter(8, 16, "m", tagged=True)
    True
    """

    __slots__ = ("extent", "stride", "axis", "tagged")

    def __init__(self, extent, stride, axis=MEMORY_AXIS, *, tagged=None, argument="iter"):
        object.__setattr__(self, "extent", _check_int(extent, f"{argument} extent", positive=True))
        object.__setattr__(self, "stride", _check_int(stride, f"{argument} stride"))
        object.__setattr__(self, "axis", _check_axis_name(axis, f"{argument} axis"))
        if tagged is None:
            tagged = axis != MEMORY_AXIS
        object.__setattr__(self, "tagged", bool(tagged) or axis != MEMORY_AXIS)

    def __setattr__(self, name, value):
        raise AttributeError("AxeIter is immutable")

    def stride_text(self):
        """The stride as the text form writes it: ``32@TLane``, or ``16`` for a bare ``m`` stride.

        >>> import labkit as lk
        >>> lk.AxeIter(2, 1, "gpuid_x").stride_text()
        '1@gpuid_x'
        """
        return f"{self.stride}@{self.axis}" if self.tagged else str(self.stride)

    def _key(self):
        return (self.extent, self.stride, self.axis)

    def __eq__(self, other):
        return isinstance(other, AxeIter) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __str__(self):
        return f"{self.extent}:{self.stride_text()}"

    def __repr__(self):
        tag = ", tagged=True" if self.tagged and self.axis == MEMORY_AXIS else ""
        return f"AxeIter({self.extent}, {self.stride}, {self.axis!r}{tag})"
