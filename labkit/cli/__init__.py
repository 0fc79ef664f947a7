"""Command-line entry points (python -m labkit ...)."""
