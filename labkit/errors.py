"""The errors labkit raises: each names the argument and the rule it broke."""

__all__ = ["LabkitError", "LayoutError", "DeviceError", "InstructionError", "ConfigError"]


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


class ConfigError(DeviceError):
    """A kernel configuration breaks a rule of the kernel it configures: a tile shape, a number of
    stages, a loader, a shared-memory layout the kernel's copies, ldmatrix or TMA cannot use.
    Raised when the configuration is made, before anything is compiled or launched; the message
    starts with ``config`` (or ``config.<field>``) and says the rule.

    >>> import labkit as lk
    >>> from labkit.cuda.kernels.ladder.gemm_config import TileConfig
    >>> try:
    ...     TileConfig(bk=48)
    ... except lk.ConfigError as e:
    ...     print(str(e).split(" (")[0])
    config: bk must be 16, 32 or 64
    """
