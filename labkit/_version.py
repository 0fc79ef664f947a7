"""The version of labkit."""

__version__ = "0.1.0"
