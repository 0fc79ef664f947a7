"""The errors labkit raises: each names the argument and the rule it broke."""

__all__ = ["LabkitError", "LayoutError", "DeviceError", "InstructionError"]


class LabkitError(ValueError):
    """Base class of labkit's input errors (a ``ValueError``)."""


class LayoutError(LabkitError):
    """A layout, shape, stride, coordinate or layout text breaks a rule.

    >>> import labkit as lk
    >>> try:
    ...     lk.make_layout((4, 8), (1,))
    ... except lk.LayoutError as e:
    ...     print("rank" in str(e))
    True
    """


class DeviceError(LabkitError):
    """A GPU launch was refused before it ran (missing GPU, SM too old, bad operand)."""


class InstructionError(LayoutError, DeviceError):
    """The instruction (or atom) does not exist, or the SM cannot run it.

    Raised by the instruction registry (``labkit.atoms.instructions``) for atoms, the simulator,
    the PTX intrinsics and kernel launches alike; it is both a :class:`LayoutError` and a
    :class:`DeviceError`, so either ``except`` catches it.
    """
