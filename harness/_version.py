"""The release of prefix-harness, in a module of its own: the command line reads it without
loading the package's front door (``harness/__init__.py``)."""

__all__ = ["__version__"]

__version__ = "0.1.0"
