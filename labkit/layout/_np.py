"""numpy, imported on first use, so ``import labkit`` does not pay for it."""


class _LazyNumpy:
    __slots__ = ()

    def __getattr__(self, name):
        import numpy
        return getattr(numpy, name)


np = _LazyNumpy()
